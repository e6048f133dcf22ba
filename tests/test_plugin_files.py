"""Where a plugin's files are read and written: ``generate`` writes into the plugin's own
source tree (or refuses, naming the plugin and why), never into site-packages, and checks
only the plugin's files; one bad case file of a plugin costs that file only.

The plugin is tests/plugins/no_castling_variant, installed as tests/test_plugins.py installs
it (a copy beside a dist-info with its entry point, on PYTHONPATH); an "installed copy" is
the same in a folder named site-packages, as pip would make it.
"""

import json
import shutil
import subprocess
import sys

from test_plugins import CASES, OWN_OPTION_CASES, PLUGIN, doublecheck, installed

GENERATED = "no_castling/cases/no-castling/generated-perft.json"


def copied_source(tmp_path):
    """The plugin's source folder, as its author has it."""
    source = tmp_path / "source"
    shutil.copytree(PLUGIN, source)
    return source


def test_an_installed_copy_is_never_written_and_the_refusal_says_why(tmp_path):
    site = installed(tmp_path / "lib" / "site-packages")
    generated = site / GENERATED
    generated.unlink()
    done = doublecheck("generate", "--variant", "no-castling", sites=[site], check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("error: variant plugin 'no-castling' (doublecheck-no-castling): no-castling is installed in "
            "site-packages") in done.stderr
    assert "install it editable (pip install -e SOURCE) or pass --into SOURCE" in done.stderr
    assert not generated.exists()


def test_into_writes_into_the_source_tree(tmp_path):
    site = installed(tmp_path / "lib" / "site-packages")
    source = copied_source(tmp_path)
    (source / GENERATED).unlink()
    before = (site / GENERATED).read_text()
    out = doublecheck("generate", "--variant", "no-castling", "--into", str(source), sites=[site]).stdout
    assert f"wrote: {source / GENERATED}" in out
    assert (source / GENERATED).read_text() == before
    assert str(site) not in out        # nothing of the installed copy, nothing of doublecheck's own
    assert "up to date" in doublecheck("generate", "--check", "--variant", "no-castling", "--into", str(source),
                                       sites=[site]).stdout


def test_into_belongs_to_a_plugin(tmp_path):
    done = doublecheck("generate", "--variant", "chess", "--into", str(tmp_path), check=False)
    assert done.returncode == 2 and "--into names the source folder of a variant plugin" in done.stderr


def test_an_installed_copy_can_be_checked(tmp_path):
    site = installed(tmp_path / "lib" / "site-packages")
    out = doublecheck("generate", "--check", "--variant", "no-castling", sites=[site]).stdout
    assert "1 generated file(s) up to date" in out


CHECK_ONLY_THE_PLUGIN = """
from doublecheck.authoring import derived, generate
def refused(*args, **kwargs):
    raise AssertionError("doublecheck's own derived files were looked at")
derived.expected_texts = refused
raise SystemExit(generate.generate_command(variant="no-castling", check=True))
"""


def test_a_plugins_check_looks_at_nothing_of_doublechecks_own(tmp_path):
    site = installed(tmp_path)
    done = subprocess.run([sys.executable, "-c", CHECK_ONLY_THE_PLUGIN], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 generated file(s) up to date" in done.stdout


def test_a_stale_plugin_page_is_the_only_file_named(tmp_path):
    site = installed(tmp_path)
    page = site / "no_castling" / "docs" / "no-castling.md"
    page.write_text(page.read_text().replace("| No castling |", "| No castling (edited) |"))
    done = doublecheck("generate", "--check", "--variant", "no-castling", sites=[site], check=False)
    assert done.returncode == 1
    assert [line for line in done.stdout.splitlines() if line.startswith("differs")] == [f"differs: {page}"]


def test_one_bad_case_file_costs_that_file_only(tmp_path):
    site = installed(tmp_path)
    bad = site / "no_castling" / "cases" / "no-castling" / "broken.json"
    bad.write_text("{not json")
    done = doublecheck("run", "--variant", "no-castling", "--quiet", sites=[site])
    assert f"OK: {CASES - OWN_OPTION_CASES} passed" in done.stdout
    assert (f"warning: variant plugin 'no-castling' (doublecheck-no-castling): case file {bad} left out "
            f"(its other files are kept): cases/no-castling/broken.json: malformed JSON") in done.stderr


def test_a_case_file_citing_an_unknown_rule_costs_that_file_only(tmp_path):
    site = installed(tmp_path)
    tree = site / "no_castling" / "cases" / "no-castling"
    data = json.loads((tree / "chess.json").read_text())
    data["topic"] = "odd"
    data["cases"] = [{**data["cases"][0], "id": "no-castling/odd/one", "rules": ["NO-SUCH-RULE"]}]
    (tree / "odd.json").write_text(json.dumps(data))
    done = doublecheck("run", "--variant", "no-castling", "--quiet", sites=[site])
    assert f"OK: {CASES - OWN_OPTION_CASES} passed" in done.stdout
    assert f"case file {tree / 'odd.json'} left out" in done.stderr and "NO-SUCH-RULE" in done.stderr


def test_no_cases_left_names_the_plugins_tree(tmp_path):
    site = installed(tmp_path)
    tree = site / "no_castling" / "cases" / "no-castling"
    for path in tree.glob("*.json"):
        path.write_text("{not json")
    done = doublecheck("run", "--variant", "no-castling", "--quiet", sites=[site], check=False)
    assert done.returncode == 2
    assert (f"no cases selected (variant=no-castling in {site / 'no_castling' / 'cases'} "
            f"(variant plugin 'no-castling' (doublecheck-no-castling)))") in done.stderr
