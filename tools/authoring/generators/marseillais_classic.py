"""Generated marseillais-classic cases: the same tables and games as for the balanced
form (see ``marseillais.py``), played under the classic opening rule (M2)."""

from doublecheck.authoring.generators.marseillais import build

VARIANT = "marseillais-classic"


def files() -> list[tuple[str, dict]]:
    return build(VARIANT)
