"""One self-contained HTML page for a run: every failing case with its board.

Each failing case shows a position drawn as SVG, with the moves (or turns)
the case expects but the answer lacks as green arrows and the moves the
answer gives but the case does not expect as red dashed arrows (a turn's
halves are numbered), followed by the request, expectation, answer and diff.
The position is the one the request asks about (after its moves, the last of
them shaded), or, for a perft count that a drill-down followed, the position
where the engine's move list parts from the oracle's. The page needs no network and no files beside it; a few lines
of script let the reader filter cases by id.

``write_html_report`` takes the results of ``doublecheck.harness.runner``
(objects with ``case``, ``outcome``, ``lines``, ``answer`` and ``diff``), a
``Run`` holding them, or plain dicts with the same keys (the cases of a JSON
report are such dicts); missing fields are tolerated. The arrows come from
the structured difference (``diff``), never from the text.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from typing import NamedTuple

from doublecheck.harness.causes import causes_of, followers_of, same_cause
from doublecheck.harness.compare import divergence_lines, divergence_text, reason_lines
from doublecheck.harness.declared import summary_of
from doublecheck.harness.report_shared import anchor, options_line, skipped_by_options, visible, write_file
from doublecheck.oracle import api, variants
from doublecheck.pictures.svg import position_svg, raw_arrows

MISSING_COLOUR = "#1a8f3c"   # expected, not produced
EXTRA_COLOUR = "#d0312d"     # produced, not expected
ARROW_LIMIT = 24             # arrows of each kind drawn per case
FAILING = ("failed", "error", "xpassed")


def _get(obj, name, default=None):
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def case_view(result) -> dict:
    """The fields of one result the page uses, wherever they live (result or result.case)."""
    case = _get(result, "case")
    view = {}
    for name in ("id", "variant", "request", "expect", "description", "source", "rules", "topic"):
        value = _get(result, name)
        if value is None:
            value = _get(case, name)
        view[name] = value
    request = dict(view["request"] or {})
    view["variant"] = view["variant"] or request.get("variant")
    view["request"] = request
    view["expect"] = view["expect"] or {}
    view["outcome"] = _get(result, "outcome", "?")
    lines, diff = _get(result, "lines"), _get(result, "diff")
    if lines is None and isinstance(diff, list):  # an older caller's diff lines
        lines = diff
    view["lines"] = [str(x) for x in (lines or [])]
    view["answer"] = _get(result, "answer")
    view["diff"] = diff if isinstance(diff, dict) else None
    view["reason"] = _get(result, "reason")
    view["problem"] = _get(result, "problem")
    view["id"] = view["id"] or "(no id)"
    return view


class Difference(NamedTuple):
    """What the board of a failing case shows."""

    position: dict      # the position the arrows belong to: {"fen", "moves"} as in a request
    missing: list       # tokens expected there, not produced
    extra: list         # tokens produced there, not expected
    caption: str = ""   # where the position comes from, when it is not the request's
    mark_last: bool = False   # shade the squares of the last turn played to reach the position


def differences(view) -> Difference:
    """The missing and extra move or turn tokens of a failing case, from its structured
    difference, and the position they belong to."""
    request = view["request"]
    here = {k: request[k] for k in ("fen", "moves") if k in request}
    diff = view["diff"] or {}
    drill = diff.get("drill_down") or {}
    if drill.get("end") == "lists-differ":
        line = drill["line"]
        after = f" after {' '.join(line)} ({drill.get('line_san', '')})" if line else ""
        caption = (f"the position the perft drill-down reached{after}, where the engine's "
                   f"{drill['unit']} differ from the oracle's")
        return Difference({**here, "moves": list(request.get("moves") or []) + line},
                          drill["missing"], drill["extra"], caption)
    listed = listed_moves(view, here)
    if listed:
        return listed
    parted = diverged(view, here)
    if parted:
        return parted
    refused = refused_move(view, here)
    if refused:
        return refused
    for field in diff.get("fields", {}).values():
        if field["kind"] == "divide":
            return Difference(here, list(field["missing"]), list(field["extra"]))
    caption = "the position after the request's moves, as the oracle plays them" \
        if request.get("moves") else ""
    return Difference(here, [], [], caption)


def listed_moves(view, here) -> Difference | None:
    """For a case whose move or turn list differs (a field of kind ``set``): the request's
    position, after its moves, with what is missing and extra there.  The move that led there
    is shaded, not drawn as an arrow: it is the line, not part of the difference (a first
    divergence found along the line is the last move when the lists part only at its end)."""
    field = next((f for f in (view["diff"] or {}).get("fields", {}).values() if f["kind"] == "set"),
                 None)
    if field is None:
        return None
    moves = view["request"].get("moves")
    caption = f"the position after the request's moves (the last, {moves[-1]}, shaded)" if moves else ""
    return Difference(here, field["missing"], field["extra"], caption, mark_last=bool(moves))


def diverged(view, here) -> Difference | None:
    """For a case whose line the engine parted from (``diff.first_divergence``): a move it
    refused is drawn as an expected arrow at the position before it; a move after which it
    answered otherwise is shaded on the position it led to; a starting position it already
    answers otherwise is drawn as it is."""
    d = (view["diff"] or {}).get("first_divergence") or {}
    if "before" not in d:
        return None
    at = {"fen": d["position"]} if d.get("position") else {**here, "moves": list(d["before"])}
    said = f"where the engine first parts from the oracle: it {d['engine']}"
    if d.get("at_start"):
        return Difference(at, [], [], f"the case's starting position, {said}")
    if d["engine"].startswith("refused"):
        return Difference(at, [d["text"]], [], f"the position before {divergence_text(d)} (the arrow), "
                                               f"{said}")
    return Difference({**at, "moves": list(at.get("moves") or []) + [d["text"]]}, [], [],
                      f"the position after {divergence_text(d)} (shaded), {said}", mark_last=True)


def refused_move(view, here) -> Difference | None:
    """For a case whose moves the engine refused (an illegal-move answer where the case expects
    none): the position before the refused move, with that move as an unexpected arrow."""
    answer, moves = view["answer"], list(view["request"].get("moves") or [])
    error = answer.get("error") if isinstance(answer, dict) and answer.get("ok") is False else None
    if not isinstance(error, dict) or error.get("code") != "illegal-move" or "error" in view["expect"]:
        return None
    said = f"illegal-move: {error.get('message', '')}"
    for n, token in enumerate(moves):
        halves = [token] + [h for h in token.split(",") if h]
        if any(f"'{h}'" in said for h in halves):
            return Difference({**here, "moves": moves[:n]}, [], [token],
                              f"the position before move {n + 1} of the request, {token} (the "
                              f"dashed arrow), which the engine refused ({said}); the case "
                              "expects it to be legal")
    return Difference(here, [], [], f"the position after the request's moves, as the case expects "
                                    f"it; the engine refused one of them ({said})")


def board_for(view, found: Difference):
    """(svg text or None, note) for the difference's position with its arrows."""
    variant = view["variant"]
    missing, extra = found.missing, found.extra
    try:
        rules = variants.get(variant)
        line = api.replay(rules, found.position.get("fen"), found.position.get("moves"))
    except Exception as e:  # an invalid FEN is often exactly what the case is about
        message = getattr(e, "message", str(e))
        return None, f"no board: the oracle cannot set up this position ({message})"
    arrows, notes = [], []
    for tokens, colour, dashed, word in ((missing, MISSING_COLOUR, False, "missing"),
                                         (extra, EXTRA_COLOUR, True, "unexpected")):
        for token in tokens[:ARROW_LIMIT]:
            arrows += raw_arrows(rules, token, colour, numbered=True, dashed=dashed)
        if len(tokens) > ARROW_LIMIT:
            notes.append(f"{len(tokens) - ARROW_LIMIT} more {word} not drawn")
    pos, marked = line.final, last_turn_squares(rules, line) if found.mark_last else ()
    return position_svg(rules, pos, arrows, title=f"{view['id']}: {rules.fen(pos)}", marked=marked), \
        "; ".join(notes)


