"""A broken plugin costs only itself: each way a variant plugin can fail is installed as a
dist-info folder on a temporary path (as pip would install it), and the real commands run
in a subprocess.  Each failure leaves that one plugin out with a warning naming it and the
reason, ``doublecheck plugins`` lists it as left out, and every other variant and every
command keep working (docs/plugins.md, "When a plugin is broken")."""

import json

import pytest
from test_plugins import dist_info, doublecheck, installed

RULES = ("from doublecheck.oracle.chess import Chess\n"
         "from doublecheck.oracle.variants import Variant\n")

# name -> (module file text, entry point target, the reason's words in the warning)
BROKEN = {
    "package-gone": (RULES + "class P(Chess):\n    name = 'package-gone'\n"
                     "VARIANT = Variant(id='package-gone', rules=P, package='no_such_package_here')\n",
                     "package_gone:VARIANT",
                     "its package 'no_such_package_here' cannot be imported: ModuleNotFoundError"),
    "rules-module-gone": (RULES + "VARIANT = Variant(id='rules-module-gone', rules='no_such_rules_mod:R')\n",
                          "rules_module_gone:VARIANT",
                          "the rules class of rules-module-gone cannot be imported: ModuleNotFoundError"),
    "id-list": (RULES + "VARIANT = Variant(id=['a', 'b'], rules=Chess)\n", "id_list:VARIANT",
                "variant id ['a', 'b'] is not lower-case words joined by '-'"),
    "wrong-type": (RULES + "class W(Chess):\n    name = 'wrong-type'\n"
                   "VARIANT = Variant(id='wrong-type', rules=W, package=42)\n", "wrong_type:VARIANT",
                   "the package of wrong-type should be str or None, not int"),
    "raising-name": (RULES + "class Meta(type):\n    @property\n    def name(cls):\n"
                     "        raise RuntimeError('no name today')\n"
                     "class N(Chess, metaclass=Meta):\n    pass\n"
                     "VARIANT = Variant(id='raising-name', rules=N)\n", "raising_name:VARIANT",
                     "the rules class of raising-name cannot say its name: RuntimeError: no name today"),
    "exits-on-import": ("raise SystemExit(7)\n", "exits_on_import:VARIANT",
                        "cannot be loaded: SystemExit: 7"),
    "interrupts-on-import": (RULES + "VARIANT = Variant(id='interrupts-on-import', rules='interrupter:R')\n",
                             "interrupts_on_import:VARIANT",
                             "cannot be imported: KeyboardInterrupt"),
    "raises-on-first-use": (RULES + "class F(Chess):\n    name = 'raises-on-first-use'\n"
                            "    def __init__(self):\n        raise ValueError('broken set-up')\n"
                            "VARIANT = Variant(id='raises-on-first-use', rules=F)\n",
                            "raises_on_first_use:VARIANT",
                            "fails on first use: ValueError: broken set-up"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """One site folder holding every broken plugin of BROKEN, plus one with a missing doc page."""
    site = tmp_path_factory.mktemp("hostile")
    for name, (text, target, _) in BROKEN.items():
        (site / f"{target.split(':')[0]}.py").write_text(text)
        dist_info(site, f"broken-{name}", {name: target})
    (site / "interrupter.py").write_text("raise KeyboardInterrupt\n")
    pkg = site / "doc_missing"
    (pkg / "cases" / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text(RULES + "class D(Chess):\n    name = 'doc-missing'\n"
                                     "VARIANT = Variant(id='doc-missing', rules=D, package='doc_missing',"
                                     " doc='docs/doc-missing.md')\n")
    dist_info(site, "broken-doc-missing", {"doc-missing": "doc_missing:VARIANT"})
    return site


def warnings(done) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("warning: variant plugin")]


@pytest.fixture(scope="module")
def chess_moves(hostile):
    """``moves --variant chess`` beside every broken plugin (one run, read by each test below)."""
    return doublecheck("moves", "--variant", "chess", sites=[hostile])


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_broken_plugin_is_named_with_its_reason(chess_moves, name):
    done = chess_moves
    assert len(done.stdout.split()) == 20          # chess still answers: the 20 start moves
    said = [w for w in warnings(done) if f"'{name}' (broken-{name})" in w]
    assert len(said) == 1 and BROKEN[name][2] in said[0], warnings(done)


def test_a_missing_doc_page_leaves_the_plugin_out_and_docs_works(hostile):
    done = doublecheck("docs", sites=[hostile])
    assert "protocol" in done.stdout and "doc-missing" not in done.stdout
    assert any("'doc-missing'" in w and "its doc page" in w and "cannot be read" in w for w in warnings(done))


@pytest.mark.parametrize("command", [["run", "--quiet", "chess/castling/*"], ["rules"], ["rules", "G1"],
                                     ["docs", "protocol"], ["perft", "--variant", "marseillais", "--depth", "1"],
                                     ["mutants", "--list", "--variant", "chess"]])
def test_every_command_works_beside_the_broken_plugins(hostile, command):
    done = doublecheck(*command, sites=[hostile])
    assert done.stdout.strip()
    assert len(warnings(done)) == len(BROKEN) + 1   # one warning each, no more


def test_a_working_plugin_beside_the_broken_ones_still_works(hostile, tmp_path):
    good = installed(tmp_path)
    done = doublecheck("perft", "--variant", "no-castling", "--depth", "1", sites=[hostile, good])
    assert done.stdout.strip() == "Nodes: 20"


def test_plugins_lists_loaded_and_left_out(hostile, tmp_path):
    good = installed(tmp_path)
    done = doublecheck("plugins", "--json", sites=[hostile, good], check=False)
    assert done.returncode == 1     # some plugin was left out
    report = {p["name"]: p for p in json.loads(done.stdout)["plugins"]}
    assert report["'no-castling' (doublecheck-no-castling)"]["loaded"] == ["no-castling"]
    for name, (_, _, why) in BROKEN.items():
        entry = report[f"'{name}' (broken-{name})"]
        assert entry["loaded"] == [] and any(why in r for r in entry["left_out"].values()), entry
    text = doublecheck("plugins", sites=[good]).stdout
    assert "loaded    no-castling" in text


def test_a_plugin_whose_case_file_is_broken_lists_that_file_as_left_out(tmp_path):
    site = installed(tmp_path)
    bad = site / "no_castling" / "cases" / "no-castling" / "chess.json"
    bad.write_text("{not json")
    done = doublecheck("plugins", "--json", sites=[site], check=False)
    entry = json.loads(done.stdout)["plugins"][0]
    assert done.returncode == 1 and entry["loaded"] == ["no-castling"] and entry["left_out"] == {}
    assert "malformed JSON" in entry["files_left_out"][str(bad)]
    text = doublecheck("plugins", sites=[site], check=False).stdout
    assert f"  left out  case file {bad}: cases/no-castling/chess.json: malformed JSON" in text


def test_a_plugin_whose_catalogue_is_broken_is_listed_as_left_out(tmp_path):
    site = installed(tmp_path)
    (site / "no_castling" / "cases" / "rules" / "no-castling.json").write_text("{not json")
    done = doublecheck("plugins", "--json", sites=[site], check=False)
    entry = json.loads(done.stdout)["plugins"][0]
    assert done.returncode == 1 and entry["loaded"] == []
    assert "malformed JSON" in entry["left_out"]["no-castling"]


def test_a_rules_class_that_loops_on_first_use_is_left_out_in_bounded_time(tmp_path):
    (tmp_path / "looping.py").write_text(RULES + "class L(Chess):\n    name = 'looping'\n"
                                         "    def legal_moves(self, pos):\n        while True:\n"
                                         "            pass\n"
                                         "VARIANT = Variant(id='looping', rules=L)\n")
    dist_info(tmp_path, "broken-looping", {"looping": "looping:VARIANT"})
    done = doublecheck("moves", "--variant", "chess", sites=[tmp_path])
    assert len(done.stdout.split()) == 20
    assert any("'looping'" in w and "did not finish within" in w for w in warnings(done))
