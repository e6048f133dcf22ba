"""doublecheck's reference oracle: plain, readable rules for chess and its double-move variants.

Use ``doublecheck.oracle.api`` for the text-level interface (FEN and move strings in, JSON-able values out)
or ``doublecheck.oracle.variants.get(name)`` for the rules objects themselves.
"""
