"""doublecheck: the rules-conformance suite and reference oracle for double-move chess variants.

The distribution installs this one package.  Inside it, by job:

- ``doublecheck.oracle``: the reference implementation (``oracle.api`` for
  text in, JSON-able values out; ``oracle.variants.get(id)`` for the rules);
- ``doublecheck.harness``: runs an implementation against the cases;
- ``doublecheck.lookups``: rules questions for people (explain, show, PGN),
  and the coverage matrix;
- ``doublecheck.pictures``: board pictures (the figures, SVG), drawn by the
  lookups, the HTML report and the desk;
- ``doublecheck.perft``: counting perft with a table, split over processes;
- ``doublecheck.authoring``: the case generators and the rule mutants;
- ``doublecheck.desk``: the rules desk, a web page on this machine;
- ``doublecheck.adapters``: adapters built on the adapter interface;
- ``doublecheck.cases`` and ``doublecheck.schemas``: the vectors and their
  JSON Schemas, as package data (see ``doublecheck.casefiles``).

The modules at the top, each with the reason it is not in a job's folder:

- ``cli``: the ``doublecheck`` command (pyproject.toml's ``[project.scripts]``);
  ``__main__``: ``python -m doublecheck``;
- ``adapter``: what an adapter author imports, a public path the docs name
  (docs/adapter-guide.md);
- ``pytest_plugin``: the pytest plugin, at the path its ``pytest11`` entry point names;
- ``casefiles``: reads and checks the case and catalogue files for every job
  (docs/case-format.md names it); ``validcache``: its record of files already
  checked (named there too);
- ``packaged``: where the installed data is; it imports nothing, so the
  command line reads it before it knows whether any case will be read;
- ``defaults``: the numbers every command's help shows, in a module that
  imports nothing (start-up time);
- ``resource_limits``: how deep JSON may nest, how long an id, how large a
  data file, how many jobs, how long a timeout: read by every job that reads
  input or starts processes (the oracle's own input limits are
  ``oracle.request_limits``);
- ``progress``: the progress line ``run``, ``generate``, ``mutants`` and
  ``perft`` share;
- ``manual``, ``templates``, ``vectors``, ``plugins``: each the whole of one
  small command (``docs``, ``example``, ``export``, ``plugins``) that no other
  job reads; a folder for each would hold that one module.

Which of these may import which is one table, ``LAYERS`` in
tests/test_layering.py (docs/contributing.md, "Where a module goes").
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
