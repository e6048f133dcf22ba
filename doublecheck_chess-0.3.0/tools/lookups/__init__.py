"""Lookups for people: rules questions answered in words and pictures.

``lookup`` (show, explain, grouped turns), ``pgn`` (replaying and writing game
records), ``svg`` (board pictures) and ``commands`` (what the CLI runs for
them; ``perft`` counts through ``doublecheck.perft``).
"""
