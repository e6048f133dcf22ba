"""The engine-process layer: no hang whatever an engine does with its pipes, nothing left running
after a run, the same time limit for in-process engines, the server's budget, the engine kinds.

The misbehaving engines are in tests/toy_engines: ``closes_stdout`` (closes its stdout and stays
alive), ``crash_leaves_child`` (dies, leaving a child that holds its stderr), ``setsid_child``
(leaves a setsid() child and a daemon behind, and hangs on the trigger position). The processes
they leave carry $TOY_TAG on their command line and write their pids to $TOY_PIDS, so each test
checks with pgrep and /proc that none of them survives (neither running nor as a zombie).

Timing: a run that takes longer than HANG_GUARD has hung (before this layer these runs never
ended); how long each really takes is printed by benchmarks/hang_cases.py.
"""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from doublecheck.cli import main
from doublecheck.harness.deadline import Deadline, TimeLimitExceeded, time_limit
from doublecheck.harness.engines import (ENGINE_KINDS, AdapterEngine, EngineFailure, OracleEngine,
                                         SubprocessEngine, engine_spec)
from doublecheck.harness.process import LineProcess
from doublecheck.harness.serve import DEFAULT_BUDGET, serve
from doublecheck.harness.uci import UciEngine

ROOT = Path(__file__).resolve().parent.parent
TOYS = ROOT / "tests" / "toy_engines"
sys.path.insert(0, str(TOYS))
sys.path.insert(0, str(ROOT / "tests"))
from test_harness import ALL_IDS, CASES, case, write_tree  # noqa: E402
from toy import TRIGGER_FEN  # noqa: E402
from toy_engines import adapters  # noqa: E402

HANG_GUARD = 60   # seconds; every run below ends within its --timeout plus a few seconds
LINUX = sys.platform.startswith("linux")


def toy(name, *args) -> str:
    return " ".join(shlex.quote(a) for a in [sys.executable, str(TOYS / f"{name}.py"), *args])


