"""Suite strength: every rule mutant in the catalogue is caught by some case.

Each mutant must (1) really differ from the oracle, shown on its own witness
request, and (2) fail at least one case of its variant. A mutant that no case
catches means a missing case: add the case, do not weaken the mutant.
"""

import importlib
import json
import pickle
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from doublecheck.oracle import api, variants
from doublecheck.casefiles import load_cases, load_rules
from doublecheck.authoring.mutants import CATALOGUE, Mutant, load_entries
from doublecheck.authoring.mutants.kill import (DEFAULT_MAX_NODES, EXIT_ALL_KILLED, EXIT_SURVIVOR,
                                                EXIT_USAGE, run_mutant, schedule, witness_diff)
from doublecheck.cli import main as cli_main


def main(argv):
    return cli_main(["mutants", *argv])

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = sorted(CATALOGUE)


@pytest.fixture(scope="module")
def cases():
    loaded, problems = load_cases()
    assert problems == []
    return loaded


def test_catalogue_size():
    per_variant = Counter(m.variant for m in CATALOGUE.values())
    assert set(per_variant) == set(api.VARIANTS)
    assert all(n >= 8 for n in per_variant.values()), per_variant
    assert len(CATALOGUE) >= 45


def test_entries_are_well_formed():
    rules, problems = load_rules()
    assert problems == []
    for name, m in CATALOGUE.items():
        assert name == m.name and name.startswith(m.variant + "/")
        assert re.fullmatch(r"[a-z0-9-]+/[a-z0-9-]+", name), name
        assert m.rule in rules, f"{name}: rule {m.rule} is not in the catalogue"
        assert m.variant in rules[m.rule]["variants"], f"{name}: {m.rule} does not apply to {m.variant}"
        assert m.description and not m.description.endswith(".")
        assert "variant" not in m.witness and m.witness.get("op") in api.OPS
        # a mutant is a subclass of its variant's rules class, built afresh each time
        assert isinstance(m.rules(), type(variants.get(m.variant)))
        assert m.rules() is not m.rules()


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_differs_from_the_oracle(name):
    assert witness_diff(CATALOGUE[name]), f"{name} answers its witness exactly as the oracle does"


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_is_killed(name, cases):
    outcome = run_mutant(CATALOGUE[name], cases, DEFAULT_MAX_NODES, stop_after=1)
    assert outcome.killed, f"no case catches {name} ({CATALOGUE[name].description}); add one"


@pytest.mark.parametrize("variant", api.VARIANTS)
def test_the_unchanged_oracle_is_not_killed(variant, cases):
    """The runner itself raises no false alarms: the oracle's own class passes every cheap case."""
    same = Mutant(f"{variant}/unchanged", variant, "G1", "no change", type(variants.get(variant)), {"op": "fen"},
                  "the control: the oracle itself")
    outcome = run_mutant(same, cases, max_nodes=3000)
    assert not outcome.killed, outcome.diff
    assert outcome.ran > 20


def test_schedule_puts_the_rule_first_and_skips_big_perft(cases):
    m = CATALOGUE["chess/castle-through-attack"]
    chosen, skipped = schedule(cases, m, max_nodes=1000)
    assert skipped > 0 and all(c.variant == "chess" for c in chosen)
    cites = [m.rule in c.rules for c in chosen]
    assert cites[0] and cites == sorted(cites, reverse=True)
    assert all(c.expect.get("nodes", 0) <= 1000 for c in chosen)


def test_docs_list_every_mutant():
    text = (ROOT / "docs" / "mutants.md").read_text(encoding="utf-8")
    for name, m in CATALOGUE.items():
        assert f"`{name}`" in text, f"docs/mutants.md does not describe {name}"


def test_cli_list(capsys):
    assert main(["--list", "--variant", "chess"]) == EXIT_ALL_KILLED
    out = capsys.readouterr().out
    assert "chess/castle-through-attack" in out and "double-move/" not in out
    assert main(["--list", "--json"]) == EXIT_ALL_KILLED
    listed = json.loads(capsys.readouterr().out)
    assert {e["mutant"] for e in listed} == set(CATALOGUE)


