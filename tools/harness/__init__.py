"""The harness: runs any implementation against the cases and reports the differences.

``runner`` (select, run, judge, drill down), ``engines`` (the kinds of
implementation and how each is started), ``protocol`` and ``serve`` (the
JSON-lines protocol, client and server side), ``uci`` (the UCI bridge),
``compare`` (answers against expectations) and ``report``/``html_report`` (the reports,
which share ``report_shared`` and never import each other).
"""
