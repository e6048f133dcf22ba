"""Generated marseillais-classic cases: the same tables and games as for the balanced
form (see ``marseillais.py``), played under the classic opening rule (M2)."""

from doublecheck.authoring.generators.marseillais import build, deep_perft

VARIANT = "marseillais-classic"
DEEP_PERFT = deep_perft(VARIANT)


def files() -> list[tuple[str, dict]]:
    return build(VARIANT)
