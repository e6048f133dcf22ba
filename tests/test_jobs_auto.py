"""--jobs auto, the default of run, perft and mutants: what it resolves to, and that
one process and several give the same results and reports."""

import json
import re

from doublecheck.authoring.mutants.kill import chosen_mutants, outcomes_of
from doublecheck.casefiles import load_cases
from doublecheck.cli import build_parser, main
from doublecheck.defaults import CASES_PER_JOB
from doublecheck.harness.runner import RunOptions, run_jobs
from doublecheck.resource_limits import JOBS_AUTO, auto_jobs, cpu_cores
from doublecheck.lookups.commands import perft_jobs
from doublecheck.oracle import variants


def test_auto_is_the_default_of_run_perft_and_mutants():
    parser = build_parser()
    for argv in (["run"], ["perft", "--depth", "3"], ["mutants"]):
        assert parser.parse_args(argv).jobs == JOBS_AUTO
        assert parser.parse_args(argv + ["--jobs", "auto"]).jobs == JOBS_AUTO
        assert parser.parse_args(argv + ["--jobs", "1"]).jobs == 1


def test_auto_is_the_usable_cores_capped_and_one_for_small_work():
    assert auto_jobs() == min(cpu_cores(), 8) >= 1
    assert auto_jobs(work=1) == 1
    cases = list(range(31))                        # one case file
    assert run_jobs(RunOptions(jobs=JOBS_AUTO), cases) == 1
    assert run_jobs(RunOptions(jobs=JOBS_AUTO), list(range(CASES_PER_JOB * 64))) == auto_jobs()
    assert run_jobs(RunOptions(jobs=3), cases) == 3
    chess = variants.get("chess")
    assert perft_jobs(chess, chess.start, 3, False) == 1         # 8,902 nodes: no pool
    assert perft_jobs(chess, chess.start, 6, False) == auto_jobs()


def report(tmp_path, jobs, capsys):
    path = tmp_path / f"report-{jobs}.json"
    code = main(["run", "--variant", "double-move-anul", "--quick", "--quiet", "--jobs", jobs,
                 "--json", str(path)])
    text = capsys.readouterr().out
    data = without_timing(json.loads(path.read_text()))
    assert data["cases"]
    return code, text.splitlines(), data


def without_timing(value):
    """The report without what differs from run to run: times, the start, the process count."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in ("seconds", "started", "jobs")}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def test_a_run_reports_the_same_on_one_process_and_on_two(tmp_path, capsys):
    one = report(tmp_path, "1", capsys)
    two = report(tmp_path, "2", capsys)
    assert one[0] == two[0] == 0
    assert one[2] == two[2]
    assert text_without_timing(one[1]) == text_without_timing(two[1])


def text_without_timing(lines):
    """The text report with its times (and the process count of the summary) taken out."""
    return [re.sub(r"\d+\.\d+|, \d+ jobs", "", line).rstrip() for line in lines]


def test_mutants_give_the_same_outcomes_on_one_process_and_on_two():
    cases, _ = load_cases()
    chosen = chosen_mutants("double-move-anul")[:4]

    def outcomes(jobs):
        return [(o.mutant.name, o.killed, o.killers, o.ran, o.skipped, o.diff)
                for o in outcomes_of(chosen, cases, 20_000, jobs)]
    assert outcomes(1) == outcomes(2)
