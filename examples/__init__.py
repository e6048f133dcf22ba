"""Starting points for an engine's own repository, installed with doublecheck as data.

``doublecheck example NAME DIR`` copies one of these folders (the table is
``doublecheck.templates.TEMPLATES``): node-engine/ (a JSON-lines engine in
Node.js), python-adapter/ (an adapter class in one file) and ci-engine/ (the
engine repository of the CI recipe in the README). They are kept here,
outside the test folders, so that the copy a user gets is the one the tests
run.
"""
