"""How long `doublecheck run` takes to get past engines that used to hang it, and what they leave.

    python3 benchmarks/hang_cases.py               # --timeout 2
    python3 benchmarks/hang_cases.py --timeout 5

Each line runs `doublecheck run --timeout T` (as its own process, as users run it) on three
small cases, one of which makes the toy engine misbehave, and prints the wall time, the
outcome of that case and how many of the processes the engine started are still there
(by pid in /proc, running or zombie, and by pgrep on their tag). The toy engines are in
tests/toy_engines; the last two lines are the in-process oracle on a perft case of depth 12
(a hostile case file) and `doublecheck serve --budget 1` on the same case.
This is a measurement script, not a test: nothing here asserts on time.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOYS = ROOT / "tests" / "toy_engines"
TRIGGER_FEN = "4k3/8/8/8/8/8/8/4K2R w - - 0 1"   # tests/toy_engines/toy.py
GUARD = 300  # seconds after which a run counts as hung and is stopped

ENGINES = [
    ("closes its stdout, stays alive", "closes_stdout", True),
    ("dies, a child holds its stderr", "crash_leaves_child", True),
    ("leaves setsid() children, hangs", "setsid_child", True),
    ("hangs (for comparison)", "hang", True),
    ("oracle in-process, perft depth 12", None, False),
    ("serve --budget 1, perft depth 12", [sys.executable, "-m", "doublecheck", "serve", "--budget", "1"],
     False),
]


def write_tree(root: Path, trigger: bool) -> None:
    def case(slug, request, expect):
        return {"id": f"chess/hang/{slug}", "rules": ["FIDE-3.1"], "description": slug,
                "source": "benchmarks/hang_cases.py", "request": request, "expect": expect}
    odd = (case("trigger", {"op": "perft", "fen": TRIGGER_FEN, "depth": 1}, {"nodes": 16}) if trigger
           else case("depth-12", {"op": "perft", "depth": 12}, {"nodes": 5}))
    cases = [case("before", {"op": "perft", "depth": 1}, {"nodes": 20}), odd,
             case("after", {"op": "perft", "depth": 2}, {"nodes": 400})]
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "fide.json").write_text(json.dumps({"rules": [
        {"id": "FIDE-3.1", "title": "Moves", "statement": "A test rule.", "source": "FIDE",
         "variants": ["chess"]}]}))
    (root / "chess").mkdir()
    (root / "chess" / "hang.json").write_text(json.dumps(
        {"variant": "chess", "topic": "hang", "generated": False, "description": "hang cases",
         "cases": cases}))


def survivors(tag: str, pid_file: Path) -> int:
    pids = [int(p) for p in pid_file.read_text().split()] if pid_file.exists() else []
    alive = {p for p in pids if Path(f"/proc/{p}").exists()}
    found = subprocess.run(["pgrep", "-f", tag], capture_output=True, text=True).stdout.split()
    return len(alive | {int(p) for p in found})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", default="2", help="the run's --timeout (default 2)")
    args = parser.parse_args()
    print(f"doublecheck run --timeout {args.timeout}")
    print(f"{'engine':<36} {'seconds':>8}  {'left':>4}  outcome of the misbehaving case")
    for label, engine, trigger in ENGINES:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            write_tree(tmp / "cases", trigger)
            tag = f"doublecheck-bench-{uuid.uuid4().hex}"
            env = dict(os.environ, TOY_TAG=tag, TOY_PIDS=str(tmp / "pids"))
            argv = [sys.executable, "-m", "doublecheck", "run", "--cases-dir", str(tmp / "cases"),
                    "--timeout", args.timeout, "--json", str(tmp / "report.json")]
            if isinstance(engine, str):
                argv += ["--engine", shlex.join([sys.executable, str(TOYS / f"{engine}.py")])]
            elif engine:
                argv += ["--engine", shlex.join(engine)]
            start = time.perf_counter()
            try:
                subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=GUARD)
                outcome = next(c["lines"][0] for c in json.loads(
                    (tmp / "report.json").read_text())["cases"] if c["outcome"] != "passed")
            except subprocess.TimeoutExpired:
                outcome = f"HUNG: stopped after {GUARD} s"
            seconds = time.perf_counter() - start
            left = survivors(tag, tmp / "pids")
            print(f"{label:<36} {seconds:8.2f}  {left:>4}  {outcome[:110]}", flush=True)


if __name__ == "__main__":
    main()
