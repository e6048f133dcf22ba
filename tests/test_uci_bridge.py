"""The UCI bridge (tools/uci.py): real engines pass the chess cases, a flawed one is caught.

Stockfish and Fairy-Stockfish come from the Debian packages ``stockfish`` and
``fairy-stockfish``. Where a binary is missing its test is skipped with the
reason, except in CI (``CI=true``), where a missing engine is a failure.
``tests/toy_engines/fake_uci.py`` is a small UCI engine with a chosen flaw.
"""

import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.harness.compare import compare
from doublecheck.harness.protocol import EngineFailure
from doublecheck.harness.runner import run_case, skip_reason
from doublecheck.harness.uci import UciEngine

FAKE = Path(__file__).parent / "toy_engines" / "fake_uci.py"
CHESS = [c for c in load_cases()[0] if c.variant == "chess"]
MAX_NODES = 5_000_000   # every chess perft case; Stockfish needs seconds for all of them


def fake(mode: str, timeout: float = 30.0) -> UciEngine:
    return UciEngine([sys.executable, str(FAKE), mode], timeout=timeout)


def engine_binary(name: str) -> str:
    path = shutil.which(name) or next(
        (p for p in (f"/usr/games/{name}",) if os.access(p, os.X_OK)), None)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed; CI must install the Debian package {name}")
        pytest.skip(f"{name} is not installed (apt-get install {name}); its bridge test did not run")
    return path


def expected_nodes(case) -> int:
    return case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))


def not_sendable(case) -> bool:
    """Cases the bridge must refuse as unsupported: an expected error (the FEN or a move
    is bad, and a UCI engine cannot say so) or perft at depth 0."""
    return "error" in case.expect or case.request.get("depth") == 0


def run_all(engine: UciEngine, cases) -> dict:
    """Each case's outcome: passed, failed, skipped (unclaimed or refused as unsupported)."""
    claims = engine.hello()
    outcomes = {}
    for case in cases:
        if skip_reason(case, claims, engine.name, MAX_NODES):
            outcomes[case.id] = "skipped"
            continue
        answer = engine.request(dict(case.request))
        if not answer["ok"] and answer["error"]["code"] == "unsupported":
            assert not_sendable(case), (case.id, answer)
            outcomes[case.id] = "skipped"
            continue
        assert not not_sendable(case), (case.id, answer)
        problems = compare(case.variant, case.expect, answer, case.request)
        outcomes[case.id] = "failed" if problems else "passed"
        assert not problems, "\n".join([case.id] + problems)
    return outcomes


@pytest.mark.parametrize("name", ["stockfish", "fairy-stockfish"])
def test_engine_passes_every_chess_case_it_can_express(name):
    engine = UciEngine(engine_binary(name), timeout=120)
    try:
        start = time.perf_counter()
        outcomes = run_all(engine, CHESS)
        seconds = time.perf_counter() - start
    finally:
        engine.close()
    counts = Counter(outcomes.values())
    print(f"\n{engine.name} through the UCI bridge: {counts['passed']} passed, "
          f"{counts['skipped']} skipped, {counts['failed']} failed in {seconds:.1f} s")
    expressible = [c for c in CHESS if c.request["op"] in ("moves", "perft")
                   and not not_sendable(c) and expected_nodes(c) <= MAX_NODES]
    assert counts["passed"] == len(expressible) > 100
    assert engine.restarts == 0


