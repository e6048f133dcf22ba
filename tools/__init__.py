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

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("doublecheck-chess")   # the distribution; the import name is doublecheck
except _metadata.PackageNotFoundError:  # imported from a tree that was never installed
    __version__ = "0+unknown"
