"""The registry of variants, by id (see the rule catalogue for each one's rules).

Each id maps to the class that implements it.  A variant's module is imported
only when the variant is first asked for.
"""

import importlib
import importlib.util

from doublecheck.oracle.errors import UNKNOWN_VARIANT, RulesError, quote

REGISTRY = {
    "chess": "doublecheck.oracle.chess:Chess",
    "double-move": "doublecheck.oracle.variants.double_move:DoubleMove",
    "double-move-anul": "doublecheck.oracle.variants.double_move_anul:DoubleMoveAnul",
    "double-chess": "doublecheck.oracle.variants.double_chess:DoubleChess",
    "symmetric-monster": "doublecheck.oracle.variants.symmetric_monster:SymmetricMonster",
    "marseillais": "doublecheck.oracle.variants.marseillais:Marseillais",
    "marseillais-classic": "doublecheck.oracle.variants.marseillais:MarseillaisClassic",
}


def _installed(name):
    return importlib.util.find_spec(REGISTRY[name].split(":")[0]) is not None


VARIANT_NAMES = tuple(name for name in REGISTRY if _installed(name))
_instances = {}


def get(name: str):
    """The rules object for a variant id; RulesError(unknown-variant) for anything else."""
    if name not in VARIANT_NAMES:
        known = ", ".join(VARIANT_NAMES)
        raise RulesError(UNKNOWN_VARIANT, f"unknown variant {quote(name)}; known variants: {known}")
    if name not in _instances:
        module, cls = REGISTRY[name].split(":")
        _instances[name] = getattr(importlib.import_module(module), cls)()
    return _instances[name]
