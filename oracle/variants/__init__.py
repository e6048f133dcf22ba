"""The registry of variants, by id (see the rule catalogue for each one's rules)."""

from oracle.chess import Chess
from oracle.errors import UNKNOWN_VARIANT, RulesError

VARIANT_CLASSES = {cls.name: cls for cls in (Chess,)}
_instances = {}


def get(name: str):
    """The rules object for a variant id; RulesError(unknown-variant) for anything else."""
    if name not in VARIANT_CLASSES:
        known = ", ".join(VARIANT_CLASSES)
        raise RulesError(UNKNOWN_VARIANT, f"unknown variant {name!r}; known variants: {known}")
    if name not in _instances:
        _instances[name] = VARIANT_CLASSES[name]()
    return _instances[name]
