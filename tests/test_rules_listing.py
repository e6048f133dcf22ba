"""`doublecheck rules` without an id: the rule list names the variants each rule belongs to,
and --variant keeps one variant's rules (and, with an id and --cases, that variant's cases)."""

import re

from doublecheck.cli import main


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_rule_list_names_each_rules_variants(capsys):
    code, out, _ = cli(capsys, "rules")
    lines = out.splitlines()
    assert code == 0
    assert any(re.fullmatch(r"G7\s+Perft\s+\[all variants\]", line) for line in lines)
    assert any(re.fullmatch(r"M8\s+.+\[marseillais, marseillais-classic\]", line) for line in lines)
    assert all(line.endswith("]") for line in lines)


def test_rules_for_one_variant(capsys):
    code, out, _ = cli(capsys, "rules", "--variant", "double-move")
    ids = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and "D4" in ids and "G7" in ids
    assert not [i for i in ids if i.startswith(("M", "S", "DC-", "A"))]
    code, out, _ = cli(capsys, "rules", "G7", "--variant", "chess", "--cases")
    cases = [line.strip() for line in out.split("Cases (")[1].splitlines()[1:]]
    assert code == 0 and cases and all(c.startswith("chess/") for c in cases)
    code, _, err = cli(capsys, "rules", "--variant", "shogi")
    assert code == 2 and err.startswith("error: unknown-variant: ")
