"""Adapter classes the harness can check or run in-process.

``oracle.OracleAdapter`` is the oracle itself under an adapter's name, for
running a case tree of your own in pytest (doublecheck docs pytest).
``python_chess_adapter.PythonChessAdapter`` plays ``chess``, ``double-move``,
``double-move-anul``, ``marseillais``, ``marseillais-classic``, ``monster``,
``progressive-scottish`` and ``progressive-italian`` with python-chess doing
all the chess; it is the worked example of
docs/adapter-guide.md.
"""
