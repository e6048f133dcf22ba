"""Every example in docs/lookups.md that shows its output prints exactly that output.

An example is a ``$ doublecheck ...`` line in a fenced block (continued by
trailing backslashes), followed by the lines it prints. A line holding only
``...`` stands for any number of lines left out; every other line must match
exactly and in order. A PGN block shown before an example is the file the
example reads, when the example names a ``.pgn`` file.
"""

import re
import shlex
from pathlib import Path

import pytest

from doublecheck.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "lookups.md"


def blocks(text: str) -> list[list[str]]:
    return [b.splitlines() for b in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)]


def examples(text: str):
    """(command words, the lines shown after it, the PGN block before it or None)."""
    found, pgn = [], None
    for block in blocks(text):
        if not block or not block[0].startswith("$ "):
            pgn = "\n".join(block) + "\n" if block and block[0].startswith("[") else pgn
            continue
        i = 0
        while i < len(block):
            command = block[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + block[i].strip()
            i += 1
            shown = []
            while i < len(block) and not block[i].startswith("$ "):
                shown.append(block[i])
                i += 1
            if shown:
                found.append((shlex.split(command), shown, pgn))
    return found


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` is ``shown`` with each ``...`` line standing for any lines."""
    if not shown:
        return not printed
    if shown[0].strip() == "...":
        return any(matches(shown[1:], printed[k:]) for k in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and matches(shown[1:], printed[1:])


EXAMPLES = examples(DOC.read_text(encoding="utf-8"))


def test_the_doc_has_examples_with_output():
    assert len(EXAMPLES) >= 7


@pytest.mark.parametrize("words,shown,pgn", EXAMPLES,
                         ids=[" ".join(w[1:3]) + f" #{i}" for i, (w, _, _) in enumerate(EXAMPLES)])
def test_example_prints_what_the_doc_shows(words, shown, pgn, capsys, tmp_path, monkeypatch):
    assert words[0] == "doublecheck"
    monkeypatch.chdir(tmp_path)
    for word in words:
        if word.endswith(".pgn"):
            assert pgn, f"{word}: no PGN block before the example"
            (tmp_path / word).write_text(pgn, encoding="utf-8")
    main(words[1:])
    printed = capsys.readouterr().out.splitlines()
    assert matches(shown, printed), "\n".join(["shown:"] + shown + ["printed:"] + printed)


def test_matching_rules():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "c"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])
