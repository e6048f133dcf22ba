"""The runner and the comparison: readable diffs, exit codes, selection, bad case files."""

import json

import chess
import pytest

from doublecheck.casefiles import Case
from doublecheck.cli import main
from doublecheck.harness.compare import compare
from doublecheck.harness.runner import run_case

START = chess.STARTING_FEN
START_MOVES = sorted(m.uci() for m in chess.Board().legal_moves)
RULES = {"rules": [
    {"id": "FIDE-3.1", "title": "Moving pieces", "statement": "A test rule about moves.",
     "source": "FIDE Laws of Chess, article 3.1", "variants": ["chess"]},
    {"id": "FIDE-3.7", "title": "Pawns", "statement": "A test rule about pawns.",
     "source": "FIDE Laws of Chess, article 3.7", "variants": ["chess"]},
]}


def moves_case(slug, moves, rules=("FIDE-3.1",)):
    return {"id": f"chess/demo/{slug}", "rules": list(rules), "description": f"start moves ({slug})",
            "source": "FIDE Laws of Chess, article 3", "request": {"op": "moves"},
            "expect": {"moves": moves}}


def write(tree, topic, cases):
    path = tree / "chess" / f"{topic}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"variant": "chess", "topic": topic, "generated": False,
                                "description": "Cases written by a test.", "cases": cases}))
    return path


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "fide.json").write_text(json.dumps(RULES))
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_correct_expectation_passes(tree, capsys):
    write(tree, "demo", [moves_case("start", START_MOVES)])
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree))
    assert code == 0
    assert "OK: 1 passed, 0 failed, 0 errors, 0 skipped" in out


def test_wrong_expectation_gives_readable_diff(tree, capsys):
    wrong = [m for m in START_MOVES if m != "g1f3"] + ["e2e5"]
    write(tree, "demo", [moves_case("start", START_MOVES), moves_case("wrong", wrong)])
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree))
    assert code == 1
    assert "FAILED chess/demo/wrong" in out
    assert "demo.json" in out
    assert "missing (expected, not produced): e2e5" in out
    assert "extra (produced, not expected): g1f3" in out
    assert "1 passed, 1 failed" in out
    assert "FAILED chess/demo/start" not in out


def test_malformed_file_is_named_and_good_cases_still_run(tree, capsys):
    write(tree, "demo", [moves_case("start", START_MOVES)])
    (tree / "chess" / "broken.json").write_text('{"variant": "chess", "cases": [')
    code, out, err = run(capsys, "run", "--cases-dir", str(tree))
    assert code == 2
    assert "broken.json" in out + err
    assert "1 passed" in out


def test_selection(tree, capsys):
    write(tree, "demo", [moves_case("start", START_MOVES),
                         moves_case("pawns", START_MOVES, ["FIDE-3.7"])])
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree), "--rule", "FIDE-3.7")
    assert code == 0 and "1 passed" in out
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree), "chess/demo/*")
    assert code == 0 and "2 passed" in out
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree), "chess/demo")
    assert code == 0 and "2 passed" in out
    code, out, err = run(capsys, "run", "--cases-dir", str(tree), "chess/other/*")
    assert code == 2 and "no cases selected" in err
    code, out, err = run(capsys, "run", "--cases-dir", str(tree), "--variant", "double-move")
    assert code == 2 and "no cases selected" in err


def test_max_nodes_skips_visibly(tree, capsys):
    perft = {"id": "chess/demo/perft-3", "rules": ["FIDE-3.1"], "description": "perft 3",
             "source": "published perft table", "request": {"op": "perft", "depth": 3},
             "expect": {"nodes": 8902}}
    write(tree, "demo", [moves_case("start", START_MOVES), perft])
    code, out, _ = run(capsys, "run", "--cases-dir", str(tree), "--max-nodes", "1000")
    assert code == 0
    assert "chess/demo/perft-3: expects 8902 nodes, more than --max-nodes 1000" in out
    assert "1 passed, 0 failed, 0 errors, 1 skipped" in out


def test_rules_command(tree, capsys):
    write(tree, "demo", [moves_case("start", START_MOVES),
                         moves_case("pawns", START_MOVES, ["FIDE-3.7"])])
    code, out, _ = run(capsys, "rules", "--cases-dir", str(tree))
    assert code == 0 and "FIDE-3.1" in out and "Pawns" in out
    code, out, _ = run(capsys, "rules", "FIDE-3.7", "--cases", "--cases-dir", str(tree))
    assert code == 0 and "chess/demo/pawns" in out and "chess/demo/start" not in out
    code, out, _ = run(capsys, "rules", "FIDE-3.7", "--json", "--cases-dir", str(tree))
    assert json.loads(out)["cases"] == ["chess/demo/pawns"]
    code, out, err = run(capsys, "rules", "X99", "--cases-dir", str(tree))
    assert code == 2 and err.startswith("error: unknown-rule: ")


