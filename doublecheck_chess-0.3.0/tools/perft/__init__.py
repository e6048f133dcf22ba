"""Deep perft: a transposition cache, a split of the tree into subtrees, local and Dask workers.

- ``cache``: ``Table`` (bounded memory, documented eviction) and ``Counter``
  (perft, turn-perft and divide remembering counts by perft key).
- ``split``: cutting the tree into subtree tasks at a split depth, and adding
  their counts back into a divide.
- ``parallel``: ``count``, the one driver for ``doublecheck perft``: in this
  process, over ``--jobs N`` local processes, or on a Dask cluster
  (``--scheduler ADDRESS``), with progress on stderr.

The plain walk in ``doublecheck.oracle.perft`` is the reference every count
here is tested against; docs/perft.md explains the whole.
"""
