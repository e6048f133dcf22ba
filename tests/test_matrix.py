"""The coverage matrix (``doublecheck rules --matrix``): counted from the data, and without gaps.

The real tree must show no empty cell the catalogue does not justify: every
rule has a case in every variant it applies to (or a ``not_tested`` reason),
and every state component a rule defines has cases on both of its sides in
each of the rule's variants.  The scratch-tree tests check that the matrix
finds each kind of gap and inconsistency.
"""

import dataclasses
import json

import pytest

from doublecheck.casefiles import load_cases, load_rules
from doublecheck.cli import main
from doublecheck.lookups import matrix
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.position import WHITE

STATUS_GOING_ON = {"over": False, "result": None, "reason": None, "claimable": []}
STATUS_THREEFOLD = {**STATUS_GOING_ON, "claimable": ["threefold-repetition"]}


# ------------------------------------------------------------ the real tree

@pytest.fixture(scope="module")
def real():
    catalogue, problems = load_rules()
    cases, more = load_cases()
    assert problems == [] and more == []
    return matrix.build(catalogue, cases)


def test_no_unjustified_gap(real):
    assert [matrix.gap_text(g) for g in real.gaps] == []


def test_nothing_thin():
    """No rule cell rests on one curated case or one colour, no mutant on one curated kill (the
    kill record is read where fresh and played again where not, so this never trusts a stale one)."""
    catalogue, _ = load_rules()
    cases, _ = load_cases()
    columns = matrix.variant_order(catalogue)
    m = matrix.build(catalogue, cases, kills=matrix.mutant_kills(cases, columns))
    assert [matrix.thin_text(t) for t in m.thin] == []


def test_no_inconsistency(real):
    assert real.problems == []


def test_every_variant_has_identity_components(real):
    for variant in real.variants:
        for comp in ("identity:placement", "identity:turn", "identity:castling", "identity:en-passant"):
            assert variant in real.components[comp] or variant in real.absent.get(comp, {}), (comp, variant)


def test_every_variant_has_both_parts_of_its_castling_rights(real):
    """...unless it has no castling at all, and its catalogue says so (components_absent)."""
    for variant in real.variants:
        for comp in ("identity:castling:mover", "identity:castling:other",
                     "fen:castling:mover", "fen:castling:other"):
            if variant not in real.absent.get(comp, {}):
                assert min(real.components[comp][variant].values()) >= 1, (comp, variant)


def test_not_tested_reasons_are_sentences(real):
    for rid, reasons in real.not_tested.items():
        for variant, reason in reasons.items():
            assert len(reason.split()) >= 6, f"{rid} in {variant}: say why it cannot be tested"


# ------------------------------------------------------------ a scratch tree

RULES = [
    {"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess", "double-move"]},
    {"id": "G3", "title": "t", "statement": "s", "source": "x", "variants": ["chess"],
     "components": ["identity:turn"]},
    {"id": "D1", "title": "t", "statement": "s", "source": "x", "variants": ["double-move"],
     "components": ["fen:abilities"]},
]


def case(variant, slug, rules=("G1",), covers=None, expect=None):
    c = {"id": f"{variant}/topic/{slug}", "rules": list(rules), "description": "d", "source": "s",
         "request": {"op": "status"}, "expect": expect or {"status": STATUS_GOING_ON}}
    if covers:
        c["covers"] = covers
    return c


@pytest.fixture
def tree(tmp_path):
    """Writes a catalogue and case files; returns (catalogue, cases) as loaded."""
    root = tmp_path / "cases"

    def write(rules, cases_by_variant):
        (root / "rules").mkdir(parents=True, exist_ok=True)
        (root / "rules" / "all.json").write_text(json.dumps({"rules": rules}))
        for variant, cases in cases_by_variant.items():
            (root / variant).mkdir(exist_ok=True)
            (root / variant / "topic.json").write_text(json.dumps(
                {"variant": variant, "topic": "topic", "generated": False, "description": "d",
                 "cases": cases}))
        catalogue, problems = load_rules(root)
        cases, more = load_cases(root)
        assert problems == [] and more == [], problems + more
        return catalogue, cases

    write.root = root
    return write


