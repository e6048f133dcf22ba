"""The pytest plugin: `pytest --doublecheck-adapter MODULE:CLASS` runs the cases as pytest items
(doublecheck docs pytest). Each test runs pytest in a child process, in a folder of its own
holding an engine's adapter, as an engine author's CI would."""

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.harness.runner import select_cases

ENGINE = Path(__file__).resolve().parent / "data" / "plugin_engine"
GOOD = "doublecheck.adapters.python_chess_adapter:PythonChessAdapter"
WRONG = "wrong_adapter:NoShortCastling"


@pytest.fixture
def project(tmp_path):
    shutil.copy(ENGINE / "wrong_adapter.py", tmp_path)
    return tmp_path


def pytest_in(folder, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "pytest", *args],
                          cwd=folder, capture_output=True, text=True, timeout=timeout)


def collected_ids(output: str) -> list[str]:
    return [line for line in output.splitlines() if line and "::" in line and " " not in line]


def as_node_id(case_id: str) -> str:
    """chess/castling/x -> chess/castling::x (the case file's node, then the case)."""
    folder, name = case_id.rsplit("/", 1)
    return f"{folder}::{name}"


def test_the_plugin_is_off_unless_asked(project):
    (project / "test_own.py").write_text("def test_own():\n    pass\n")
    proc = pytest_in(project, "--collect-only", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test_own.py::test_own" in proc.stdout
    assert "1 test collected" in proc.stdout


def test_every_selected_case_is_an_item_under_its_case_file_and_co_counts_them(project):
    (project / "test_own.py").write_text("def test_own():\n    pass\n")
    proc = pytest_in(project, "--collect-only", "-q", "--doublecheck-adapter", GOOD,
                     "--doublecheck-variant", "double-move")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cases, _ = load_cases()
    want = [as_node_id(c.id) for c in select_cases(cases, "double-move")]
    assert collected_ids(proc.stdout) == ["test_own.py::test_own", *want]
    assert f"{len(want) + 1} tests collected" in proc.stdout


def test_a_printed_node_id_or_a_case_id_given_back_selects_those_cases_only(project):
    (project / "test_own.py").write_text("def test_own():\n    pass\n")
    first = pytest_in(project, "-q", "-p", "no:cacheprovider", "--doublecheck-adapter", WRONG,
                      "--doublecheck-variant", "chess", "-k", "castling")
    failed = [line.split()[1] for line in first.stdout.splitlines()
              if line.startswith("FAILED ") and " - " in line]
    assert len(failed) >= 2 and all("::" in f for f in failed), first.stdout
    again = pytest_in(project, "-q", "-p", "no:cacheprovider", "--doublecheck-adapter", WRONG,
                      failed[0], failed[1].replace("::", "/"), "chess/en-passant/black-captures-right-after")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "2 failed, 1 passed" in again.stdout   # and not test_own.py
    both = pytest_in(project, "-q", "-p", "no:cacheprovider", "--doublecheck-adapter", WRONG,
                     failed[0], "test_own.py")
    assert "1 failed, 1 passed" in both.stdout, both.stdout


def test_a_case_argument_that_matches_nothing_is_a_usage_error(project):
    proc = pytest_in(project, "--doublecheck-adapter", GOOD, "chess/no-such-file::nothing")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "no case matches chess/no-such-file/nothing" in proc.stderr


def test_junit_classname_names_the_variant_and_case_file(project):
    proc = pytest_in(project, "-q", "-p", "no:cacheprovider", "--doublecheck-adapter", WRONG,
                     "chess/castling::white-both-wings-legal", "chess/en-passant",
                     "--junitxml", "report.xml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cases = ET.parse(project / "report.xml").getroot().iter("testcase")
    named = {(c.get("classname"), c.get("name")) for c in cases}
    assert ("chess.castling", "white-both-wings-legal") in named
    assert {classname for classname, _ in named} == {"chess.castling", "chess.en-passant"}


def test_the_documented_oracle_adapter_passes_a_variants_cases(project):
    proc = pytest_in(project, "-q", "-p", "no:cacheprovider", "--doublecheck-adapter",
                     "doublecheck.adapters.oracle:OracleAdapter", "--doublecheck-variant",
                     "double-move", "--doublecheck-quick")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_a_failing_case_shows_the_runs_diff_and_x_stops_there(project):
    proc = pytest_in(project, "-x", "-k", "castling", "--doublecheck-adapter", WRONG,
                     "--doublecheck-variant", "chess")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed" in proc.stdout and "stopping after 1 failures" in proc.stdout
    assert "missing (expected, not produced): e1g1 (O-O)" in proc.stdout
    assert "request:     variant=chess op=moves" in proc.stdout


def test_last_failed_reruns_only_the_failures_and_junit_names_them(project):
    first = pytest_in(project, "--doublecheck-adapter", WRONG, "--doublecheck-variant", "chess",
                      "--doublecheck-quick", "-q")
    assert first.returncode == 1, first.stdout + first.stderr
    summary = [line for line in first.stdout.splitlines() if line.startswith("FAILED ") and " - " in line]
    failed = [line.split()[1] for line in summary]
    assert failed and all(f.startswith("chess/") and "::" in f for f in failed)
    again = pytest_in(project, "--lf", "--doublecheck-adapter", WRONG, "--doublecheck-variant",
                      "chess", "--doublecheck-quick", "-q", "--junitxml", "report.xml")
    assert f"{len(failed)} failed" in again.stdout, again.stdout
    suite = ET.parse(project / "report.xml").getroot().find("testsuite")
    assert int(suite.get("failures")) == len(failed)
    assert int(suite.get("tests")) == len(failed)


def test_a_passing_adapter_passes_and_unclaimed_cases_are_skipped_with_the_reason(project):
    proc = pytest_in(project, "--doublecheck-adapter", GOOD, "--doublecheck-quick", "-rs", "-q",
                     "-k", "double-chess/castling or chess/castling")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "does not claim variant double-chess" in proc.stdout
    assert " failed" not in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None,
                    reason="pytest-xdist is not installed (pip install pytest-xdist)")
def test_cases_spread_over_xdist_workers(project):
    proc = pytest_in(project, "-n", "2", "-p", "no:cacheprovider", "--doublecheck-adapter", WRONG,
                     "--doublecheck-variant", "chess", "--doublecheck-quick", "-q")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "missing (expected, not produced): e1g1 (O-O)" in proc.stdout


@pytest.mark.parametrize("value", ["0.0000001", "-1", "nan"])
def test_a_time_limit_is_checked_as_the_run_checks_it(project, value):
    proc = pytest_in(project, "--doublecheck-adapter", GOOD, f"--doublecheck-timeout={value}")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--doublecheck-timeout" in proc.stderr


@pytest.mark.parametrize("adapter, message", [
    ("no_such_module:Engine", "cannot import 'no_such_module'"),
    ("wrong_adapter", "wants module:Class"),
])
def test_a_bad_adapter_is_a_usage_error(project, adapter, message):
    proc = pytest_in(project, "--doublecheck-adapter", adapter)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert message in proc.stderr
