"""``doublecheck new-variant``: the package it writes passes ``run``, ``rules --matrix`` and
``mutants`` as written, and a bad request writes nothing.

Most tests register the written package as tests/test_plugins.py registers its plugin (a
copy beside a dist-info on PYTHONPATH); the last one installs it with pip, editable, into a
fresh virtual environment that sees this one's packages, as an author would.
"""

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from test_plugins import dist_info, doublecheck


def new_variant(*args, check=True):
    return doublecheck("new-variant", *args, check=check)


def registered(tmp_path, vid, package, written) -> list[Path]:
    """PYTHONPATH for the written package as a checkout on the path: the folder it was written
    to, and a site folder with its entry point's dist-info (what pip writes on install)."""
    site = tmp_path / "site"
    site.mkdir()
    dist_info(site, f"doublecheck-{vid}", {vid: f"{package}:VARIANT"})
    return [site, written]


@pytest.mark.parametrize("args, said", [
    (["My_Rules"], "variant id 'My_Rules' is not lower-case words joined by '-'"),
    (["chess"], "variant id 'chess' is already taken"),
    (["my-rules", "--from", "no-such"], "unknown --from 'no-such': a new variant starts from one of chess, "),
])
def test_a_bad_request_is_refused_and_writes_nothing(tmp_path, args, said):
    target = tmp_path / "new"
    done = new_variant(args[0], str(target), *args[1:], check=False)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not target.exists()


def test_a_folder_with_files_is_refused(tmp_path):
    (tmp_path / "mine.txt").write_text("mine")
    done = new_variant("my-rules", str(tmp_path), check=False)
    assert done.returncode == 2 and "is not empty" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_the_help_says_what_is_written_and_what_to_run():
    text = doublecheck("new-variant", "--help").stdout
    for word in ("pyproject.toml", "PACKAGE/rules.py", "PACKAGE/mutants.py", "the doc page ID.md",
                 "pip install -e DIR", "doublecheck run --variant ID", "doublecheck rules --matrix --variant ID",
                 "doublecheck mutants --variant ID"):
        assert word in text


def test_the_written_files(tmp_path):
    out = new_variant("my-rules", str(tmp_path / "pkg")).stdout
    pkg = tmp_path / "pkg"
    for rel in ("pyproject.toml", "README.md", "my_rules/__init__.py", "my_rules/rules.py", "my_rules/generator.py",
                "my_rules/mutants.py", "my_rules/mutants.json", "my_rules/docs/my-rules.md",
                "my_rules/cases/rules/my-rules.json", "my_rules/cases/my-rules/as-chess.json",
                "tests/test_my_rules.py"):
        assert (pkg / rel).is_file(), rel
        assert rel in out
    text = "".join(p.read_text() for p in pkg.rglob("*") if p.is_file())
    assert "@" + "id@" not in text and "@package@" not in text
    assert 'my-rules = "my_rules:VARIANT"' in (pkg / "pyproject.toml").read_text()
    assert "class MyRules(Chess):" in (pkg / "my_rules" / "rules.py").read_text()
    cases = json.loads((pkg / "my_rules/cases/my-rules/as-chess.json").read_text())["cases"]
    assert cases[1]["expect"] == {"nodes": 400}   # chess's perft 2 from the start (FIDE rules: 20 x 20)
    assert all(c["rules"] == ["MR1"] for c in cases)


@pytest.mark.parametrize("base", ["chess", "marseillais", "monster"])
def test_the_package_passes_as_written(tmp_path, base):
    written = tmp_path / "written"
    new_variant("house-rules", str(written), "--from", base)
    site = registered(tmp_path, "house-rules", "house_rules", written)
    run = doublecheck("run", "--variant", "house-rules", "--quiet", sites=site)
    assert "OK: 4 passed, 0 failed, 0 errors, 0 skipped" in run.stdout
    assert "0 gap(s), 0 problem(s)" in doublecheck("rules", "--matrix", "--variant", "house-rules",
                                                   sites=site).stdout
    assert "house-rules: 1/1 killed" in doublecheck("mutants", "--variant", "house-rules", "--quiet",
                                                    sites=site).stdout
    out = doublecheck("generate", "--variant", "house-rules", sites=site).stdout
    assert f"wrote: {written / 'house_rules/cases/house-rules/generated-perft.json'}" in out
    assert "OK: 6 passed" in doublecheck("run", "--variant", "house-rules", "--quiet", sites=site).stdout


@pytest.mark.slow   # a fresh environment and a pip install: two to three minutes
def test_pip_install_editable_then_the_commands_and_its_own_tests(tmp_path):
    """The author's path: new-variant, pip install -e, then the commands the help names."""
    written = tmp_path / "brave-rules"
    new_variant("brave-rules", str(written), "--from", "double-move")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site_dir = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    # this environment's packages (doublecheck, pip, setuptools, pytest), with their .pth files
    here = [p for p in sys.path if p.endswith("site-packages")]
    (site_dir / "outer.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in here))
    env = {**os.environ, "PYTHONPATH": "", "VIRTUAL_ENV": str(env_dir)}

    def run(*args, cwd=None):
        done = subprocess.run([str(python), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
        assert done.returncode == 0, " ".join(args) + "\n" + done.stdout + done.stderr
        return done.stdout

    run("-m", "pip", "install", "--no-deps", "-q", "-e", str(written))
    assert "OK: 4 passed" in run("-m", "doublecheck", "run", "--variant", "brave-rules", "--quiet")
    assert "0 gap(s), 0 problem(s)" in run("-m", "doublecheck", "rules", "--matrix", "--variant", "brave-rules")
    assert "1/1 killed" in run("-m", "doublecheck", "mutants", "--variant", "brave-rules", "--quiet")
    generated = written / "brave_rules" / "cases" / "brave-rules" / "generated-perft.json"
    assert f"wrote: {generated}" in run("-m", "doublecheck", "generate", "--variant", "brave-rules")
    assert "5 passed" in run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=written)