# compare() on its own

def ok(**result):
    return {"ok": True, **result}


def test_compare_fen_is_semantic_and_names_fields():
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert compare("chess", {"fen": after_e4}, ok(fen=after_e4.replace(" - ", " e3 "))) == []
    lines = compare("chess", {"fen": START}, ok(fen=START.replace("KQkq - 0 1", "Qkq - 0 2")))
    assert "fen castling: expected KQkq, got Qkq" in lines
    assert "fen fullmove number: expected 1, got 2" in lines
    assert not any("placement" in line for line in lines)
    lines = compare("chess", {"fen": START}, ok(fen="rnbqkbnr/ppp w"))
    assert len(lines) == 1 and "not a valid FEN" in lines[0] and "invalid-fen" in lines[0]


def test_compare_status_names_the_key():
    want = {"over": True, "result": "1/2-1/2", "reason": "stalemate", "claimable": []}
    assert compare("chess", {"status": want}, ok(status=dict(want))) == []
    got = dict(want, reason="dead-position")
    assert compare("chess", {"status": want}, ok(status=got)) == [
        'status reason: expected "stalemate", got "dead-position"']
    want = {"over": False, "result": None, "reason": None,
            "claimable": ["fifty-moves", "threefold-repetition"]}
    got = dict(want, claimable=["threefold-repetition", "fifty-moves"])
    assert compare("chess", {"status": want}, ok(status=got)) == []
    got = dict(want, claimable=["threefold-repetition"])
    assert compare("chess", {"status": want}, ok(status=got))[0].startswith("status claimable")


def test_compare_perft_and_divide():
    want = {"nodes": 3, "divide": {"a2a3": 1, "b2b3": 1, "c2c3": 1}}
    assert compare("chess", want, ok(nodes=3, divide={"c2c3": 1, "a2a3": 1, "b2b3": 1})) == []
    lines = compare("chess", want, ok(nodes=4, divide={"a2a3": 2, "b2b3": 1, "d2d3": 1}))
    assert lines == ["nodes: expected 3, got 4 (1 more)",
                     "divide a2a3: expected 1, got 2",
                     "missing (expected, not produced): c2c3 (1)",
                     "extra (produced, not expected): d2d3 (1)"]


def test_compare_errors():
    want = {"error": {"code": "invalid-fen"}}
    assert compare("chess", want, {"ok": False, "error": {"code": "invalid-fen", "message": "x"}}) == []
    assert compare("chess", want, ok(moves=[])) == ['expected error invalid-fen, got a result: {"moves": []}']
    lines = compare("chess", want, {"ok": False, "error": {"code": "illegal-move", "message": "e2e5"}})
    assert lines == ["expected error invalid-fen, got error illegal-move: e2e5"]
    lines = compare("chess", {"moves": []}, {"ok": False, "error": {"code": "illegal-move", "message": "no"}})
    assert lines == ["expected a result, got error illegal-move: no"]
    assert compare("chess", {"moves": ["a2a3"]}, ok(turns=[])) == ["moves: missing from the answer"]


class BrokenEngine:
    name = "broken"

    def __init__(self, answer):
        self.answer = answer

    def hello(self):
        return {"name": self.name, "variants": ["chess"], "ops": ["moves"]}

    def request(self, req, timeout=None):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def close(self):
        pass


def make_case(op="moves", variant="chess"):
    return Case(id="chess/demo/x", variant=variant, topic="demo", rules=["FIDE-3.1"],
                description="d", source="s", request={"op": op, "variant": variant},
                expect={"moves": START_MOVES}, path="demo.json", generated=False)


def test_engine_trouble_is_an_error_not_a_crash():
    engine = BrokenEngine(RuntimeError("boom"))
    claims = engine.hello()
    result = run_case(make_case(), engine, claims)
    assert result.outcome == "error" and "boom" in result.lines[0]
    engine = BrokenEngine({"ok": False, "error": {"code": "internal-error", "message": "bug"}})
    assert run_case(make_case(), engine, claims).outcome == "error"
    assert run_case(make_case(), BrokenEngine("junk"), claims).outcome == "error"
    assert run_case(make_case(op="perft"), engine, claims).outcome == "skipped"
    assert run_case(make_case(variant="double-move"), engine, claims).outcome == "skipped"