def test_requests_uci_cannot_express_are_refused_without_the_engine():
    engine = fake("correct")
    refused = [
        {"op": "moves", "variant": "double-move"},
        {"op": "status", "variant": "chess"},
        {"op": "turns", "variant": "chess"},
        {"op": "perft", "variant": "chess", "depth": 0},
        {"op": "moves", "variant": "chess", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"},
        {"op": "moves", "variant": "chess", "moves": ["e4", "e4"]},
        {"op": "moves", "variant": "chess", "moves": ["e2-e4"]},
    ]
    for request in refused:
        answer = engine.request(request)
        assert answer["ok"] is False and answer["error"]["code"] == "unsupported", request
        assert answer["error"]["message"]
    assert engine.starts == 0     # none of them reached an engine
    engine.close()


def test_san_moves_are_sent_as_coordinates():
    engine = fake("correct")
    try:
        engine.hello()
        answer = engine.request({"op": "moves", "variant": "chess", "moves": ["e4", "e5", "Nf3", "Nc6,"]})
        assert answer["ok"] is False   # a comma in chess is refused before the engine sees it
        answer = engine.request({"op": "perft", "variant": "chess", "depth": 1, "divide": True,
                                 "moves": ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]})
        assert answer["ok"] and answer["nodes"] == len(answer["divide"]) == 32
    finally:
        engine.close()


def small(cases, limit=10_000):
    return [c for c in cases if c.request["op"] in ("moves", "perft")
            and not not_sendable(c) and expected_nodes(c) <= limit]


def test_a_correct_fake_engine_passes():
    engine = fake("correct")
    try:
        outcomes = run_all(engine, small(CHESS))
    finally:
        engine.close()
    assert Counter(outcomes.values())["passed"] > 50


def test_a_miscounting_engine_fails_with_the_missing_move_and_the_drill_down():
    engine = fake("miscount")
    claims = engine.hello()
    try:
        results = {c.id: run_case(c, engine, claims) for c in small(CHESS)}
    finally:
        engine.close()
    failed = {i: r for i, r in results.items() if r.outcome == "failed"}
    assert not [r for r in results.values() if r.outcome == "error"]
    moves = failed["chess/en-passant/white-captures-right-after"].lines
    assert "missing (expected, not produced): e5d6 (exd6)" in moves
    perft = failed["chess/perft/position3-depth-3"].lines
    assert perft[0] == "nodes: expected 2812, got 2810 (2 fewer)"
    assert any(line.strip().startswith("missing (expected, not produced):") for line in perft)
    assert "chess/perft/start-depth-3" not in failed   # no en passant that early


PERFT_3 = {"op": "perft", "variant": "chess", "depth": 3}


def fails_then_recovers(mode: str, timeout: float, after: dict):
    """A fake engine in ``mode`` asked for perft 3: (the failure, the seconds the failing
    request took, the answer to ``after`` asked next, how often the engine was restarted).
    The engine is closed whatever happens."""
    engine = fake(mode, timeout=timeout)
    try:
        engine.hello()
        start = time.perf_counter()
        with pytest.raises(EngineFailure) as failure:
            engine.request(PERFT_3)
        took = time.perf_counter() - start
        return failure.value, took, engine.request(after), engine.restarts
    finally:
        engine.close()


def test_a_crash_is_reported_with_stderr_and_the_engine_restarted():
    failure, _, answer, restarts = fails_then_recovers("crash", 30.0, {"op": "perft", "variant": "chess", "depth": 2})
    assert failure.kind == "crash"
    assert "exit status 3" in failure.message
    assert "crashing on purpose" in failure.stderr
    assert answer["nodes"] == 400 and restarts == 1


def test_a_hang_times_out_and_the_engine_is_restarted():
    failure, took, answer, restarts = fails_then_recovers("hang", 1.5, {"op": "moves", "variant": "chess"})
    assert failure.kind == "timeout"
    assert took < 10
    assert answer["ok"] and restarts == 1


def test_garbage_is_a_protocol_error():
    failure, _, answer, _ = fails_then_recovers("garbage", 5, {"op": "perft", "variant": "chess", "depth": 1})
    assert failure.kind == "protocol-error"
    assert "lots" in failure.message
    assert answer["nodes"] == 20


def test_a_program_that_is_not_a_uci_engine_is_refused_at_hello():
    from doublecheck.harness.protocol import HelloError
    engine = UciEngine([sys.executable, "-c", "print('hello')"], timeout=2)
    with pytest.raises(HelloError):
        engine.hello()
    engine.close()


def test_a_missing_engine_skips_locally_and_fails_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        engine_binary("no-such-uci-engine")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must install"):
        engine_binary("no-such-uci-engine")
