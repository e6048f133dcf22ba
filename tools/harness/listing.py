"""``doublecheck run --list``: the cases a run would select, without running them.

The selection is the run's own (the same options go through the same
``_prepare``), so the list and a run cannot disagree. Text is one case id a
line, in the case tree's order; ``--json FILE`` writes it as one JSON object
(``-``: on stdout) for a test runner in another language.
"""

from __future__ import annotations

import json
import sys


def case_entry(case) -> dict:
    """What a runner elsewhere needs to find and name a case: where it is, what it asks."""
    entry = {"id": case.id, "variant": case.variant, "op": case.request["op"],
             "file": f"{case.variant}/{case.path.name}", "rules": list(case.rules),
             "tier": case.tier}
    if case.nodes is not None:
        entry["nodes"] = case.nodes
    return entry


def list_cases(chosen, options, out) -> int:
    """Print (or write) the chosen cases; exit status 0."""
    target = options.files.get("json")
    if target is None:
        for case in chosen:
            print(case.id, file=out)
        return 0
    text = json.dumps({"count": len(chosen), "cases": [case_entry(c) for c in chosen]}, indent=1)
    if target == "-":
        print(text, file=out)
        return 0
    with open(target, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{len(chosen)} cases listed in {target}", file=sys.stderr)
    return 0
