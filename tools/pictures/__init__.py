"""Board pictures: the chess figures (``figures``) and positions drawn as SVG (``svg``), for
every board shape.  The lookups, the harness's HTML report and the rules desk all draw with
them, so they sit below all three (tests/test_layering.py)."""
