"""``doublecheck example NAME DIR``: write a starting point for an engine from the installed package.

The templates are folders of ``doublecheck.examples`` (examples/ in the
repository), installed as package data so that a user of the wheel has them
without the source distribution. Each is copied as it is: the copy is the
file the tests run.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from doublecheck.oracle.errors import UsageError
from doublecheck.packaged import package_folder

PROG = "doublecheck example"


@dataclass(frozen=True)
class Template:
    folder: str          # below doublecheck.examples
    summary: str
    next_steps: tuple[str, ...]   # shown after writing, run inside the new folder


TEMPLATES = {
    "node": Template(
        "node-engine", "a JSON-lines engine in Node.js on chess.js (package-lock.json pins it)",
        ("npm ci", 'doublecheck run --engine "node engine.js" --variant chess --quick')),
    "python": Template(
        "python-adapter", "an adapter class in one Python file (python-chess stands in for your engine)",
        ("doublecheck run --adapter my_adapter:MyAdapter --variant chess --quick",
         "pytest --doublecheck-adapter my_adapter:MyAdapter --doublecheck-variant chess")),
    "ci": Template(
        "ci-engine", "the engine repository of the CI recipe: my_adapter.py, its own tools package, "
                     "a GitHub Actions workflow",
        ('doublecheck run --engine "python3 my_adapter.py" --variant chess --quick',
         'doublecheck run --engine "python3 my_adapter.py" --variant chess --write-xfail known-failures.txt')),
}

# Never part of a template, whatever an editable install's folder holds beside it.
LEFT_OUT = {"node_modules", "__pycache__", ".venv"}


def template_files(template: Template) -> list[tuple[Path, Path]]:
    """(source file, path relative to the template) for every file of a template."""
    base = package_folder("doublecheck.examples") / template.folder
    found = []
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base)
        if path.is_file() and not LEFT_OUT.intersection(rel.parts) and path.suffix != ".pyc":
            found.append((path, rel))
    return found


def write_template(name: str, target: Path, force: bool = False) -> list[Path]:
    """Copy template ``name`` into ``target`` (made if missing); the relative paths written.
    An existing file is left alone unless ``force``: nothing is written then."""
    template = TEMPLATES[name]
    files = template_files(template)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a folder", PROG)
    clashes = [str(rel) for _, rel in files if (target / rel).exists()]
    if clashes and not force:
        raise UsageError(f"{target} already has {', '.join(clashes[:5])}: nothing written "
                         f"(--force replaces them)", PROG)
    for source, rel in files:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(source.read_bytes())
    return [rel for _, rel in files]


def example_command(args) -> int:
    if args.list or not args.name:
        for name, template in TEMPLATES.items():
            print(f"{name:8} {template.summary}")
        return 0
    if args.dir is None:
        raise UsageError(f"say where to write it: doublecheck example {args.name} DIR", PROG)
    target = Path(args.dir)
    written = write_template(args.name, target, args.force)
    print(f"wrote the {args.name} template ({TEMPLATES[args.name].folder}) to {target}:")
    for rel in written:
        print(f"  {rel.as_posix()}")
    print("then, in that folder:")
    for step in TEMPLATES[args.name].next_steps:
        print(f"  {step}")
    sys.stdout.flush()
    return 0
