"""Lookups answer first: `rules ID` gives the rule, then a count of its cases per variant and case
file (`--cases` lists them); every lookup takes its FEN as an argument as well as with --fen."""

import json

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.cli import main

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def citing(rule_id):
    cases, _ = load_cases()
    return [c for c in cases if rule_id in c.rules]


def test_a_rule_gives_its_statement_then_a_count_per_variant_and_file(capsys):
    code, out, _ = cli(capsys, "rules", "DA-6")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("DA-6: ") and len(lines) < 15
    cited = citing("DA-6")
    assert f"Cases: {len(cited)} (doublecheck rules DA-6 --cases lists them)" in out
    assert not any(c.id in out for c in cited)
    brakes = sum(1 for c in cited if c.topic == "brakes")
    assert f"brakes {brakes}," in " ".join(out.split())


def test_cases_lists_every_citing_case_and_json_counts_them(capsys):
    cited = citing("D4")
    code, out, _ = cli(capsys, "rules", "D4", "--cases")
    assert code == 0 and out.split(f"Cases ({len(cited)}):\n")[1].split() == [c.id for c in cited]
    code, out, _ = cli(capsys, "rules", "D4", "--json")
    answer = json.loads(out)
    assert answer["cases"] == [c.id for c in cited]
    assert sum(n for topics in answer["case_counts"].values() for n in topics.values()) == len(cited)


@pytest.mark.parametrize("command", [["moves"], ["turns"], ["status"], ["fen"], ["show"],
                                     ["perft", "--depth", "1"], ["play", "--moves", "e1g1"],
                                     ["explain", "--move", "e1g1"]])
def test_every_lookup_takes_the_fen_as_its_argument(capsys, command):
    with_option = cli(capsys, *command, "--fen", KIWIPETE, "--json")
    quoted = cli(capsys, *command, KIWIPETE, "--json")
    unquoted = cli(capsys, *command, *KIWIPETE.split(), "--json")
    assert with_option[0] == 0, with_option[2]
    assert with_option == quoted == unquoted


def test_a_fen_given_twice_is_a_usage_error(capsys):
    code, _, err = cli(capsys, "moves", KIWIPETE, "--fen", KIWIPETE)
    assert code == 2 and "give the FEN once" in err
