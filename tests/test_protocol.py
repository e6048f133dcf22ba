"""The protocol: schemas, `doublecheck serve`, the documented session, and the subprocess client."""

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from doublecheck.oracle import api
from doublecheck.casefiles import load_cases
from doublecheck.cli import main
from doublecheck.harness.engines import EngineSpec, SubprocessEngine
from doublecheck.harness.protocol import (Client, EngineFailure, HelloError, problems, request_problems,
                            response_problems)
from doublecheck.harness.serve import serve

ROOT = Path(__file__).resolve().parent.parent
TOYS = ROOT / "tests" / "toy_engines"
sys.path.insert(0, str(TOYS))
from toy import TRIGGER_FEN  # noqa: E402

SERVE = [sys.executable, "-m", "doublecheck", "serve"]


def exchange(*lines, adapter=None, max_line=None) -> list[dict]:
    """Feed raw lines to the server in-process; its answers, parsed."""
    data = b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)
    out = io.BytesIO()
    kwargs = {"max_line": max_line} if max_line else {}
    assert serve(adapter, io.BytesIO(data), out, **kwargs) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def ask(**request) -> dict:
    return exchange(json.dumps({"id": 1, **request}))[0]


# --- schemas ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["protocol.schema.json", "report.schema.json"])
def test_schemas_are_valid_draft_2020_12(name):
    Draft202012Validator.check_schema(json.loads((ROOT / "schemas" / name).read_text()))


def test_every_case_request_is_a_protocol_request():
    cases, _ = load_cases()
    assert cases
    for c in cases:
        assert problems("request", {"id": c.id, **c.request}) == [], c.id


def test_schema_rejects_malformed_messages():
    assert problems("request", {"op": "moves", "variant": "chess"})  # no id
    assert problems("request", {"id": 1, "op": "perft", "variant": "chess"})  # no depth
    assert problems("request", {"id": 1, "op": "hello"})  # no protocol list
    assert problems("moves-response", {"id": 1, "ok": True, "moves": [1]})
    assert problems("error-response", {"id": 1, "ok": False, "error": {"code": "x"}})
    assert problems("hello-response", {"id": 1, "ok": True, "protocol": "1", "name": "x",
                                       "variants": [], "ops": ["dance"]})
    assert problems("play-response", {"id": 1, "ok": True, "fen": "x", "status": {"over": "no"}})
    assert problems("response", {"id": 1, "ok": True, "fen": "x"}) == []


STATUS = {"over": False, "result": None, "reason": None, "claimable": []}
MESSAGES = [  # (op, answer): valid and invalid answers
    ("moves", {"id": 1, "ok": True, "moves": ["e2e4"]}),
    ("moves", {"id": "a", "ok": True, "moves": []}),
    ("moves", {"id": 1, "ok": True, "moves": ["e2e4", 5]}),
    ("moves", {"id": 1, "ok": True, "moves": "e2e4"}),
    ("moves", {"id": True, "ok": True, "moves": []}),
    ("moves", {"id": 1.5, "ok": True, "moves": []}),
    ("moves", {"id": 1, "ok": True}),
    ("turns", {"id": 1, "ok": True, "turns": ["e2e4,d2d4"], "extra": 1}),
    ("turns", {"id": 1, "ok": True, "turns": [None]}),
    ("fen", {"id": 1, "ok": True, "fen": "x"}),
    ("fen", {"id": 1, "ok": True, "fen": 3}),
    ("status", {"id": 1, "ok": True, "status": STATUS}),
    ("status", {"id": 1, "ok": True, "status": {**STATUS, "result": "2-0"}}),
    ("status", {"id": 1, "ok": True, "status": {**STATUS, "over": 0}}),
    ("status", {"id": 1, "ok": True, "status": {**STATUS, "reason": 7}}),
    ("status", {"id": 1, "ok": True, "status": {"over": False, "result": None, "claimable": []}}),
    ("status", {"id": 1, "ok": True, "status": {**STATUS, "claimable": ["x", 1]}}),
    ("play", {"id": 1, "ok": True, "fen": "x", "status": {**STATUS, "result": "1-0"}}),
    ("play", {"id": 1, "ok": True, "status": STATUS}),
    ("perft", {"id": 1, "ok": True, "nodes": 20}),
    ("perft", {"id": 1, "ok": True, "nodes": 20, "divide": {"e2e4": 1}}),
    ("perft", {"id": 1, "ok": True, "nodes": -1}),
    ("perft", {"id": 1, "ok": True, "nodes": True}),
    ("perft", {"id": 1, "ok": True, "nodes": 2.0}),
    ("perft", {"id": 1, "ok": True, "nodes": 2, "divide": {"e2e4": "1"}}),
    ("perft", {"id": 1, "ok": True, "nodes": 2, "divide": []}),
    ("moves", {"id": 1, "ok": False, "error": {"code": "invalid-fen", "message": "m"}}),
    ("moves", {"id": None, "ok": False, "error": {"code": "invalid-request", "message": ""}}),
    ("moves", {"id": 1, "ok": False, "error": {"code": "", "message": "m"}}),
    ("moves", {"id": 1, "ok": False, "error": {"code": "x"}}),
    ("moves", {"id": 1, "ok": False, "error": "bad"}),
]


