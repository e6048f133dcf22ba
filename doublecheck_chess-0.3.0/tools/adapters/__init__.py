"""Implementations of the rules that the harness can check, other than the oracle.

``python_chess_adapter.PythonChessAdapter`` plays ``chess``, ``double-move``,
``double-move-anul``, ``marseillais`` and ``marseillais-classic`` with
python-chess doing all the chess; it is the
worked example of docs/adapter-guide.md.
"""
