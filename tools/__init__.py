"""doublecheck: the rules-conformance suite and reference oracle for double-move chess variants.

The distribution installs this one package.  Inside it:

- ``doublecheck.oracle``: the reference implementation (``oracle.api`` for
  text in, JSON-able values out; ``oracle.variants.get(id)`` for the rules);
- ``doublecheck.adapter``: what an adapter author imports (docs/adapter-guide.md);
- ``doublecheck.harness``: runs an implementation against the cases;
- ``doublecheck.lookups``: rules questions for people (explain, show, PGN, SVG);
- ``doublecheck.authoring``: the case generators and the rule mutants;
- ``doublecheck.cli``: the ``doublecheck`` command;
- ``doublecheck.cases`` and ``doublecheck.schemas``: the vectors and their
  JSON Schemas, as package data (see ``doublecheck.casefiles``).
"""


def __getattr__(name: str):
    """``__version__``, read from the installed metadata when first asked for (importing
    ``importlib.metadata`` costs more than many commands take in all)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import metadata

    global __version__
    try:
        __version__ = metadata.version("doublecheck-chess")   # the distribution; the import name is doublecheck
    except metadata.PackageNotFoundError:  # imported from a tree that was never installed
        __version__ = "0+unknown"
    return __version__
