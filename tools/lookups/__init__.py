"""Lookups for people: rules questions answered in words and pictures.

``lookup`` (show, explain, grouped turns), ``pgn`` (replaying and writing game
records), ``matrix`` and ``pairs`` (the coverage matrix and pair tables) and
``commands`` (what the CLI runs for them; ``perft`` counts through
``doublecheck.perft``, ``svg`` draws with ``doublecheck.pictures``).
"""
