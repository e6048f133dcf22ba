"""The registry of variants, by id (see the rule catalogue for each one's rules).

Every variant, built in or not, is registered the same way: through the
entry point group ``doublecheck.variants`` (``VARIANT_GROUP``).  An entry
point names a ``Variant`` (or a sequence of them) that says everything the
tools need: the rules class, and for a variant living in a package of its
own, where that package keeps its catalogue, cases, doc page, generator and
mutants (read through ``importlib.resources``; docs/plugins.md,
``doublecheck docs plugins``).

The built-in variants are the ``BUILTIN`` sequence below, one registry line
each in ``REGISTRY``; doublecheck's own pyproject.toml declares that sequence
as its entry point, so the built-ins come through the same door as any
plugin.  A plain source checkout with no installed metadata (or metadata of
an older install) gets ``BUILTIN`` directly: the built-ins are always there.

A plugin that cannot be used (its entry point fails to import or load, it
names something that is not a Variant, its id is malformed or already
taken, its rules class cannot be imported) is left out; ``plugin_problems()``
says why, naming the plugin, and every other variant keeps working.  A rules
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

REGISTRY = {
    "chess": "doublecheck.oracle.chess:Chess",
    "double-move": "doublecheck.oracle.variants.double_move:DoubleMove",
    "double-move-anul": "doublecheck.oracle.variants.double_move_anul:DoubleMoveAnul",
    "double-chess": "doublecheck.oracle.variants.double_chess:DoubleChess",
    "symmetric-monster": "doublecheck.oracle.variants.symmetric_monster:SymmetricMonster",
    "marseillais": "doublecheck.oracle.variants.marseillais:Marseillais",
    "marseillais-classic": "doublecheck.oracle.variants.marseillais:MarseillaisClassic",
    "progressive-scottish": "doublecheck.oracle.variants.progressive:ProgressiveScottish",
    "progressive-italian": "doublecheck.oracle.variants.progressive:ProgressiveItalian",
}


@dataclass(frozen=True)
class Variant:
    """Everything the tools need to know of one variant.

    ``rules`` is the rules class, or ``"module:Class"`` to import it when first
    asked for.  The rest describes a variant that lives in a package of its own
    (``package``; None for a built-in, whose files are doublecheck's): the
    folder of that package holding its case tree (``cases``: ``rules/*.json``
    and ``<id>/*.json``, laid out as doublecheck's own), its doc page
    (``doc``), and the modules of its generator and its mutants.
    """

    id: str
    rules: object
    package: str | None = None
    cases: str = "cases"
    doc: str | None = None             # the doc page inside the package, e.g. "docs/no-castling.md"
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
        """The variant's doc page in its package (``doublecheck docs ID`` prints it), or None."""
        if self.package is None or self.doc is None:
            return None
        return Path(str(resources.files(self.package) / self.doc))


BUILTIN = tuple(Variant(name, target) for name, target in REGISTRY.items())


class _Table:
    """The variants found (built-in first, then plugins by entry point name) and the problems."""

    def __init__(self):
        self.found: dict[str, Variant] = {}
        self.problems: list[str] = []
        self.failed: dict[str, str] = {}    # variant id -> why its plugin was left out
        points = sorted(_entry_points(), key=lambda ep: (ep.value != _BUILTIN_TARGET, ep.name))
        if not any(ep.value == _BUILTIN_TARGET for ep in points):
            self._add_all(BUILTIN, None)    # a source checkout without installed metadata
        for ep in points:
            self._load(ep)

    def _load(self, ep) -> None:
        who = _plugin_name(ep)
        try:
            loaded = ep.load()
        except Exception as e:  # any failure of someone else's package must not stop ours
            self.problems.append(f"variant plugin {who}: cannot be loaded: {type(e).__name__}: {e}")
            return
        entries = (loaded,) if isinstance(loaded, Variant) else loaded
        if not isinstance(entries, (tuple, list)) or not all(isinstance(v, Variant) for v in entries):
            self.problems.append(f"variant plugin {who}: {ep.value} is not a "
                                 f"doublecheck.oracle.variants.Variant (or a list of them)")
            return
        self._add_all(entries, None if ep.value == _BUILTIN_TARGET else who)

    def _add_all(self, entries, who) -> None:
        for variant in entries:
            problem = self._problem(variant, who)
            if problem:
                self.problems.append(f"variant plugin {who}: {problem}")
                self.failed.setdefault(variant.id, problem)
            else:
                self.found[variant.id] = Variant(**{**variant.__dict__, "plugin": who})

    def _problem(self, variant, who) -> str | None:
        """Why a variant cannot be registered (None: it can)."""
        if variant.id in self.found:
            owner = self.found[variant.id].plugin or "doublecheck (built in)"
            return f"variant id {quote(variant.id)} is already registered by {owner}; left out"
        if not isinstance(variant.id, str) or not VARIANT_ID.match(variant.id):
            return f"variant id {quote(variant.id)} is not lower-case words joined by '-'; left out"
        if who is None:   # a built-in: imported when first asked for, if installed at all
            return None
        try:
            cls = variant.rules_class()
        except Exception as e:
            return f"the rules class of {variant.id} cannot be imported: {type(e).__name__}: {e}"
        if getattr(cls, "name", None) != variant.id:
            return f"the rules class of {variant.id} says its name is {quote(getattr(cls, 'name', None))}"
        return None


_BUILTIN_TARGET = "doublecheck.oracle.variants:BUILTIN"


def _entry_points():
    """The group's entry points, each once (a distribution found twice on sys.path lists its
    entry points twice, and would otherwise clash with itself)."""
    try:
        found = metadata.entry_points(group=VARIANT_GROUP)
    except Exception:   # broken metadata of some other distribution
        return []
    return list({(ep.name, ep.value): ep for ep in found}.values())


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


def get(name: str):
    """The rules object for a variant id; RulesError(unknown-variant) for anything else."""
    if name not in _instances:
        _instances[name] = descriptor(name).rules_class()()
    return _instances[name]


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
