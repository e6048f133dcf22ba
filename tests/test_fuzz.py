"""Hostile input: the protocol server, the command line, the case loader, game records
and the rules desk.

Three kinds of check, each over generated input (hypothesis) and over the
regression corpus ``tests/data/fuzz-corpus.json`` (every reproducer of the
issue with the code it must get):

- ``doublecheck serve`` runs as a subprocess for the whole module.  Every
  line sent gets exactly one answer, a JSON object whose error code is one
  the protocol documents and never ``internal-error``; the server is still
  running afterwards; its peak resident memory (``VmHWM`` in
  ``/proc/PID/status``) stays under ``MAX_SERVER_MEMORY``.  An answer that
  does not come within ``ANSWER_DEADLINE`` seconds fails the test: that is a
  hang detector set a hundred times above the slowest request sent here, not
  a speed measurement.
- The command line (``doublecheck.cli.main`` in-process): option values and
  lookups either work or fail with exit status 2 and one ``error: CODE:``
  line, CODE documented, never ``internal-error``.
- The case loader: a case tree with one mutated case file never raises; every
  problem names the file; a case it accepts never fails at run time for want
  of a well-formed request.

The default run is bounded (well under two minutes); ``-m deep`` runs the same
checks on many more inputs.  Either prints the number of inputs tried and the
outcomes by code.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.casefiles import load_cases
from doublecheck.cli import UsageError, build_parser, main
from doublecheck.harness.deadline import time_limit
from doublecheck.resource_limits import MAX_TIMEOUT, max_jobs
from doublecheck.lookups.pgn import PgnError, replay_text
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = json.loads((ROOT / "tests" / "data" / "fuzz-corpus.json").read_text())["entries"]
SERVE = [sys.executable, "-m", "doublecheck", "serve"]

ANSWER_DEADLINE = 60.0                 # seconds: a hang detector, see the module docstring
MAX_SERVER_MEMORY = 512 * 1024 * 1024  # peak RSS: 32 times the 16 MiB line limit
MAX_MESSAGE = 1000                     # characters of an error message


def documented_codes() -> set[str]:
    """The error codes in the table of docs/protocol.md, "Errors"."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))


CODES = documented_codes() - {"internal-error"}
CLI_CODES = CODES | {"usage"}
OUTCOMES: dict[str, Counter] = {"protocol": Counter(), "cli": Counter(), "case-file": Counter(),
                                "engine": Counter(), "special-file": Counter(),
                                "record": Counter(), "desk": Counter()}
WORST = {"seconds": 0.0, "peak_rss": 0}


def test_the_documented_codes_are_found():
    assert {"invalid-fen", "invalid-request", "unknown-variant", "invalid-move-text"} <= CODES


@pytest.fixture(scope="module", autouse=True)
def fuzz_summary(request):
    """After the module: how many inputs were tried, and what they got."""
    yield
    plugins = request.config.pluginmanager
    reporter, capture = plugins.getplugin("terminalreporter"), plugins.getplugin("capturemanager")
    if reporter is None or capture is None or not any(OUTCOMES.values()):
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        for kind, counts in OUTCOMES.items():
            if counts:
                shown = ", ".join(f"{code} {n}" for code, n in counts.most_common())
                reporter.write_line(f"fuzz {kind}: {sum(counts.values())} inputs: {shown}")
        if WORST["peak_rss"]:
            reporter.write_line(f"fuzz protocol: slowest answer {WORST['seconds']:.2f} s, "
                                f"server peak RSS {WORST['peak_rss'] / 2**20:.0f} MiB")


# ------------------------------------------------------------ corpus values

def expand(value):
    """A corpus value with its {"repeat"}, {"concat"} and {"bytes"} forms written out."""
    if isinstance(value, dict):
        if set(value) == {"repeat", "times"}:
            return value["repeat"] * value["times"]
        if set(value) == {"concat"}:
            return "".join(expand(part) for part in value["concat"])
        if set(value) == {"bytes"}:
            return bytes.fromhex(value["bytes"])
        return {key: expand(v) for key, v in value.items()}
    if isinstance(value, list):
        return [expand(v) for v in value]
    return value


def corpus(kind):
    entries = [e for e in CORPUS if e["kind"] == kind]
    return pytest.mark.parametrize("entry", entries, ids=[e["name"] for e in entries])


# ------------------------------------------------------------ the server

