"""A variant plugin, end to end: tests/plugins/no_castling_variant is chess without castling,
packaged on its own (catalogue, cases, generator, mutants, doc page), and found only through
the ``doublecheck.variants`` entry point group, as an installed package would be.

Each test puts a site folder on PYTHONPATH that holds a copy of the package and a
``.dist-info`` with its entry point (what pip writes on install), and runs the real command in
a subprocess; nothing in this test process registers anything.  A second site folder holds
three broken plugins (one that cannot be imported, one that claims the id ``chess``, one with
a catalogue that is no JSON): each gets a warning naming it, and every other variant works.
"""

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest

PLUGIN = Path(__file__).resolve().parent / "plugins" / "no_castling_variant"
CASE_LIST = [c for p in (PLUGIN / "no_castling" / "cases" / "no-castling").glob("*.json")
             for c in json.loads(p.read_text(encoding="utf-8"))["cases"]]
CASES = len(CASE_LIST)
OWN_OPTION_CASES = sum(1 for c in CASE_LIST if c.get("options"))   # OPT-castling-field's
ROOKS = "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"


def dist_info(site: Path, dist: str, points: dict) -> None:
    """A minimal installed distribution: METADATA and its doublecheck.variants entry points."""
    info = site / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in points.items())
    (info / "entry_points.txt").write_text(f"[doublecheck.variants]\n{lines}")


