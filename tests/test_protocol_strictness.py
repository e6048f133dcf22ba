"""Engine answers are read strictly: a perft count is a JSON integer (20.0 is not one, though
JSON Schema would count it), an answer's id has the request id's type, and a key given twice
in one object is a protocol error (readers disagree on which of the two counts)."""

import json
import sys

import pytest

from doublecheck.harness.protocol import Client, EngineFailure, response_problems

ENGINE = """
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["op"] == "hello":
        print(json.dumps({"id": r["id"], "ok": True, "protocol": "1", "name": "odd",
                          "variants": ["chess"], "ops": ["perft", "fen"]}))
    elif r["op"] == "perft":
        print('{"id": %d, "ok": true, "nodes": 20, "nodes": 21}' % r["id"])
    else:
        print('{"id": %d.0, "ok": true, "fen": "x"}' % r["id"])
    sys.stdout.flush()
"""


@pytest.mark.parametrize("nodes", [20.0, 2e1, True, "20"])
def test_a_perft_count_must_be_an_integer(nodes):
    assert response_problems("perft", {"id": 1, "ok": True, "nodes": nodes})
    assert response_problems("perft", {"id": 1, "ok": True, "nodes": 20, "divide": {"e2e4": nodes}})
    assert response_problems("perft", {"id": 1, "ok": True, "nodes": 20}) == []


def test_duplicate_keys_and_a_float_id_are_protocol_errors():
    client = Client([sys.executable, "-c", ENGINE], timeout=20)
    try:
        client.hello()
        with pytest.raises(EngineFailure) as failure:
            client.call({"op": "perft", "variant": "chess", "depth": 1})
        assert failure.value.kind == "protocol-error" and "'nodes' appears twice" in failure.value.message
        with pytest.raises(EngineFailure) as failure:
            client.call({"op": "fen", "variant": "chess"})
        assert failure.value.kind == "protocol-error" and "the answer has id" in failure.value.message
    finally:
        client.close()




def test_a_case_file_count_of_20_0_is_refused(tmp_path, monkeypatch):
    from test_startup import RULES, case_file

    from doublecheck.casefiles import load_cases
    monkeypatch.setenv("DOUBLECHECK_CACHE", "off")
    data = case_file("one", ["a"])
    data["cases"][0]["request"], data["cases"][0]["expect"] = {"op": "perft", "depth": 1}, {"nodes": 20.0}
    for rel, value in (("rules/general.json", RULES), ("chess/one.json", data)):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(value))
    _, problems = load_cases(tmp_path)
    assert any("20.0" in p for p in problems), problems


@pytest.mark.parametrize("address", ["http://127.0.0.1:8786", "inproc://x", "tls://127.0.0.1:8786",
                                     "ws://h:1", "127.0.0.1", "tcp://h:0", "tcp://h:99999", "tcp://h:1/x"])
def test_a_scheduler_address_of_another_scheme_is_refused_at_once(address, capsys):
    from doublecheck.cli import main
    from doublecheck.perft.parallel import DaskCluster, PerftError
    assert main(["perft", "--depth", "1", "--scheduler", address]) == 2
    assert "give tcp://HOST:PORT" in capsys.readouterr().err
    with pytest.raises(PerftError) as refused:
        DaskCluster(address)
    assert refused.value.code == "invalid-request"


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "localhost:8786", "tcp://[::1]:8786"])
def test_plain_tcp_scheduler_addresses_are_accepted(address):
    from doublecheck.perft.parallel import scheduler_problem
    assert scheduler_problem(address) is None


def test_seed_zero_is_a_seed_of_its_own(tmp_path):
    from doublecheck.authoring.own import OwnOptions, own_file
    made = {seed: own_file(OwnOptions(variant="chess", seed=seed, count=1)) for seed in (0, 1)}
    assert made[0][0] != made[1][0]                       # distinct file names
    assert made[0][1]["cases"] != made[1][1]["cases"]     # and distinct vectors