class Server:
    """``doublecheck serve`` in a subprocess, asked one line at a time."""

    def __init__(self):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.buffer = b""

    def ask(self, line: bytes) -> dict:
        """Send one line; its answer, parsed. Fails on a hang, a death or a non-JSON answer."""
        assert self.proc.poll() is None, f"the server has exited ({self.proc.returncode})"
        start = time.monotonic()
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()
        while b"\n" not in self.buffer:
            left = start + ANSWER_DEADLINE - time.monotonic()
            assert left > 0, f"no answer within {ANSWER_DEADLINE:g} s to {line[:200]!r}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                data = os.read(self.proc.stdout.fileno(), 1 << 20)
                assert data, f"the server closed its output after {line[:200]!r}: {self.tail()}"
                self.buffer += data
        answer, self.buffer = self.buffer.split(b"\n", 1)
        WORST["seconds"] = max(WORST["seconds"], time.monotonic() - start)
        assert self.buffer == b"", f"more than one answer to {line[:200]!r}"
        return json.loads(answer)

    def peak_memory(self) -> int:
        """The server's peak resident set size in bytes, from /proc."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        kib = int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1))
        WORST["peak_rss"] = max(WORST["peak_rss"], kib * 1024)
        return kib * 1024

    def tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].decode("utf-8", "replace")

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.stderr.close()


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.close()


needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="memory is read from /proc (Linux)")


def judge(server: Server, line: bytes) -> str:
    """Send a line and check the answer; returns its code ("ok" for an answer)."""
    answer = server.ask(line)
    assert isinstance(answer, dict) and isinstance(answer.get("ok"), bool), answer
    if answer["ok"]:
        code = "ok"
    else:
        error = answer["error"]
        code = error["code"]
        assert code in CODES, f"{code}: {error['message'][:500]} (line {line[:200]!r}; {server.tail()})"
        assert len(error["message"]) <= MAX_MESSAGE, (code, error["message"][:300])
    assert server.proc.poll() is None, f"the server died after {line[:200]!r}: {server.tail()}"
    assert server.peak_memory() < MAX_SERVER_MEMORY, f"peak RSS over the bound after {line[:200]!r}"
    OUTCOMES["protocol"][code] += 1
    return code


def as_line(request) -> bytes:
    return json.dumps(request).encode("utf-8")


@needs_proc
@corpus("protocol")
def test_corpus_protocol_line_gets_its_code(server, entry):
    line = expand(entry.get("line", entry.get("request")))
    data = line if isinstance(line, bytes) else line.encode("utf-8") if "line" in entry else as_line(line)
    assert judge(server, data) == entry["expect"], entry["name"]


@needs_proc
def test_server_still_answers_after_the_corpus(server):
    answer = server.ask(b'{"id": "last", "op": "perft", "variant": "chess", "depth": 2}')
    assert answer == {"id": "last", "ok": True, "nodes": 400}


# ------------------------------------------------------------ generated input

START_FENS = [variants.get(v).start_fen for v in api.VARIANTS]
CASE_FENS = sorted({c.request["fen"] for c in load_cases()[0] if "fen" in c.request})[::7]
ODD_CHARACTERS = ["\u00b2", "\u0668", "\uff10", "\uff19", "\u096a", "\u3000", "\u00a0", "\u2003",
                  "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\u00e9", "\ud800", "\U0001d7d8",
                  "*", "/", " ", "-", "9", "99", "0", "00", "16", "17", "w", "b", "K", "m", "@"]
MOVE_TOKENS = ["e2e4", "e7e5", "g1f3", "Nf3", "O-O", "O-O-O", "e4,", "e2e4,d2d4", "K@e0", "a7a8q",
               "Qxf7#", "e2e5", "i1k1", "*Ke1", "", ",", ",,", "e2e4,,", "e\u0662e\u0664", "zz", "e9e0"]


def text_bits():
    return st.one_of(st.sampled_from(ODD_CHARACTERS), st.text(max_size=4),
                     st.from_regex(r"[0-9]{1,40}", fullmatch=True))


@st.composite
def mutated_fens(draw):
    """A real FEN with up to four edits (none a quarter of the time): odd characters,
    digit runs, lost or doubled parts."""
    fen = draw(st.sampled_from(START_FENS + CASE_FENS))
    for _ in range(draw(st.sampled_from([0, 1, 1, 2, 3, 4]))):
        at = draw(st.integers(0, len(fen)))
        edit = draw(st.sampled_from(["insert", "replace", "delete", "field", "digit-run", "repeat"]))
        if edit == "insert":
            fen = fen[:at] + draw(text_bits()) + fen[at:]
        elif edit == "replace":
            fen = fen[:at] + draw(text_bits()) + fen[at + 1:]
        elif edit == "delete":
            fen = fen[:at] + fen[at + draw(st.integers(1, 6)):]
        elif edit == "field":
            fields = fen.split(" ")
            fields[draw(st.integers(0, len(fields) - 1))] = draw(text_bits())
            fen = " ".join(fields)
        elif edit == "digit-run":
            fen = fen[:at] + draw(st.sampled_from("123456789")) * draw(st.integers(1, 5000)) + fen[at:]
        else:
            fen = fen * draw(st.integers(2, 40))
    return fen


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@st.composite
def depths(draw, variant):
    """Mostly cheap depths (0, 1); else depths no engine may be asked: over the
    variant's limit, negative, not whole."""
    if draw(st.integers(0, 9)) < 6:
        return draw(st.integers(0, 1))
    limit = variants.get(variant).max_perft_depth
    return draw(st.one_of(st.integers(limit + 1, 10 ** 40), st.integers(-10 ** 40, -1),
                          st.floats(), st.text(max_size=4), st.booleans()))


