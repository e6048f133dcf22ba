"""The vectors for other runners: `doublecheck export DIR` writes a tree that passes its own
schemas and that Node's test runner reads with the template engine's logic, and
`doublecheck run --list` names exactly the cases a run selects."""

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from doublecheck.casefiles import load_cases
from doublecheck.cli import main
from doublecheck.harness.runner import RunOptions, run_command, select_cases

ROOT = Path(__file__).resolve().parent.parent
NODE_ENGINE = ROOT / "examples" / "node-engine"


def doublecheck(*args, cwd):
    return subprocess.run([sys.executable, "-m", "doublecheck", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def chess_tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export") / "vectors"
    proc = doublecheck("export", str(folder), "--variant", "chess", cwd=folder.parent)
    assert proc.returncode == 0, proc.stderr
    return folder


def test_the_exported_tree_validates_against_its_own_schemas(chess_tree):
    case_schema = json.loads((chess_tree / "schemas" / "case-file.schema.json").read_text())
    rules_schema = json.loads((chess_tree / "schemas" / "rules.schema.json").read_text())
    files = sorted((chess_tree / "cases" / "chess").glob("*.json"))
    catalogue = sorted((chess_tree / "cases" / "rules").glob("*.json"))
    assert files and catalogue
    for path in files:
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), case_schema)
    for path in catalogue:
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), rules_schema)


def test_the_export_holds_the_runs_cases_and_says_so(chess_tree):
    index = json.loads((chess_tree / "index.json").read_text())
    cases, _ = load_cases(deep=True)
    chess = select_cases(cases, "chess")
    assert index["variants"] == {"chess": len(chess)} and index["cases"] == len(chess)
    exported = [c["id"] for f in index["files"] if f.startswith("cases/chess/")
                for c in json.loads((chess_tree / f).read_text())["cases"]]
    assert sorted(exported) == sorted(c.id for c in chess)
    assert (chess_tree / "README.md").read_text().startswith("# The vectors in another language")
    assert not (chess_tree / "cases" / "double-move").exists()


def test_export_refuses_a_folder_in_use_and_an_unknown_variant(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep\n")
    proc = doublecheck("export", "full", cwd=tmp_path)
    assert proc.returncode == 2 and "is not empty: nothing written" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "full").iterdir()) == ["mine.txt"]
    proc = doublecheck("export", "new", "--variant", "no-such", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown-variant" in proc.stderr and not (tmp_path / "new").exists()


def test_node_reads_the_exported_chess_moves_cases_with_the_template_engine(chess_tree, tmp_path):
    if shutil.which("node") is None or not (NODE_ENGINE / "node_modules" / "chess.js").is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail("Node.js or chess.js is missing; .ci/run must install them")
        pytest.skip("node or examples/node-engine/node_modules is missing (npm ci there)")
    assert doublecheck("example", "node", "engine", cwd=tmp_path).returncode == 0
    (tmp_path / "engine" / "node_modules").symlink_to(NODE_ENGINE / "node_modules")
    proc = subprocess.run(["node", "--test", "vectors.test.js"], cwd=tmp_path / "engine",
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, DOUBLECHECK_VECTORS=str(chess_tree)))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    cases, _ = load_cases()
    moves = [c for c in select_cases(cases, "chess") if c.request["op"] == "moves"]
    assert f"# pass {len(moves)}\n" in proc.stdout and "# fail 0\n" in proc.stdout


@pytest.mark.parametrize("selection", [
    {"variant": "double-move", "rule": "DM-every-half-legal"},
    {"patterns": ("chess/castling", "marseillais/*/white-*")},
    {"variant": "chess", "max_nodes": 20000},
])
def test_run_list_names_exactly_the_cases_a_run_selects(selection, tmp_path):
    out = io.StringIO()
    assert run_command(RunOptions(list_only=True, **selection), out=out, err=io.StringIO()) == 0
    listed = out.getvalue().splitlines()
    report = tmp_path / "report.json"
    options = RunOptions(jobs=1, quiet=True, files={"json": str(report)}, **selection)
    assert run_command(options, out=io.StringIO(), err=io.StringIO()) == 0
    ran = [r["id"] for r in json.loads(report.read_text())["cases"]]
    assert listed and sorted(listed) == sorted(ran) and len(set(listed)) == len(listed)


def test_run_list_as_json_on_stdout(capsys):
    assert main(["run", "--list", "--json", "-", "chess/castling"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["count"] == len(listing["cases"]) > 0
    assert all(c["file"] == "chess/castling.json" and c["id"].startswith("chess/castling/")
               for c in listing["cases"])