def last_turn_squares(rules, line) -> list:
    """The from- and to-squares of the moves of the line's last turn (a drop has no from)."""
    steps = []
    for step in reversed(line.steps):
        if steps and step.ends_turn:
            break
        steps.append(step)
    name = rules.geometry.name
    return [name[sq] for s in steps for sq in (s.move.frm, s.move.to) if sq is not None]


STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #1d1d1d; background: #fafafa; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
.verdict { font-weight: bold; }
table.counts { border-collapse: collapse; margin: 0.8em 0; }
table.counts td, table.counts th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
section.case { background: #fff; border: 1px solid #ddd; border-left: 6px solid #d0312d;
               padding: 0.8em 1em; margin: 1em 0; }
section.case.error { border-left-color: #b26b00; }
section.case.xpassed { border-left-color: #6b4fbb; }
section.case h2 { font-size: 1.05em; margin: 0 0 0.4em 0; font-family: monospace; }
.layout { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.layout .board svg { max-width: 100%; height: auto; }
pre { background: #f3f3f3; padding: 0.6em; overflow-x: auto; font-size: 0.85em; margin: 0.3em 0;
      white-space: pre-wrap; word-break: break-word; max-width: 60em; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: 1.6em; height: 0.35em; vertical-align: middle;
          margin-right: 0.35em; }
.meta { color: #555; font-size: 0.9em; }
.hidden { display: none; }
#filter { font-size: 1em; padding: 0.2em 0.4em; width: 22em; max-width: 100%; box-sizing: border-box; }
"""

SCRIPT = """
(function () {
  var box = document.getElementById('filter');
  var cases = document.querySelectorAll('section.case');
  function apply() {
    var want = box.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < cases.length; i++) {
      var hit = !want || cases[i].getAttribute('data-id').toLowerCase().indexOf(want) >= 0;
      cases[i].classList.toggle('hidden', !hit);
      if (hit) { shown++; }
    }
    document.getElementById('shown').textContent = String(shown);
  }
  box.addEventListener('input', apply);
  apply();
  document.documentElement.setAttribute('data-ready', 'yes');
})();
"""


def _results_of(results):
    if isinstance(results, dict) and isinstance(results.get("cases"), list):
        return results["cases"]  # a JSON report
    inner = _get(results, "results")
    return list(inner) if inner is not None and not isinstance(results, list) else list(results)


def html_report(results, title: str = "doublecheck report", engine: str | None = None) -> str:
    """The report page as text."""
    engine = engine or _get(results, "engine")
    if isinstance(engine, dict):  # a JSON report's engine
        engine = engine.get("name")
    items = [case_view(r) for r in _results_of(results)]
    counts = Counter(v["outcome"] for v in items)
    failing = [v for v in items if v["outcome"] in FAILING]
    order = ["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
    seen = [o for o in order if counts.get(o)] + sorted(o for o in counts if o not in order)
    verdict = "OK" if not failing else "FAILED"
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>"]
    if engine:
        out.append(f'<p class="meta">Implementation: {escape(str(engine))}</p>')
    judged = judged_under(results)
    if judged:
        out.append(f'<p class="meta options">{escape(judged)}</p>')
    out.append(f'<p class="verdict">{verdict}: {len(items)} cases, {len(failing)} failing</p>')
    out += causes_html(results, items)
    out.append('<table class="counts"><tr>' + "".join(f"<th>{escape(o)}</th>" for o in seen)
               + "</tr><tr>" + "".join(f"<td>{counts[o]}</td>" for o in seen) + "</tr></table>")
    out.append('<p class="legend"><span><span class="swatch" style="background:'
               f'{MISSING_COLOUR}"></span>expected, missing from the answer</span>'
               f'<span><span class="swatch" style="background:{EXTRA_COLOUR}"></span>'
               'in the answer, not expected (dashed)</span>'
               '<span>numbers: the moves of one turn, in order</span></p>')
    out.append('<p><label>Filter by case id: <input id="filter" type="search" '
               'placeholder="e.g. double-move/en-passant"></label> '
               f'<span id="shown">{len(failing)}</span> of {len(failing)} failing cases shown</p>')
    if not failing:
        out.append("<p>No failing cases.</p>")
    follows = same_cause((v["id"], v["outcome"], v["diff"]) for v in items)
    led = followers_of(follows)
    for v in failing:
        out.append(case_section(v, follows.get(v["id"]), led.get(v["id"], ())))
    others = [v for v in items if v["outcome"] not in FAILING and v["outcome"] != "passed"]
    if others:
        out.append("<details><summary>Skipped and expected failures "
                   f"({len(others)})</summary><ul>")
        for v in others:
            why = v["reason"] or "; ".join(v["lines"][:1])
            out.append(f"<li><code>{escape(v['id'])}</code> {escape(v['outcome'])}"
                       + (f": {escape(why)}" if why else "") + "</li>")
        out.append("</ul></details>")
    out.append(f"<script>{SCRIPT}</script>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def causes_html(results, items) -> list[str]:
    """The causes of the failures, first, each linked to its example case's section (a
    JSON report brings its own ``causes``; else they are worked out from the cases)."""
    given = results.get("causes") if isinstance(results, dict) else None
    if given is None:
        found = causes_of((v["id"], v["outcome"], v["diff"], v["problem"]) for v in items)
        given = [{"summary": c.summary, "rules": c.rules, "cases": c.cases} for c in found]
    if not given:
        return []
    rows = []
    for c in given:
        rules = f" ({', '.join(c['rules'])})" if c["rules"] else ""
        n, example = len(c["cases"]), c["cases"][0]
        rows.append(f'<li><b>{n} case{"s" if n > 1 else ""}</b>: {escape(c["summary"] + rules)}; '
                    f'e.g. <a href="#{escape(anchor(example))}">{escape(example)}</a></li>')
    return ['<h2 class="causes">Causes</h2>', '<ol class="causes">'] + rows + ["</ol>"]


def judged_under(results) -> str:
    """The declared options the run judged under, as one line (a Run, or a JSON report's
    ``options``), with how many cases they left out; "" when none were declared."""
    if isinstance(results, dict) and results.get("options"):
        line = f"Judged under: {summary_of(results['options'])}"
        left_out = results.get("skipped_by_options", 0)
    elif not isinstance(results, (dict, list)) and options_line(results):
        line, left_out = options_line(results), skipped_by_options(results)
    else:
        return ""
    return f"{line}; {left_out} cases skipped because of them"


def case_section(v, leader=None, followers=()) -> str:
    """One failing case; ``leader``: the earlier case with the same first divergence (then the
    section is one line), ``followers``: the later ones."""
    if leader is not None:
        d = v["diff"]["first_divergence"]
        return (f'<section class="case {escape(v["outcome"])}" data-id="{escape(v["id"])}" '
                f'id="{escape(anchor(v["id"]))}">'
                f'<h2>{escape(v["outcome"].upper())} {escape(v["id"])}</h2><p>Same cause as '
                f'<code>{escape(leader)}</code>: first divergence at {escape(divergence_text(d))}.'
                "</p></section>")
    found = differences(v)
    missing, extra = found.missing, found.extra
    try:
        svg, note = board_for(v, found)
    except Exception as e:  # a picture must never cost the report
        svg, note = None, f"no board: {type(e).__name__}: {e}"
    if found.caption:
        note = "; ".join(n for n in (f"board: {found.caption}", note) if n)
    request = {k: val for k, val in v["request"].items() if k != "variant"}
    parts = [f'<section class="case {escape(v["outcome"])}" data-id="{escape(v["id"])}" '
             f'id="{escape(anchor(v["id"]))}">',
             f'<h2>{escape(v["outcome"].upper())} {escape(v["id"])}</h2>']
    if v["description"]:
        parts.append(f"<p>{escape(str(v['description']))}</p>")
    meta = [f"variant {v['variant']}"]
    if v["rules"]:
        meta.append("rules " + ", ".join(map(str, v["rules"]))
                    + f" (read one: doublecheck rules {v['rules'][0]})")
    if v["source"]:
        meta.append(f"source: {v['source']}")
    parts.append(f'<p class="meta">{escape(" · ".join(meta))}</p>')
    parts.append('<div class="layout">')
    if svg:
        parts.append(f'<div class="board">{svg}</div>')
    parts.append("<div class=\"text\">")
    if note:
        parts.append(f'<p class="meta">{escape(note)}</p>')
    if missing:
        parts.append(f"<p><b style=\"color:{MISSING_COLOUR}\">Missing</b> (expected, not produced): "
                     f"<code>{escape(' '.join(missing))}</code></p>")
    if extra:
        parts.append(f"<p><b style=\"color:{EXTRA_COLOUR}\">Unexpected</b> (produced, not "
                     f"expected): <code>{escape(' '.join(extra))}</code></p>")
    why = reason_lines((v["diff"] or {}).get("reasons"))
    d = (v["diff"] or {}).get("first_divergence")
    cause = (divergence_lines(d) if d else []) + why
    if cause:
        parts.append("<p>Cause:</p><pre>" + "\n".join(map(escape, cause)) + "</pre>")
    if followers:
        parts.append(f"<p>Same cause ({len(followers)} more): "
                     + ", ".join(f"<code>{escape(f)}</code>" for f in followers) + "</p>")
    parts.append("<p>Request:</p><pre>" + escape(_short_json(request)) + "</pre>")
    parts.append("<p>Expected:</p><pre>" + escape(_short_json(v["expect"])) + "</pre>")
    if v["answer"] is not None:
        parts.append("<p>Answer:</p><pre>" + escape(_short_json(v["answer"])) + "</pre>")
    parts.append("<p>Diff:</p><pre>" + ("\n".join(map(escape, v["lines"])) or "(none)") + "</pre>")
    parts.append("</div></div></section>")
    return "\n".join(parts)


def escape(text) -> str:
    """Text as HTML shows it literally, control and invisible characters as escapes
    (``report_shared.visible``: an engine's text cannot hide or reorder what is around it)."""
    return html.escape(visible(text))


def _short_json(value, limit=4000) -> str:
    text = json.dumps(value, sort_keys=True, separators=(", ", ": "))
    return text if len(text) <= limit else text[:limit] + "\n..."


def write_html_report(results, path, title: str = "doublecheck report") -> None:
    """Write the page to ``path`` (atomically: a half-written file never replaces a good one)."""
    write_file(path, html_report(results, title))


__all__ = ["write_html_report", "html_report", "differences", "case_view"]