@st.composite
def requests(draw):
    """A request: each field mostly well-formed, sometimes left out or anything at all."""
    variant = draw(st.sampled_from(list(api.VARIANTS) * 4) | st.text(max_size=20))
    good = {
        "op": st.sampled_from(list(api.OPS) + ["hello", "explain"]),
        "id": st.integers(-10, 10 ** 6) | st.text(max_size=20),
        "variant": st.just(variant),
        "fen": mutated_fens(),
        "moves": st.lists(st.sampled_from(MOVE_TOKENS) | st.text(min_size=1, max_size=8), max_size=8),
        "depth": depths(variant) if variant in api.VARIANTS else st.integers(0, 1),
        "divide": st.booleans(),
        "turns": st.booleans(),
        "protocol": st.lists(st.sampled_from(["1", "2", ""]), max_size=3),
    }
    request = {}
    for key, values in good.items():
        if key == "op":
            request["op"] = op = draw(values)   # drawn first: the perft fields depend on it
            continue
        if key in ("depth", "divide", "turns"):
            good_share, wild_share = (90, 5) if op == "perft" else (5, 5)
        else:
            good_share, wild_share = {"id": (97, 1), "variant": (97, 1), "fen": (70, 8),
                                      "moves": (50, 8), "protocol": (30, 5)}[key]
        how = draw(st.integers(0, 99))
        if how < good_share:
            request[key] = draw(values)
        elif how < good_share + wild_share:
            request[key] = draw(json_values)
    return request