def installed(site: Path) -> Path:
    """The plugin as if installed: its package copied beside its dist-info."""
    shutil.copytree(PLUGIN / "no_castling", site / "no_castling")
    dist_info(site, "doublecheck-no-castling", {"no-castling": "no_castling:VARIANT"})
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return installed(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """Three plugins that cannot be used, each in its own way."""
    site = tmp_path_factory.mktemp("broken")
    dist_info(site, "missing-module", {"gone": "no_such_module_anywhere:VARIANT"})
    (site / "clash_plugin.py").write_text(
        "from doublecheck.oracle.variants import Variant\n"
        "VARIANT = Variant(id='chess', rules='doublecheck.oracle.chess:Chess')\n")
    dist_info(site, "clashing-id", {"clash": "clash_plugin:VARIANT"})
    bad = site / "bad_catalogue"
    (bad / "cases" / "rules").mkdir(parents=True)
    (bad / "__init__.py").write_text(
        "from doublecheck.oracle.chess import Chess\n"
        "from doublecheck.oracle.variants import Variant\n"
        "class Bad(Chess):\n    name = 'bad-catalogue'\n"
        "VARIANT = Variant(id='bad-catalogue', rules=Bad, package='bad_catalogue')\n")
    (bad / "cases" / "rules" / "bad.json").write_text("{not json")
    dist_info(site, "bad-catalogue", {"bad": "bad_catalogue:VARIANT"})
    (site / "odd_plugin.py").write_text(
        "from doublecheck.oracle.chess import Chess\n"
        "from doublecheck.oracle.variants import Variant\n"
        "NOT_A_VARIANT = {'id': 'x'}\n"
        "BAD_ID = Variant(id='No Castling', rules=Chess)\n"
        "WRONG_NAME = Variant(id='renamed', rules=Chess)\n")
    dist_info(site, "odd-plugins", {"dict": "odd_plugin:NOT_A_VARIANT", "spaces": "odd_plugin:BAD_ID",
                                    "renamed": "odd_plugin:WRONG_NAME"})
    return site


def doublecheck(*args, sites=(), check=True):
    env = {**__import__("os").environ, "PYTHONPATH": ":".join(map(str, sites))}
    done = subprocess.run([sys.executable, "-m", "doublecheck", *args], capture_output=True,
                          text=True, env=env, timeout=600)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_the_plugins_committed_files_are_current(tmp_path):
    """generate --check on the package as committed: its generated cases and its doc page's
    rule table are what the generator and the catalogue give."""
    out = doublecheck("generate", "--check", "--variant", "no-castling", sites=[installed(tmp_path)]).stdout
    assert "up to date" in out


def test_generate_writes_into_the_plugins_own_tree_and_check_agrees(site):
    generated = site / "no_castling" / "cases" / "no-castling" / "generated-perft.json"
    committed = generated.read_text()
    generated.unlink()
    out = doublecheck("generate", "--variant", "no-castling", sites=[site]).stdout
    assert f"wrote: {generated}" in out
    assert generated.read_text() == committed          # deterministic, and the copy kept in tests/
    assert "up to date" in doublecheck("generate", "--check", "--variant", "no-castling",
                                       sites=[site]).stdout


def test_generate_into_another_case_tree(site, tmp_path):
    doublecheck("generate", "--variant", "no-castling", "--cases-dir", str(tmp_path), sites=[site])
    assert (tmp_path / "no-castling" / "generated-perft.json").is_file()


def test_generated_counts_are_chess_counts_without_castling_rights(site):
    """NC3: where no castling right is left, no-castling counts what chess counts."""
    data = json.loads((site / "no_castling/cases/no-castling/generated-perft.json").read_text())
    for case in data["cases"]:
        request = case["request"]
        board = chess.Board(request.get("fen", chess.STARTING_FEN.replace("KQkq", "-")))
        assert not board.castling_rights
        assert python_chess_perft(board, request["depth"]) == case["expect"]["nodes"], case["id"]


def python_chess_perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("engine", [[], ["--jobs", "2"],
                                    ["--engine", shlex.join([sys.executable, "-m", "doublecheck", "serve"])]])
def test_run_passes_every_case(site, engine):
    out = doublecheck("run", "--variant", "no-castling", "--quiet", *engine, sites=[site]).stdout
    assert f"OK: {CASES - OWN_OPTION_CASES} passed, 0 failed, 0 errors, {OWN_OPTION_CASES} skipped" in out


def test_the_plugins_own_option_takes_part_as_a_built_in_one_does(site):
    """The plugin declares OPT-castling-field (``declares_options``): it is listed, declared
    on the command line and in a hello, judged, and a value it lacks is refused."""
    listed = doublecheck("rules", "--options", "--json", "--variant", "no-castling", sites=[site]).stdout
    option = next(o for o in json.loads(listed)["options"] if o["name"] == "castling-field")
    assert option["variants"] == ["no-castling"] and option["default"] == "empty"
    out = doublecheck("run", "--variant", "no-castling", "--quiet", "--option", "castling-field=ignored",
                      sites=[site]).stdout
    assert f"OK: {CASES} passed, 0 failed, 0 errors, 0 skipped" in out
    hello = subprocess.run([sys.executable, "-m", "doublecheck", "serve", "--option", "castling-field=ignored"],
                           input='{"id": 1, "op": "hello"}\n', capture_output=True, text=True, timeout=60,
                           env={**__import__("os").environ, "PYTHONPATH": str(site)})
    assert json.loads(hello.stdout.splitlines()[0])["options"] == {"castling-field": "ignored"}
    served = shlex.join([sys.executable, "-m", "doublecheck", "serve", "--option", "castling-field=ignored"])
    plain = doublecheck("run", "--variant", "no-castling", "--quiet", "--engine", served,
                        "--option", "castling-field=empty", sites=[site], check=False)
    assert plain.returncode == 1     # an engine playing the value fails a run that does not declare it
    bad = doublecheck("run", "--variant", "no-castling", "--option", "castling-field=sometimes", sites=[site],
                      check=False)
    assert bad.returncode == 2 and "unknown value 'sometimes' of option castling-field (known: empty, ignored)" in bad.stderr


def test_serve_says_hello_with_the_plugin(site):
    done = subprocess.run([sys.executable, "-m", "doublecheck", "serve"], input='{"id": 1, "op": "hello"}\n',
                          capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "PYTHONPATH": str(site)})
    assert "no-castling" in json.loads(done.stdout.splitlines()[0])["variants"]


def test_the_matrix_has_no_gap_and_shows_the_absent_component(site):
    out = doublecheck("rules", "--matrix", "--variant", "no-castling", sites=[site]).stdout
    assert "0 gap(s), 0 problem(s)" in out
    assert "absent: no-castling has no fen:castling: There is no castling (NC1)" in out
    assert "absent: no-castling has no identity:castling: There are no castling rights" in out
    assert "NC1: No castling" in doublecheck("rules", "NC1", sites=[site]).stdout


def test_every_mutant_is_killed(site):
    out = doublecheck("mutants", "--variant", "no-castling", "--quiet", sites=[site]).stdout
    assert "no-castling: 3/3 killed" in out


