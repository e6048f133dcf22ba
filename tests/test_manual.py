"""`doublecheck docs`: the docs pages and schemas travel inside the package, and every help
text and error message that sends a reader to the documentation names a page that is there."""

import argparse
import ast
import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from doublecheck import cli, manual
from doublecheck.casefiles import DataError

ROOT = Path(__file__).resolve().parent.parent
REPO_PATH = re.compile(r"\bdocs/[\w.-]+\.md\b|\bschemas/[\w.-]+\.json\b|\brulings\.md\b")
NAMED_TOPIC = re.compile(r"doublecheck docs (?!doublecheck\b)([a-z][a-z0-9-]*)")


def every_help_text() -> dict[str, str]:
    """The --help text of the main parser and of every subcommand, by command."""
    parser = cli.build_parser()
    texts = {"doublecheck": parser.format_help()}
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, p in sub.choices.items():
        texts[name] = p.format_help()
    return texts


def prose_strings(path: Path):
    """(line, text) of every string literal of a module that is not a docstring and is more
    than a bare path (a path alone is a file the code reads or writes, not a pointer to read)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and not REPO_PATH.fullmatch(node.value)):
            yield node.lineno, node.value


def test_no_help_text_names_a_repository_path():
    offenders = {name: REPO_PATH.findall(text) for name, text in every_help_text().items()
                 if REPO_PATH.search(text)}
    assert offenders == {}


def test_no_message_in_the_code_names_a_repository_path():
    """Help texts and error messages are string literals: none points into the repository."""
    offenders = [f"{path.relative_to(ROOT)}:{line}: {text[:80]!r}"
                 for folder in ("tools", "oracle") for path in sorted((ROOT / folder).rglob("*.py"))
                 for line, text in prose_strings(path) if REPO_PATH.search(text)]
    assert offenders == []


def test_every_topic_a_help_text_names_exists():
    # argparse wraps option help, so a name may be split over two lines
    named = {topic for text in every_help_text().values()
             for topic in NAMED_TOPIC.findall(" ".join(text.split()))}
    assert {"protocol", "harness", "perft", "own-cases", "adapter-guide", "uci-bridge"} <= named
    assert named <= set(manual.topics()) | {"TOPIC"}


def test_the_topics_are_the_docs_pages():
    assert set(manual.topics()) == {p.stem for p in (ROOT / "docs").glob("*.md")}
    assert set(manual.schemas()) >= {"protocol", "case-file", "report", "rules"}


def run_docs(**kwargs) -> str:
    out = io.StringIO()
    args = SimpleNamespace(**{"topic": None, "path": False, "schema": None, **kwargs})
    assert manual.docs_command(args, out) == 0
    return out.getvalue()


def test_the_list_gives_each_topic_with_its_title():
    lines = run_docs().splitlines()
    assert any(re.fullmatch(r"\s+protocol\s+The engine protocol \(version 1\)", line) for line in lines)
    assert len([line for line in lines if line.startswith("  ")]) == len(manual.topics())


def test_a_topic_prints_the_page_and_its_path():
    assert run_docs(topic="perft") == (ROOT / "docs" / "perft.md").read_text(encoding="utf-8")
    assert Path(run_docs(topic="perft", path=True).strip()).samefile(ROOT / "docs" / "perft.md")


def test_a_schema_prints_as_json():
    import json
    schema = json.loads(run_docs(schema="protocol"))
    assert schema == json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("kwargs", [{"topic": "no-such-page"}, {"schema": "nothing"}])
def test_an_unknown_name_lists_what_there_is(kwargs):
    with pytest.raises(DataError) as e:
        run_docs(**kwargs)
    assert e.value.code == "unknown-topic" and "protocol" in e.value.message


def test_the_command_line_reports_an_unknown_topic(capsys):
    assert cli.main(["docs", "nope"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown-topic: no topic named 'nope'; the topics are: ")


def test_a_bare_command_prints_the_help(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: doublecheck") and "doublecheck docs" in out and "run" in out