def full_cases():
    return {
        "chess": [case("chess", "turn-counted", ["G1", "G3"], ["identity:turn"], {"status": STATUS_THREEFOLD}),
                  case("chess", "turn-not-counted", ["G3"], ["identity:turn"])],
        "double-move": [case("double-move", "white", ["G1", "D1"], ["fen:abilities", "colour:white"]),
                        case("double-move", "black", ["D1"], ["fen:abilities", "colour:black"])],
    }


def test_a_complete_tree_has_no_gap(tree):
    m = matrix.build(*tree(RULES, full_cases()))
    assert m.gaps == [] and m.problems == []
    assert m.variants == ["chess", "double-move"]
    assert m.rules["G1"] == {"chess": 1, "double-move": 1}
    assert m.rules["G3"] == {"chess": 2}
    assert m.components["identity:turn"] == {"chess": {"counted": 1, "not counted": 1}}
    assert m.components["fen:abilities"] == {"double-move": {"white": 1, "black": 1}}
    assert m.colours["double-move"] == {"white": 1, "black": 1}


def test_a_rule_without_cases_in_one_variant_is_a_gap(tree):
    cases = full_cases()
    cases["double-move"][0]["rules"] = ["D1"]
    m = matrix.build(*tree(RULES, cases))
    assert [matrix.gap_text(g) for g in m.gaps] == ["G1 has no case in double-move"]


def test_not_tested_justifies_the_empty_cell(tree):
    cases = full_cases()
    cases["double-move"][0]["rules"] = ["D1"]
    rules = [dict(RULES[0], not_tested={"double-move": "no position can show it, because ..."})] + RULES[1:]
    m = matrix.build(*tree(rules, cases))
    assert m.gaps == [] and m.problems == []
    assert m.not_tested["G1"] == {"double-move": "no position can show it, because ..."}


def test_not_tested_but_cited_is_a_problem(tree):
    rules = [dict(RULES[0], not_tested={"chess": "reason"})] + RULES[1:]
    m = matrix.build(*tree(rules, full_cases()))
    assert m.problems == ["rule G1: the catalogue says it is not tested in chess, but 1 case(s) cite it"]


def test_not_tested_for_a_variant_the_rule_lacks_is_a_problem(tree):
    rules = RULES[:2] + [dict(RULES[2], not_tested={"chess": "reason"})]
    m = matrix.build(*tree(rules, full_cases()))
    assert m.problems == ["rule D1: not_tested names chess, which the rule does not apply to"]


def test_identity_sides_come_from_the_expected_status(tree):
    cases = full_cases()
    cases["chess"][0]["expect"] = {"status": STATUS_GOING_ON}
    m = matrix.build(*tree(RULES, cases))
    assert m.components["identity:turn"]["chess"] == {"counted": 0, "not counted": 2}
    assert [matrix.gap_text(g) for g in m.gaps] == ["identity:turn in chess has no case on the side 'counted'"]
    cases["chess"][0]["expect"] = {"status": {**STATUS_GOING_ON, "over": True, "result": "1/2-1/2",
                                              "reason": "fivefold-repetition"}}
    assert matrix.build(*tree(RULES, cases)).gaps == []


