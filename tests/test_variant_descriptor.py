"""A variant is one descriptor, built in or plugin: every tool reads the ``Variant`` of
``doublecheck.oracle.variants`` (generator, mutants, doc page, case tree), and none finds a
variant's files by its name."""

import importlib
import re
from pathlib import Path

import pytest

from doublecheck.authoring import generate
from doublecheck.authoring.mutants import CATALOGUE
from doublecheck.oracle import variants
from doublecheck.oracle.variants import BUILTIN, REGISTRY, Variant

ROOT = Path(__file__).resolve().parents[1]
GENERATORS = ROOT / "tools" / "authoring" / "generators"
MUTANTS = ROOT / "tools" / "authoring" / "mutants"
NOT_VARIANT_MUTANT_MODULES = {"__init__", "common", "kill", "record"}   # the machinery, not a variant's


@pytest.mark.parametrize("v", BUILTIN, ids=lambda v: v.id)
def test_every_builtin_descriptor_names_its_files(v):
    assert v.generator and v.mutants, "a built-in variant has a generator and mutants"
    assert importlib.import_module(v.generator).VARIANT == v.id
    assert any(m.variant == v.id for m in CATALOGUE.values()), f"{v.mutants} registers no mutant of {v.id}"
    if v.doc is not None:
        assert v.doc_path().is_file() and v.doc_path().name == v.doc
    assert v.id == "chess" or v.doc is not None, "only chess's rules are another body's (the FIDE Laws)"
    assert REGISTRY[v.id] == v.rules


def test_no_variant_module_lies_unnamed():
    """A generator or mutant module that no descriptor names would be silently unused: every
    one of them is some built-in variant's."""
    named_generators = {v.generator.rsplit(".", 1)[1] for v in BUILTIN}
    named_mutants = {v.mutants.rsplit(".", 1)[1] for v in BUILTIN}
    assert {p.stem for p in GENERATORS.glob("*.py")} - {"__init__"} == named_generators
    assert {p.stem for p in MUTANTS.glob("*.py")} - NOT_VARIANT_MUTANT_MODULES == named_mutants


def test_no_tool_scans_for_variant_modules_by_name():
    """The scans of the generator and mutant folders went with the descriptors."""
    code = {p: p.read_text(encoding="utf-8") for p in (ROOT / "tools").rglob("*.py")}
    code.update({p: p.read_text(encoding="utf-8") for p in (ROOT / "benchmarks").glob("*.py")})
    scanning = [str(p.relative_to(ROOT)) for p, text in code.items()
                if re.search(r"\bpkgutil\b|iter_modules", text)]
    assert scanning == []


def test_generate_finds_the_generator_the_descriptor_names():
    assert [m.__name__ for m in generate.discover("marseillais-classic")] == \
        ["doublecheck.authoring.generators.marseillais_classic"]
    assert [m.VARIANT for m in generate.discover()] == [v.id for v in BUILTIN]
    assert generate.discover("no-such-variant") == []


def test_a_built_in_page_is_read_from_the_descriptor(monkeypatch):
    """The README table and the rule tables follow the descriptor's page, not the id."""
    from doublecheck.authoring import derived
    moved = tuple(Variant(**{**v.__dict__, "doc": "perft.md"}) if v.id == "monster" else v for v in BUILTIN)
    monkeypatch.setattr(derived, "BUILTIN", moved)
    assert derived.builtin_pages()["monster"] == "perft.md"
    rows = derived.variant_rows(ROOT / "docs")
    assert any(row.startswith("| `monster` |") and "`doublecheck docs perft`" in row for row in rows)


def test_a_plugin_doc_page_needs_its_package():
    bad = Variant(id="page-alone", rules="doublecheck.oracle.chess:Chess", doc="docs/page-alone.md")
    assert "no package holds it" in variants._descriptor_problem(bad)
