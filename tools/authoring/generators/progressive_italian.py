"""Generated progressive-italian cases: the same tables and games as for the Scottish
form (see ``progressive_scottish.py``), played under the Italian check rule (PI1)."""

from doublecheck.authoring.generators.progressive_scottish import build, deep_perft

VARIANT = "progressive-italian"
DEEP_PERFT = deep_perft(VARIANT)


def files() -> list[tuple[str, dict]]:
    return build(VARIANT)
