"""``doublecheck export DIR``: the case tree, its schemas and a page on reading them, for a test
runner in another language (vitest, cargo test, go test) that reads the JSON files itself.

The files are copied byte for byte from the case tree a run would use, after
the same load that a run does, so a tree with a problem is never exported.
The page is docs/vectors.md (``doublecheck docs vectors``); ``index.json``
says which version wrote the tree and what it holds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from doublecheck.casefiles import DataError, catalogue_dir, check_cases_dir, load_cases
from doublecheck.oracle.errors import CANNOT_WRITE, CASES_NOT_FOUND, UsageError
from doublecheck.packaged import SCHEMAS_DIR, package_folder

PROG = "doublecheck export"
PAGE = "vectors.md"   # the docs page written beside the tree as README.md


def _case_files(cases_dir: Path, variant: str | None) -> list[Path]:
    folders = [cases_dir / variant] if variant else sorted(
        p for p in cases_dir.iterdir() if p.is_dir() and p.name != "rules" and not p.name.startswith((".", "_")))
    return [f for folder in folders for f in sorted(folder.glob("*.json")) if f.is_file()]


def _target(path: Path, force: bool) -> Path:
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} exists and is not a folder", PROG)
    if path.is_dir() and any(path.iterdir()) and not force:
        raise UsageError(f"{path} is not empty: nothing written (--force writes into it, "
                         f"replacing the files of the same name)", PROG)
    return path


def export_tree(cases_dir, target: Path, variant: str | None = None, force: bool = False) -> dict:
    """Write the tree into ``target``; returns the index written as index.json."""
    from doublecheck import __version__
    from doublecheck.oracle import variants

    if variant is not None:
        variants.get(variant)   # RulesError unknown-variant, naming the known ids
    cases_dir = check_cases_dir(cases_dir)
    cases, problems = load_cases(cases_dir, deep=True, warn=lambda message: None,
                                 wanted=None if variant is None else (lambda v, raw: v == variant))
    if problems:
        raise DataError(CASES_NOT_FOUND, f"{cases_dir} has problems, nothing exported: "
                        + "; ".join(problems[:5]))
    files = _case_files(cases_dir, variant)
    if not files:
        raise UsageError(f"{cases_dir} has no case files for {variant or 'any variant'}", PROG)
    _target(target, force)
    catalogue = catalogue_dir(cases_dir)
    written = [(f, Path("cases") / f.parent.name / f.name) for f in files]
    written += [(f, Path("cases") / "rules" / f.name) for f in sorted(catalogue.glob("*.json"))]
    written += [(f, Path("schemas") / f.name) for f in sorted(SCHEMAS_DIR.glob("*.json"))]
    written.append((package_folder("doublecheck.docs") / PAGE, Path("README.md")))
    try:
        for source, rel in written:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / rel)
    except OSError as e:
        raise DataError(CANNOT_WRITE, f"cannot write {target}: {e.strerror or e}") from None
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.variant] = counts.get(case.variant, 0) + 1
    index = {"doublecheck": __version__, "cases": sum(counts.values()), "variants": counts,
             "files": sorted(rel.as_posix() for _, rel in written if rel.parts[0] == "cases")}
    try:
        (target / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise DataError(CANNOT_WRITE, f"cannot write {target}: {e.strerror or e}") from None
    return index


def export_command(args) -> int:
    from doublecheck.packaged import CASES_DIR
    if args.path:
        print(f"cases:   {Path(args.cases_dir or CASES_DIR)}")
        print(f"schemas: {SCHEMAS_DIR}")
        return 0
    if args.dir is None:
        raise UsageError("say where to write the tree: doublecheck export DIR", PROG)
    target = Path(args.dir)
    index = export_tree(args.cases_dir or CASES_DIR, target, args.variant, args.force)
    per_variant = ", ".join(f"{v} {n}" for v, n in index["variants"].items())
    print(f"wrote {index['cases']} cases ({per_variant}) in {len(index['files'])} files, the "
          f"schemas and README.md (how to read them) to {target}")
    return 0