def test_cli_one_mutant_table_and_json(capsys):
    assert main(["--mutant", "chess/queen-only-promotion"]) == EXIT_ALL_KILLED
    out = capsys.readouterr().out
    assert re.search(r"chess/queen-only-promotion\s+FIDE-3\.7\.3\.3\s+killed\s+chess/(promotion|multi-square)/", out)
    assert "chess: 1/1 killed" in out
    assert main(["--mutant", "chess/queen-only-promotion", "--json"]) == EXIT_ALL_KILLED
    result = json.loads(capsys.readouterr().out)
    [entry] = result["mutants"]
    assert entry["killed"] and 1 <= len(entry["killers"]) <= 3 and entry["diff"]


@pytest.mark.parametrize("argv, message", [
    (["--mutant", "chess/no-such-mutant"], "unknown mutant"),
    (["--variant", "shogi"], "unknown variant"),
    (["--variant", "double-move", "--mutant", "chess/queen-only-promotion"], "no mutant"),
    (["--max-nodes", "-5"], "--max-nodes"),
    (["--max-nodes", "many"], "must be a whole number, not 'many'"),
    (["--frobnicate"], "unrecognized"),
])
def test_cli_bad_options(capsys, argv, message):
    assert main(argv) == EXIT_USAGE
    assert message in capsys.readouterr().err


def tree_of(tmp_path, case_file: str) -> str:
    """A case tree in ``tmp_path`` with the rule catalogue and one case file (``variant/topic.json``)."""
    shutil.copytree(ROOT / "cases" / "rules", tmp_path / "rules")
    (tmp_path / case_file).parent.mkdir()
    shutil.copy(ROOT / "cases" / case_file, tmp_path / case_file)
    return str(tmp_path)


def test_cli_survivor_exits_1(tmp_path, capsys):
    """With cases that never promote, the queen-only-promotion mutant survives and the run fails."""
    code = main(["--mutant", "chess/queen-only-promotion", "--cases-dir", tree_of(tmp_path, "chess/castling.json")])
    assert code == EXIT_SURVIVOR
    out = capsys.readouterr().out
    assert "SURVIVED" in out and "survivor chess/queen-only-promotion" in out


def test_cli_no_cases_is_an_error_not_a_verdict(tmp_path, capsys):
    """A tree without cases of the mutant's variant gives no verdict at all (exit 2)."""
    code = main(["--mutant", "chess/queen-only-promotion", "--cases-dir", tree_of(tmp_path, "double-chess/board.json")])
    assert code == EXIT_USAGE
    out, err = capsys.readouterr()
    assert "SURVIVED" not in out
    assert err.startswith("error: cases-not-found: ") and "chess" in err
    assert main(["--variant", "chess", "--cases-dir", str(tmp_path / "nowhere")]) == EXIT_USAGE
    assert "does not exist" in capsys.readouterr().err


def test_python_dash_m_works():
    done = subprocess.run([sys.executable, "-m", "doublecheck", "mutants", "--list", "--variant", "double-chess"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "double-chess/outer-castling-past-inner-rook" in done.stdout


def test_a_malformed_catalogue_entry_is_refused_with_its_file_and_place(tmp_path, monkeypatch):
    """An entry without its "why" (or with a field of the wrong kind) names the JSON file and the entry."""
    package = tmp_path / "toy_mutants"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bad.py").write_text("")
    (package / "bad.json").write_text('[{"slug": "x", "class": "X", "rule": "G1", "description": "d", '
                                      '"witness": {"op": "fen"}}, 3]')
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_mutants.bad")
    with pytest.raises(ValueError, match=r"toy_mutants/bad\.json entry 0: missing \['why'\]"):
        load_entries(module)
    (package / "bad.json").write_text('[{"slug": "x", "class": "X", "rule": "G1", "description": "d", '
                                      '"witness": "fen", "why": "because"}]')
    with pytest.raises(ValueError, match=r"entry 0: 'witness' must be a dict"):
        load_entries(module)
    (package / "bad.json").write_text('[{"slug": "x", "class": "X", "bases": ["NoSuchMixin"], "rule": "G1", '
                                      '"description": "d", "witness": {"op": "fen"}, "why": "because"}]')
    with pytest.raises(ValueError, match=r"entry 0: toy_mutants\.bad has no 'NoSuchMixin'"):
        load_entries(module)


def test_every_mutant_class_can_be_sent_to_another_process():
    """`doublecheck mutants --jobs N` sends mutants to worker processes by pickling: a class
    built from a catalogue entry must be found again under its module and name."""
    for m in CATALOGUE.values():
        assert pickle.loads(pickle.dumps(m.cls)) is m.cls, m.name