class Leftovers:
    """The processes toy engines leave behind: tagged for pgrep, their pids in a file."""

    def __init__(self, tmp_path):
        self.tag = f"doublecheck-test-{uuid.uuid4().hex}"
        self.file = tmp_path / "toy-pids"
        self.env = dict(os.environ, TOY_TAG=self.tag, TOY_PIDS=str(self.file))

    def pids(self) -> list[int]:
        return [int(p) for p in self.file.read_text().split()] if self.file.exists() else []

    def survivors(self) -> list[str]:
        """Every toy process still there: by pgrep on the tag, and by pid (running or zombie)."""
        found = subprocess.run(["pgrep", "-f", self.tag], capture_output=True, text=True).stdout.split()
        out = [f"pgrep: {pid}" for pid in found]
        for pid in self.pids():
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                out.append(f"pid {pid} in state {state}")
            except OSError:
                pass
        return out

    def end(self):
        """Kill by pid whatever survived a failing test, so that it does not outlive the tests."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def leftovers(tmp_path, monkeypatch):
    left = Leftovers(tmp_path)
    monkeypatch.setenv("TOY_TAG", left.tag)
    monkeypatch.setenv("TOY_PIDS", str(left.file))
    yield left
    left.end()


def run_cli(tmp_path, tree, leftovers, *argv):
    """``doublecheck run`` as its own process (as users run it); exit code, JSON report, stderr."""
    report = tmp_path / "report.json"
    try:
        proc = subprocess.run([sys.executable, "-m", "doublecheck", "run", "--cases-dir", str(tree),
                               "--json", str(report), *argv], cwd=ROOT, env=leftovers.env,
                              capture_output=True, text=True, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"doublecheck run {' '.join(argv)} hung (no end within {HANG_GUARD} s)")
    data = json.loads(report.read_text())
    return proc.returncode, {c["id"]: c for c in data["cases"]}, proc.stderr


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "cases")


# --- the harness never hangs, and leaves nothing behind ------------------------

needs_proc = pytest.mark.skipif(not LINUX, reason="finding descendants needs Linux's /proc")


def test_engine_that_closes_stdout_but_lives_on_is_a_crash(tmp_path, tree, leftovers):
    code, cases, _ = run_cli(tmp_path, tree, leftovers, "--engine", toy("closes_stdout"),
                             "--timeout", "2")
    assert code == 1
    trigger = cases.pop("chess/toy/trigger-moves")
    assert trigger["outcome"] == "error"
    assert trigger["lines"][0] == ("crash: the engine closed its output (still running, killed); "
                                   "it will be restarted")
    assert "  | toy engine: closing my output, but staying alive" in trigger["lines"]
    assert {c["outcome"] for c in cases.values()} == {"passed"}
    assert leftovers.survivors() == []


def test_engine_that_dies_leaving_a_child_on_its_stderr_is_a_crash(tmp_path, tree, leftovers):
    code, cases, _ = run_cli(tmp_path, tree, leftovers, "--engine", toy("crash_leaves_child"),
                             "--timeout", "2")
    assert code == 1
    trigger = cases.pop("chess/toy/trigger-moves")
    assert trigger["lines"][0].startswith("crash: the engine closed its output (exit status 3)")
    assert "  | toy engine: dying, my child keeps my stderr" in trigger["lines"]
    assert {c["outcome"] for c in cases.values()} == {"passed"}
    assert len(leftovers.pids()) == 1
    assert leftovers.survivors() == []


@needs_proc
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_setsid_children_and_daemons_do_not_outlive_the_run(tmp_path, tree, leftovers, jobs):
    code, cases, _ = run_cli(tmp_path, tree, leftovers, "--engine", toy("setsid_child"),
                             "--timeout", "2", "--jobs", jobs)
    assert code == 1
    assert cases.pop("chess/toy/trigger-moves")["lines"][0].startswith("timeout: no answer within 2 s")
    assert {c["outcome"] for c in cases.values()} == {"passed"}
    # two per engine process: each of the N first processes, and the one started after the hang
    # two per engine process: the first N, and (usually) one more started after the hang
    assert len(leftovers.pids()) >= 2 * int(jobs) and len(leftovers.pids()) % 2 == 0
    assert leftovers.survivors() == []


@needs_proc
def test_the_harness_reaps_what_it_kills_in_its_own_process(leftovers):
    """In-process (the test process is the harness): the daemon, re-parented to it as a child
    subreaper, is killed and reaped, so not even a zombie is left."""
    engine = SubprocessEngine(toy("setsid_child"), timeout=20)
    try:
        engine.hello()
        assert engine.request({"op": "fen", "variant": "chess"})["ok"]
        deadline = time.monotonic() + HANG_GUARD
        while len(leftovers.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        daemons = leftovers.pids()
        assert len(daemons) == 2 and all(Path(f"/proc/{p}").exists() for p in daemons)
    finally:
        engine.close()
    assert leftovers.survivors() == []


def test_a_process_group_member_left_after_a_clean_exit_is_ended(leftovers):
    script = ("import sys; sys.path.insert(0, %r); import toy; toy.linger(); "
              "sys.stdin.read()" % str(TOYS))
    process = LineProcess([sys.executable, "-c", script])
    process.start()
    deadline = time.monotonic() + HANG_GUARD
    while not leftovers.pids() and time.monotonic() < deadline:
        time.sleep(0.01)
    process.close()   # the engine exits at end of input; its child would sleep on
    assert len(leftovers.pids()) == 1 and leftovers.survivors() == []


def test_an_engine_that_does_not_read_its_input_cannot_block_a_request():
    process = LineProcess([sys.executable, "-c", "import time; time.sleep(3600)"])
    process.start()
    with pytest.raises(EngineFailure) as failure:
        process.send("x" * (4 << 20), Deadline(0.5))   # more than any pipe buffer
    assert failure.value.kind == "timeout"
    assert failure.value.message == "the engine did not read its input within 0.5 s; the engine was killed"
    assert not process.running


def test_a_line_without_end_times_out_and_a_stray_line_is_seen_before_the_next_request():
    process = LineProcess([sys.executable, "-c", "import sys, time\nsys.stdout.write('no newline')\n"
                           "sys.stdout.flush(); time.sleep(3600)"])
    process.start()
    with pytest.raises(EngineFailure) as failure:
        process.read_line(Deadline(0.5))
    assert failure.value.kind == "timeout" and failure.value.restarted
    process.start()
    deadline = time.monotonic() + HANG_GUARD
    while not process.unread() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.unread() == b"no newline"
    process.kill()


def test_the_uci_bridge_uses_the_same_transport():
    engine = UciEngine([sys.executable, str(TOYS / "fake_uci.py"), "mute"], timeout=30)
    try:
        engine.hello()
        with pytest.raises(EngineFailure) as failure:
            engine.request({"op": "perft", "variant": "chess", "depth": 3})
        assert failure.value.kind == "crash"
        assert failure.value.message == "the engine closed its output (still running, killed)"
        assert engine.request({"op": "perft", "variant": "chess", "depth": 2})["nodes"] == 400
    finally:
        engine.close()


# --- one request's limit: request(req, timeout=...) ------------------------------

PERFT_FOREVER = {"op": "perft", "variant": "chess", "depth": 3}   # for the toys below
START_MOVES = {"op": "moves", "variant": "chess"}


@pytest.mark.parametrize("make,hangs_on", [
    (lambda: SubprocessEngine(toy("hang"), timeout=300),
     {"op": "moves", "variant": "chess", "fen": TRIGGER_FEN}),
    (lambda: UciEngine([sys.executable, str(TOYS / "fake_uci.py"), "hang"], timeout=300),
     PERFT_FOREVER),
    (lambda: AdapterEngine(adapters.Endless(), timeout=300), PERFT_FOREVER),
], ids=["protocol", "uci", "adapter"])
def test_every_engine_kind_takes_a_limit_per_request(make, hangs_on):
    engine = make()
    try:
        engine.hello()
        with pytest.raises(EngineFailure) as failure:
            engine.request(hangs_on, timeout=0.5)
        assert failure.value.kind == "timeout" and "no answer within 0.5 s" in failure.value.message
        assert engine.request(START_MOVES, timeout=0)["ok"]   # 0: no limit
    finally:
        engine.close()


def test_in_process_adapter_is_stopped_at_its_limit_and_goes_on():
    engine = AdapterEngine(adapters.Endless(), timeout=300)
    engine.hello()
    with pytest.raises(EngineFailure) as failure:
        engine.request(PERFT_FOREVER, timeout=0.3)
    assert failure.value.kind == "timeout"
    assert failure.value.message == "no answer within 0.3 s; the request was stopped"
    assert engine.request(START_MOVES)["ok"]
    with pytest.raises(EngineFailure, match="within 0.2 s"):
        AdapterEngine(adapters.Endless(), timeout=0.2).request(PERFT_FOREVER)  # its own limit


def test_in_process_limit_holds_in_a_worker_thread_too():
    outcome = []

    def work():
        try:
            AdapterEngine(adapters.Endless()).request(PERFT_FOREVER, timeout=0.3)
        except EngineFailure as e:
            outcome.append(e.message)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert outcome == ["no answer within 0.3 s; the request was stopped"]


def test_the_oracle_in_process_gets_the_limit():
    engine = OracleEngine(timeout=0.3)
    with pytest.raises(EngineFailure, match="no answer within 0.3 s"):
        engine.request({"op": "perft", "variant": "chess", "depth": 12})
    assert engine.request({"op": "perft", "variant": "chess", "depth": 1}) == {"ok": True, "nodes": 20}


def test_a_hostile_case_file_cannot_hang_an_in_process_run(tmp_path, capsys):
    deep = case("wrong-depth-12", {"op": "perft", "depth": 12}, {"nodes": 5})
    tree = write_tree(tmp_path / "cases", [deep, CASES[0]])
    report = tmp_path / "r.json"
    code = main(["run", "--cases-dir", str(tree), "--timeout", "1", "--json", str(report)])
    capsys.readouterr()
    cases = {c["id"]: c for c in json.loads(report.read_text())["cases"]}
    assert code == 1
    assert cases["chess/toy/wrong-depth-12"]["outcome"] == "error"
    first, hint = cases["chess/toy/wrong-depth-12"]["lines"]
    # the perft share of the limit is 5 / 20000 s: the case expects 5 nodes
    assert first == "timeout: no answer within 1.00025 s; the request was stopped"
    assert hint.startswith("this case expects 5 perft nodes, so its limit was 1.00025 s")
    assert cases[ALL_IDS[0]]["outcome"] == "passed"


def test_an_adapter_answering_budget_exceeded_is_a_timeout():
    with pytest.raises(EngineFailure) as failure:
        AdapterEngine(adapters.OverBudget()).request({"op": "moves", "variant": "chess"})
    assert failure.value.kind == "timeout"
    assert "budget-exceeded: this request ran for my whole budget of 1 s" in failure.value.message


# --- the limit itself ---------------------------------------------------------------

def spin():
    while True:
        pass


def test_time_limit_stops_a_loop_and_a_sleep_and_is_not_swallowed():
    with pytest.raises(TimeLimitExceeded) as stopped:
        with time_limit(0.2):
            spin()
    assert stopped.value.seconds == 0.2
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.2):
            time.sleep(3600)
    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.2):
            while True:
                try:
                    spin()
                except Exception:
                    pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("seconds", [None, 0, -1, float("inf"), float("nan")])
def test_no_limit_values(seconds):
    with time_limit(seconds):
        time.sleep(0.01)
    assert Deadline(seconds).left() is None and not Deadline(seconds).passed()


def test_nested_limits_each_fire_and_the_caller_alarm_is_kept():
    order = []
    with pytest.raises(TimeLimitExceeded) as outer:
        with time_limit(1.0):
            with pytest.raises(TimeLimitExceeded) as inner:
                with time_limit(0.2):
                    spin()
            order.append(inner.value.seconds)
            with time_limit(30):   # later than the outer one: the outer one still fires
                spin()
    order.append(outer.value.seconds)
    assert order == [0.2, 1.0]
    previous = signal.signal(signal.SIGALRM, signal.SIG_IGN)
    try:
        with time_limit(0.05):
            pass
        assert signal.getsignal(signal.SIGALRM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGALRM, previous)


class StopsInItsFinalizer:
    """An object whose finalizer runs until the limit stops it there. Python cannot pass an
    exception out of a finalizer: it reports it as "Exception ignored" and goes on after
    the ``del``, so the stop that landed in the finalizer is lost (garbage collection runs
    finalizers at any moment: a request cannot keep them out)."""

    def __del__(self):
        end = time.monotonic() + 5
        while time.monotonic() < end:
            pass


def swallow_a_stop_then_spin(seconds: float) -> int:
    """Lose the first stop in a finalizer, then spin: a limit that holds stops the spin too.
    Returns how many stops were lost (the pytest.fail below means the request ran on)."""
    lost = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda report: lost.append(report.exc_type)
    try:
        with pytest.raises(TimeLimitExceeded):
            with time_limit(seconds):
                victim = StopsInItsFinalizer()
                del victim
                end = time.monotonic() + 5
                while time.monotonic() < end:
                    pass
                pytest.fail("the request ran on after its first stop was lost in a finalizer")
    finally:
        sys.unraisablehook = hook
    return len([t for t in lost if issubclass(t, TimeLimitExceeded)])


def test_a_stop_lost_in_a_finalizer_is_raised_again():
    assert swallow_a_stop_then_spin(0.2) == 1


def test_a_stop_lost_in_a_finalizer_is_raised_again_in_a_worker_thread():
    lost = []
    worker = threading.Thread(target=lambda: lost.append(swallow_a_stop_then_spin(0.2)))
    worker.start()
    worker.join(30)
    assert lost == [1]


# --- the server's budget ----------------------------------------------------------

def test_serve_answers_budget_exceeded_and_goes_on():
    import io
    lines = [{"id": 1, "op": "perft", "variant": "chess", "depth": 9},
             {"id": 2, "op": "perft", "variant": "chess", "depth": 1}]
    out = io.BytesIO()
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    assert serve(None, io.BytesIO(data), out, budget=0.3) == 0
    first, second = [json.loads(line) for line in out.getvalue().splitlines()]
    assert first["id"] == 1 and first["error"]["code"] == "budget-exceeded"
    assert "budget of 0.3 s" in first["error"]["message"] and "--budget" in first["error"]["message"]
    assert second == {"id": 2, "ok": True, "nodes": 20}


def test_serve_budget_from_the_command_line():
    requests = "".join(json.dumps(r) + "\n" for r in [
        {"id": 1, "op": "hello", "protocol": ["1"]},
        {"id": 2, "op": "perft", "variant": "chess", "depth": 9},
        {"id": 3, "op": "moves", "variant": "chess", "fen": "7k/8/8/8/8/8/8/K7 w - - 0 1"}])
    proc = subprocess.run([sys.executable, "-m", "doublecheck", "serve", "--budget", "0.5"],
                          input=requests, capture_output=True, text=True, timeout=HANG_GUARD, cwd=ROOT)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0 and [a["id"] for a in answers] == [1, 2, 3]
    assert answers[1]["error"]["code"] == "budget-exceeded"
    assert sorted(answers[2]["moves"]) == ["a1a2", "a1b1", "a1b2"]


def test_a_limit_of_years_is_held_as_the_longest_the_timers_take():
    from doublecheck.harness.deadline import LONGEST, Deadline
    assert Deadline(1e12).seconds == LONGEST
    with time_limit(1e12):   # no OverflowError from the timer
        pass


def test_a_server_over_its_budget_is_a_timeout_in_the_run(tmp_path, leftovers):
    deep = case("start-depth-9", {"op": "perft", "depth": 9}, {"nodes": 2439530234167})
    tree = write_tree(tmp_path / "deep", [deep, CASES[0]])
    serve_cmd = shlex.join([sys.executable, "-m", "doublecheck", "serve", "--budget", "0.5"])
    code, cases, _ = run_cli(tmp_path, tree, leftovers, "--engine", serve_cmd, "--timeout", "30")
    assert code == 1
    assert cases["chess/toy/start-depth-9"]["lines"][0].startswith(
        "timeout: the engine stopped the request at its own time limit (budget-exceeded: ")
    assert cases[ALL_IDS[0]]["outcome"] == "passed"


def test_budget_option_is_checked_and_documented(capsys):
    assert main(["serve", "--budget", "-1"]) == 2
    assert "--budget" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--budget SECONDS" in capsys.readouterr().out
    protocol_doc = (ROOT / "docs" / "protocol.md").read_text()
    assert f"`--budget {DEFAULT_BUDGET:g}`" in protocol_doc and "`budget-exceeded`" in protocol_doc


# --- the engine kinds: one table ------------------------------------------------

def test_every_engine_kind_comes_from_the_table():
    assert engine_spec().kind is ENGINE_KINDS["oracle"]
    assert engine_spec("uci:/usr/games/stockfish").kind is ENGINE_KINDS["uci"]
    assert engine_spec("uci:/usr/games/stockfish").describe() == "UCI engine '/usr/games/stockfish'"
    assert engine_spec("./my-engine --fast").kind is ENGINE_KINDS["command"]
    assert engine_spec(adapter="my_module:MyAdapter").kind is ENGINE_KINDS["adapter"]
    assert engine_spec(adapter="my_module:MyAdapter").describe() == "adapter my_module:MyAdapter"


def test_in_process_kinds_run_as_serve_processes_without_a_second_limit():
    oracle = engine_spec(timeout=7).make_process()
    adapter = engine_spec(adapter="tests.toy_engines.adapters:ChessMovesOnly").make_process()
    try:
        assert oracle.client.argv[-4:] == ["doublecheck", "serve", "--budget", "0"]
        assert oracle.client.timeout == 7
        assert adapter.client.argv[-4:] == ["--budget", "0", "--adapter",
                                            "tests.toy_engines.adapters:ChessMovesOnly"]
    finally:
        oracle.close()
        adapter.close()
    assert isinstance(engine_spec(timeout=7).make(), OracleEngine)
    assert engine_spec(timeout=7).make().timeout == 7


@pytest.mark.parametrize("engine,message", [
    ("'unterminated", "cannot be read as a command line"),   # refused by the parser
    ("uci:", "names no program"),                             # refused by the parser
    ("", "names no program"),                                 # refused by the parser
])
def test_unusable_engine_commands_are_clear_errors(capsys, tree, engine, message):
    code = main(["run", "--cases-dir", str(tree), "--engine", engine])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "internal-error" not in err
