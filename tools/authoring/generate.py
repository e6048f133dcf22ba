"""``doublecheck generate``: write the generated case files from the oracle.

A variant's generator is the module its descriptor names (``Variant.generator``,
``doublecheck.oracle.variants``: a built-in's is in ``tools/authoring/generators/``,
a plugin's in its own package). Each defines::

    VARIANT = "chess"

    def files() -> list[tuple[str, dict]]:
        # (path relative to the cases directory, case-file dict) pairs,
        # e.g. ("chess/generated-perft.json", {...})

A generator must be
deterministic (seeded randomness only) and build its dicts with keys in a fixed
order: the text written is ``json.dumps(data, indent=2)`` plus a newline, with
nothing re-sorted. Every generated file carries ``"generated": true``; a file
without it is curated and is never overwritten.

With the package's own case tree, the same run keeps the derived text in step
(``doublecheck.authoring.derived``): the variant and operation lists of the
schemas and the rule tables of docs/<variant>.md.

A plugin variant's files are written into the plugin's own source tree: the
folder its package is imported from when that is not an installed copy (an
editable install, or a checkout on the path), or the folder ``--into`` names;
never into site-packages (``plugin_homes``).  With ``--variant`` of a plugin
only that plugin's files are written or checked: its generated cases and the
rule table of its doc page, none of doublecheck's own.

The deep tier (``--deep``, ``doublecheck.authoring.deep``): a module that also
defines ``DEEP_PERFT = [DeepPerft(...), ...]`` gets a
``<variant>/generated-deep-perft.json``, marked ``"tier": "deep"``.  Only
``--deep`` writes or checks those files (their counts take minutes); without
it they are left alone.
"""

import functools
import importlib
import json
import site
import sys
import sysconfig
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from doublecheck.authoring import derived
from doublecheck.authoring import deep as deep_tier
from doublecheck.authoring.own import OWN_PREFIX, own_file
from doublecheck.defaults import HASH_MB
from doublecheck.casefiles import CASES_DIR, UnreadableFile, check_cases_dir, read_data_text
from doublecheck.harness.output import OutputError, outside_of, write_output
from doublecheck.resource_limits import loads
from doublecheck.oracle import variants
from doublecheck.progress import Progress


def discover(variant=None) -> list:
    """The generator module of every registered variant whose descriptor names one, in
    registry order (built-ins first), optionally only that of ``variant``."""
    chosen = [v for v in variants.registered().values() if variant is None or v.id == variant]
    return [m for m in map(_generator, chosen) if m is not None]


def _generator(variant):
    """The generator module a descriptor names, or None.  A plugin's that cannot be imported
    is None with a warning naming the plugin (the other generators still run)."""
    if variant.generator is None:
        return None
    if variant.plugin is None:
        return importlib.import_module(variant.generator)
    from doublecheck.oracle.variants import guarded
    module, why = guarded(lambda: importlib.import_module(variant.generator))
    if why:  # (SystemExit and the like included: someone else's module must not end the command)
        print(f"warning: variant plugin {variant.plugin}: its generator {variant.generator} "
              f"cannot be imported: {why}", file=sys.stderr)
    return module


@dataclass
class Homes:
    """Where ``generate`` reads and writes each plugin variant's files (built-ins: the case
    tree given).  ``folders``: plugin variant id -> the folder of its package in its source
    tree (or, to check only, the installed one); ``refused``: id -> why nothing of it may be
    written (its package is an installed copy, and no ``--into`` was given)."""

    folders: dict = field(default_factory=dict)
    refused: dict = field(default_factory=dict)

    def case_tree(self, vid: str) -> Path:
        return self.folders[vid] / variants.descriptor(vid).cases

    def doc_page(self, vid: str) -> Path | None:
        doc = variants.descriptor(vid).doc
        return None if doc is None else self.folders[vid] / doc


SITE_DIRS = ("site-packages", "dist-packages")   # what pip installs a copy into