def test_perft_and_explain(site):
    assert doublecheck("perft", "--variant", "no-castling", "--fen", ROOKS, "--depth", "1",
                       sites=[site]).stdout.strip() == "Nodes: 24"
    why = doublecheck("explain", "--variant", "no-castling", "--fen", ROOKS, "--move", "O-O", "--json",
                      sites=[site], check=False)
    assert json.loads(why.stdout)["rules"] == ["NC1"]
    shown = json.loads(doublecheck("show", "--variant", "no-castling", "--json", sites=[site]).stdout)
    assert shown["fen"].endswith(" w - - 0 1")


def test_replay_a_game_record(site, tmp_path):
    record = tmp_path / "game.pgn"
    record.write_text('[Variant "no-castling"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
    game = json.loads(doublecheck("replay", str(record), "--json", sites=[site]).stdout)["games"][0]
    assert (game["variant"], game["legal"], game["status"]["reason"]) == ("no-castling", True, "checkmate")
    castled = tmp_path / "castled.pgn"
    castled.write_text('[Variant "no-castling"]\n[FEN "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"]\n\n1. O-O *\n')
    refused = doublecheck("replay", str(castled), sites=[site], check=False)
    assert refused.returncode == 1 and "NC1" in refused.stdout


DESK = """
import json
from doublecheck.desk import ops
hello = ops.hello()
print(json.dumps({"variants": hello["variants"],
                  "start": hello["desk"]["start_fens"]["no-castling"],
                  "moves": ops.answer("position", {"variant": "no-castling", "fen": "%s"})["moves"],
                  "explain": ops.answer("explain", {"variant": "no-castling", "fen": "%s",
                                                    "move": "e1g1"})["rules"]}))
""" % (ROOKS, ROOKS)


def test_desk_api(site):
    done = subprocess.run([sys.executable, "-c", DESK], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "PYTHONPATH": str(site)})
    got = json.loads(done.stdout)
    assert "no-castling" in got["variants"]
    assert got["start"].endswith(" w - - 0 1")
    assert len(got["moves"]) == 24 and "e1g1" not in got["moves"]
    assert got["explain"] == ["FIDE-3.8.1"]   # e1g1 is no king step (NC1 leaves only the step)


def test_docs_lists_and_prints_the_plugins_page(site):
    listed = doublecheck("docs", sites=[site]).stdout
    assert "no-castling" in listed and "# no-castling" not in listed
    page = (PLUGIN / "no_castling" / "docs" / "no-castling.md").read_text(encoding="utf-8")
    assert doublecheck("docs", "no-castling", sites=[site]).stdout == page
    path = doublecheck("docs", "no-castling", "--path", sites=[site]).stdout.strip()
    assert path == str(site / "no_castling" / "docs" / "no-castling.md")
    assert doublecheck("docs", "no-castling", check=False).returncode == 2   # not installed: unknown


def test_broken_plugins_are_named_and_the_rest_works(site, broken):
    done = doublecheck("run", "--quiet", "--variant", "no-castling", sites=[site, broken])
    assert f"OK: {CASES - OWN_OPTION_CASES} passed" in done.stdout
    for name in ("'gone' (missing-module): cannot be loaded: ModuleNotFoundError",
                 "'clash' (clashing-id): variant id 'chess' is already registered by doublecheck",
                 "'bad' (bad-catalogue): bad-catalogue left out: cases/rules/bad.json: malformed JSON",
                 "'dict' (odd-plugins): odd_plugin:NOT_A_VARIANT is not a doublecheck.oracle.variants.Variant",
                 "'spaces' (odd-plugins): variant id 'No Castling' is not lower-case words joined by '-'",
                 "'renamed' (odd-plugins): the rules class of renamed says its name is 'chess'"):
        assert f"warning: variant plugin {name}" in done.stderr
    assert "OK: " in doublecheck("run", "--quiet", "--variant", "chess", "chess/castling/*",
                                 sites=[broken]).stdout


def test_an_unknown_variant_names_the_known_ones(site):
    done = doublecheck("moves", "--variant", "no-such", sites=[site], check=False)
    assert done.returncode == 2
    assert "unknown variant 'no-such'" in done.stderr and ", no-castling" in done.stderr
