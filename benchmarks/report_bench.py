"""How well the failure reports point at a planted fault (a measurement, not a test).

Three engines, each the oracle with one fault planted (tests/toy_engines/faults.py):
the king-safety test sees pawns attacking backwards (chess, FIDE-3.9.2),
castling is tested for attacks on the king's start and end squares only
(chess, FIDE-3.8.2.2), and move two of a Marseillais turn never takes en
passant (marseillais, M4). Each runs its variant's cases as ``doublecheck run
--variant V --quick --jobs 1`` does, and the script prints per fault:

- failing: the failing cases;
- full entries: the failures the text report describes in full (the others
  say "same cause as");
- groups: the distinct first divergences among the failures whose line the
  engine parted from (and how many failures have one);
- rules line: whether the text report's first failure lists the rule the
  fault breaks among the rules its case tests;
- reason names rule: whether that failure gives the oracle's reason (a "why"
  line for an extra or missing move, or what the oracle says of the first
  divergence) citing the rule the fault breaks;
- causes: the cause lines the report opens with (docs/harness.md, "Causes
  first"), and how many of the failures the first one covers;
- seconds: the wall time of the run, reasons and searches included.

Run: python3 benchmarks/report_bench.py [FAULT ...]
"""

from __future__ import annotations

import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from doublecheck.defaults import QUICK_MAX_NODES  # noqa: E402
from doublecheck.harness.engines import AdapterEngine  # noqa: E402
from doublecheck.harness.runner import RunOptions, run_command  # noqa: E402
from toy_engines.faults import FAULTS, FaultAdapter  # noqa: E402


def first_entry(text: str) -> str:
    """The first failure described in full in a text report."""
    blocks = re.split(r"\n(?=FAILED |ERROR )", text)
    full = [b for b in blocks[1:] if "\n  description:" in b]
    return full[0].split("\n\n")[0] if full else ""


def reason_lines(entry: str) -> list[str]:
    """The lines of an entry that give the oracle's reasons (for moves, or for a divergence)."""
    lines = entry.splitlines()
    out, inside = [], False
    for line in lines:
        if "why, in the oracle's words" in line:
            inside = True
            continue
        if inside and line.startswith("      "):
            out.append(line)
            continue
        inside = False
        if line.strip().startswith("the oracle: "):
            out.append(line)
    return out


def measure(fault: str) -> dict:
    variant, rule, _ = FAULTS[fault]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        options = RunOptions(variant=variant, max_nodes=QUICK_MAX_NODES, jobs=1, quiet=True,
                             files={"json": str(report)})
        out = io.StringIO()
        began = time.perf_counter()
        run_command(options, engine=AdapterEngine(FaultAdapter(fault), fault), out=out,
                    err=io.StringIO())
        seconds = time.perf_counter() - began
        written = json.loads(report.read_text())
        cases, causes = written["cases"], written["causes"]
    failing = [c for c in cases if c["outcome"] == "failed"]
    keys = [c["diff"]["first_divergence"]["key"] for c in failing
            if "key" in ((c["diff"] or {}).get("first_divergence") or {})]
    entry = first_entry(out.getvalue())
    return {"fault": fault, "variant": variant, "rule": rule, "failing": len(failing),
            "full": len([c for c in failing if "same_cause_as" not in c]),
            "groups": len(set(keys)), "diverged": len(keys),
            "names_rule": bool(re.search(rf"rules: .*\b{re.escape(rule)}\b", entry)),
            "reason_rule": any(re.search(rf"\({re.escape(rule)}[):]", line) for line in reason_lines(entry)),
            "causes": len(causes), "first_cause": len(causes[0]["cases"]) if causes else 0,
            "seconds": seconds, "entry": entry}


def main(argv) -> int:
    faults = argv or list(FAULTS)
    rows = [measure(f) for f in faults]
    print(f"{'fault':<24} {'variant':<12} {'rule':<13} {'failing':>7} {'full entries':>12} "
          f"{'groups (of)':>12}  {'rules line':<10} {'reason names rule':<17} {'causes (1st)':>12} "
          f"{'seconds':>7}")
    for r in rows:
        print(f"{r['fault']:<24} {r['variant']:<12} {r['rule']:<13} {r['failing']:>7} {r['full']:>12} "
              f"{str(r['groups']) + ' (' + str(r['diverged']) + ')':>12}  "
              f"{'yes' if r['names_rule'] else 'no':<10} {'yes' if r['reason_rule'] else 'no':<17} "
              f"{str(r['causes']) + ' (' + str(r['first_cause']) + ')':>12} {r['seconds']:>7.1f}")
    for r in rows:
        print(f"\nfirst failure for {r['fault']}:\n{r['entry']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
