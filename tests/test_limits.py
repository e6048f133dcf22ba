"""The documented input limits (docs/protocol.md, "Limits"): where each is checked, what it
answers, that the docs state the numbers the code uses, and that every case of the suite
fits well inside them."""

import io
import json
import os
import re
import threading
import tracemalloc
from pathlib import Path

import pytest

from doublecheck.authoring import generate
from doublecheck.casefiles import CASES_DIR, load_cases
from doublecheck.cli import UsageError, build_parser
from doublecheck.harness.protocol import MAX_LINE
from doublecheck.harness.serve import serve
from doublecheck.resource_limits import (JOBS_PER_CORE, MAX_DATA_FILE_BYTES, MAX_ID_LENGTH, MAX_JSON_DEPTH,
                                MAX_TIMEOUT, TooDeep, json_depth, loads, max_jobs)
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError, clip, quote
from doublecheck.oracle.request_limits import (MAX_FEN_LENGTH, MAX_FEN_NUMBER_DIGITS, MAX_MOVE_TEXT, MAX_MOVES,
                                       check_perft_depth)

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "docs" / "protocol.md").read_text()
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def refusal(request: dict) -> RulesError:
    with pytest.raises(RulesError) as caught:
        api.handle(request)
    return caught.value


# ------------------------------------------------------------ messages

def test_quote_shows_a_short_prefix_and_the_length():
    assert quote("e2e4") == "'e2e4'"
    long = quote("x" * 15_000_000)
    assert long == repr("x" * 200) + "... (15000000 characters)"
    assert clip("y" * 201, 200) == "y" * 200 + "... (201 characters)"
    assert len(quote(list(range(10 ** 6)))) < 300
    assert quote(10 ** 5000) == "a whole number of about 5000 digits"


# ------------------------------------------------------------ FEN

