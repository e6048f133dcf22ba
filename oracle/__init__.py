"""doublecheck's reference oracle: plain, readable rules for chess and its double-move variants.

Use ``oracle.api`` for the text-level interface (FEN and move strings in, JSON-able values out)
or ``oracle.variants.get(name)`` for the rules objects themselves.
"""
