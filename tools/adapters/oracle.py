"""The built-in oracle as an adapter class: ``doublecheck.adapters.oracle:OracleAdapter``.

For the authors of variant plugins (doublecheck docs plugins) and of case
trees of their own: it answers every request the way ``doublecheck run``
with no ``--engine`` does, so their cases run in pytest with

    pytest --doublecheck-adapter doublecheck.adapters.oracle:OracleAdapter \\
        --doublecheck-cases-dir mycases

and, as any adapter, through ``doublecheck run --adapter`` and
``doublecheck serve --adapter``. This name is the supported one; the class
itself lives with the harness's engines.
"""

from doublecheck.harness.engines import OracleAdapter

__all__ = ["OracleAdapter"]
