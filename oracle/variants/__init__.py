"""The registry of variants, by id (see the rule catalogue for each one's rules).

Every variant, built in or not, is registered the same way: through the
entry point group ``doublecheck.variants`` (``VARIANT_GROUP``).  An entry
point names a ``Variant`` (or a sequence of them) that says everything the
tools need: the rules class, the generator and mutant modules, the doc page,
and for a variant living in a package of its own, where that package keeps
its catalogue and cases (read through ``importlib.resources``; docs/plugins.md,
``doublecheck docs plugins``).

The built-in variants are the ``BUILTIN`` sequence below, one registry line
each (``builtin``: the line names the rules class and the mutant module, and
derives the generator module and the doc page); ``REGISTRY`` is the same
sequence as id -> rules class.  doublecheck's own pyproject.toml declares that sequence
as its entry point, so the built-ins come through the same door as any
plugin.  A plain source checkout with no installed metadata (or metadata of
an older install) gets ``BUILTIN`` directly: the built-ins are always there.

A plugin that cannot be used (its entry point fails to import or load, raising
anything at all, it names something that is not a Variant, a field of its
descriptor has the wrong type, its id is malformed or already taken, its
package or doc page is missing, its rules class cannot be imported, names
itself otherwise, or fails or hangs on first use) is left out;
``plugin_problems()`` says why, naming the plugin, ``plugin_entries()`` lists
every plugin with what it loaded and left out (``doublecheck plugins``), and
every other variant keeps working.  A rules
module of a built-in variant is imported only when the variant is first asked
for.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path

from doublecheck.oracle.errors import UNKNOWN_VARIANT, RulesError, quote

VARIANT_GROUP = "doublecheck.variants"
VARIANT_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Variant:
    """Everything the tools need to know of one variant, built in or from a plugin.

    ``rules`` is the rules class, or ``"module:Class"`` to import it when first
    asked for.  ``generator`` and ``mutants`` name the modules of its generator
    (``doublecheck.authoring.generate``) and its mutants
    (``doublecheck.authoring.mutants``); several variants may name one mutant
    module.  ``package`` is the package that holds the variant's case tree
    (``cases``: ``rules/*.json`` and ``<id>/*.json``, laid out as doublecheck's
    own) and its doc page (``doc``, a path inside it); None for a built-in
    variant, whose cases are doublecheck's case tree and whose ``doc`` names a
    page of doublecheck's docs (``doublecheck.docs``).  Every tool reads these
    fields; none looks for a variant's files by its name.
    """

    id: str
    rules: object
    package: str | None = None
    cases: str = "cases"
    doc: str | None = None            # the doc page inside the package, e.g. "docs/no-castling.md"
    generator: str | None = None      # a module defining VARIANT and files() (authoring.generate)
    mutants: str | None = None        # mutant classes; entries in <module>.json (authoring.mutants)
    plugin: str | None = field(default=None, compare=False)   # set when loaded: who registered it

    def rules_class(self):
        if not isinstance(self.rules, str):
            return self.rules
        module, cls = self.rules.split(":")
        return getattr(importlib.import_module(module), cls)

    def case_tree(self) -> Path | None:
        """The package's own case tree (None for a built-in variant)."""
        if self.package is None:
            return None
        return Path(str(resources.files(self.package) / self.cases))

    def doc_path(self) -> Path | None:
        """The variant's doc page (``doublecheck docs ID`` prints it), or None."""
        if self.doc is None:
            return None
        if self.package is None:     # a built-in's page is one of doublecheck's own
            return Path(str(resources.files("doublecheck.docs"))) / self.doc
        return Path(str(resources.files(self.package) / self.doc))


def builtin(vid: str, rules: str, mutants: str, page: bool = True) -> Variant:
    """The full descriptor of a built-in variant, from its registry line.

    The line names the rules class (``module:Class`` below ``doublecheck.oracle``) and the
    mutant module (below ``doublecheck.authoring.mutants``; the two Marseillais forms share
    one, as do the two progressive forms).  The rest is derived here, and only here: the
    generator is the module ``doublecheck.authoring.generators.<id with '_' for '-'>``, the
    doc page ``docs/<id>.md`` (``page=False``: none, for rules that are another body's, as
    chess's are the FIDE Laws), and the cases are ``cases/<id>/`` of doublecheck's tree."""
    return Variant(vid, f"doublecheck.oracle.{rules}",
                   generator=f"doublecheck.authoring.generators.{vid.replace('-', '_')}",
                   mutants=f"doublecheck.authoring.mutants.{mutants}", doc=f"{vid}.md" if page else None)


# The built-in variants, one line each.  A new built-in variant is one line here plus its own
# files (docs/contributing.md lists them); no tool looks for a variant's files by its name.
BUILTIN = (
    builtin("chess", "chess:Chess", mutants="chess", page=False),
    builtin("double-move", "variants.double_move:DoubleMove", mutants="double_move"),
    builtin("double-move-anul", "variants.double_move_anul:DoubleMoveAnul", mutants="double_move_anul"),
    builtin("double-chess", "variants.double_chess:DoubleChess", mutants="double_chess"),
    builtin("symmetric-monster", "variants.symmetric_monster:SymmetricMonster", mutants="symmetric_monster"),
    builtin("marseillais", "variants.marseillais:Marseillais", mutants="marseillais"),
    builtin("marseillais-classic", "variants.marseillais:MarseillaisClassic", mutants="marseillais"),
    builtin("monster", "variants.monster:Monster", mutants="monster"),
    builtin("progressive-scottish", "variants.progressive:ProgressiveScottish", mutants="progressive"),
    builtin("progressive-italian", "variants.progressive:ProgressiveItalian", mutants="progressive"),
)
REGISTRY = {v.id: v.rules for v in BUILTIN}    # id -> "module:Class", in registry order


FIRST_USE_SECONDS = 5.0     # a plugin's rules class must set up and list its start moves in this time
MAX_DOC_BYTES = 1 << 20     # a plugin's doc page is read (and checked) up to this size
DESCRIPTOR_TYPES = {        # what each field of a plugin's Variant may hold
    "package": (str, type(None)), "cases": (str,), "doc": (str, type(None)),
    "generator": (str, type(None)), "mutants": (str, type(None)),
}


@dataclass
class PluginEntry:
    """One entry point of the group, as ``doublecheck plugins`` shows it: who registered
    it, the variant ids it brought, and for each one left out, why."""

    name: str
    target: str
    loaded: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)   # id (or the target) -> why


class _Table:
    """The variants found (built-in first, then plugins by entry point name) and the problems.

    Every step that runs a plugin's code (loading its entry point, reading its descriptor,
    importing its rules class and its package, the rules class's first use) is guarded by
    ``guarded``: any exception, SystemExit and KeyboardInterrupt included, leaves that
    plugin out with the reason, and nothing of it is half-registered."""

    def __init__(self):
        self.found: dict[str, Variant] = {}
        self.problems: list[str] = []
        self.failed: dict[str, str] = {}    # variant id -> why its plugin was left out
        self.entries: list[PluginEntry] = []
        points = sorted(_entry_points(), key=lambda ep: (_target(ep) != _BUILTIN_TARGET, _ep_name(ep)))
        if not any(_target(ep) == _BUILTIN_TARGET for ep in points):
            self._add_all(BUILTIN, None, None)    # a source checkout without installed metadata
        for ep in points:
            self._load(ep)

    def _load(self, ep) -> None:
        who, target = _plugin_name(ep), _target(ep)
        builtin = target == _BUILTIN_TARGET
        entry = None if builtin else PluginEntry(who, target)
        if entry is not None:
            self.entries.append(entry)
        loaded, why = guarded(ep.load)
        if why:
            self._refuse(entry, who, target, f"cannot be loaded: {why}")
            return
        entries = (loaded,) if isinstance(loaded, Variant) else loaded
        if not isinstance(entries, (tuple, list)) or not all(isinstance(v, Variant) for v in entries):
            self._refuse(entry, who, target, f"{target} is not a doublecheck.oracle.variants.Variant "
                                             f"(or a list of them)")
            return
        self._add_all(entries, None if builtin else who, entry)

    def _refuse(self, entry, who, key, why) -> None:
        self.problems.append(f"variant plugin {who}: {why}")
        if entry is not None:
            entry.left_out[key] = why

    def _add_all(self, entries, who, entry) -> None:
        for variant in entries:
            checked, problem = guarded(lambda: self._problem(variant, who))
            problem = problem or checked
            if problem:
                vid = variant.__dict__.get("id")
                key = vid if isinstance(vid, str) else quote(vid)
                self._refuse(entry, who, key, problem)
                if isinstance(vid, str):
                    self.failed.setdefault(vid, problem)
            else:
                self.found[variant.id] = Variant(**{**variant.__dict__, "plugin": who})
                if entry is not None:
                    entry.loaded.append(variant.id)

    def _problem(self, variant, who) -> str | None:
        """Why a variant cannot be registered (None: it can)."""
        if not isinstance(variant.id, str) or not VARIANT_ID.match(variant.id):
            return f"variant id {quote(variant.id)} is not lower-case words joined by '-'; left out"
        if variant.id in self.found:
            owner = self.found[variant.id].plugin or "doublecheck (built in)"
            return f"variant id {quote(variant.id)} is already registered by {owner}; left out"
        if who is None:   # a built-in: imported when first asked for, if installed at all
            return None
        return _descriptor_problem(variant) or _package_problem(variant) or _rules_problem(variant)


def guarded(step):
    """(result, None) of ``step()``, or (None, why) when it raised anything at all: a plugin's
    code may raise SystemExit or KeyboardInterrupt on import, and must not end the command."""
    try:
        return step(), None
    except BaseException as e:  # noqa: BLE001 -- someone else's code: every failure is theirs
        return None, f"{type(e).__name__}: {_said(e)}"


def _said(e: BaseException) -> str:
    try:
        text = " ".join(str(e).split())
        return text if len(text) <= 200 else text[:199] + "…"
    except BaseException:  # noqa: BLE001 -- an exception whose text itself raises
        return "(its message cannot be shown)"


def _descriptor_problem(variant) -> str | None:
    """A field of the descriptor of the wrong type."""
    rules = variant.rules
    if isinstance(rules, str):
        if rules.count(":") != 1 or not all(rules.split(":")):
            return f"the rules of {variant.id} should be 'module:Class', not {quote(rules)}"
    elif not isinstance(rules, type):
        return f"the rules of {variant.id} should be a class or 'module:Class', not {type(rules).__name__}"
    for name, kinds in DESCRIPTOR_TYPES.items():
        value = getattr(variant, name)
        if not isinstance(value, kinds):
            wanted = " or ".join("None" if k is type(None) else k.__name__ for k in kinds)
            return f"the {name} of {variant.id} should be {wanted}, not {type(value).__name__}"
    if variant.doc is not None and variant.package is None:   # (a built-in's page is doublecheck's)
        return f"the doc page of {variant.id} is {quote(variant.doc)}, but no package holds it: set package"
    return None


def _package_problem(variant) -> str | None:
    """The package that holds the variant's files cannot be imported, or a file it names is missing."""
    if variant.package is None:
        return None
    tree, why = guarded(variant.case_tree)
    if why:
        return f"its package {quote(variant.package)} cannot be imported: {why}"
    if not tree.is_dir():
        return f"its case tree {tree} is not a folder"
    if variant.doc is not None:
        path = variant.doc_path()
        try:
            with open(path, "rb") as f:   # (a regular file only: no FIFO, no device)
                if not _regular(f):
                    return f"its doc page {path} is not a regular file"
                f.read(MAX_DOC_BYTES + 1).decode("utf-8")
        except OSError as e:
            return f"its doc page {path} cannot be read: {e.strerror or e}"
        except UnicodeDecodeError:
            return f"its doc page {path} is not UTF-8 text"
    return None


def _regular(f) -> bool:
    import os
    import stat
    return stat.S_ISREG(os.fstat(f.fileno()).st_mode)


def _rules_problem(variant) -> str | None:
    """The rules class cannot be imported, is no rules class, names itself otherwise, or
    fails (or does not finish) its first use: set up, then list the start position's moves."""
    from doublecheck.oracle.chess import Chess
    cls, why = guarded(variant.rules_class)
    if why:
        return f"the rules class of {variant.id} cannot be imported: {why}"
    if not isinstance(cls, type) or not issubclass(cls, Chess):
        return f"the rules of {variant.id} is not a subclass of doublecheck.oracle.chess.Chess"
    name, why = guarded(lambda: cls.name)
    if why:
        return f"the rules class of {variant.id} cannot say its name: {why}"
    if name != variant.id:
        return f"the rules class of {variant.id} says its name is {quote(name)}"
    rules, why = _first_use(cls)
    if why:
        return f"the rules class of {variant.id} fails on first use: {why}"
    _instances[variant.id] = rules
    return None


def _first_use(cls):
    """(rules object, None) once ``cls`` has set up and listed its start moves, or (None, why).

    It runs in a thread of its own, waited for at most FIRST_USE_SECONDS: a rules class that
    loops is left out instead of hanging the command (its thread, a daemon, is abandoned)."""
    import threading
    done = {}

    def use():
        done["result"] = guarded(lambda: _used(cls))

    worker = threading.Thread(target=use, name="plugin-first-use", daemon=True)
    worker.start()
    worker.join(FIRST_USE_SECONDS)
    if "result" not in done:
        return None, f"it did not finish within {FIRST_USE_SECONDS:g} s"
    return done["result"]


def _used(cls):
    rules = cls()
    rules.legal_moves(rules.start)
    return rules


def _ep_name(ep) -> str:
    name = getattr(ep, "name", "")
    return name if isinstance(name, str) else ""


def _target(ep) -> str:
    value = getattr(ep, "value", "")
    return value if isinstance(value, str) else ""


_BUILTIN_TARGET = "doublecheck.oracle.variants:BUILTIN"


def _entry_points():
    """The group's entry points, each once (a distribution found twice on sys.path lists its
    entry points twice, and would otherwise clash with itself)."""
    try:
        found = metadata.entry_points(group=VARIANT_GROUP)
    except Exception:   # broken metadata of some other distribution
        return []
    return list({(_ep_name(ep), _target(ep)): ep for ep in found}.values())


def _plugin_name(ep) -> str:
    dist = getattr(ep, "dist", None)
    return f"{ep.name!r} ({dist.name})" if dist is not None else repr(ep.name)


def _installed(variant: Variant) -> bool:
    if variant.plugin is not None or not isinstance(variant.rules, str):
        return True
    return importlib.util.find_spec(variant.rules.split(":")[0]) is not None


_table: _Table | None = None
_instances = {}


def table() -> _Table:
    global _table
    if _table is None:
        _table = _Table()
    return _table


def registered() -> dict[str, Variant]:
    """Every usable variant, by id, built-ins first."""
    return {name: v for name, v in table().found.items() if _installed(v)}


def descriptor(name: str) -> Variant:
    """The Variant registered as ``name``; RulesError(unknown-variant) for anything else."""
    found = registered()
    if name not in found:
        raise RulesError(UNKNOWN_VARIANT, unknown_message(name))
    return found[name]


def unknown_message(name) -> str:
    """The one wording of an unknown variant id: what it was, what is known, and why a
    variant that a broken plugin registers is missing."""
    text = f"unknown variant {quote(name)} (known: {', '.join(registered())})"
    why = table().failed.get(name)
    return text + (f" ({name} comes from a plugin that was left out: {why})" if why else "")


def plugins() -> list[Variant]:
    """The variants that come from packages other than doublecheck."""
    return [v for v in registered().values() if v.plugin is not None]


def plugin_problems() -> list[str]:
    return list(table().problems)


def plugin_entries() -> list[PluginEntry]:
    """Every plugin entry point found, with what it loaded and what it left out (and why)."""
    return list(table().entries)


def get(name: str, options=None):
    """The rules object for a variant id, playing under the declared rule ``options``
    (a mapping NAME -> VALUE; doublecheck.oracle.options) that the variant takes:
    options it does not take and default values change nothing, so ``get(name)`` and
    ``get(name, {"draws": "claims"})`` are the same object.  RulesError(unknown-variant)
    for an unknown id, RulesError(unknown-option) for an unknown option or value."""
    if not options and (name, ()) in _instances:     # the common case, asked per request
        return _instances[name, ()]
    from doublecheck.oracle import options as declared
    cls = descriptor(name).rules_class()
    chosen = declared.applicable(cls, options)
    key = (name, declared.frozen(chosen))
    if key not in _instances:
        _instances[key] = cls(chosen) if chosen else cls()
    return _instances[key]


def rules_of(variant):
    """The rules object for a variant id, or the rules object itself when one is passed down
    (a caller that looked the id up once hands the object on instead of the id)."""
    from doublecheck.oracle.chess import Chess
    return variant if isinstance(variant, Chess) else get(variant)


def __getattr__(attr):
    # VARIANT_NAMES is found on first use: the entry points are read once, and only by
    # a process that asks about the variants.
    if attr == "VARIANT_NAMES":
        return tuple(registered())
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def _plugin_rules_classes():
    """(id, rules class) of each registered plugin, for the option table
    (``doublecheck.oracle.options.plugin_classes``); none while the registry is being built."""
    if _table is None:
        return ()
    return tuple((v.id, _instances[v.id].__class__) for v in plugins() if v.id in _instances)


def _give_the_option_table_its_plugins():
    from doublecheck.oracle import options
    options.plugin_classes = _plugin_rules_classes


_give_the_option_table_its_plugins()
