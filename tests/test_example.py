"""`doublecheck example NAME DIR`: the templates written from the installed package are the
files the tests run, and each passes the chess cases it claims as it is (the Node.js one with
chess.js from its lockfile: `npm ci` in examples/node-engine, which .ci/run does)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doublecheck.templates import TEMPLATES, template_files

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "examples" / "node-engine" / "node_modules"


def doublecheck(*args, cwd, timeout=600):
    return subprocess.run([sys.executable, "-m", "doublecheck", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def written(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_a_template_is_its_examples_folder_without_installed_packages(tmp_path, name):
    proc = doublecheck("example", name, "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    source = ROOT / "examples" / TEMPLATES[name].folder
    want = {p.relative_to(source).as_posix(): p.read_bytes() for p in sorted(source.rglob("*"))
            if p.is_file() and not {"node_modules", "__pycache__"} & set(p.relative_to(source).parts)}
    assert written(tmp_path / "out") == want
    assert all(rel.as_posix() in proc.stdout for _, rel in template_files(TEMPLATES[name]))
    assert TEMPLATES[name].next_steps[-1] in proc.stdout


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    (tmp_path / "my_adapter.py").write_text("mine\n")
    proc = doublecheck("example", "python", ".", cwd=tmp_path)
    assert proc.returncode == 2 and "already has my_adapter.py" in proc.stderr
    assert (tmp_path / "my_adapter.py").read_text() == "mine\n"
    assert not (tmp_path / "README.md").exists()
    proc = doublecheck("example", "python", ".", "--force", cwd=tmp_path)
    assert proc.returncode == 0 and "class MyAdapter" in (tmp_path / "my_adapter.py").read_text()


def test_a_missing_folder_or_an_unknown_template_is_a_usage_error(tmp_path):
    assert "say where to write it" in doublecheck("example", "node", cwd=tmp_path).stderr
    proc = doublecheck("example", "cobol", "x", cwd=tmp_path)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr and not (tmp_path / "x").exists()


def test_the_ci_template_follows_its_recipe_to_a_green_job(tmp_path):
    """Its engine answers moves and perft without divide, so it adopts the suite with known
    failures, as the README's recipe says: record them, then the job passes."""
    assert doublecheck("example", "ci", "engine", cwd=tmp_path).returncode == 0
    engine = ["--engine", "python3 my_adapter.py", "--variant", "chess", "--quick", "--quiet"]
    adopt = doublecheck("run", *engine, "--write-xfail", "known-failures.txt", cwd=tmp_path / "engine")
    assert adopt.returncode in (0, 1), adopt.stdout[-3000:] + adopt.stderr[-2000:]
    job = doublecheck("run", *engine, "--xfail", "known-failures.txt", cwd=tmp_path / "engine")
    assert job.returncode == 0, job.stdout[-3000:] + job.stderr[-2000:]
    assert " 0 failed, 0 errors" in job.stdout


@pytest.mark.parametrize("engine", [["--adapter", "my_adapter:MyAdapter"],
                                    ["--engine", "python3 my_adapter.py"]])
def test_the_python_template_passes_the_chess_cases_it_claims(tmp_path, engine):
    assert doublecheck("example", "python", "engine", cwd=tmp_path).returncode == 0
    proc = doublecheck("run", *engine, "--variant", "chess", "--quick", "--quiet",
                       cwd=tmp_path / "engine")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " 0 failed, 0 errors" in proc.stdout and " passed" in proc.stdout


def test_the_node_template_passes_the_chess_cases(tmp_path):
    if shutil.which("node") is None or not (NODE_MODULES / "chess.js").is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail("Node.js or chess.js is missing; .ci/run must install them")
        pytest.skip("node or examples/node-engine/node_modules is missing (npm ci there)")
    assert doublecheck("example", "node", "engine", cwd=tmp_path).returncode == 0
    (tmp_path / "engine" / "node_modules").symlink_to(NODE_MODULES)   # what `npm ci` would install
    proc = doublecheck("run", "--engine", "node engine.js", "--variant", "chess", "--quick",
                       "--quiet", cwd=tmp_path / "engine")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " 0 failed, 0 errors" in proc.stdout