def plugin_homes(variant=None, into=None, check=False) -> Homes:
    """The homes of the plugin variants ``generate`` works on: ``variant``'s, or every
    plugin's.  ``into``: the plugin's source folder (the project folder that holds the
    package, or the package folder itself).  Without it the package's own folder is used when
    it is not an installed copy; an installed copy may be read (``check``), never written."""
    homes = Homes()
    for v in variants.plugins():
        if variant is not None and v.id != variant:
            continue
        if v.package is None:
            homes.refused[v.id] = (f"variant plugin {v.plugin}: {v.id} names no package to hold its "
                                   f"cases (Variant.package)")
            continue
        installed = Path(str(resources.files(v.package)))
        if into is not None:
            homes.folders[v.id] = _package_folder(Path(into), v.package)
        elif check or not _installed_copy(installed):
            homes.folders[v.id] = installed
        else:
            homes.refused[v.id] = (f"variant plugin {v.plugin}: {v.id} is installed in site-packages "
                                   f"({installed}), and doublecheck generate never writes there; "
                                   f"install it editable (pip install -e SOURCE) or pass --into SOURCE")
    return homes


def _package_folder(source: Path, package: str) -> Path:
    """The package's folder in a source tree: SOURCE/<package>, SOURCE/src/<package>, or SOURCE
    itself (given as the package folder)."""
    inner = Path(*package.split("."))
    return next((d for d in (source / inner, source / "src" / inner) if d.is_dir()), source)


def _installed_copy(folder: Path) -> bool:
    """Is ``folder`` inside a site-packages folder (pip's copy, not the author's source)?"""
    real = folder.resolve()
    sites = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    sites |= {Path(p).resolve() for p in site.getsitepackages() + [site.getusersitepackages()]}
    return any(part in SITE_DIRS for part in real.parts) or any(real.is_relative_to(d) for d in sites)


def _home(cases_dir: Path, rel: str, homes: Homes) -> Path:
    """Where a generated file goes: below ``cases_dir``, except that the package's own
    tree sends a plugin variant's files into the plugin's own tree (``homes``)."""
    vid = rel.split("/")[0]
    if cases_dir.resolve() == CASES_DIR.resolve() and vid in homes.folders:
        return homes.case_tree(vid) / rel
    return cases_dir / rel


