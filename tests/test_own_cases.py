"""Vectors of your own: `generate --cases-dir` then `run --cases-dir`, new vectors from a seed or
a position, and a user's case that the oracle disagrees with."""

import json

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.cli import main
from doublecheck.harness.engines import OracleEngine
from doublecheck.harness.runner import CASE_DOUBT, run_case

FEN = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files(tree):
    return {p.relative_to(tree).as_posix(): p.read_bytes() for p in sorted(tree.rglob("*.json"))}


def test_a_seed_gives_the_same_file_and_another_seed_another(tmp_path, capsys):
    made = []
    for seed, where in ((7, "a"), (7, "b"), (8, "c")):
        assert cli(capsys, "generate", "--cases-dir", str(tmp_path / where), "--variant",
                   "double-move-anul", "--seed", str(seed), "--count", "2")[0] == 0
        made.append(files(tmp_path / where))
    assert made[0] == made[1] and list(made[0]) == ["double-move-anul/own-seed-7-games-2.json"]
    assert list(made[2]) == ["double-move-anul/own-seed-8-games-2.json"]
    assert list(made[0].values()) != list(made[2].values())


def test_new_vectors_are_valid_cases_with_their_provenance_and_pass(tmp_path, capsys):
    tree = tmp_path / "mine"
    assert cli(capsys, "generate", "--cases-dir", str(tree), "--seed", "3", "--count", "1")[0] == 0
    assert cli(capsys, "generate", "--cases-dir", str(tree), "--variant", "marseillais",
               "--depth", "2", "--fen", "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2 -")[0] == 0
    cases, problems = load_cases(tree)
    assert problems == [] and len(cases) > 5
    data = json.loads((tree / "chess" / "own-seed-3-games-1.json").read_text())
    assert data["generated"] is True
    assert data["generator"] == "doublecheck generate --variant chess --seed 3 --count 1"
    assert all("doublecheck generate --variant" in c["source"] for c in data["cases"])
    perft = [c for c in cases if c.variant == "marseillais"]
    assert [c.request["depth"] for c in perft] == [1, 2] and "divide" in perft[-1].expect
    code, out, _ = cli(capsys, "run", "--cases-dir", str(tree), "--quiet")
    assert code == 0 and f"OK: {len(cases)} passed, 0 failed" in out


def test_a_generated_tree_without_rules_runs_with_the_installed_catalogue(tmp_path, capsys):
    tree = tmp_path / "mine"
    assert cli(capsys, "generate", "--cases-dir", str(tree), "--variant", "double-chess",
               "--quiet")[0] == 0
    assert not (tree / "rules").exists() and (tree / "double-chess" / "generated-perft.json").exists()
    code, out, err = cli(capsys, "run", "--cases-dir", str(tree), "--quiet", "--quick")
    assert code == 0, out + err
    assert "problem" not in out.lower() and "0 failed, 0 errors" in out


def test_own_files_are_not_stale_for_generate_check(tmp_path, capsys):
    tree = tmp_path / "mine"
    cli(capsys, "generate", "--cases-dir", str(tree), "--variant", "chess", "--quiet")
    cli(capsys, "generate", "--cases-dir", str(tree), "--depth", "1")
    code, out, _ = cli(capsys, "generate", "--check", "--cases-dir", str(tree), "--variant", "chess")
    assert code == 0 and "up to date" in out


@pytest.mark.parametrize("argv, code", [
    (["--seed", "1", "--check"], "usage"),
    (["--fen", "not a fen"], "invalid-fen"),
    (["--depth", "99"], "invalid-request"),
    (["--count", "0"], "invalid-request"),
    (["--variant", "shogi", "--count", "1"], "unknown-variant"),
])
def test_bad_options_are_clear_errors(tmp_path, capsys, argv, code):
    status, out, err = cli(capsys, "generate", "--cases-dir", str(tmp_path / "t"), *argv)
    assert status == 2 and err.startswith(f"error: {code}: ")
    assert not (tmp_path / "t").exists()


def test_new_vectors_never_go_into_the_installed_tree(capsys):
    from doublecheck.casefiles import CASES_DIR
    before = sorted(CASES_DIR.rglob("*.json"))
    status, _, err = cli(capsys, "generate", "--seed", "1", "--count", "1")
    assert status == 2 and err.startswith("error: usage: ") and "--cases-dir DIR" in err
    assert sorted(CASES_DIR.rglob("*.json")) == before


def test_a_wrong_user_case_is_doubted_before_the_engine_is_blamed(tmp_path, capsys):
    tree = tmp_path / "mine"
    cli(capsys, "generate", "--cases-dir", str(tree), "--depth", "3", "--fen", FEN)
    [path] = tree.glob("chess/*.json")
    data = json.loads(path.read_text())
    data["cases"][2]["expect"]["divide"]["e2e3"] += 1   # a wrong count, as a typo would make it
    path.write_text(json.dumps(data))
    cases, _ = load_cases(tree)
    result = run_case(cases[2], OracleEngine(), {"variants": ["chess"], "ops": ["perft"]})
    assert result.outcome == "failed" and result.lines[0] == CASE_DOUBT
    assert "drill_down" not in result.diff
    code, out, _ = cli(capsys, "run", "--cases-dir", str(tree), "--quiet", "--adapter",
                       "doublecheck.adapters.python_chess_adapter:PythonChessAdapter")
    assert code == 1 and out.index(CASE_DOUBT) < out.index("divide e2e3: expected")
    assert "disagree" not in out.replace(CASE_DOUBT, "")
    code, out, _ = cli(capsys, "run", "--cases-dir", str(tree), "--quiet", "--format", "markdown")
    assert f"{CASE_DOUBT}; divide" in out   # the one-line summary says it first too


def test_a_built_in_case_is_never_doubted():
    from doublecheck.casefiles import CASES_DIR
    cases, _ = load_cases(CASES_DIR)
    case = next(c for c in cases if c.request["op"] == "perft" and "divide" not in c.expect)
    case.expect = {"nodes": case.expect["nodes"] + 1}
    result = run_case(case, OracleEngine(), {"variants": [case.variant], "ops": ["perft"]})
    assert result.outcome == "failed" and CASE_DOUBT not in result.lines