@pytest.mark.parametrize("op,answer", MESSAGES)
def test_quick_answer_checks_agree_with_the_schema(op, answer):
    kind = f"{op}-response" if answer["ok"] else "error-response"
    assert (response_problems(op, answer) == []) == (problems(kind, answer) == [])


REQUESTS = [
    {"id": 1, "op": "moves", "variant": "chess"},
    {"id": 1, "op": "moves", "variant": "chess", "moves": ["e2e4,d2d4"], "fen": "x", "x": 1},
    {"id": 1, "op": "perft", "variant": "chess", "depth": 0, "divide": True, "turns": False},
    {"id": 1, "op": "perft", "variant": "chess"},
    {"id": 1, "op": "perft", "variant": "chess", "depth": True},
    {"id": 1, "op": "moves", "variant": "chess", "depth": -2},
    {"id": 1, "op": "moves", "variant": "chess", "moves": 5},
    {"id": 1, "op": "moves", "variant": "chess", "moves": [""]},
    {"id": 1, "op": "moves", "variant": "chess", "divide": 1},
    {"id": 1, "op": "moves", "variant": ""},
    {"id": 1, "op": "moves"},
    {"id": [], "op": "moves", "variant": "chess"},
]


@pytest.mark.parametrize("request_", REQUESTS)
def test_quick_request_checks_agree_with_the_schema(request_):
    assert (request_problems(request_) == []) == (problems("op-request", request_) == [])


# --- serve ------------------------------------------------------------------

def test_hello_negotiates_the_version():
    hello = ask(op="hello", protocol=["7", "1"])
    assert hello["ok"] and hello["protocol"] == "1"
    assert hello["name"] == "doublecheck-oracle"
    assert hello["variants"] == list(api.VARIANTS) and hello["ops"] == list(api.OPS)
    assert response_problems("hello", hello) == []
    refused = ask(op="hello", protocol=["7"])
    assert refused["ok"] is False and refused["error"]["code"] == "unsupported-protocol"
    assert "speaks protocol version 1" in refused["error"]["message"]


def sample_cases():
    """A few cases of every (variant, op), smallest perft first."""
    cases, _ = load_cases()
    cases.sort(key=lambda c: c.expect.get("nodes", 0))
    seen = {}
    for c in cases:
        key = (c.variant, c.request["op"], "error" in c.expect)
        if len(seen.setdefault(key, [])) < 3:
            seen[key].append(c)
    return [c for group in seen.values() for c in group]


def test_serve_answers_like_the_oracle_in_the_documented_shapes():
    cases = sample_cases()
    lines = [json.dumps({"id": i, **c.request}) for i, c in enumerate(cases)]
    answers = exchange(*lines)
    assert len(answers) == len(cases)
    for i, (c, answer) in enumerate(zip(cases, answers)):
        assert answer["id"] == i
        assert response_problems(c.request["op"], answer) == [], c.id
        try:
            want = {"ok": True, **api.handle(dict(c.request))}
        except Exception as e:
            want = {"ok": False, "error": {"code": e.code, "message": e.message}}
        assert {k: v for k, v in answer.items() if k != "id"} == want, c.id


def test_results_have_the_names_and_shapes_of_the_cli_json(capsys):
    argv_and_requests = [
        (["moves", "--moves", "e2e4"], {"op": "moves", "variant": "chess", "moves": ["e2e4"]}),
        (["turns", "--variant", "double-move-anul"], {"op": "turns", "variant": "double-move-anul"}),
        (["play", "--moves", "f3 e5 g4 Qh4#"], {"op": "play", "variant": "chess",
                                                "moves": ["f3", "e5", "g4", "Qh4#"]}),
        (["status", "--moves", "e2e4"], {"op": "status", "variant": "chess", "moves": ["e2e4"]}),
        (["perft", "--depth", "2", "--divide"], {"op": "perft", "variant": "chess", "depth": 2,
                                                 "divide": True}),
        (["fen", "--moves", "e2e4"], {"op": "fen", "variant": "chess", "moves": ["e2e4"]}),
    ]
    for argv, request in argv_and_requests:
        assert main(argv + ["--json"]) == 0
        cli = json.loads(capsys.readouterr().out)
        answer = ask(**request)
        assert answer.pop("ok") is True and answer.pop("id") == 1
        assert answer == cli, argv


