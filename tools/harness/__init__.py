"""The harness: runs any implementation against the cases and reports the differences.

``runner`` (select, run, judge, drill down), ``divergence`` (where a line first
parts from the oracle), ``engines`` (the kinds of implementation and how each is
started), ``protocol`` and ``serve`` (the JSON-lines protocol, client and server side),
``uci`` (the UCI bridge), ``compare`` (answers against expectations), ``reasons`` (the
oracle's reasons in a failure), ``causes`` (failures clustered by cause) and
``report``/``html_report`` (the reports, which share ``report_shared`` and ``causes`` and
never import each other); ``rundiff`` compares two runs' JSON reports.
"""