@pytest.mark.parametrize("fen, position, what", [
    ("rnbqkbnr/pppppppp/\u0668/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 19, "not ASCII"),
    ("4k3/8/8/8/8/8/8/4K3 w - - \u00b2 1", 27, "not ASCII"),
    (START.replace(" ", "\u3000", 1), 44, "a space other than the ASCII space"),
    (START.replace(" ", "\t", 1), 44, "a space other than the ASCII space"),
    (START + "\x01", 57, "a control character"),
    (START + "\x1f", 57, "a space other than the ASCII space"),
])
def test_a_fen_is_printable_ascii_and_the_message_names_the_position(fen, position, what):
    error = refusal({"op": "fen", "variant": "chess", "fen": fen})
    assert error.code == "invalid-fen"
    assert f"character {position} of the FEN" in error.message and what in error.message


def test_fields_are_separated_by_ascii_spaces_and_runs_of_them_are_fine():
    assert api.handle({"op": "fen", "variant": "chess", "fen": "  " + START.replace(" ", "   ") + " "}) \
        == {"fen": START}


def test_clock_digits_are_limited_before_any_conversion():
    nine = "9" * MAX_FEN_NUMBER_DIGITS
    assert api.handle({"op": "fen", "variant": "chess", "fen": f"4k3/8/8/8/8/8/8/4K3 w - - 0 {nine}"})
    error = refusal({"op": "fen", "variant": "chess", "fen": f"4k3/8/8/8/8/8/8/4K3 w - - 0 {nine}9"})
    assert error.code == "invalid-fen" and "at most 9 digits" in error.message


def test_an_empty_run_longer_than_the_rank_is_refused_before_any_board_is_built():
    tracemalloc.start()
    try:
        for run in ("9", "17", "100000000", "1" + "0" * 990):
            error = refusal({"op": "fen", "variant": "chess", "fen": f"8/8/8/8/8/8/8/{run} w - - 0 1"})
            assert error.code == "invalid-fen" and "more than its 8 squares" in error.message
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024
    wide = variants.get("double-chess").start_fen   # two-digit runs (16) where the rank has 16 squares
    assert api.handle({"op": "fen", "variant": "double-chess", "fen": wide}) == {"fen": wide}


def test_a_long_fen_is_refused_by_its_length_with_a_short_message():
    error = refusal({"op": "fen", "variant": "chess", "fen": START + " " * MAX_FEN_LENGTH})
    assert error.code == "invalid-fen" and f"at most {MAX_FEN_LENGTH} characters" in error.message
    assert len(error.message) < 200


# ------------------------------------------------------------ moves and perft

def test_move_text_and_move_count_are_limited():
    error = refusal({"op": "play", "variant": "chess", "moves": ["e2e4" * 20]})
    assert error.code == "invalid-move-text" and len(error.message) < 200
    error = refusal({"op": "play", "variant": "chess", "moves": ["e2e4"] * (MAX_MOVES + 1)})
    assert error.code == "invalid-request" and str(MAX_MOVES) in error.message


@pytest.mark.parametrize("variant", api.VARIANTS)
def test_perft_depth_up_to_the_variant_limit_is_accepted_and_beyond_refused(variant):
    rules = variants.get(variant)
    for turns in (False, True):
        most = rules.perft_depth_limit(turns)   # max_perft_depth, lower by turns where turns grow
        check_perft_depth(rules, most, turns)
        request = {"op": "perft", "variant": variant, "depth": most + 1, "turns": turns}
        error = refusal(request)
        assert error.code == "invalid-request"
        assert f"at most {most}" in error.message


class Untouchable:
    """An adapter that must never be asked anything: the server answers first."""

    def hello(self):
        return {"name": "untouchable", "variants": ["chess"], "ops": ["perft"]}

    def handle(self, request):
        raise AssertionError(f"the adapter was asked {request}")


def exchange(*lines, adapter=None) -> list[dict]:
    out = io.BytesIO()
    serve(adapter, io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_server_holds_the_perft_limit_for_any_adapter_it_serves():
    answer = exchange(b'{"id": 1, "op": "perft", "variant": "chess", "depth": 14}', adapter=Untouchable())[0]
    assert answer["error"]["code"] == "invalid-request" and "at most 13" in answer["error"]["message"]


def test_request_ids_are_limited():
    long_id, big_id = json.dumps({"id": "i" * (MAX_ID_LENGTH + 1), "op": "moves", "variant": "chess"}), \
        json.dumps({"id": 2 ** 63, "op": "moves", "variant": "chess"})
    fine = json.dumps({"id": "i" * MAX_ID_LENGTH, "op": "fen", "variant": "chess"})
    answers = exchange(long_id.encode(), big_id.encode(), fine.encode())
    assert [a["error"]["code"] for a in answers[:2]] == ["invalid-request"] * 2
    assert answers[2]["ok"] is True


# ------------------------------------------------------------ JSON nesting

def test_nesting_is_measured_on_the_text_outside_strings():
    assert json_depth('{"a": [1, {"b": "[[[[{{{{"}], "c": "\\"[["}') == 3
    assert loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    with pytest.raises(TooDeep):
        loads("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert loads(json.dumps({"x": "[" * 10_000})) == {"x": "[" * 10_000}


# ------------------------------------------------------------ command line

def parse(*argv):
    return build_parser().parse_args(list(argv))


def test_usable_option_values_are_accepted():
    assert parse("run", "--timeout", "0").timeout == 0
    assert parse("run", "--timeout", "2.5").timeout == 2.5
    assert parse("run", "--timeout", str(MAX_TIMEOUT)).timeout == MAX_TIMEOUT
    assert parse("run", "--jobs", str(max_jobs())).jobs == max_jobs()
    assert parse("run", "--give-up", "0").give_up == 0
    assert parse("run", "--max-nodes", "0").max_nodes == 0
    assert parse("run", "--engine", "python3 'my engine.py' --x").engine == "python3 'my engine.py' --x"
    assert parse("perft", "--depth", "0").depth == 0


def test_jobs_over_the_cap_is_refused_naming_the_cap():
    with pytest.raises(UsageError) as caught:
        parse("run", "--jobs", str(max_jobs() + 1))
    assert f"at most {max_jobs()} ({JOBS_PER_CORE} per CPU core" in caught.value.message


# ------------------------------------------------------------ case loader

def scratch_tree(tmp_path) -> Path:
    root = tmp_path / "cases"
    (root / "rules").mkdir(parents=True)
    (root / "chess").mkdir()
    (root / "rules" / "general.json").write_text(json.dumps(
        {"rules": [{"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]}))
    (root / "chess" / "topic.json").write_text(json.dumps(
        {"variant": "chess", "topic": "topic", "generated": False, "description": "d",
         "cases": [{"id": "chess/topic/ok", "rules": ["G1"], "description": "d", "source": "s",
                    "request": {"op": "moves"}, "expect": {"moves": ["e2e4"]}}]}))
    return root


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_json_is_skipped_with_a_warning_not_waited_on(tmp_path, capsys):
    root = scratch_tree(tmp_path)
    os.mkfifo(root / "chess" / "pipe.json")
    os.mkfifo(root / "rules" / "pipe.json")
    (root / "chess" / "folder.json").mkdir()
    done = []
    loader = threading.Thread(target=lambda: done.append(load_cases(root)), daemon=True)
    loader.start()
    loader.join(30)
    if not done:   # unblock the loader so the test run can end, then fail
        for fifo in ("chess/pipe.json", "rules/pipe.json"):
            with open(os.open(root / fifo, os.O_WRONLY | os.O_NONBLOCK), "w"):
                pass
    assert done, "the loader waited on a FIFO"
    cases, problems = done[0]
    assert [c.id for c in cases] == ["chess/topic/ok"] and problems == []
    warnings = capsys.readouterr().err
    assert "warning: cases/chess/pipe.json: skipped: it is a FIFO" in warnings
    assert "warning: cases/rules/pipe.json: skipped: it is a FIFO" in warnings
    assert "warning: cases/chess/folder.json: skipped: it is a directory" in warnings


def test_non_utf8_and_oversized_files_are_problems_naming_the_file(tmp_path):
    root = scratch_tree(tmp_path)
    (root / "chess" / "latin.json").write_bytes('{"description": "caf\u00e9"}'.encode("latin-1"))
    with open(root / "chess" / "huge.json", "wb") as f:
        f.truncate(MAX_DATA_FILE_BYTES + 1)
    _, problems = load_cases(root)
    text = "\n".join(problems)
    assert "cases/chess/latin.json: not UTF-8 text: byte 0xe9 at line 1" in text
    assert "cases/chess/huge.json: larger than 16 MiB" in text


def test_generate_check_names_a_generated_file_that_is_not_utf8(tmp_path, monkeypatch):
    root = scratch_tree(tmp_path)
    (root / "chess" / "generated-x.json").write_bytes(b'{"generated": true, "x": "\xff"}\n')
    monkeypatch.setattr(generate, "produce", lambda variant=None, progress=None: (("chess/generated-x.json", "{}\n"),))
    out, err = io.StringIO(), io.StringIO()
    assert generate.generate_command(root, "chess", check=True, out=out, err=err) == 1
    assert f"differs: {root / 'chess' / 'generated-x.json'} (not UTF-8 text" in out.getvalue()


# ------------------------------------------------------------ the docs and the suite

def limits_table() -> str:
    return DOCS.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]


def test_the_docs_state_the_numbers_the_code_uses():
    table = limits_table()
    for stated in (f"{MAX_LINE // 2 ** 20} MiB", f"{MAX_JSON_DEPTH} levels", f"{MAX_ID_LENGTH} characters",
                   f"{MAX_FEN_LENGTH:,} characters", f"{MAX_FEN_NUMBER_DIGITS} digits",
                   f"{MAX_MOVE_TEXT} characters", f"{MAX_MOVES:,}", f"{MAX_DATA_FILE_BYTES // 2 ** 20} MiB",
                   f"{JOBS_PER_CORE} per CPU core", f"{MAX_TIMEOUT:,.0f}"):
        assert stated in table, stated


def test_the_docs_state_every_variants_perft_limit():
    stated = dict(re.findall(r"^\| `([a-z-]+)` \| (\d+) \|$", limits_table(), re.M))
    assert stated == {v: str(variants.get(v).max_perft_depth) for v in api.VARIANTS}


def test_every_case_fits_well_inside_the_limits():
    """Room for what is coming: perft two plies deeper than any vector today, FENs and
    move lists several times longer."""
    cases, problems = load_cases(CASES_DIR)
    assert not problems
    for c in cases:
        r = c.request
        assert len(r.get("fen", "")) <= MAX_FEN_LENGTH // 4, c.id
        assert len(r.get("moves", [])) <= MAX_MOVES // 100, c.id
        assert all(len(m) <= MAX_MOVE_TEXT // 2 for m in r.get("moves", [])), c.id
        if r["op"] == "perft":
            assert r["depth"] + 2 <= variants.get(c.variant).max_perft_depth, c.id
    for path in CASES_DIR.glob("*/*.json"):
        assert path.stat().st_size <= MAX_DATA_FILE_BYTES // 16, path
        assert json_depth(path.read_text()) <= MAX_JSON_DEPTH // 4, path