@st.composite
def raw_lines(draw):
    """Lines that are not requests: bytes, text, deep or broken nesting, padding."""
    kind = draw(st.sampled_from(["bytes", "text", "nesting", "unbalanced", "padded", "blank"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300)).replace(b"\n", b"")
    if kind == "text":
        return draw(st.text(max_size=300)).replace("\n", "").encode("utf-8", "surrogatepass")
    if kind == "blank":
        return draw(st.sampled_from([b"", b" ", b"\t", b"\r", b" \t \r"]))
    depth = draw(st.integers(1, 200_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    if kind == "nesting":
        inner = opener * depth + "1" + closer * depth
        return f'{{"id":1,"op":"play","variant":"chess","moves":{inner}}}'.encode()
    if kind == "unbalanced":
        return (opener * depth).encode()
    pad = "x" * draw(st.integers(0, 300_000))
    return json.dumps({"id": 1, "op": "fen", "variant": "chess", "fen": pad}).encode()


def sizes(quick: int, deep: int):
    """Run a fuzz test with ``quick`` inputs, and with ``deep`` under ``-m deep``."""
    return pytest.mark.parametrize("examples", [pytest.param(quick, id="quick"),
                                                pytest.param(deep, id="deep", marks=pytest.mark.deep)])


def fuzz(examples: int, check, **strategies) -> None:
    """Call ``check`` on ``examples`` inputs drawn from ``strategies`` (no time limit per input)."""
    def one(**drawn):
        check(**drawn)
    settings(max_examples=examples, deadline=None, database=None,
             suppress_health_check=list(HealthCheck))(given(**strategies)(one))()


@needs_proc
@sizes(400, 10_000)
def test_fuzz_protocol_requests(server, examples):
    fuzz(examples, lambda request: judge(server, as_line(request)), request=requests())


@needs_proc
@sizes(150, 3_000)
def test_fuzz_protocol_lines(server, examples):
    fuzz(examples, lambda line: judge(server, line), line=raw_lines())


# ------------------------------------------------------------ the command line

def run_cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def cli_outcome(argv) -> str:
    """Run one command line; check it worked or failed cleanly; returns its code ("ok")."""
    status, out, err = run_cli(argv)
    if status == 0:
        code = "ok"
    else:
        assert status == 2, (argv, status, err[-500:])
        match = re.match(r"error: ([a-z-]+): ", err)
        assert match, (argv, err[-500:])
        code = match.group(1)
        assert code in CLI_CODES, (argv, err[-500:])
        assert len(err) <= MAX_MESSAGE + 200, (argv, err[:300])
    OUTCOMES["cli"][code] += 1
    return code


@corpus("cli")
def test_corpus_command_line_gets_its_code(entry):
    assert cli_outcome(expand(entry["argv"])) == entry["expect"], entry["name"]


number_texts = st.one_of(
    st.from_regex(r"[+-]?[0-9]{0,25}(\.[0-9]{0,5})?([eE][+-]?[0-9]{1,4})?", fullmatch=True),
    st.sampled_from(["inf", "-inf", "nan", "NaN", "1e309", "0", "-0", "0.0", "1_000", " 5 ", "\u0665",
                     "\uff15", "0x10", "", "86400", "86400.1", "1e-300"]),
    st.integers(-10 ** 20, 10 ** 20).map(str),
    st.text(max_size=10))
engine_texts = st.one_of(st.text(max_size=30), st.sampled_from(
    ["", " ", "'", '"', "'a' 'b", "uci:", "uci: ", "uci:'", "a\\", "./engine --x 'y z'", "uci:/no/such"]))
RUN_OPTIONS = {"--timeout": number_texts, "--jobs": number_texts, "--give-up": number_texts,
               "--max-nodes": number_texts, "--engine": engine_texts}


@st.composite
def run_options(draw):
    option = draw(st.sampled_from(sorted(RUN_OPTIONS)))
    return option, draw(RUN_OPTIONS[option])


def check_run_option(option, value):
    """The parser takes a value only if it is usable, and refuses every other with a message."""
    try:
        args = build_parser().parse_args(["run", f"{option}={value}"])
    except UsageError as e:
        assert option in e.message and len(e.message) <= MAX_MESSAGE, e.message[:300]
        OUTCOMES["cli"]["usage"] += 1
        return
    got = getattr(args, option[2:].replace("-", "_"))
    if option == "--timeout":
        assert 0 <= got <= MAX_TIMEOUT, got
    elif option == "--jobs":
        assert 1 <= got <= max_jobs(), got
    elif option in ("--give-up", "--max-nodes"):
        assert isinstance(got, int) and got >= 0, got
    else:
        import shlex
        command = got.split(":", 1)[1] if got.startswith("uci:") else got
        assert os.path.exists(command) or shlex.split(command), got
    OUTCOMES["cli"]["ok"] += 1


@st.composite
def lookups(draw):
    """A lookup command with a mutated FEN, odd moves or an odd depth."""
    command = draw(st.sampled_from(["fen", "moves", "turns", "status", "play", "perft"]))
    variant = draw(st.sampled_from(list(api.VARIANTS)))
    argv = [command, "--variant", variant]
    if draw(st.booleans()):
        argv += ["--fen", draw(mutated_fens())]
    if draw(st.booleans()):
        argv += ["--moves", " ".join(draw(st.lists(st.sampled_from(MOVE_TOKENS[:-3]), max_size=6)))]
    if command == "perft":
        depth = draw(depths(variant).filter(lambda d: not isinstance(d, bool)))
        argv += [f"--depth={depth}"]
    return argv


@sizes(300, 5_000)
def test_fuzz_run_option_values(examples):
    fuzz(examples, lambda option: check_run_option(*option), option=run_options())


@sizes(200, 3_000)
def test_fuzz_lookups(examples):
    fuzz(examples, cli_outcome, argv=lookups())


# ------------------------------------------------------------ the case loader

RULES = {"rules": [{"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]}
STRUCTURAL = {"invalid-request", "invalid-fen", "invalid-move-text"}


def base_case(**changes) -> dict:
    case = {"id": "chess/topic/fuzzed", "rules": ["G1"], "description": "d", "source": "s",
            "request": {"op": "moves"}, "expect": {"moves": ["e2e4"]}}
    case.update(changes)
    return case


def load_tree(file_text: str | bytes):
    """Load a scratch tree holding one rule file and ``cases/chess/topic.json``."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "cases"
        (root / "rules").mkdir(parents=True)
        (root / "chess").mkdir()
        (root / "rules" / "general.json").write_text(json.dumps(RULES))
        path = root / "chess" / "topic.json"
        path.write_bytes(file_text if isinstance(file_text, bytes) else file_text.encode("utf-8", "surrogatepass"))
        warnings = []
        cases, problems = load_cases(root, warn=warnings.append)
    return cases, problems, warnings


def case_file_text(*cases) -> str:
    return json.dumps({"variant": "chess", "topic": "topic", "generated": False,
                       "description": "d", "cases": list(cases)})


def judge_case_file(file_text) -> str:
    """Load a tree with this case file; check the loader's promises; "problem" or "clean"."""
    cases, problems, _ = load_tree(file_text)
    for problem in problems:
        assert problem.startswith("cases/chess/topic.json: "), problem[:300]
        assert len(problem) <= 2 * MAX_MESSAGE, problem[:300]
    for case in cases:
        request, expected = dict(case.request), case.expect.get("error", {}).get("code")
        if request["op"] == "perft" and request["depth"] > 1:
            continue   # accepted and within the limit, but too slow to count here
        try:
            api.handle(request)
        except RulesError as e:
            assert e.code not in STRUCTURAL or e.code == expected, \
                f"loaded without a problem, yet at run time: {e.code}: {e.message[:300]} ({request})"
    outcome = "problem" if problems else "clean"
    OUTCOMES["case-file"][outcome] += 1
    return outcome


@corpus("case-file")
def test_corpus_case_file_gets_its_outcome(entry):
    assert judge_case_file(case_file_text(base_case(**expand(entry["case"])))) == entry["expect"]


@st.composite
def fuzzed_cases(draw):
    """A chess case whose request fields fit its op, now and then with a wild value."""
    op = draw(st.sampled_from(list(api.OPS)))
    request = {"op": op}
    if draw(st.booleans()):
        request["fen"] = draw(mutated_fens())
    if draw(st.booleans()):
        request["moves"] = draw(st.lists(st.sampled_from(MOVE_TOKENS) | st.text(max_size=6), max_size=6))
    if op == "perft":
        request["depth"] = draw(depths("chess"))
        for flag in ("divide", "turns"):
            if draw(st.booleans()):
                request[flag] = draw(st.booleans())
    if draw(st.integers(0, 9)) == 0:
        request[draw(st.sampled_from(["op", "fen", "moves", "depth", "divide", "turns"]))] = draw(json_values)
    if draw(st.booleans()):
        expect = {"error": {"code": draw(st.sampled_from(sorted(CODES)))}}
    else:
        expect = draw(st.sampled_from([{"moves": ["e2e4"]}, {"nodes": 20}, {"nodes": 20.0},
                                       {"divide": {"e2e4": 1.0}}, {"fen": "x"}]))
    return base_case(request=request, expect=expect)


@st.composite
def damaged_files(draw):
    """A valid case file, damaged as bytes: cut, flipped, nested, re-encoded."""
    text = case_file_text(base_case(request={"op": "perft", "depth": 1}, expect={"nodes": 20}))
    damage = draw(st.sampled_from(["cut", "flip", "nest", "latin-1", "bom", "nul"]))
    if damage == "cut":
        return text[:draw(st.integers(0, len(text)))]
    if damage == "flip":
        data = bytearray(text.encode())
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if damage == "nest":
        depth = draw(st.integers(60, 150_000))
        return text.replace('"depth": 1', f'"depth": {"[" * depth}1{"]" * depth}')
    if damage == "latin-1":
        return text.replace('"d"', '"d\u00e9"').encode("latin-1")
    if damage == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    return text.replace('"s"', '"s\\u0000"') + "\x00"


@sizes(150, 3_000)
def test_fuzz_case_files(examples):
    fuzz(examples, lambda case: judge_case_file(case_file_text(case)), case=fuzzed_cases())


@sizes(60, 1_000)
def test_fuzz_damaged_case_files(examples):
    fuzz(examples, judge_case_file, file_text=damaged_files())


@corpus("case-file-text")
def test_corpus_case_file_text_gets_its_outcome(entry):
    assert judge_case_file(expand(entry["text"])) == entry["expect"], entry["name"]


# ------------------------------------------------------------ round two: files and engines

TOYS = ROOT / "tests" / "toy_engines"
INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # (tab and newline are layout)


def special_files(tmp: Path) -> dict[str, Path]:
    """{fifo}: a FIFO nobody writes or reads; {null}: a private null device (skipped unless
    this may make one: root on Linux); {dir}: a directory; {link-out}: a link leaving tmp/tree
    (reports follow it); {gen-tree}: a case tree whose chess/generated-perft.json is a link
    out of it (generate refuses it)."""
    files = {"fifo": tmp / "fifo", "dir": tmp / "dir", "null": tmp / "null",
             "link-out": tmp / "tree" / "link"}
    os.mkfifo(files["fifo"])
    files["dir"].mkdir()
    (tmp / "tree").mkdir()
    (tmp / "outside").write_text("mine")
    files["link-out"].symlink_to(tmp / "outside")
    files["gen-tree"] = tmp / "gen-tree"   # a case tree whose generated file leads outside
    (files["gen-tree"] / "chess").mkdir(parents=True)
    (tmp / "outside-generated.json").write_text('{"generated": true}\n')
    (files["gen-tree"] / "chess" / "generated-perft.json").symlink_to(tmp / "outside-generated.json")
    try:
        os.mknod(files["null"], 0o20666, os.makedev(1, 3))
    except (PermissionError, OSError, AttributeError):
        del files["null"]
    return files


def with_files(argv, files) -> list[str]:
    out = []
    for word in argv:
        for name, path in files.items():
            word = word.replace("{" + name + "}", str(path))
        if "{" in word and "}" in word:
            pytest.skip(f"this system cannot make the special file {word}")
        out.append(word)
    return out


def kinds(files) -> dict[str, int]:
    return {name: os.lstat(path).st_mode & 0o170000 for name, path in files.items()}


def special_file_outcome(argv, tmp: Path) -> str:
    """Run one command naming special files; check nothing was replaced and the answer was a
    clean exit or one ``error: CODE:`` line; "written-through" (exit 0) or the code."""
    files = special_files(tmp)
    before = kinds(files)
    status, out, err = run_cli(with_files(argv, files) + (["-q"] if argv[0] == "run" else []))
    assert kinds(files) == before, (argv, err[-500:])   # (a link stays a link: followed)
    if argv[0] == "generate":
        assert (tmp / "outside-generated.json").read_text() == '{"generated": true}\n'
    if status == 0:
        code = "written-through"
    else:
        match = re.search(r"^error: ([a-z-]+): ", err, re.M)
        assert status == 2 and match, (argv, status, err[-500:])
        code = match.group(1)
    OUTCOMES["special-file"][code] += 1
    return code


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a Unix thing")
@corpus("input")
def test_corpus_special_input_file_gets_its_code(entry, tmp_path):
    assert special_file_outcome(entry["argv"], tmp_path) == entry["expect"], entry["name"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a Unix thing")
@corpus("output")
def test_corpus_special_output_file_gets_its_outcome(entry, tmp_path):
    assert special_file_outcome(entry["argv"], tmp_path) == entry["expect"], entry["name"]


def engine_outcome(engine_argv, patterns, tmp: Path, more=()) -> tuple[int, set]:
    """``doublecheck run`` against a toy engine: the JSON report is strict JSON, nothing the
    engine sent reaches the text, markdown or JUnit report unescaped; (exit status, outcomes)."""
    engine = " ".join([sys.executable, str(TOYS / engine_argv[0]), *engine_argv[1:]])
    report, junit = tmp / "report.json", tmp / "junit.xml"
    status, out, err = run_cli(["run", "-q", "--engine", engine, "--variant", "chess", *patterns,
                                "--json", str(report), "--junit", str(junit), *more])
    for shown in (out, err) + ((junit.read_text(),) if junit.exists() else ()):
        assert not INVISIBLE.search(shown), INVISIBLE.search(shown)
        assert max(map(len, shown.splitlines()), default=0) <= MAX_MESSAGE + 400
    outcomes = set()
    if report.exists():
        data = json.loads(report.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the report"))
        outcomes = {c["outcome"] for c in data["cases"]}
    OUTCOMES["engine"][f"exit {status}"] += 1
    return status, outcomes


@corpus("engine")
def test_corpus_hostile_engine_gets_its_outcomes(entry, tmp_path):
    status, outcomes = engine_outcome(entry["engine"], entry["patterns"], tmp_path)
    assert status == entry["exit"] and outcomes <= set(entry["outcomes"]), (status, outcomes)
    if "error" in entry["outcomes"] and entry["outcomes"] == ["error"]:
        assert outcomes == {"error"}


@st.composite
def special_argv(draw):
    """A run or a lookup naming a special file as an input or an output."""
    special = draw(st.sampled_from(["{fifo}", "{null}", "{dir}", "{link-out}", "/dev/zero"]))
    option = draw(st.sampled_from(["--xfail", "--json", "--junit", "--html", "--write-xfail",
                                   "--cases-dir", "svg", "pgn"]))
    if option == "svg":
        return ["svg", "-o", special]
    if option == "pgn":
        return ["play", "--moves", "e2e4", "--pgn", special]
    extra = ["--force"] if option == "--write-xfail" else []
    return ["run", "chess/castling/white-both-wings-legal", option, special, *extra]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a Unix thing")
@sizes(4, 60)
def test_fuzz_special_files(examples):
    def check(argv):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                special_file_outcome(argv, Path(tmp))
            except pytest.skip.Exception:
                OUTCOMES["special-file"]["no device"] += 1
    fuzz(examples, check, argv=special_argv())


# Hostile answers, from an adapter in this process: every report must still be written,
# strict JSON and free of control characters, whatever the engine returned.

hostile_text = st.one_of(st.text(max_size=30), st.sampled_from(
    ["\x1b[2J", "\r\nOK: 99 passed", "\x1b]0;title\x07", "\u202egnp.exe", "\ud800", "\x00", "x" * 5000]))
hostile_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30) | st.floats() | hostile_text,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(hostile_text, inner, max_size=5),
    max_leaves=20)


@st.composite
def hostile_answers(draw):
    kind = draw(st.sampled_from(["moves", "error", "extra", "deep", "name"]))
    if kind == "moves":
        return {"moves": draw(st.lists(hostile_text, max_size=30))}
    if kind == "error":
        raise_code = draw(st.sampled_from(["internal-error", "unsupported", "invalid-fen",
                                           "\x1b[31mcode"]))
        return {"__raise__": (raise_code, draw(hostile_text))}
    if kind == "deep":
        value = draw(hostile_values)
        for _ in range(draw(st.integers(0, 900))):
            value = [value]
        return {"moves": ["e1g1"], "extra": value}
    return {"moves": ["e1g1"], "extra": draw(hostile_values)}


class HostileAdapter:
    def __init__(self, answer):
        self.answer = answer

    def hello(self):
        return {"name": "hostile\x1b[2J", "variants": ["chess"], "ops": ["moves", "play"]}

    def handle(self, request):
        if "__raise__" in self.answer:
            from doublecheck.adapter import EngineError
            raise EngineError(*self.answer["__raise__"])
        return self.answer


def castling_cases(found=[]):
    """Two castling cases (loaded once: loading the whole tree for each input is slow)."""
    if not found:
        found += [c for c in load_cases()[0] if c.id.startswith("chess/castling/")][:2]
    return found


def check_hostile_answer(answer):
    from doublecheck.harness import report as reports
    from doublecheck.harness.engines import AdapterEngine
    from doublecheck.harness.runner import Run, RunOptions, run_cases
    cases = castling_cases()
    engine = AdapterEngine(HostileAdapter(answer), timeout=10)
    results = run_cases(cases, engine, RunOptions())
    run = Run(results, [], engine.name, "hostile adapter", claims=engine.hello(), selected=len(cases))
    out = io.StringIO()
    reports.text(run, out)
    reports.markdown(run, out)
    shown = out.getvalue() + reports.junit(run)
    assert not INVISIBLE.search(shown), INVISIBLE.search(shown)
    json.loads(json.dumps(reports.as_json(run), allow_nan=False))
    OUTCOMES["engine"]["in-process: " + ",".join(sorted({r.outcome for r in results}))] += 1


@sizes(40, 1_000)
def test_fuzz_hostile_answers(examples):
    fuzz(examples, check_hostile_answer, answer=hostile_answers())


# Protocol lines with many quotes, backslashes and brackets, up to a megabyte: each is
# answered (the pre-check is linear; see benchmarks/precheck_bench.py).

@st.composite
def quoted_lines(draw):
    unit = draw(st.sampled_from(['"', '\\"', '"\\', "\\", '["', '{"a":"', "[", "]", '\\\\"']))
    size = draw(st.sampled_from([1, 100, 10_000, 65_536, 300_000, 1_000_000]))
    head = draw(st.sampled_from(["", "[" * 65, '{"id":1,"op":"fen","variant":"chess","x":' + "[" * 65]))
    return (head + unit * (size // len(unit))).encode()


@needs_proc
@sizes(20, 400)
def test_fuzz_protocol_lines_with_many_quotes(server, examples):
    fuzz(examples, lambda line: judge(server, line), line=quoted_lines())


# ------------------------------------------------------ game records and the desk
#
# Corpus kinds: "pgn", a record checked by replay (expect "ok" or the code; "turns": the
# legal turns); "replay-file", ``doublecheck replay PATH``; "desk", bytes sent to the rules
# desk ("http", a byte every "every" seconds when given) or a POST of "post" {op, body},
# expecting the code and the HTTP "status".  The desk runs in a thread on a loopback
# port, with a request deadline of DESK_READ_TIMEOUT seconds.

DESK_READ_TIMEOUT = 2.0
BIG_RECORD = 1 << 20          # records over this size have their peak memory traced
MEMORY_PER_CHAR = 8           # bytes of peak traced memory per character of such a record


def record_outcome(text: str) -> tuple[str, int | None]:
    """(outcome, legal turns) of checking a record: "ok", "not-ok" or the error code."""
    try:
        report = replay_text(text)
    except PgnError as e:
        assert len(e.message) <= MAX_MESSAGE, e.message[:300]
        return e.code, None
    return "ok" if report["ok"] else "not-ok", sum(g["turns"] for g in report["games"])


@corpus("pgn")
def test_corpus_record_gets_its_outcome(entry):
    text = expand(entry["pgn"])
    if len(text) > BIG_RECORD:
        tracemalloc.start()
    try:
        outcome, turns = record_outcome(text)
    finally:
        if tracemalloc.is_tracing():
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert peak < MEMORY_PER_CHAR * len(text), (entry["name"], peak)
    OUTCOMES["record"][outcome] += 1
    assert outcome == entry["expect"], entry["name"]
    assert turns == entry.get("turns", turns), entry["name"]


@corpus("replay-file")
def test_corpus_replay_file_gets_its_code(entry):
    if not os.path.exists(entry["path"]):
        pytest.skip(f"{entry['path']} does not exist here")
    status, _, err = run_cli(["replay", entry["path"]])
    assert status == 2 and err.startswith(f"error: {entry['expect']}: "), err[:300]
    assert len(err) <= MAX_MESSAGE


@pytest.fixture(scope="module")
def desk():
    from desk_support import running_desk
    with running_desk(read_timeout=DESK_READ_TIMEOUT) as base:
        host, port = base.rsplit("/", 1)[-1].split(":")
        yield host, int(port)


def desk_exchange(address, data: bytes, every: float | None = None) -> tuple[bytes, int]:
    """Send ``data`` (a byte every ``every`` seconds when given); (the answer, bytes sent)."""
    with socket.create_connection(address, timeout=60) as s:
        sent = len(data)
        if every is None:
            s.sendall(data)
        else:
            for sent, byte in enumerate(data):
                if select.select([s], [], [], every)[0]:
                    break
                s.sendall(bytes([byte]))
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks), sent


def http_answer(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def post_bytes(op: str, body) -> bytes:
    data = json.dumps(body).encode()
    return (f"POST /api/{op} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: "
            f"application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data


@corpus("desk")
def test_corpus_desk_request_gets_its_code(desk, entry):
    if "post" in entry:
        data = post_bytes(entry["post"]["op"], expand(entry["post"]["body"]))
    else:
        data = expand(entry["http"]).encode("latin-1")
    raw, sent = desk_exchange(desk, data, entry.get("every"))
    status, answer = http_answer(raw)
    code = "ok" if answer["ok"] else answer["error"]["code"]
    OUTCOMES["desk"][code] += 1
    assert (status, code) == (entry["status"], entry["expect"]), (entry["name"], answer)
    if "every" in entry:    # cut off at the deadline, long before the last byte
        assert sent < len(data) // 2, (sent, len(data))


@sizes(60, 200)
def test_fuzz_desk_burst_with_slow_clients(desk, examples):
    """``examples`` clients at once, 5 short requests each on new connections, while a
    few clients send a byte at a time: every request answered 200, every slow one cut
    off with 408 at the deadline."""
    request = post_bytes("moves", {"variant": "chess"})
    answers, slow = [], []

    def client():
        for _ in range(5):
            answers.append(http_answer(desk_exchange(desk, request)[0])[0])

    def crawler():
        raw, sent = desk_exchange(desk, request, every=0.5)
        slow.append((http_answer(raw)[0], sent))

    threads = [threading.Thread(target=crawler) for _ in range(8)]
    threads += [threading.Thread(target=client) for _ in range(examples)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    OUTCOMES["desk"].update(f"HTTP {status}" for status in answers + [code for code, _ in slow])
    assert answers == [200] * (5 * examples)
    assert len(slow) == 8 and all(code == 408 and sent < len(request) for code, sent in slow)


RECORD_CODES = {"pgn-syntax", "unknown-variant", "unknown-result", "invalid-fen", "invalid-move-text"}
RECORD_PIECES = ["1.", "2...", "e4", "e5,", "Nf3,", "Nc6", " ", "\n", "{", "}", "(", ")", ";", "*", "1-0",
                 "1/2-1/2", "$1", "%", '[Variant "marseillais"]\n', '[Variant "double-move"]\n',
                 '[Variant "symmetric-monster"]\n', '[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n',
                 '[Result "1-0"]\n', '[Event "a\\"b\\\\"]\n', "Qg8+,Qh7#", "!?", "e4,e5", "d4,",
                 "K@e0", "O-O", "Kxh7", "e8=Q", "exd6", ",", ",,", "a1a2", "Nc3,Nb1", "Nf6,Ng8"]


def check_record(text: str):
    """A record is checked, or refused with a documented code, within ANSWER_DEADLINE."""
    with time_limit(ANSWER_DEADLINE):        # (a hang fails the test instead of stalling it)
        outcome, _ = record_outcome(text)
    assert outcome in RECORD_CODES | {"ok", "not-ok"}, (outcome, text[:300])
    OUTCOMES["record"][outcome] += 1


@sizes(300, 5_000)
def test_fuzz_records(examples):
    fuzz(examples, check_record, text=st.lists(st.sampled_from(RECORD_PIECES), max_size=30).map("".join))