def test_identity_case_without_status_is_a_problem(tree):
    cases = full_cases()
    cases["chess"].append(dict(case("chess", "no-status", ["G3"], ["identity:turn"]),
                               request={"op": "fen"}, expect={"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}))
    m = matrix.build(*tree(RULES, cases))
    assert m.problems == ["case chess/topic/no-status: covers identity:turn but has no expected status"]


def test_colour_sides_come_from_the_colour_tags(tree):
    cases = full_cases()
    cases["double-move"][1]["covers"] = ["fen:abilities"]
    m = matrix.build(*tree(RULES, cases))
    assert [matrix.gap_text(g) for g in m.gaps] == [
        "fen:abilities in double-move has no case on the side 'black'"]
    assert m.problems == ["case double-move/topic/black: covers fen:abilities but has no "
                          "colour:white or colour:black tag"]


def test_a_component_foreign_to_the_variant_is_a_problem(tree):
    cases = full_cases()
    cases["chess"][1]["covers"] = ["identity:turn", "fen:abilities", "colour:white"]
    m = matrix.build(*tree(RULES, cases))
    assert m.problems == ["case chess/topic/turn-not-counted: covers fen:abilities, which no catalogue "
                          "rule makes a component of chess"]


def test_an_unknown_rule_component_is_a_problem(tree):
    rules = RULES + [{"id": "G2", "title": "t", "statement": "s", "source": "x", "variants": ["chess"],
                      "components": ["identity:weather"], "not_tested": {"chess": "reason"}}]
    m = matrix.build(*tree(rules, full_cases()))
    assert len(m.problems) == 1 and "'identity:weather' is not one a case can cover" in m.problems[0]


def test_the_schema_refuses_unknown_covers(tree):
    cases = full_cases()
    cases["chess"][1]["covers"] = ["identity:weather"]
    tree.root.mkdir(parents=True)
    with pytest.raises(AssertionError, match="identity:weather"):
        tree(RULES, cases)


def test_one_variant_only(tree):
    m = matrix.build(*tree(RULES, full_cases()), variants=["double-move"])
    assert m.variants == ["double-move"]
    assert m.rules["G3"] == {} and "identity:turn" not in m.components


# ------------------------------------------------------------ parts of a side-owned component

PART_RULES = [
    {"id": "G3", "title": "t", "statement": "s", "source": "x", "variants": ["chess"],
     "components": ["identity:castling:other"]},
    {"id": "D1", "title": "t", "statement": "s", "source": "x", "variants": ["double-move"],
     "components": ["fen:abilities:mover"]},
]


def part_cases():
    other = ["identity:castling", "identity:castling:other"]
    mover = ["fen:abilities", "fen:abilities:mover"]
    return {
        "chess": [case("chess", "white", ["G3"], other + ["colour:white"]),
                  case("chess", "black", ["G3"], other + ["colour:black"])],
        "double-move": [case("double-move", "white", ["D1"], mover + ["colour:white"]),
                        case("double-move", "black", ["D1"], mover + ["colour:black"])],
    }


def part_rules():
    rules = [dict(r) for r in PART_RULES]
    rules[0]["components"] = ["identity:castling"] + rules[0]["components"]
    rules[1]["components"] = ["fen:abilities"] + rules[1]["components"]
    return rules


def test_a_part_has_a_side_per_owner(tree):
    cases = part_cases()
    cases["chess"].append(case("chess", "counted", ["G3"], ["identity:castling"], {"status": STATUS_THREEFOLD}))
    m = matrix.build(*tree(part_rules(), cases))
    assert m.gaps == [] and m.problems == []
    assert matrix.sides_of("identity:castling:other") == ("white", "black")
    assert m.components["identity:castling:other"] == {"chess": {"white": 1, "black": 1}}
    assert m.components["fen:abilities:mover"] == {"double-move": {"white": 1, "black": 1}}


def test_a_part_without_one_owner_is_a_gap(tree):
    cases = part_cases()
    cases["chess"][1]["covers"] = ["identity:castling", "colour:black"]
    cases["chess"].append(case("chess", "counted", ["G3"], ["identity:castling"], {"status": STATUS_THREEFOLD}))
    m = matrix.build(*tree(part_rules(), cases))
    assert [matrix.gap_text(g) for g in m.gaps] == [
        "identity:castling:other in chess has no case on the side 'black'"]


def test_an_identity_part_needs_a_status_counting_no_repetition(tree):
    cases = part_cases()
    cases["chess"][0]["expect"] = {"status": STATUS_THREEFOLD}
    m = matrix.build(*tree(part_rules(), cases))
    assert m.components["identity:castling:other"]["chess"] == {"white": 0, "black": 1}
    assert m.problems == ["case chess/topic/white: covers identity:castling:other but has no colour:white or "
                          "colour:black tag and an expected status counting no repetition"]


def test_a_fen_part_needs_a_colour_tag(tree):
    cases = part_cases()
    cases["double-move"][1]["covers"] = ["fen:abilities", "fen:abilities:mover"]
    cases["double-move"].append(case("double-move", "black-whole", ["D1"], ["fen:abilities", "colour:black"]))
    cases["chess"].append(case("chess", "counted", ["G3"], ["identity:castling"], {"status": STATUS_THREEFOLD}))
    m = matrix.build(*tree(part_rules(), cases))
    assert m.problems == [f"case double-move/topic/black: covers {comp} but has no "
                          "colour:white or colour:black tag" for comp in ("fen:abilities", "fen:abilities:mover")]
    assert [matrix.gap_text(g) for g in m.gaps] == [
        "fen:abilities:mover in double-move has no case on the side 'black'"]


def test_cli_shows_the_parts_and_exits_1_while_one_is_uncovered(tree, capsys, no_mutants):
    cases = part_cases()
    cases["chess"].append(case("chess", "counted", ["G3"], ["identity:castling"], {"status": STATUS_THREEFOLD}))
    tree(part_rules(), cases)
    assert main(["rules", "--matrix", "--cases-dir", str(tree.root)]) == 0
    out = capsys.readouterr().out
    assert "identity:castling:other (white/black)" in out
    assert "parts: <component>:mover = the side to move's part; <component>:other = the other side's part" in out
    cases["double-move"].pop()
    tree(part_rules(), cases)
    assert main(["rules", "--matrix", "--cases-dir", str(tree.root)]) == 1
    assert "gap: fen:abilities:mover in double-move has no case on the side 'black'" in capsys.readouterr().out


def test_the_schema_knows_each_part():
    words = matrix.vocabulary()
    for comp in ("identity:castling", "identity:abilities", "identity:hand", "fen:castling",
                 "fen:abilities", "fen:hand", "fen:en-passant"):
        assert f"{comp}:mover" in words and f"{comp}:other" in words
    assert [w for w in words if matrix.part_of(w)] == [w for w in words if w.count(":") == 2]


# ------------------------------------------------------------ thin cells

def thick_cases():
    """full_cases plus a Black case per variant: no rule rests on one case or one colour."""
    cases = full_cases()
    cases["chess"].append(case("chess", "black", ["G1", "G3"], ["colour:black"]))
    cases["double-move"].append(case("double-move", "black-g1", ["G1"], ["colour:black"]))
    return cases


def test_a_rule_on_one_case_or_one_colour_is_thin(tree):
    assert matrix.build(*tree(RULES, thick_cases())).thin == []
    m = matrix.build(*tree(RULES, full_cases()))
    assert [matrix.thin_text(t) for t in m.thin] == [
        "G1 in chess: 1 curated case(s); no black case",
        "G1 in double-move: 1 curated case(s); no black case",
        "G3 in chess: 2 curated case(s); no black case"]
    assert m.gaps == []


def test_the_colour_comes_from_the_tag_or_the_side_to_move(tree):
    cases = thick_cases()
    del cases["chess"][2]["covers"]
    cases["chess"][2].update(request={"op": "status", "fen": "8/8/8/8/8/8/8/K1k5 b - - 0 1"})
    assert matrix.build(*tree(RULES, cases)).thin == []
    cases["chess"][2]["request"]["fen"] = "8/8/8/8/8/8/8/K1k5 w - - 0 1"
    assert [t["id"] for t in matrix.build(*tree(RULES, cases)).thin] == ["G1", "G3"]


def test_one_colour_rules_need_two_cases_only(tree):
    rules = [dict(RULES[0], one_colour="White's first turn only")] + RULES[1:]
    cases = thick_cases()
    cases["double-move"].pop()
    m = matrix.build(*tree(rules, cases))
    assert [matrix.thin_text(t) for t in m.thin] == ["G1 in double-move: 1 curated case(s)"]


def test_a_mutant_killed_by_one_curated_case_is_thin(tree):
    m = matrix.build(*tree(RULES, thick_cases()), kills={"chess/a": 1, "chess/b": 2, "double-move/c": 0})
    assert [matrix.thin_text(t) for t in m.thin] == [
        "mutant chess/a is killed by 1 curated case(s) that are not colour mirrors of each other",
        "mutant double-move/c is killed by 0 curated case(s) that are not colour mirrors of each other"]
    m = matrix.build(*tree(RULES, thick_cases()), variants=["chess"], kills={"double-move/c": 0})
    assert m.thin == []


def test_a_mutant_killed_by_one_case_and_its_mirror_only_is_thin_whatever_its_name():
    """No mutant is excused: one killed only by one case and that case's colour mirror (a count
    of 1) is thin like any other, and one with two independent killers is not."""
    found = matrix.thin_mutants({"chess/a": 1, "chess/b": 2, "chess/c": 0}, ["chess"])
    assert [(t["kind"], t["id"], t["cases"]) for t in found] == [("mutant", "chess/a", 1), ("mutant", "chess/c", 0)]


def test_no_list_of_excused_mutants_is_left_beside_the_catalogue():
    from importlib import resources
    assert not resources.files("doublecheck.authoring.mutants").joinpath("mirror-only.json").is_file()


def test_kill_counts_merge_a_case_with_its_colour_mirror():
    """counts_of with the cases counts a case and its colour mirror once; a repeat too."""
    from doublecheck.authoring.mutants import record
    from doublecheck.casefiles import Case
    def made(cid, fen, moves):
        return Case(id=cid, variant="chess", topic="t", rules=["G1"], description="d", source="s",
                    request={"op": "play", "fen": fen, "moves": moves}, expect={}, path=None,
                    generated=False)
    cases = [made("chess/t/a", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", ["e2e4"]),
             made("chess/t/a-black", "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1", ["e7e5"]),
             made("chess/t/other", "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1", ["d2d4"])]
    rec = {"variants": {"chess": {"fingerprint": "x", "killers": {
        "chess/m": ["chess/t/a", "chess/t/a-black"], "chess/n": ["chess/t/a", "chess/t/other"]}}}}
    assert record.counts_of(rec) == {"chess/m": 2, "chess/n": 2}
    assert record.counts_of(rec, cases) == {"chess/m": 1, "chess/n": 2}


def test_the_kill_record_counts_curated_cases_only(tree):
    """Against a scratch tree a real mutant is killed by exactly the curated cases that fail."""
    from doublecheck.authoring.mutants import CATALOGUE, record
    m = CATALOGUE["double-move-anul/capture-no-brake"]
    req = {"op": "play", "fen": "4k3/8/8/8/8/8/p7/R3K3 w - - 0 1 -", "moves": ["a1a2"]}
    killing = dict(case("double-move-anul", "kill", ["A1"]), request=req,
                   expect={"fen": "4k3/8/8/8/8/8/R7/4K3 b - - 0 1 -"})
    quiet = dict(case("double-move-anul", "quiet", ["A1"]), request={"op": "status"})
    _, cases = tree(RULES + [{"id": "A1", "title": "t", "statement": "s", "source": "x",
                              "variants": ["double-move-anul"]}],
                    {"double-move-anul": [killing, quiet]})
    assert record.killers(m, cases) == ["double-move-anul/topic/kill"]
    generated = [dataclasses.replace(c, generated=True) for c in cases]
    assert record.killers(m, generated) == []
    rec = record.kill_record(cases, ["double-move-anul"], path=tree.root / "none.json")
    assert record.counts_of(rec)[m.name] == 1
    # a stored record is reused only while its fingerprint holds; a damaged one is rebuilt
    kept = tree.root / "kills.json"
    kept.write_text(record.record_text(rec))
    assert record.kill_record(cases, ["double-move-anul"], path=kept) == rec
    entry = rec["variants"]["double-move-anul"]
    for damage in ({"fingerprint": "0"}, {"killers": [m.name]}, {"killers": {m.name: 3}}):
        kept.write_text(json.dumps({"variants": {"double-move-anul": {**entry, **damage}}}))
        assert record.kill_record(cases, ["double-move-anul"], path=kept) == rec
    kept.write_text("[1, 2")
    assert record.kill_record(cases, ["double-move-anul"], path=kept) == rec
    # a progress line hears of each variant as its mutants run (generate's kill-record line)
    heard = []

    class Heard:
        def start(self, name):
            heard.append(("start", name))

        def finish(self, name, bad=False):
            heard.append(("finish", name))

    assert record.kill_record(cases, ["double-move-anul"], path=kept, progress=Heard()) == rec
    assert heard == [("start", "double-move-anul"), ("finish", "double-move-anul")]
    assert record.recorded_variants(["double-move-anul"]) == ["double-move-anul"]


def test_the_kill_records_source_digest_follows_code_not_prose(tmp_path):
    """A comment or docstring edit in the oracle leaves the kill record fresh; a code edit does not."""
    from doublecheck.authoring.mutants import record
    original = tmp_path / "rules.py"
    original.write_text('"""The rules."""\n\ndef legal(m):\n    """Is m legal?"""\n    return m > 0  # why\n')
    reworded = tmp_path / "reworded.py"
    reworded.write_text('"""The rules, said again."""\n\ndef legal(m):\n    # a new comment\n'
                        '    """Whether m is legal."""\n    return m > 0\n')
    changed = tmp_path / "changed.py"
    changed.write_text('"""The rules."""\n\ndef legal(m):\n    """Is m legal?"""\n    return m >= 0  # why\n')
    assert record._code_of(original) == record._code_of(reworded)
    assert record._code_of(original) != record._code_of(changed)


# ------------------------------------------------------------ the command line

@pytest.fixture
def no_mutants(monkeypatch):
    """The scratch trees hold no case a real mutant could be judged by."""
    monkeypatch.setattr(matrix, "mutant_kills", lambda cases, variants: {})


def test_cli_text_and_json(tree, capsys, no_mutants):
    tree(RULES, thick_cases())
    assert main(["rules", "--matrix", "--cases-dir", str(tree.root)]) == 0
    out = capsys.readouterr().out
    assert "columns: c = chess, dm = double-move" in out
    assert "identity:turn (counted/not counted)" in out and "0 gap(s), 0 problem(s), 0 thin" in out
    assert main(["rules", "--matrix", "--json", "--cases-dir", str(tree.root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["variants"] == ["chess", "double-move"] and data["gaps"] == []
    assert {"id": "G3", "cases": {"chess": 3}, "not_tested": {}} in data["rules"]


def test_cli_exits_1_on_a_thin_cell(tree, capsys, no_mutants):
    tree(RULES, full_cases())
    assert main(["rules", "--matrix", "--cases-dir", str(tree.root)]) == 1
    out = capsys.readouterr().out
    assert "thin: G1 in chess: 1 curated case(s); no black case" in out and "1~" in out


def test_cli_exits_1_on_a_gap(tree, capsys, no_mutants):
    cases = full_cases()
    cases["double-move"][0]["rules"] = ["D1"]
    tree(RULES, cases)
    assert main(["rules", "--matrix", "--cases-dir", str(tree.root)]) == 1
    out = capsys.readouterr().out
    assert "gap: G1 has no case in double-move" in out
    assert "0!" in out


def test_cli_bad_combinations(tree, capsys, no_mutants):
    tree(RULES, full_cases())
    assert main(["rules", "G1", "--matrix", "--cases-dir", str(tree.root)]) == 2
    assert capsys.readouterr().err.startswith("error: usage: ")
    assert main(["rules", "--variant", "shogi", "--cases-dir", str(tree.root)]) == 2
    assert "unknown-variant" in capsys.readouterr().err
    assert main(["rules", "--matrix", "--variant", "shogi", "--cases-dir", str(tree.root)]) == 2
    assert "unknown-variant" in capsys.readouterr().err


def test_rule_lookup_shows_why_a_cell_is_empty(capsys):
    assert main(["rules", "G6"]) == 0
    out = capsys.readouterr().out
    assert "Not tested in chess: " in out and "Not tested in double-move:" not in out
    assert main(["rules", "G3"]) == 0
    assert "State components: identity:placement" in capsys.readouterr().out


# ------------------------------------------------------------ colours with different parts of the game

class OneSidedChess(Chess):
    """Test-only rules with Monster's shape on the chess board: White never castles and moves
    twice a turn, Black castles and moves once.  Nothing else differs from chess."""

    def __init__(self, options=None):
        super().__init__(options)
        self.rights_of = {**self.rights_of, WHITE: frozenset()}

    def turn_actions_for(self, color):
        return ("Move 1", "Move 2") if color == WHITE else ("Move",)


LOPSIDED_RULES = [
    {"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"],
     "components": ["half:second", "fen:castling"]},
    {"id": "FIDE-3.8.2", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]},
]


def lopsided_cases():
    """Cases for the parts each colour of OneSidedChess has: White's second move, Black's castling."""
    return {"chess": [
        case("chess", "white-second", ["G1"], ["half:second", "colour:white"]),
        case("chess", "white-second-again", ["G1"], ["half:second", "colour:white"]),
        case("chess", "black-castling", ["G1", "FIDE-3.8.2"], ["fen:castling", "colour:black"]),
        case("chess", "black-castling-again", ["G1", "FIDE-3.8.2"], ["fen:castling", "colour:black"])]}


def test_the_rules_say_which_colour_lacks_castling_or_a_second_move(tree, monkeypatch):
    """The matrix asks each colour only for what its rules give it: with rules whose White never
    castles and whose Black moves once a turn, White's castling side and Black's second-move side
    are absent (with the rules' reason), and the castling rule needs no White case."""
    catalogue, cases = tree(LOPSIDED_RULES, lopsided_cases())
    monkeypatch.setattr(matrix.registry, "get", lambda name, options=None: OneSidedChess())
    m = matrix.build(catalogue, cases)
    assert m.gaps == [] and m.problems == [] and m.thin == []
    assert m.components["half:second"]["chess"] == {"white": 2}
    assert m.components["fen:castling"]["chess"] == {"black": 2}
    assert m.absent["fen:castling (white)"] == {"chess": "White has no castling in chess"}
    assert m.absent["half:second (black)"] == {"chess": "every Black turn in chess is a single move"}


def test_symmetric_rules_ask_both_colours_of_the_same_cases(tree):
    """The same cases against the real chess rules (both colours castle and move once): the
    colours the one-sided rules excused are gaps again, so the excuse came from the rules."""
    m = matrix.build(*tree(LOPSIDED_RULES, lopsided_cases()))
    assert sorted((g["id"], g["side"]) for g in m.gaps if g["kind"] == "component") == [
        ("fen:castling", "white"), ("half:second", "black")]


def test_monster_has_no_false_gap_for_the_colours_it_lacks(real):
    """Monster's White never castles and its Black moves once a turn: the real matrix shows
    those sides absent and leaves no gap in Monster's column."""
    assert [g for g in real.gaps if g["variant"] == "monster"] == []
    assert "monster" in real.absent["half:second (black)"]
    assert any("monster" in by for comp, by in real.absent.items()
               if comp.endswith("(white)") and "castling" in comp)
