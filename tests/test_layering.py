"""The package's layers, in one table, and every import of every module under oracle/ and
tools/ checked against it: no import goes to a higher layer, and no two modules import each
other, directly or round a longer loop.  Imports inside functions count as much as those at
the top of a file: an import moved into a function to dodge a cycle at start-up still ties
the two modules together.

A module is placed by the most specific entry of ``LAYERS`` that names it (``pkg.*`` names
a package and everything below it; a name without ``.*`` names one module).  A new module
below a placed package takes that package's layer; a new top-level module, or a new
subpackage of the root, must be given a layer here, and the test says so.

The checker is tried on small made-up module maps too, so that it is shown to fail where
it should (an upward import, a loop, a function-level import, a module left out).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "doublecheck"
FOLDERS = {"tools": PACKAGE, "oracle": f"{PACKAGE}.oracle"}   # pyproject.toml's package-dir

# The layers, lowest first.  A module may import its own layer and the layers below.
LAYERS = (
    ("oracle: the rules, reading nothing of the tools", ("doublecheck.oracle.*",)),
    ("basics every job reads: where the data is, reading and checking it, the shared numbers, "
     "progress lines, safe output files and time limits",
     ("doublecheck", "doublecheck.packaged", "doublecheck.casefiles", "doublecheck.validcache",
      "doublecheck.defaults", "doublecheck.resource_limits", "doublecheck.progress",
      "doublecheck.harness.output", "doublecheck.harness.deadline")),
    ("answers a person or a report reads: board pictures, perft counting, the oracle's "
     "reasons and game records",
     ("doublecheck.pictures.*", "doublecheck.perft.*",
      "doublecheck.lookups.lookup", "doublecheck.lookups.pgn", "doublecheck.harness.operations")),
    ("harness: running an implementation against the cases, and its reports",
     ("doublecheck.harness.*",)),
    ("authoring and the adapter interface: generators, mutants (played by the harness), "
     "adapters built on the interface", ("doublecheck.authoring.*", "doublecheck.adapter",
                                         "doublecheck.adapters.*")),
    ("commands over everything below: the lookups' commands and the coverage matrix (which "
     "reads the mutants' kill record), the docs, templates, export and plugin list",
     ("doublecheck.lookups.*", "doublecheck.manual", "doublecheck.templates", "doublecheck.vectors",
      "doublecheck.plugins")),
    ("the rules desk, serving the lookups to a web page", ("doublecheck.desk.*",)),
    ("the faces: the command line, python -m doublecheck, the pytest plugin",
     ("doublecheck.cli", "doublecheck.__main__", "doublecheck.pytest_plugin")),
)

# The public faces (the command line and the adapter interface): nothing inside the package
# imports them but the modules listed, which are written on top of them.
FACES = {"doublecheck.cli", "doublecheck.adapter"}
ON_FACES = ("doublecheck.__main__", "doublecheck.pytest_plugin", "doublecheck.adapters.")


# ------------------------------------------------------------------- the checker

def module_name(path: Path, folder: Path, package: str) -> str:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """{module name: file} for every module of the package in the repository."""
    return {module_name(path, root / folder, package): path
            for folder, package in FOLDERS.items() for path in sorted((root / folder).rglob("*.py"))}


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` imports, anywhere in it (at the top, inside
    functions, under ``if``).  ``from a import b`` imports the module ``a.b`` when there is
    one, else (a name defined in ``a``) the module ``a``."""
    found = set()
    here = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:   # relative: from the module's own package upwards
                anchor = here.split(".")[:len(here.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {name for name in found if name in known}


def import_map(root: Path = ROOT) -> dict[str, set[str]]:
    """{module: the package's modules it imports} for the whole package."""
    files = package_modules(root)
    known = set(files)
    return {name: imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known)
            for name, path in files.items()}


def layer_of(module: str, layers=LAYERS):
    """The index of the module's layer (by its most specific entry), or None if no entry names it."""
    best, best_len = None, -1
    for index, (_, entries) in enumerate(layers):
        for entry in entries:
            covers = (module == entry[:-2] or module.startswith(entry[:-1])) if entry.endswith(".*") \
                else module == entry
            if covers and len(entry) > best_len:
                best, best_len = index, len(entry)
    return best


def unplaced(imports: dict, layers=LAYERS) -> list[str]:
    return sorted(m for m in imports if layer_of(m, layers) is None)


def upward(imports: dict, layers=LAYERS) -> list[str]:
    """Every import of a module in a higher layer, as one line each."""
    out = []
    for module, targets in sorted(imports.items()):
        mine = layer_of(module, layers)
        for target in sorted(targets):
            theirs = layer_of(target, layers)
            if mine is not None and theirs is not None and theirs > mine:
                out.append(f"{module} ({layers[mine][0].split(':')[0]}) imports {target} "
                           f"({layers[theirs][0].split(':')[0]})")
    return out


def cycles(imports: dict) -> list[list[str]]:
    """The groups of modules that import each other round a loop (strongly connected
    components of more than one module, or a module importing itself), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(start):
        # Tarjan's algorithm, iteratively (no recursion limit on a long chain of imports)
        work = [(start, iter(sorted(imports.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1 or node in imports.get(node, ()):
                        out.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return sorted(out)


# ------------------------------------------------------------------- the package

IMPORTS = import_map()


def test_the_map_holds_the_whole_package():
    assert {"doublecheck", "doublecheck.cli", "doublecheck.oracle.api",
            "doublecheck.harness.report", "doublecheck.desk.server"} <= set(IMPORTS)
    assert "doublecheck.oracle.errors" in IMPORTS["doublecheck.oracle.api"]


def test_every_module_has_a_layer():
    assert unplaced(IMPORTS) == []


def test_no_import_goes_up_a_layer():
    assert upward(IMPORTS) == []


def test_no_modules_import_each_other():
    assert cycles(IMPORTS) == []


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if not m.startswith(ON_FACES)
                                          and m not in FACES))
def test_no_inner_module_imports_a_public_face(module):
    assert not IMPORTS[module] & FACES


# ------------------------------------------------------ the checker fails where it should

FAKE_LAYERS = (("low", ("p.low.*",)), ("high", ("p.high", "p.top.*")))


def test_an_upward_import_is_found():
    fake = {"p.low.a": {"p.high"}, "p.high": {"p.low.a"}, "p.top.b": {"p.low.a", "p.high"}}
    assert upward(fake, FAKE_LAYERS) == ["p.low.a (low) imports p.high (high)"]


def test_a_module_no_entry_names_is_found():
    assert unplaced({"p.low.a": set(), "p.highest": set(), "p": set()}, FAKE_LAYERS) == ["p", "p.highest"]
    assert layer_of("p.top", FAKE_LAYERS) == 1 and layer_of("p.lowly", FAKE_LAYERS) is None


def test_cycles_are_found_however_long():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}, "b": set()}) == [["a"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    chain = {f"m{i}": {f"m{i + 1}"} for i in range(5000)}
    chain["m5000"] = {"m0"}
    assert len(cycles(chain)[0]) == 5001


def test_imports_inside_functions_and_from_packages_are_seen():
    known = {"p", "p.a", "p.b", "p.c", "p.d", "p.sub", "p.sub.e"}
    source = ("from p import a\n"
              "def later():\n    from p.b import thing\n    import p.c\n"
              "if True:\n    from p import __version__\n"
              "from .sub import e\nimport json\n")
    assert imports_of(source, "p.d", False, known) == {"p", "p.a", "p.b", "p.c", "p.sub.e"}
    assert imports_of("from . import e\n", "p.sub", True, known) == {"p.sub.e"}


def test_a_report_cycle_like_the_old_one_would_fail():
    """report.py and html_report.py once imported each other, one of them inside a function:
    the map of such a pair has a cycle."""
    known = {"d.report", "d.html_report"}
    report = "def write_html(run, path):\n    from d.html_report import write\n    write(run, path)\n"
    html = "from d.report import visible\n"
    fake = {"d.report": imports_of(report, "d.report", False, known),
            "d.html_report": imports_of(html, "d.html_report", False, known)}
    assert cycles(fake) == [["d.html_report", "d.report"]]
