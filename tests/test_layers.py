"""The layers import downwards only: nothing inside doublecheck imports its two public faces,
the command line (``doublecheck.cli``) and the adapter interface (``doublecheck.adapter``),
except the adapters written on top of that interface, ``python -m doublecheck`` and the pytest
plugin (a face of its own, which checks its options as the command line does)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FACES = {"doublecheck.cli", "doublecheck.adapter"}
ON_TOP = {"tools/cli.py", "tools/adapter.py", "tools/__main__.py", "tools/pytest_plugin.py"}
INNER = sorted(p for folder in ("tools", "oracle") for p in (ROOT / folder).rglob("*.py")
               if str(p.relative_to(ROOT)) not in ON_TOP and "adapters" not in p.parts)


def imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


@pytest.mark.parametrize("path", INNER, ids=[str(p.relative_to(ROOT)) for p in INNER])
def test_no_inner_module_imports_a_public_face(path):
    assert not imported(path) & FACES
