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

With the package's own case tree, the same run keeps the derived text in step
(``doublecheck.authoring.derived``): the variant and operation lists of the
schemas and the rule tables of docs/<variant>.md.

The deep tier (``--deep``, ``doublecheck.authoring.deep``): a module that also
defines ``DEEP_PERFT = [DeepPerft(...), ...]`` gets a
``<variant>/generated-deep-perft.json``, marked ``"tier": "deep"``.  Only
``--deep`` writes or checks those files (their counts take minutes); without
it they are left alone.
"""

import importlib
import json
import pkgutil
import sys
from pathlib import Path

from doublecheck.authoring import derived, generators
from doublecheck.authoring import deep as deep_tier
from doublecheck.perft.cache import DEFAULT_HASH_MB
from doublecheck.casefiles import CASES_DIR, UnreadableFile, check_cases_dir, read_data_text
from doublecheck.limits import loads
from doublecheck.progress import Progress


def discover(variant=None) -> list:
    """The generator modules, by name, optionally only those of ``variant``."""
    modules = [importlib.import_module(f"{generators.__name__}.{info.name}")
               for info in sorted(pkgutil.iter_modules(generators.__path__), key=lambda i: i.name)]
    return [m for m in modules if variant is None or m.VARIANT == variant]


def render(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_produced: dict[str, tuple[tuple[str, str], ...]] = {}  # generator module name -> its files


def produce(variant=None, progress: Progress | None = None) -> tuple[tuple[str, str], ...]:
    """(path relative to the cases directory, text) of every generated file.

    Generators are deterministic, so one run of each per process is enough.
    ``progress`` hears of each generator as it starts and finishes.
    """
    out = []
    for module in discover(variant):
        if module.__name__ not in _produced:
            label = f"the {module.VARIANT} generator"
            if progress:
                progress.start(label)
            _produced[module.__name__] = tuple((rel, render(data)) for rel, data in module.files())
            if progress:
                progress.finish(label)
        out += _produced[module.__name__]
    return tuple(out)


def produce_deep(variant=None, jobs=1, log=None, cases_dir=CASES_DIR, hash_mb=None,
                 cross_check=True, recount=False, save=None) -> tuple[tuple[str, str], ...]:
    """(path, text) of the deep-tier file of every generator that defines DEEP_PERFT.

    The counts already in the deep files of ``cases_dir`` are kept where their request
    did not change (new and changed specs are counted), unless ``recount``."""
    out = []
    for module in discover(variant):
        if getattr(module, "DEEP_PERFT", None):
            committed = _committed_cases(Path(cases_dir) / module.VARIANT / f"{deep_tier.TOPIC}.json")
            rel, data = deep_tier.deep_file(module.VARIANT, module.DEEP_PERFT, jobs=jobs, log=log,
                                       committed=committed, hash_mb=hash_mb or DEFAULT_HASH_MB,
                                       check=cross_check and not recount, recount=recount,
                                       save=None if save is None else lambda rel, data: save(rel, render(data)))
            out.append((rel, render(data)))
    return tuple(out)


def _committed_cases(path: Path) -> dict:
    """Case id -> case of a generated file on disk ({} when there is none to read)."""
    data = _generated_data(path) if path.exists() else None
    cases = data.get("cases") if data else None
    return {c["id"]: c for c in cases if isinstance(c, dict) and "id" in c} if isinstance(cases, list) else {}


def _committed(path: Path):
    """(text, None) for a readable file, or (None, what is wrong with it)."""
    try:
        return read_data_text(path), None
    except UnreadableFile as e:
        return None, str(e)


def _generated_data(path: Path):
    """The file's JSON when it is marked ``"generated": true``; None otherwise
    (curated, or not readable as JSON: never overwritten)."""
    text, _ = _committed(path)
    try:
        data = loads(text) if text is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("generated") is True else None


def _is_generated(path: Path) -> bool:
    return _generated_data(path) is not None


def generate_command(cases_dir=CASES_DIR, variant=None, check=False,
                     out=None, err=None, quiet=False, deep=False, jobs=1, hash_mb=None,
                     cross_check=True) -> int:
    """Write (or with ``check``, compare) every generated file of the default tier,
    or with ``deep`` of the deep tier; returns the exit code.  Progress goes to
    ``err`` unless ``quiet``."""
    out, err = out or sys.stdout, err or sys.stderr
    cases_dir = check_cases_dir(cases_dir, need_cases=False) if check else Path(cases_dir)
    chosen = discover(variant)
    if not chosen:
        print(f"error: no generator for variant '{variant}'", file=err)
        return 2
    if deep:
        try:  # --check recounts every deep count; writing keeps the unchanged ones
            made = produce_deep(variant, jobs, None if quiet else err, cases_dir, hash_mb, cross_check,
                                recount=check, save=None if check else lambda rel, text: _write(
                                    {Path(cases_dir) / rel: text}, out))
        except deep_tier.DeepError as e:
            print(f"error: {e}", file=err)
            return 1
    else:
        with Progress("doublecheck generate", len(chosen), "generators", None, stream=err,
                      quiet=quiet) as progress:
            made = produce(variant, progress)
    texts = {cases_dir / rel: text for rel, text in made}
    try:
        own_tree = not deep and cases_dir.resolve() == CASES_DIR.resolve()
        kept = derived.expected_texts() if own_tree else {}
    except derived.DerivedError as e:
        print(f"error: {e}", file=err)
        return 2

    if check:
        stale = []
        for p, t in {**texts, **kept}.items():
            if not p.exists():
                stale.append(f"missing: {p}")
                continue
            committed, trouble = _committed(p)
            if trouble:
                stale.append(f"differs: {p} ({trouble})")
            elif committed != t:
                stale.append(f"differs: {p}")
        for path in sorted(cases_dir.glob("*/*.json")):
            data = None if path in texts else _generated_data(path)
            if data is not None and (data.get("tier") == "deep") == deep and (
                    variant is None or data.get("variant") == variant):
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
        _, trouble = _committed(path)
        why = f"it cannot be read: {trouble}" if trouble else "it is not marked \"generated\": true"
        print(f"error: refusing to overwrite {path}: {why}", file=err)
    if curated:
        return 2
    _write({**texts, **kept}, out)
    if deep and cases_dir.resolve() == CASES_DIR.resolve():
        _write(derived.expected_texts(), out)   # docs/perft.md lists the deep counts
    if own_tree and any(p.read_text(encoding="utf-8") != t
                        for p, t in derived.expected_texts(fresh=True).items()):
        _write(derived.expected_texts(), out)  # a catalogue read against the schemas just written
    return 0


def _write(texts: dict, out) -> None:
    for path, text in texts.items():
        if path.exists() and _committed(path)[0] == text:
            print(f"unchanged: {path}", file=out)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote: {path}", file=out)
