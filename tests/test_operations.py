"""The operations table (``doublecheck.harness.operations``): every row has every part, the
schemas say what the rows say, and a new row is all a new operation needs in the tools: the
comparison, the harness's shape checks, the protocol schema (through ``doublecheck
generate``) and the command line all read it."""

import json

import pytest

from doublecheck import cli
from doublecheck.authoring import derived
from doublecheck.casefiles import SCHEMAS_DIR
from doublecheck.harness import compare, operations, protocol
from doublecheck.harness.operations import (COMMON, MOVE_LIST, OPERATIONS, Field, Operation, Option, check_rows,
                                            flag, is_text)
from doublecheck.lookups.commands import as_text
from doublecheck.oracle import api

PROTOCOL_SCHEMA = SCHEMAS_DIR / "protocol.schema.json"
CASE_SCHEMA = SCHEMAS_DIR / "case-file.schema.json"


def test_every_row_has_every_part_and_the_rows_are_the_oracles_operations():
    assert check_rows(OPERATIONS) == []
    assert set(OPERATIONS) == set(api.OPS)


def test_a_row_without_a_part_or_with_a_field_of_two_meanings_is_named():
    good = OPERATIONS["moves"]
    table = {
        "no-examples": Operation("s", "no examples here", good.text, {"moves": MOVE_LIST}),
        "no-result": Operation("s", "examples:\n  x", good.text, {}),
        "bad-command": Operation("s", "examples:\n  x", good.text, {"moves": MOVE_LIST},
                                 command="no colon here"),
        "other-moves": Operation("s", "examples:\n  x", good.text,
                                 {"moves": Field({"type": "string"}, is_text)}),
        "not-a-row": object(),
    }
    found = "\n".join(check_rows({"moves": good, **table}))
    for name in table:
        assert f"operation {name!r}" in found, name
    assert "means something else" in found and "not an Operation" in found


def test_the_protocol_schema_is_written_from_the_rows():
    text = PROTOCOL_SCHEMA.read_text(encoding="utf-8")
    assert derived.protocol_schema_text(text) == text
    defs = json.loads(text)["$defs"]
    assert defs["perft-response"]["required"] == ["id", "ok", "nodes"]   # divide is optional
    # a changed row rewrites its definition, and only that
    row = OPERATIONS["fen"]
    changed = {**OPERATIONS, "fen": Operation(row.summary, row.help, row.text,
                                              {"fen": row.result["fen"], "legal": flag("legal")})}
    data = json.loads(derived.protocol_schema_text(text, changed))["$defs"]
    assert data["fen-response"]["properties"]["legal"] == {"type": "boolean"}
    assert data["fen-response"]["required"] == ["id", "ok", "fen"]
    assert {k: v for k, v in data.items() if k != "fen-response"} == \
        {k: v for k, v in defs.items() if k != "fen-response"}


def test_the_case_file_schema_is_written_from_the_rows():
    """The case-file schema states a case's request and expected answer in its own words
    (move lists without repeats, the descriptions): each field's ``case``."""
    text = CASE_SCHEMA.read_text(encoding="utf-8")
    assert derived.case_schema_text(text) == text
    defs = json.loads(text)["$defs"]
    assert set(defs["expectResult"]["properties"]) == set(operations.result_fields())
    assert set(defs["request"]["properties"]) == {"op"} | set(operations.request_fields())
    assert defs["request"]["dependentSchemas"]["depth"] == {"properties": {"op": {"const": "perft"}}}
    row = OPERATIONS["fen"]   # a field two operations read belongs to both
    changed = {**OPERATIONS, "fen": Operation(row.summary, row.help, row.text, row.result,
                                              request={"turns": OPERATIONS["perft"].request["turns"]})}
    data = json.loads(derived.case_schema_text(text, changed))["$defs"]
    assert data["request"]["dependentSchemas"]["turns"] == {"properties": {"op": {"enum": ["perft", "fen"]}}}
    assert {k: v for k, v in data.items() if k != "request"} == {k: v for k, v in defs.items() if k != "request"}


