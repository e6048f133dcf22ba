"""What every report format of a run says the same way: the text report and its kin
(``doublecheck.harness.report``) and the HTML page (``doublecheck.harness.html_report``)
both read this module, and neither reads the other's internals, so the two never import
each other.

- ``visible``: an engine's text with every control or invisible character shown as an escape;
- ``declared_of``, ``options_line``, ``skipped_by_options``: the options a run judged under
  (docs/options.md);
- ``write_file``: a report file, written whole or not at all.
"""

from __future__ import annotations

import re

from doublecheck.harness.output import write_output

# Characters an engine could use to rewrite a terminal or hide text (C0 and C1 controls,
# DEL, lone surrogates, bidirectional and zero-width marks, separators, non-characters):
# every report shows them as escapes such as \x1b.
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069"
                        "\ufeff\ufffe\uffff\ud800-\udfff]")


def visible(text) -> str:
    r"""``text`` with every control or invisible character written as an escape (``\x1b``,
    ``\u202e``), so that what an engine sent cannot move the cursor, clear the screen,
    start a line of its own or reorder the text around it."""
    return _INVISIBLE.sub(_escape, str(text))


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def anchor(case_id: str) -> str:
    """The HTML id of a case's entry in the markdown and HTML reports (which link to it
    from their causes)."""
    return "case-" + re.sub(r"[^A-Za-z0-9_-]", "-", case_id)


# --- the options a run judged under (docs/options.md) -----------------------------

def declared_of(run):
    """The declared options of a run (``harness.declared.Declared``), or None: a run without
    any prints every report exactly as before options existed."""
    declared = getattr(run, "declared", None)
    return declared if declared else None


def skipped_by_options(run) -> int:
    return sum(1 for r in run.results if r.outcome == "skipped" and getattr(r, "by_options", False))


def options_line(run) -> str:
    """``Judged under: draws=automatic (hello), san=no (capability, --option)``, or ""."""
    declared = declared_of(run)
    return f"Judged under: {declared.summary()}" if declared else ""


# --- report files ------------------------------------------------------------------

def write_file(path, text: str) -> None:
    """Write a report file: whole or not at all, and never over a device, FIFO or link
    (``doublecheck.harness.output``)."""
    write_output(path, text)