BAD_LINES = [
    (b"not json at all", None, "invalid-request"),
    (b"\xff\xfe\x00", None, "invalid-request"),
    (b"[1, 2]", None, "invalid-request"),
    (b'"hello"', None, "invalid-request"),
    (b'{"op": "moves", "variant": "chess"}', None, "invalid-request"),
    (b'{"id": true, "op": "moves", "variant": "chess"}', None, "invalid-request"),
    (b'{"id": 5}', 5, "invalid-request"),
    (b'{"id": 6, "op": 3}', 6, "invalid-request"),
    (b'{"id": 7, "op": "moves"}', 7, "invalid-request"),
    (b'{"id": 8, "op": "perft", "variant": "chess"}', 8, "invalid-request"),
    (b'{"id": 9, "op": "perft", "variant": "chess", "depth": -1}', 9, "invalid-request"),
    (b'{"id": 10, "op": "moves", "variant": "chess", "moves": "e2e4"}', 10, "invalid-request"),
    (b'{"id": 11, "op": "moves", "variant": "chess", "fen": 12}', 11, "invalid-request"),
    (b'{"id": "x", "op": "fly", "variant": "chess"}', "x", "unsupported"),
    (b'{"id": 12, "op": "moves", "variant": "xiangqi"}', 12, "unknown-variant"),
    (b'{"id": 13, "op": "moves", "variant": "chess", "fen": "8/8 w"}', 13, "invalid-fen"),
    (b'{"id": 14, "op": "play", "variant": "chess", "moves": ["e2e5"]}', 14, "illegal-move"),
    (b'{"id": 15, "op": "play", "variant": "chess", "moves": ["??"]}', 15, "invalid-move-text"),
    (b'{"id": 16, "op": "hello", "protocol": "1"}', 16, "invalid-request"),
    (b"", None, "invalid-request"),      # an empty line is answered too
    (b"   \t", None, "invalid-request"),
]


def test_bad_lines_get_error_answers_and_serving_goes_on():
    lines = [line for line, _, _ in BAD_LINES] + [b'{"id": 99, "op": "perft", "variant": "chess", "depth": 1}']
    answers = exchange(*lines)
    assert len(answers) == len(BAD_LINES) + 1
    for (line, rid, code), answer in zip(BAD_LINES, answers):
        assert response_problems("moves", answer) == [], line
        assert answer["ok"] is False and answer["id"] == rid, line
        assert answer["error"]["code"] == code, (line, answer)
        assert answer["error"]["message"], line
    assert answers[-1] == {"id": 99, "ok": True, "nodes": 20}


def test_overlong_line_is_refused_and_the_next_one_answered():
    long = json.dumps({"id": 1, "op": "moves", "variant": "chess", "pad": "x" * 5000})
    answers = exchange(long, json.dumps({"id": 2, "op": "fen", "variant": "chess"}), max_line=1000)
    assert answers[0]["ok"] is False and answers[0]["error"]["code"] == "invalid-request"
    assert "longer than 1000 bytes" in answers[0]["error"]["message"]
    assert answers[1]["id"] == 2 and answers[1]["ok"] is True


def test_adapter_bug_is_an_internal_error_answer():
    from tests.toy_engines.adapters import Raises
    answer = exchange('{"id": 1, "op": "moves", "variant": "chess"}', adapter=Raises())[0]
    assert answer["ok"] is False and answer["error"]["code"] == "internal-error"
    assert "ZeroDivisionError" in answer["error"]["message"]


