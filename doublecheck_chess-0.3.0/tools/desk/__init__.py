"""The rules desk: ``doublecheck desk``, a local web page for asking the oracle.

- ``ops``: what the desk answers (JSON in, JSON out; no HTTP, no state);
- ``server``: the HTTP server on the standard library, its limits and checks;
- ``static/``: the page itself (plain HTML, CSS and JavaScript, no build step).

docs/desk.md describes the page, the API, the limits and the security stance.
"""
