"""Hostile input on the harness side: the nesting pre-check,
bounded reads of user files, report files that never replace what they point at, time
limits that cannot leak, engines that cannot flood or spoof the reports, answers tied to
their requests, strict JSON out.

Timing is never asserted here; benchmarks/precheck_bench.py measures the pre-check.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from doublecheck.cli import main
from doublecheck.harness.deadline import TimeLimitExceeded, time_limit
from doublecheck.harness.output import OutputError, write_output
from doublecheck.harness.report import (ANSWER_KEEP, AnswerKeeper, cut_answer, read_xfail,
                                        visible)
from doublecheck.resource_limits import MIN_TIMEOUT, json_depth, loads

ROOT = Path(__file__).resolve().parent.parent
TOYS = ROOT / "tests" / "toy_engines"
CASTLING = ["chess/castling"]


def toy(name: str, *args: str) -> str:
    return " ".join([sys.executable, str(TOYS / name), *args])


def run(argv, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- 26.1: the pre-check and bounded reads ---------------------------------------

def test_the_depth_check_counts_brackets_outside_strings_only():
    assert json_depth('[["[", "\\"]"]]') == 2
    assert json_depth('[[[ "unterminated [[[[') == 3   # the parser stops at the string
    assert json_depth('["\\\\"]') == 1


def test_many_escaped_quotes_are_refused_for_depth_not_parsed_forever():
    line = "[" * 65 + '"' + '\\"' * 100_000
    with pytest.raises(ValueError, match="nest 65 levels"):
        loads(line)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_an_xfail_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "xfail"
    os.mkfifo(fifo)
    entries, problems = read_xfail(fifo)   # a blocking open would never return
    assert entries == {} and "not a regular file" in problems[0]


def test_an_xfail_device_is_refused():
    entries, problems = read_xfail("/dev/zero")
    assert entries == {} and "not a regular file" in problems[0]


def test_an_oversized_xfail_file_is_refused(tmp_path):
    big = tmp_path / "xfail"
    with open(big, "wb") as f:
        f.truncate(16 * 1024 * 1024 + 1)
    _, problems = read_xfail(big)
    assert "larger than 16 MiB" in problems[0]


# --- 26.2: output files ---------------------------------------------------------------

def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("old")
    path.chmod(0o600)
    write_output(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_link_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    write_output(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "real.json").read_text() == "new"


def test_a_fifo_is_written_through_and_without_a_reader_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="no process is reading"):
        write_output(fifo, "x")
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    for _ in range(200):   # until the reader has opened its end
        try:
            write_output(fifo, "through the fifo")
            break
        except OutputError:
            threading.Event().wait(0.01)
    reader.join(10)
    assert got == ["through the fifo"] and stat.S_ISFIFO(fifo.lstat().st_mode)


def private_null(tmp_path) -> Path:
    path = tmp_path / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as e:
        pytest.skip(f"cannot make a device node here ({e}); needs root on Linux")
    return path


def test_reports_to_a_private_null_device_leave_it_a_device(tmp_path, capsys):
    null = private_null(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    status, _, err = run(["run", "-q", *CASTLING, "--json", str(null), "--junit", str(null),
                          "--html", str(null), "--write-xfail", str(null), "--force"], capsys)
    assert status == 0, err
    assert stat.S_ISCHR(null.lstat().st_mode) and os.major(null.lstat().st_rdev) == 1
    status, _, err = run(["run", "-q", *CASTLING, "--json", str(fifo)], capsys)
    assert status == 2 and "error: cannot-write:" in err and "no process is reading" in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(OutputError, match="a directory"):
        write_output(tmp_path, "x")


def test_generate_refuses_a_link_out_of_the_tree(tmp_path):
    from doublecheck.authoring.generate import _write
    tree, outside = tmp_path / "cases", tmp_path / "elsewhere.json"
    (tree / "chess").mkdir(parents=True)
    outside.write_text("mine")
    (tree / "chess" / "generated-x.json").symlink_to(outside)
    inner = tree / "chess" / "inner.json"
    inner.write_text("{}")
    (tree / "chess" / "generated-y.json").symlink_to("inner.json")
    out, err = [], []
    ok = _write({tree / "chess" / "generated-x.json": "{\"a\": 1}\n",
                 tree / "chess" / "generated-y.json": "{\"b\": 2}\n"}, tree,
                _Lines(out), _Lines(err))
    assert not ok and "outside" in "".join(err)
    assert outside.read_text() == "mine"
    assert inner.read_text() == "{\"b\": 2}\n"   # a link inside the tree is followed


class _Lines:
    def __init__(self, into):
        self.into = into

    def write(self, text):
        self.into.append(text)


# --- 26.3: time limits --------------------------------------------------------------

def test_the_smallest_limit_in_process_leaves_the_signal_state_as_it_was():
    before = signal.getsignal(signal.SIGALRM)
    stops = 0
    for _ in range(2000):
        try:
            with time_limit(MIN_TIMEOUT / 1000):   # below the minimum: fires while entering
                sum(range(100))
        except TimeLimitExceeded:
            stops += 1
    assert stops > 0
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_limit_below_the_minimum_is_refused_on_the_command_line(capsys):
    for argv in (["run", "--timeout", "0.0001"], ["serve", "--budget", "0.000001"]):
        status, _, err = run(argv, capsys)
        assert status == 2 and "at least 0.001" in err


def test_serve_with_the_smallest_budget_answers_every_request():
    lines = [json.dumps({"id": i, "op": op, "variant": "chess", **extra})
             for i, (op, extra) in enumerate([("perft", {"depth": 3}), ("moves", {}),
                                              ("perft", {"depth": 3}), ("fen", {})] * 5)]
    done = subprocess.run([sys.executable, "-m", "doublecheck", "serve", "--budget",
                           str(MIN_TIMEOUT)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr[-2000:]
    assert [a["id"] for a in answers] == list(range(len(lines)))
    assert {a.get("error", {}).get("code") for a in answers} <= {None, "budget-exceeded"}


def test_run_with_the_smallest_timeout_exits_with_its_own_status():
    done = subprocess.run([sys.executable, "-m", "doublecheck", "run", "-q", "--timeout",
                           str(MIN_TIMEOUT), "--give-up", "0", "--max-nodes", "5000",
                           "chess/perft", "chess/castling"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), (done.returncode, done.stderr[-2000:])
    assert "FAILED" in done.stdout or "OK" in done.stdout


# --- 26.4 and 31.3, 31.4: hostile engines -------------------------------------------------

def hostile_run(tmp_path, capsys, engine: str, *more, patterns=CASTLING):
    report = tmp_path / "report.json"
    status, out, err = run(["run", "-q", "--engine", engine, "--variant", "chess", *patterns,
                            "--json", str(report), "--junit", str(tmp_path / "junit.xml"),
                            *more], capsys)
    text = report.read_text()
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON report"))
    return status, out, err, data


def test_escapes_and_fake_lines_are_shown_visibly(tmp_path, capsys):
    status, out, err, data = hostile_run(tmp_path, capsys, toy("hostile.py", "--mode", "escapes"),
                                         "--html", str(tmp_path / "report.html"))
    junit = (tmp_path / "junit.xml").read_text()
    page = (tmp_path / "report.html").read_text()
    assert "\\x0d\\x0aOK: 999 passed" in page
    for shown in (out, err, junit, page):
        assert "\x1b" not in shown and "\r" not in shown and "\x07" not in shown
    assert "evil\\x1b[31m" in out and "\\x0d\\x0aOK: 999 passed" in out
    assert not any(line.startswith("OK: 999") for line in out.splitlines())
    assert status == 1


def test_markdown_shows_engine_text_as_text(tmp_path, capsys):
    status, out, _, _ = hostile_run(tmp_path, capsys, toy("hostile.py", "--mode", "escapes"),
                                    "--format", "markdown")
    assert "\x1b" not in out and "evil\\\\x1b\\[31m" in out


def test_a_flood_is_kept_only_in_part(tmp_path, capsys):
    status, _, _, data = hostile_run(tmp_path, capsys, toy("hostile.py", "--mode", "flood"),
                                     patterns=["chess/castling/white-both-wings-legal"])
    case = data["cases"][0]
    assert case["answer_cut"]["moves"] == 1_950_000
    assert len(json.dumps(case["answer"])) <= ANSWER_KEEP


@pytest.mark.parametrize("mode, words", [("deep", "nest 901 levels"), ("nan", "NaN is not JSON")])
def test_deep_or_non_finite_answers_are_protocol_errors(tmp_path, capsys, mode, words):
    status, _, _, data = hostile_run(tmp_path, capsys, toy("hostile.py", "--mode", mode))
    assert {c["outcome"] for c in data["cases"]} == {"error"}
    assert all(words in c["problem"]["message"] for c in data["cases"])


def test_huge_error_messages_are_cut(tmp_path, capsys):
    status, out, _, data = hostile_run(tmp_path, capsys, toy("hostile.py", "--mode", "internal"))
    assert max(len(line) for line in out.splitlines()) < 1100
    assert all(len(c["problem"]["message"]) <= 1100 for c in data["cases"])


def test_a_huge_hello_is_refused_before_the_schema(capsys):
    status, _, err = run(["run", "-q", "--engine", toy("hostile.py", "--mode", "big-hello"),
                          *CASTLING], capsys)
    assert status == 2 and "longer than 65536 bytes" in err


def test_an_adapter_claiming_too_much_is_refused():
    from doublecheck.harness.engines import HelloError, check_claims
    with pytest.raises(HelloError, match="too large"):
        check_claims({"name": "n" * 101, "variants": ["chess"], "ops": ["moves"]}, "x")
    with pytest.raises(HelloError, match="65 entries"):
        check_claims({"name": "n", "variants": ["v"] * 65, "ops": ["moves"]}, "x")


@pytest.mark.parametrize("delay", ["0", "0.02"])
def test_an_engine_writing_every_answer_twice_never_passes(tmp_path, capsys, delay):
    status, _, _, data = hostile_run(tmp_path, capsys, toy("answers_twice.py", "--delay", delay))
    outcomes = {c["outcome"] for c in data["cases"]}
    assert outcomes == {"error"}, outcomes
    messages = " ".join(c["problem"]["message"] for c in data["cases"])
    assert any(k in messages for k in ("already answered", "again", "not sent yet",
                                       "no request had"))


def test_an_answer_under_an_id_never_sent_names_both_ids(tmp_path, capsys):
    from doublecheck.harness.protocol import Client
    client = Client([sys.executable, str(TOYS / "wrong_id.py")], timeout=10)
    try:
        client.hello()
        with pytest.raises(Exception) as e:
            client.call({"op": "moves", "variant": "chess", "fen": "4k3/8/8/8/8/8/8/4K2R w - - 0 1"})
        assert "id 1002" in str(e.value) and "no request had" in str(e.value) \
            and "the request had id 2" in str(e.value)
    finally:
        client.close()


# --- strict JSON and the JSON report always writable ----------------------------------

def test_kept_answers_are_strict_json_whatever_an_adapter_returned():
    deep: list = []
    for _ in range(900):
        deep = [deep]
    answer = {"ok": True, "nodes": float("nan"), "big": 10 ** 5000, "deep": deep,
              "other": {1, 2}, "inf": float("inf")}
    kept, cuts = AnswerKeeper().keep(answer)
    json.dumps(kept, allow_nan=False)
    assert kept["nodes"] == "nan" and kept["inf"] == "inf" and "5000 digits" in kept["big"]
    assert kept["other"] == "<set>" and any(path.startswith("deep") for path in cuts)


def test_the_run_total_of_kept_answers_is_bounded():
    keeper = AnswerKeeper(total=100)
    first, _ = keeper.keep({"ok": True, "moves": ["e2e4"] * 5})
    second, cuts = keeper.keep({"ok": True, "moves": ["e2e4"] * 5})
    assert first["moves"] and second == {"ok": True} and "$" in cuts


def test_visible_shows_every_control_character():
    assert visible("a\x1b[2J\r\n\x00\u202e\ud800\x9b") == "a\\x1b[2J\\x0d\\x0a\\x00\\u202e\\ud800\\x9b"
    assert cut_answer({"s": "x" * 3000})[1] == {"s": 3000}


def test_the_docs_state_the_round_two_limits():
    from doublecheck.harness import report
    from doublecheck.harness.protocol import MAX_CLAIMS, MAX_HELLO_LINE, MAX_NAME
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    limits = protocol.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    for stated in (f"{MAX_HELLO_LINE // 1024} KiB", f"at most {MAX_CLAIMS} variants",
                   f"at most {MAX_NAME} characters", f"{report.ANSWER_KEEP // 1024} KiB of JSON",
                   f"{report.ANSWERS_TOTAL // 2 ** 20} MiB per run", f"nesting to {report.ANSWER_DEPTH}",
                   f"{report.LINE_CHARS:,} characters", f"{report.CASE_LINES} lines",
                   f"from {MIN_TIMEOUT:g}"):
        assert stated in limits, stated