@pytest.mark.parametrize("op", list(OPERATIONS))
def test_a_request_without_a_field_its_row_requires_is_refused_by_both_schemas(op):
    from jsonschema import Draft202012Validator
    required = [k for k, f in OPERATIONS[op].request.items() if f.required]
    defs = json.loads(CASE_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    case_request = Draft202012Validator({"$ref": "#/$defs/request", "$defs": defs})
    assert bool(protocol.problems("op-request", {"id": 1, "op": op, "variant": "chess"})) == bool(required)
    assert bool(list(case_request.iter_errors({"op": op}))) == bool(required)


# ------------------------------------------------- a new operation is one row

def toy_text(result: dict) -> str:
    return "squares: " + " ".join(sorted(result["squares"]))


def toy_command(args) -> int:
    """What the toy row's command runs (a real row's answers come from the oracle)."""
    print(as_text(args.command, {"squares": ["e4", args.square]}))
    return 0


TOY = Operation(
    "list the squares a piece could reach", "Lists squares.\n\nexamples:\n  doublecheck toy --square e4\n",
    text=toy_text, result={"squares": MOVE_LIST},
    request={"square": Field({"type": "string"}, is_text, required=False)},
    options=(Option(("--square",), "the square asked about", metavar="SQ", default="d4"),),
    command=f"{__name__}:toy_command", desk=False)


@pytest.fixture
def toy(monkeypatch):
    """The toy row in the table, and the protocol schema as ``doublecheck generate`` writes it."""
    monkeypatch.setitem(OPERATIONS, "toy", TOY)
    monkeypatch.setattr(derived, "OPS", (*api.OPS, "toy"))   # the oracle's answer function would add it
    text = derived.schema_text(PROTOCOL_SCHEMA.read_text(encoding="utf-8"))
    schema = json.loads(derived.protocol_schema_text(text))
    monkeypatch.setattr(protocol, "_schema", lambda: schema)
    protocol.validator.cache_clear()
    yield
    protocol.validator.cache_clear()


def test_a_toy_row_is_checked_at_import_like_any_other(toy):
    assert check_rows(OPERATIONS) == []


def test_generate_adds_a_toy_rows_answer_after_the_row_before_it(toy):
    text = derived.schema_text(PROTOCOL_SCHEMA.read_text(encoding="utf-8"))
    written = derived.protocol_schema_text(text)
    assert derived.protocol_schema_text(written) == written          # written once, then left alone
    defs = list(json.loads(written)["$defs"])
    assert defs[defs.index("fen-response") + 1] == "toy-response"
    assert json.loads(written)["$defs"]["op-request"]["properties"]["square"] == {"type": "string"}
    assert {"$ref": "#/$defs/toy-response"} in json.loads(written)["$defs"]["response"]["anyOf"]
    cases = json.loads(derived.case_schema_text(CASE_SCHEMA.read_text(encoding="utf-8")))["$defs"]
    assert cases["expectResult"]["properties"]["squares"] == {"$ref": "#/$defs/moveList"}
    assert cases["request"]["properties"]["square"] == {"type": "string"}
    assert cases["request"]["dependentSchemas"]["square"] == {"properties": {"op": {"const": "toy"}}}


def test_a_toy_row_is_judged_by_compare(toy):
    want = {"squares": ["e4", "e5"]}
    assert compare.difference("chess", want, {"ok": True, "squares": ["e5", "e4"]}) is None
    diff = compare.difference("chess", want, {"ok": True, "squares": ["e4", "e6"]})
    assert diff["fields"]["squares"]["kind"] == "set"
    assert diff["fields"]["squares"]["missing"] == ["e5"] and diff["fields"]["squares"]["extra"] == ["e6"]
    lines = compare.compare("chess", want, {"ok": True, "squares": ["e6"]})
    assert lines[:3] == ["squares: expected 2, got 1", "missing (expected, not produced): e4 e5",
                         "extra (produced, not expected): e6"]


def test_a_toy_row_is_shape_checked_by_the_harness_and_its_schema(toy):
    good = {"id": 1, "ok": True, "squares": ["e4"]}
    assert protocol._plain_result("toy", good)
    assert protocol.response_problems("toy", good) == []
    bad = {"id": 1, "ok": True, "squares": "e4"}
    assert not protocol._plain_result("toy", bad)
    assert protocol.response_problems("toy", bad) == ["$.squares: 'e4' is not of type 'array'"]
    assert protocol.response_problems("toy", {"id": 1, "ok": True}) != []
    request = {"id": 1, "op": "toy", "variant": "chess", "square": "e4"}
    assert protocol.request_problems(request) == []
    assert protocol.request_problems({**request, "square": 5}) == ["$.square: 5 is not of type 'string'"]


def test_a_toy_row_is_a_command_with_its_options_and_text(toy, capsys):
    assert cli.main(["toy", "--square", "h8"]) == 0
    assert capsys.readouterr().out == "squares: e4 h8\n"
    with pytest.raises(SystemExit):
        cli.main(["toy", "--help"])
    shown = capsys.readouterr().out
    assert "--square SQ" in shown and "the square asked about" in shown and "doublecheck toy --square e4" in shown


def test_no_tool_branches_on_an_operation_name():
    """compare, the protocol checks, the command line and the desk read the rows."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "tools"
    for path in ("harness/compare.py", "harness/protocol.py", "cli.py", "lookups/commands.py", "desk/ops.py"):
        text = (root / path).read_text(encoding="utf-8")
        for op in OPERATIONS:
            for branch in (f'op == "{op}"', f'command == "{op}"', f'op in ("{op}"'):
                assert branch not in text, (path, branch)
    assert COMMON["moves"].fits(["e2e4"]) and not COMMON["moves"].fits([""])
