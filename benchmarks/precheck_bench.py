"""Time per byte of the nesting pre-check, on protocol lines and case files built to be slow.

    python3 benchmarks/precheck_bench.py              # 64 KiB to 4 MiB
    python3 benchmarks/precheck_bench.py --max-mib 16 # up to the 16 MiB line limit

Every protocol line with more than 64 `[`/`{`, and every case file, has its nesting depth
measured on the text before it is parsed (``doublecheck.resource_limits.json_depth``). Each row is
one shape of input at several sizes: the nanoseconds (of CPU time) per byte of that check, of
``doublecheck serve``'s whole answer to the line (``serve.respond``), and of loading a
case tree whose one case file holds the same text. A linear check keeps each column flat
as the size grows; the quadratic one this replaced grew four times per doubling (a 64 KB
line of escaped quotes took about 70 s). This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from doublecheck.casefiles import load_cases
from doublecheck.harness.engines import OracleAdapter
from doublecheck.harness.serve import respond
from doublecheck.resource_limits import json_depth
from doublecheck.oracle import api

PREFIX = '{"id":1,"op":"fen","variant":"chess","x":' + "[" * 65   # over 64 brackets: checked

SHAPES = {
    "escaped quotes \"\\\"\\\"...": lambda n: PREFIX + '"' + '\\"' * (n // 2),
    "quote-backslash pairs": lambda n: PREFIX + '"\\' * (n // 2),
    "bare quotes": lambda n: PREFIX + '"' * n,
    "open brackets": lambda n: "[" * n,
    "brackets in strings": lambda n: PREFIX + '"' + "[{" * (n // 2) + '"',
}


def seconds(work, repeat: int = 3) -> float:
    """The best of ``repeat`` runs, in CPU time of this process (on a shared machine wall
    time mostly measures the other processes)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def load_tree(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "cases"
        (root / "rules").mkdir(parents=True)
        (root / "chess").mkdir()
        (root / "rules" / "general.json").write_text(json.dumps({"rules": [
            {"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]}))
        (root / "chess" / "topic.json").write_text(text)
        _, problems = load_cases(root, warn=lambda message: None)
        assert problems, "the hostile case file was accepted"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-mib", type=int, default=4)
    args = parser.parse_args()
    sizes = [64 * 1024]
    while sizes[-1] < args.max_mib * 1024 * 1024:
        sizes.append(sizes[-1] * 4)
    adapter, claims = OracleAdapter(), api.hello()
    load_tree("{}")   # the schemas are read once; not part of any row
    print(f"{'input':<30}{'bytes':>10}{'check ns/B':>12}{'serve ns/B':>12}{'load ns/B':>12}")
    for name, make in SHAPES.items():
        for n in sizes:
            text = make(n)
            size = len(text.encode())
            check = seconds(lambda: json_depth(text))
            serve = seconds(lambda: respond(text.encode(), adapter, claims))
            load = seconds(lambda: load_tree(text))
            print(f"{name:<30}{size:>10}{check / size * 1e9:>12.1f}{serve / size * 1e9:>12.1f}"
                  f"{load / size * 1e9:>12.1f}")


if __name__ == "__main__":
    main()
