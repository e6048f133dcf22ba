"""Rule mutants: deliberately wrong rules, to measure what the cases catch.

A *mutant* is the oracle with one plausible implementer's mistake put in: a
small subclass of a variant's rules class that overrides one method (or one
piece of data).  Each entry of the catalogue names the variant, the id of the
rule the mistake breaks (from ``cases/rules/*.json``), a one-line
description, and a *witness*: a request on which the mutant's answer differs
from the oracle's, so that no entry is a mutant equivalent to the oracle.

A variant's mutant module is the one its descriptor names (``Variant.mutants``,
``doublecheck.oracle.variants``): for a built-in, a module of this package
(``chess``, ``double_move``, ...; the two Marseillais forms share one, as do
the two progressive forms); ``common`` holds the pieces several share, and
``kill`` the run that plays the cases against them (``doublecheck mutants``).  The catalogue itself is data: beside each
module, ``<module>.json`` lists its entries (slug, rule id, description,
witness request, why someone would write the mistake, and the class: one
the module defines, or one built from the ``bases`` the entry names, or a
mixin put ``on`` each of several rules classes).  ``CATALOGUE`` holds every
entry once the modules the descriptors name are loaded, which importing this
package does; a variant plugin's mutant module is loaded the same way, with
its own JSON file beside it.

The catalogue tables of docs/mutants.md are written from these entries by
``doublecheck generate``.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass, field
from importlib import resources


@dataclass(frozen=True)
class Mutant:
    """One deliberately wrong rules class and what it gets wrong."""

    name: str          # "<variant>/<slug>"
    variant: str
    rule: str          # the rule id it breaks (cases/rules/*.json)
    description: str   # the mistake, in one line
    cls: type          # subclass of the variant's rules class
    witness: dict      # a request (no "variant") on which it answers differently
    why: str           # why someone writes this mistake (docs/mutants.md)
    options: dict = field(default_factory=dict)   # the rule options the witness is asked under

    def rules(self, options=None):
        """A fresh rules object (the oracle's classes build their tables in __init__), playing
        under the rule ``options`` (a case's own; doublecheck.oracle.options)."""
        return self.cls(options) if options else self.cls()

    def witness_request(self) -> dict:
        return {**self.witness, "variant": self.variant}


CATALOGUE: dict[str, Mutant] = {}
FIELDS = {"slug": str, "class": str, "rule": str, "description": str, "witness": dict, "why": str}
OPTIONAL = {"bases": list, "on": list, "options": dict}


def load_entries(module) -> None:
    """Register the mutants ``<module>.json`` (beside ``module``) declares; a malformed entry
    is a ValueError naming the file and the entry."""
    package, _, stem = module.__name__.rpartition(".")
    where = f"{package}/{stem}.json"
    entries = json.loads(resources.files(package).joinpath(f"{stem}.json").read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError(f"{where}: a list of mutant entries was expected")
    for n, entry in enumerate(entries):
        _check(entry, f"{where} entry {n}")
        for cls in _classes(module, entry, f"{where} entry {n}"):
            _add(Mutant(f"{cls.name}/{entry['slug']}", cls.name, entry["rule"], entry["description"],
                        cls, entry["witness"], entry["why"], dict(entry.get("options", {}))))


def _check(entry, where: str) -> None:
    """The entry has the fields of FIELDS, perhaps those of OPTIONAL, each of its kind."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: an object was expected")
    unknown = set(entry) - set(FIELDS) - set(OPTIONAL)
    missing = set(FIELDS) - set(entry)
    if unknown or missing:
        raise ValueError(f"{where}: missing {sorted(missing)}, unknown {sorted(unknown)}")
    for key, kind in {**FIELDS, **OPTIONAL}.items():
        if key in entry and not isinstance(entry[key], kind):
            raise ValueError(f"{where}: {key!r} must be a {kind.__name__}")


def _classes(module, entry, where: str) -> list[type]:
    """The entry's mutant classes: its class (defined in ``module``, or built from ``bases``,
    names in ``module``), or with ``on`` that class as a mixin on each rules class named."""
    name = entry["class"]
    if "bases" in entry:
        bases = tuple(_named(module, b, where) for b in entry["bases"])
        cls = _made(name, bases, module.__name__)
    else:
        cls = _named(module, name, where)
    return [on_rules(cls, _named(module, base, where)) for base in entry["on"]] if "on" in entry else [cls]


def _named(module, name, where: str):
    """What ``name`` stands for in ``module``; a ValueError naming the entry when nothing."""
    found = getattr(module, name, None) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"{where}: {module.__name__} has no {name!r}")
    return found


def on_rules(mixin, base):
    """The mutant class of ``mixin`` on the rules class ``base``."""
    return _made(mixin.__name__ + base.__name__, (mixin, base), mixin.__module__)


def _made(name: str, bases: tuple, module_name: str) -> type:
    """A class built from an entry, kept in its module under its name, as a class written out
    there would be: pickle finds it by that name (``mutants --jobs`` sends mutants to other
    processes)."""
    module = sys.modules[module_name]
    made = getattr(module, name, None)
    if made is None or getattr(made, "__bases__", None) != bases:
        made = type(name, bases, {"__module__": module_name, "__qualname__": name})
        setattr(module, name, made)
    return made


def _add(entry: Mutant) -> None:
    if entry.name in CATALOGUE:
        raise ValueError(f"mutant {entry.name} is defined twice")
    CATALOGUE[entry.name] = entry


def _load_variant_modules():
    """Import the mutant module each registered variant's descriptor names (``Variant.mutants``;
    a module several variants name is loaded once); each registers its entries.  The built-ins'
    modules come in the order of their names (the order of docs/mutants.md), then the plugins'.
    A plugin's module that fails is left out with a warning naming the plugin."""
    from doublecheck.oracle import variants
    named = {v.mutants: v for v in variants.registered().values() if v.mutants is not None}
    for module, variant in sorted(named.items(), key=lambda item: (item[1].plugin is not None, item[0])):
        if variant.plugin is None:
            load_entries(importlib.import_module(module))
            continue
        _, why = variants.guarded(lambda: load_entries(importlib.import_module(module)))
        if why:  # (SystemExit and the like included: the other mutants still run)
            print(f"warning: variant plugin {variant.plugin}: its mutants {module} "
                  f"cannot be imported: {why}", file=sys.stderr)


_load_variant_modules()
