"""``doublecheck plugins``: the variant plugins found, the variants each one brought, and
every one left out with the reason (docs/plugins.md, "When a plugin is broken").

Two kinds of reasons: those found when the entry points are loaded
(``doublecheck.oracle.variants``: the entry point, the descriptor, the package,
the rules class and its first use), and those found when the plugin's files
are read (``doublecheck.casefiles``: a plugin whose catalogue has a problem is
left out entirely; a case file with a problem is left out alone, listed under
``files_left_out``, and the plugin's other files are kept).
"""

from __future__ import annotations

import json
import sys

from doublecheck.oracle import variants


def plugin_report(cases_dir=None) -> list[dict]:
    """One entry per plugin entry point: name, target, loaded ids, left-out ids with reasons."""
    from doublecheck.casefiles import CASES_DIR, load_cases

    said: list[str] = []
    load_cases(cases_dir or CASES_DIR, warn=said.append)
    report = []
    for entry in variants.plugin_entries():
        files = [m.split(": ", 1)[1] for m in said if m.startswith(f"variant plugin {entry.name}: ")]
        left_out, files_left_out = dict(entry.left_out), {}
        for message in files:   # "<ids> left out: <problem>", or "case file <path> left out (...): <problem>"
            if message.startswith(FILE_SAID):
                path, _, why = message[len(FILE_SAID):].partition(FILE_KEPT)
                files_left_out.setdefault(path, why)
                continue
            ids, _, why = message.partition(" left out: ")
            for vid in ids.split(", "):
                left_out.setdefault(vid, why)
        report.append({"name": entry.name, "target": entry.target,
                       "loaded": [v for v in entry.loaded if v not in left_out], "left_out": left_out,
                       "files_left_out": files_left_out})
    return report


FILE_SAID, FILE_KEPT = "case file ", " left out (its other files are kept): "   # casefiles' words


def plugins_command(args, out=None) -> int:
    """Print the report; exit 0 when every plugin found is in use with all its files, 1 when
    one (or a case file of one) was left out."""
    out = out or sys.stdout
    report = plugin_report(getattr(args, "cases_dir", None))
    if args.json:
        print(json.dumps({"plugins": report}, indent=2), file=out)
    elif not report:
        print("no variant plugins installed (entry point group "
              f"{variants.VARIANT_GROUP}; doublecheck docs plugins)", file=out)
    for entry in ([] if args.json else report):
        print(f"{entry['name']}  {entry['target']}", file=out)
        for vid in entry["loaded"]:
            print(f"  loaded    {vid}", file=out)
        for vid, why in entry["left_out"].items():
            print(f"  left out  {vid}: {why}", file=out)
        for path, why in entry["files_left_out"].items():
            print(f"  left out  case file {path}: {why}", file=out)
    return 1 if any(e["left_out"] or e["files_left_out"] for e in report) else 0
