"""Chess without castling: a house rule packaged as a doublecheck variant plugin.

``VARIANT`` is what the entry point names; everything else the tools need is
found from it: the rules class (imported when first asked for), the case tree
and the doc page inside this package, the generator and the mutants.
"""

from doublecheck.oracle.variants import Variant

VARIANT = Variant(
    id="no-castling",
    rules="no_castling.rules:NoCastling",
    package="no_castling",
    doc="docs/no-castling.md",
    generator="no_castling.generator",
    mutants="no_castling.mutants",
)
