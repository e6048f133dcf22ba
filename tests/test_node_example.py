"""examples/node-engine: a JSON-lines engine in Node.js on chess.js passes the chess cases.

The engine's packages come from its lockfile (`npm ci` in examples/node-engine, which .ci/run
does). Without Node.js or those packages the test is skipped with the reason, except in CI
(CI=true), where that is a failure.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.harness.runner import QUICK_MAX_NODES, select_cases

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "node-engine"


def need(condition: bool, why: str):
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; CI must install it (.ci/run)")
    pytest.skip(f"{why}; the Node.js example did not run")


def test_the_node_engine_passes_the_chess_cases_quickly():
    need(shutil.which("node") is not None, "node is not installed (apt-get install nodejs npm)")
    need((EXAMPLE / "node_modules" / "chess.js").is_dir(),
         "chess.js is not installed (npm ci in examples/node-engine)")
    proc = subprocess.run([sys.executable, "-m", "doublecheck", "run", "--engine", "node engine.js",
                           "--variant", "chess", "--quick", "--quiet"],
                          cwd=EXAMPLE, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    cases, _ = load_cases()
    chess = select_cases(cases, "chess")
    # skipped: the counts over --quick's node limit, and the cases written for another value
    # of a rule option than the engine plays (it declares none: the defaults)
    left_out = sum(1 for c in chess if (c.nodes or 0) > QUICK_MAX_NODES or c.options)
    assert f"OK: {len(chess) - left_out} passed, 0 failed, 0 errors, {left_out} skipped" in proc.stdout


def test_the_node_engine_answers_bad_lines_and_goes_on():
    need(shutil.which("node") is not None, "node is not installed (apt-get install nodejs npm)")
    need((EXAMPLE / "node_modules" / "chess.js").is_dir(),
         "chess.js is not installed (npm ci in examples/node-engine)")
    lines = ['not json', '{"id": 1, "op": "fly"}',
             '{"id": 2, "op": "moves", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}',
             '{"id": 3, "op": "perft", "depth": 0}']
    proc = subprocess.run(["node", "engine.js"], cwd=EXAMPLE, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60)
    answers = proc.stdout.splitlines()
    assert len(answers) == 4, proc.stdout + proc.stderr
    assert '"code":"invalid-request"' in answers[0]
    assert '"code":"unsupported"' in answers[1]
    assert '"code":"invalid-fen"' in answers[2]
    assert '"nodes":1' in answers[3]
