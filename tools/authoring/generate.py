"""``doublecheck generate``: write the generated case files from the oracle.

Generators are modules in ``tools/generators/`` (one per variant, any module
name). Each defines::

    VARIANT = "chess"

    def files() -> list[tuple[str, dict]]:
        # (path relative to the cases directory, case-file dict) pairs,
        # e.g. ("chess/generated-perft.json", {...})

Adding a module is enough; nothing else needs editing. A generator must be
deterministic (seeded randomness only) and build its dicts with keys in a fixed
order: the text written is ``json.dumps(data, indent=2)`` plus a newline, with
nothing re-sorted. Every generated file carries ``"generated": true``; a file
without it is curated and is never overwritten.

The deep tier (``--deep``, ``doublecheck.authoring.deep``): a module that also
defines ``DEEP_PERFT = [DeepPerft(...), ...]`` gets a
``<variant>/generated-deep-perft.json``, marked ``"tier": "deep"``.  Only
``--deep`` writes or checks those files (their counts take minutes); without
it they are left alone.
"""

import functools
import importlib
import json
import pkgutil
import sys
from pathlib import Path

from doublecheck.authoring import generators
from doublecheck.authoring.deep import deep_file
from doublecheck.casefiles import CASES_DIR


def discover(variant=None) -> list:
    """The generator modules, by name, optionally only those of ``variant``."""
    modules = [importlib.import_module(f"{generators.__name__}.{info.name}")
               for info in sorted(pkgutil.iter_modules(generators.__path__), key=lambda i: i.name)]
    return [m for m in modules if variant is None or m.VARIANT == variant]


def render(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@functools.lru_cache(maxsize=None)
def produce(variant=None) -> tuple[tuple[str, str], ...]:
    """(path relative to the cases directory, text) of every generated file.

    Generators are deterministic, so one run per process is enough.
    """
    return tuple((rel, render(data)) for module in discover(variant) for rel, data in module.files())


def produce_deep(variant=None, jobs=1, log=None) -> tuple[tuple[str, str], ...]:
    """(path, text) of the deep-tier file of every generator that defines DEEP_PERFT."""
    return tuple((rel, render(data)) for module in discover(variant) if getattr(module, "DEEP_PERFT", None)
                 for rel, data in [deep_file(module.VARIANT, module.DEEP_PERFT, jobs=jobs, log=log)])


def _read(path: Path):
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _is_generated(path: Path) -> bool:
    data = _read(path)
    return data is not None and data.get("generated") is True


def _in_tier(path: Path, deep: bool) -> bool:
    data = _read(path)
    return data is not None and (data.get("tier") == "deep") == deep


def generate_command(cases_dir=CASES_DIR, variant=None, check=False,
                     out=None, err=None, deep=False, jobs=1) -> int:
    """Write (or with ``check``, compare) every generated file of the default tier,
    or with ``deep`` of the deep tier; returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    cases_dir = Path(cases_dir)
    if not discover(variant):
        print(f"error: no generator for variant '{variant}'", file=err)
        return 2
    made = produce_deep(variant, jobs, err) if deep else produce(variant)
    texts = {cases_dir / rel: text for rel, text in made}

    if check:
        stale = [f"missing: {p}" for p, t in texts.items() if not p.exists()]
        stale += [f"differs: {p}" for p, t in texts.items()
                  if p.exists() and p.read_text(encoding="utf-8") != t]
        for path in sorted(cases_dir.glob("*/*.json")):
            if path not in texts and _is_generated(path) and _in_tier(path, deep) and (
                    variant is None or json.loads(path.read_text(encoding="utf-8")).get("variant") == variant):
                stale.append(f"not produced by any generator: {path}")
        for line in stale:
            print(line, file=out)
        if stale:
            print(f"{len(stale)} generated file(s) out of date; run 'doublecheck generate'", file=out)
            return 1
        print(f"{len(texts)} generated file(s) up to date", file=out)
        return 0

    curated = [p for p in texts if p.exists() and not _is_generated(p)]
    for path in curated:
        print(f"error: refusing to overwrite {path}: it is not marked \"generated\": true", file=err)
    if curated:
        return 2
    for path, text in texts.items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"unchanged: {path}", file=out)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote: {path}", file=out)
    return 0
