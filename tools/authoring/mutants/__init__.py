"""Rule mutants: deliberately wrong rules, to measure what the cases catch.

A *mutant* is the oracle with one plausible implementer's mistake put in: a
small subclass of a variant's rules class that overrides one method (or one
piece of data).  Each entry of the catalogue names the variant, the id of the
rule the mistake breaks (from ``cases/rules/*.json``), a one-line
description, and a *witness*: a request on which the mutant's answer differs
from the oracle's, so that no entry is a mutant equivalent to the oracle.

This package mirrors ``authoring/generators``: one module per variant holds
that variant's mutants (``chess``, ``double_move``, ...), ``common`` the
pieces several share, and ``kill`` the run that plays the cases against
them (``doublecheck mutants``).  A module registers its classes with the
``@mutant`` decorator; ``CATALOGUE`` holds every registered mutant once all
variant modules are imported, which importing this package does.  Each
class's docstring says why someone would write that mistake.

The catalogue tables of docs/mutants.md are written from these entries by
``doublecheck generate``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    """One deliberately wrong rules class and what it gets wrong."""

    name: str          # "<variant>/<slug>"
    variant: str
    rule: str          # the rule id it breaks (cases/rules/*.json)
    description: str   # the mistake, in one line
    cls: type          # subclass of the variant's rules class
    witness: dict      # a request (no "variant") on which it answers differently

    def rules(self):
        """A fresh rules object (the oracle's classes build their tables in __init__)."""
        return self.cls()

    def witness_request(self) -> dict:
        return {**self.witness, "variant": self.variant}

    @property
    def why(self) -> str:
        """Why someone writes this mistake: the docstring of the mutant's own class."""
        return " ".join(inspect.cleandoc(self.cls.__dict__.get("__doc__") or "").split())


CATALOGUE: dict[str, Mutant] = {}


def mutant(slug: str, rule: str, description: str, witness: dict, on=None):
    """Class decorator: register the class as the mutant ``<variant>/<slug>``.

    The class is a subclass of its variant's rules class; or, with ``on`` (a tuple of
    rules classes), a mixin holding a mistake several variants can share, registered
    once on each of them (as ``<Mixin><RulesClass>``, with the mixin's docstring).
    This is the one way a mutant is registered."""

    def register(cls):
        for made in ([cls] if on is None else [on_rules(cls, base) for base in on]):
            _add(Mutant(f"{made.name}/{slug}", made.name, rule, description, made, witness))
        return cls

    return register


def on_rules(mixin, base):
    """The mutant class of ``mixin`` on the rules class ``base``; the mixin's docstring (why
    someone writes the mistake, docs/mutants.md) is its own."""
    return type(mixin.__name__ + base.__name__, (mixin, base), {"__doc__": mixin.__doc__})


def _add(entry: Mutant) -> None:
    if entry.name in CATALOGUE:
        raise ValueError(f"mutant {entry.name} is defined twice")
    CATALOGUE[entry.name] = entry


def _load_variant_modules():
    """Import every variant module of this package (each registers its mutants), then the
    mutant module each variant plugin names (a warning naming the plugin if it fails)."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name not in ("common", "kill", "record"):
            importlib.import_module(f"{__name__}.{info.name}")
    from doublecheck.oracle import variants
    for variant in variants.plugins():
        if variant.mutants is not None:
            try:
                importlib.import_module(variant.mutants)
            except Exception as e:
                print(f"warning: variant plugin {variant.plugin}: its mutants {variant.mutants} "
                      f"cannot be imported: {type(e).__name__}: {e}", file=sys.stderr)


_load_variant_modules()