def _trees(cases_dir: Path, variant, homes: Homes) -> list[Path]:
    """The case trees whose generated files ``generate --check`` looks at: the one given, or
    the package's own and each plugin's (only the plugin's own with ``--variant`` of a plugin)."""
    if cases_dir.resolve() != CASES_DIR.resolve():
        return [cases_dir]
    plugin_trees = sorted({homes.case_tree(v) for v in homes.folders})
    return plugin_trees if variant in homes.folders else [cases_dir] + plugin_trees


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
                 cross_check=True, recount=False, save=None, homes=None) -> tuple[tuple[str, str], ...]:
    """(path, text) of the deep-tier file of every generator that defines DEEP_PERFT.

    The counts already in the deep files of ``cases_dir`` are kept where their request
    did not change (new and changed specs are counted), unless ``recount``."""
    out, homes = [], homes or plugin_homes(variant, check=True)
    for module in discover(variant):
        if getattr(module, "DEEP_PERFT", None) and module.VARIANT not in homes.refused:
            committed = _committed_cases(_home(cases_dir, f"{module.VARIANT}/{deep_tier.TOPIC}.json", homes))
            rel, data = deep_tier.deep_file(module.VARIANT, module.DEEP_PERFT, jobs=jobs, log=log,
                                       committed=committed, hash_mb=hash_mb or HASH_MB,
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


def generate_own(cases_dir, options, out=None, err=None) -> int:
    """Write one case file of new vectors (``doublecheck.authoring.own``) into ``cases_dir``;
    a curated file of the same name is never replaced."""
    out, err = out or sys.stdout, err or sys.stderr
    rel, data = own_file(options)
    path = Path(cases_dir) / rel
    if path.exists() and not _is_generated(path):
        print(f"error: refusing to overwrite {path}: it is not marked \"generated\": true", file=err)
        return 2
    if not _write({path: render(data)}, Path(cases_dir), out, err):
        return 2
    print(f"{len(data['cases'])} cases; run them with: doublecheck run --cases-dir {cases_dir}", file=out)
    return 0


def _own(data: dict) -> bool:
    """A file of new vectors (``generate --seed/--depth``): no built-in generator makes it."""
    return data.get("topic", "").startswith(OWN_PREFIX)


def generate_command(cases_dir=CASES_DIR, variant=None, check=False,
                     out=None, err=None, quiet=False, deep=False, jobs=1, hash_mb=None,
                     cross_check=True, into=None) -> int:
    """Write (or with ``check``, compare) every generated file of the default tier,
    or with ``deep`` of the deep tier; returns the exit code.  Progress goes to
    ``err`` unless ``quiet``.  ``into``: the source folder of the plugin ``variant``."""
    out, err = out or sys.stdout, err or sys.stderr
    cases_dir = check_cases_dir(cases_dir, need_cases=False) if check else Path(cases_dir)
    own_tree = cases_dir.resolve() == CASES_DIR.resolve()
    plugin = variant is not None and variant in {v.id for v in variants.plugins()}
    if into is not None and not plugin:
        print("error: --into names the source folder of a variant plugin: give it with "
              "--variant ID of an installed plugin (doublecheck plugins lists them)", file=err)
        return 2
    homes = plugin_homes(variant, into, check) if own_tree else Homes()
    if variant in homes.refused:
        print(f"error: {homes.refused[variant]}", file=err)
        return 2
    for why in homes.refused.values():
        print(f"warning: {why}; its files are left as they are", file=err)
    chosen = discover(variant)
    if not chosen:
        print(f"error: no generator for variant '{variant}'", file=err)
        return 2
    if deep:
        try:  # --check recounts every deep count; writing keeps the unchanged ones
            made = produce_deep(variant, jobs, None if quiet else err, cases_dir, hash_mb, cross_check,
                                recount=check, save=None if check else lambda rel, text: _write(
                                    {_home(cases_dir, rel, homes): text}, cases_dir, out, err, homes),
                                homes=homes)
        except deep_tier.DeepError as e:
            print(f"error: {e}", file=err)
            return 1
    else:
        with Progress("doublecheck generate", len(chosen), "generators", None, stream=err,
                      quiet=quiet) as progress:
            made = produce(variant, progress)
    texts = {_home(cases_dir, rel, homes): text for rel, text in made
             if rel.split("/")[0] not in homes.refused}
    project = own_tree and not deep and not plugin    # doublecheck's own derived files are in play
    try:
        record_line = functools.partial(Progress, "doublecheck generate: kill record", unit="variants",
                                        bad=None, stream=err, quiet=quiet)
        kept = derived.expected_texts(progress=record_line) if project else {}
        if own_tree and not deep:   # the rule table of each plugin's doc page, in its own tree
            kept.update(derived.page_texts([(homes.doc_page(v), v, str(homes.doc_page(v)))
                                            for v in homes.folders if homes.doc_page(v) is not None]))
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
        for path in sorted(p for tree in _trees(cases_dir, variant, homes) for p in tree.glob("*/*.json")):
            data = None if path in texts or path in kept else _generated_data(path)
            if data is not None and not _own(data) and (data.get("tier") == "deep") == deep and (
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
    if not _write({**texts, **kept}, cases_dir, out, err, homes):
        return 2
    if deep and own_tree and not plugin and not _write(derived.expected_texts(), cases_dir, out, err, homes):
        return 2   # (docs/perft.md lists the deep counts)
    if project and any(p.read_text(encoding="utf-8") != t
                       for p, t in derived.expected_texts(fresh=True).items()):
        # a catalogue read against the schemas just written
        return 0 if _write(derived.expected_texts(), cases_dir, out, err, homes) else 2
    return 0


def _tree_of(path: Path, cases_dir: Path, homes: Homes) -> Path:
    """The tree a generated file belongs in: the case tree being written, a variant plugin's
    own source folder (its cases and its doc page), or else this package (derived docs, schemas)."""
    return next((tree for tree in [cases_dir, *homes.folders.values()] if path.is_relative_to(tree)),
                CASES_DIR.parent)


def _write(texts: dict, cases_dir: Path, out, err, homes: Homes | None = None) -> bool:
    """Write the files whose text changed; False after printing why one could not be.

    A file is written only inside its tree (``_tree_of``), never through a symbolic link
    that leads out of it."""
    ok = True
    for path, text in texts.items():
        tree = _tree_of(path, cases_dir, homes or Homes())
        try:
            outside_of(path, tree)
            if path.exists() and _committed(path)[0] == text:
                print(f"unchanged: {path}", file=out)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            write_output(path, text, inside=tree)
        except (OutputError, OSError) as e:
            print(f"error: {e if isinstance(e, OutputError) else f'cannot-write: {path}: {e}'}",
                  file=err)
            ok = False
            continue
        print(f"wrote: {path}", file=out)
    return ok