def documented_session():
    text = (ROOT / "docs" / "protocol.md").read_text()
    body = text.split("## A complete session", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    sent = [line[2:] for line in body.splitlines() if line.startswith("> ")]
    expected = [json.loads(line[2:]) for line in body.splitlines() if line.startswith("< ")]
    return sent, expected


def test_the_documented_session_is_what_serve_answers():
    sent, expected = documented_session()
    assert len(sent) == len(expected) >= 10
    proc = subprocess.run(SERVE, input="\n".join(sent) + "\n", capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(expected)
    for got, want in zip(answers, expected):
        if not want["ok"]:  # messages are for people; the code is the contract
            assert got["error"]["code"] == want["error"]["code"]
            got, want = {**got, "error": None}, {**want, "error": None}
        for key in ("moves", "turns"):
            if key in want:
                assert sorted(got.pop(key)) == sorted(want.pop(key))
        assert got == want


def test_serve_subprocess_survives_garbage_and_exits_at_end_of_input():
    proc = subprocess.run(SERVE, input=b"garbage\n\xff\n{\"id\": 3, \"op\": \"moves\", \"variant\": "
                          b"\"chess\", \"fen\": \"7k/8/8/8/8/8/8/K7 w - - 0 1\"}\n",
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [False, False, True]
    assert sorted(answers[2]["moves"]) == ["a1a2", "a1b1", "a1b2"]


def test_serve_with_an_adapter_that_cannot_load_is_a_clear_error():
    proc = subprocess.run(SERVE + ["--adapter", "no_such_module_x:Y"], input=b"", cwd=ROOT,
                          capture_output=True, timeout=60)
    assert proc.returncode == 2 and b"cannot import" in proc.stderr and b"Traceback" not in proc.stderr


# --- the client -------------------------------------------------------------

def toy(name, *args):
    return [sys.executable, str(TOYS / f"{name}.py"), *args]


def test_client_restarts_after_a_crash_and_says_hello_again():
    client = Client(toy("crash"), timeout=20)
    try:
        hello = client.hello()
        assert hello["protocol"] == "1" and client.starts == 1
        assert client.call({"op": "fen", "variant": "chess"})["ok"]
        with pytest.raises(EngineFailure) as failure:
            client.call({"op": "moves", "variant": "chess", "fen": TRIGGER_FEN})
        assert failure.value.kind == "crash" and failure.value.restarted
        assert "breaks me" in failure.value.stderr
        assert client.call({"op": "fen", "variant": "chess"})["ok"]
        assert client.starts == 2
    finally:
        client.close()
    assert client.proc is None


def test_client_times_out_and_cuts_off_long_lines():
    client = Client(toy("hang"), timeout=0.5)
    try:
        client.hello()
        with pytest.raises(EngineFailure) as failure:
            client.call({"op": "moves", "variant": "chess", "fen": TRIGGER_FEN})
        assert failure.value.kind == "timeout" and "within 0.5 s" in failure.value.message
        assert client.proc is None
    finally:
        client.close()
    client = Client(toy("garbage", "--huge"), timeout=20, max_line=4096)
    try:
        client.hello()
        with pytest.raises(EngineFailure) as failure:
            client.call({"op": "moves", "variant": "chess", "fen": TRIGGER_FEN})
        assert failure.value.kind == "protocol-error"
        assert failure.value.message == "the answer is longer than 4096 bytes; cut off there"
        assert client.call({"op": "fen", "variant": "chess"})["ok"]
    finally:
        client.close()


def test_client_keeps_only_the_tail_of_stderr():
    noisy = [sys.executable, "-c", "import sys\nfor i in range(5000): print('log line', i, file=sys.stderr)\n"
             "sys.stderr.flush()\nsys.exit(4)"]
    client = Client(noisy, timeout=20)
    with pytest.raises(HelloError) as failure:
        client.hello()
    text = str(failure.value)
    assert "exit status 4" in text and "log line 4999" in text and "log line 4000" not in text
    assert len(text.splitlines()) <= 16


def test_hello_refusal_and_wrong_version_are_hello_errors():
    refused = Client(SERVE, timeout=20, versions=["9"])
    with pytest.raises(HelloError, match="refused hello: unsupported-protocol"):
        refused.hello()
    refused.close()
    wrong = Client(toy("toy", "--protocol", "0.9"), timeout=20)
    with pytest.raises(HelloError, match="speaks protocol version '0.9'; this harness speaks 1"):
        wrong.hello()
    wrong.close()


def test_engine_spec_serves_the_oracle_as_a_process():
    engine = EngineSpec().make_process()
    try:
        assert engine.hello()["name"] == "doublecheck-oracle"
        assert engine.request({"op": "perft", "variant": "chess", "depth": 1}) == {"ok": True, "nodes": 20}
    finally:
        engine.close()
    engine = SubprocessEngine(" ".join(shlex.quote(a) for a in SERVE))
    assert engine.command.endswith("-m doublecheck serve")
    engine.close()


def test_unrequested_output_is_a_protocol_error_not_a_wrong_answer():
    chatty = [sys.executable, "-c", """
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    reply = {"id": r["id"], "ok": True, "protocol": "1", "name": "chatty", "variants": ["chess"],
             "ops": ["fen"], "fen": "x"}
    print(json.dumps(reply)); print(json.dumps(reply)); sys.stdout.flush()
"""]
    client = Client(chatty, timeout=20)
    try:  # the second line is seen with hello's answer, before the request or as its answer
        with pytest.raises((EngineFailure, HelloError)) as failure:
            client.hello()
            client.call({"op": "fen", "variant": "chess"})
        assert "protocol-error" in str(failure.value)
        assert any(words in str(failure.value)
                   for words in ("second line", "before request", "already answered"))
    finally:
        client.close()
