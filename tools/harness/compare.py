"""Compare what a case expects with what an engine answered.

``difference(variant, expect, answer, request)`` returns the structured
difference (``None`` when the answer passes); ``diff_lines`` renders it as the
human-readable lines of the text report and ``short_diff`` as one line (JUnit
messages, markdown summaries). ``compare`` is both in one: the lines, empty
when the answer passes. ``answer`` is an engine answer as defined in
``doublecheck.harness.engines``. Only the keys present in ``expect`` are
compared, each by the judge its operation row gives it
(``doublecheck.harness.operations``, ``Field.judge``; a key no row names:
exactly):

- ``moves`` and ``turns`` as sets of strings; missing and extra ones are
  named in coordinates with their SAN at the request's position (from the
  oracle) when ``request`` is given;
- ``fen`` semantically (``doublecheck.oracle.api.same_fen``), field by field;
- ``status``: ``over``, ``result`` and ``reason`` exactly, ``claimable`` as a set;
- ``nodes`` and ``divide`` exactly;
- ``error`` by its ``code``.

The structured difference (``schemas/report.schema.json``, ``$defs/diff``)::

    {"fields": {KEY: {"kind": ..., ...}},   # one entry per differing key, in the case's order
     "san": {TOKEN: SAN},                    # the moves and turns named above, at the request's position
     "drill_down": {...}}                    # perft only: added by the runner (runner.drill_down)

Each field's ``kind`` is ``set`` (moves, turns), ``fen``, ``invalid-fen``,
``status``, ``value`` (nodes and anything else compared exactly), ``divide``,
``error``, ``absent`` (the answer lacks the key) or ``malformed`` (the answer
has it with the wrong type). Lists of moves in it hold at most ``DIFF_ITEMS``
entries; the ``*_count`` fields give the full numbers.
"""

# DIFF_ITEMS: the runner reads it from here too
from doublecheck.harness.operations import DIFF_ITEMS, judge_of  # noqa: F401
from doublecheck.harness.operations import short_json as _short
from doublecheck.harness.process import message_lines
from doublecheck.oracle.errors import INVALID_FEN, RulesError

LIST_LIMIT = 40    # moves shown in one missing/extra line of the text report
SHORT_ITEMS = 5    # moves named in the one-line summary
SHORT_LIMIT = 300  # characters of the one-line summary
# The first line of a failure whose case the built-in oracle does not answer as expected either
# (a case of a user's own tree; runner.oracle_doubt)
CASE_DOUBT = "the oracle also disagrees with this case: the case may be wrong"


def compare(variant: str, expect: dict, answer: dict, request: dict | None = None) -> list[str]:
    """The diff lines; an empty list means the answer passes."""
    return diff_lines(difference(variant, expect, answer, request))


def difference(variant: str, expect: dict, answer: dict, request: dict | None = None) -> dict | None:
    """The structured difference between ``expect`` and ``answer``; None when the answer passes."""
    fields = {}
    if "error" in expect:
        want = expect["error"].get("code")
        if answer.get("ok"):
            got = {k: v for k, v in answer.items() if k != "ok"}
            fields["error"] = {"kind": "error", "expected": want, "got": None, "result": _short(got)}
        elif answer.get("error", {}).get("code") != want:
            got = answer.get("error", {})
            fields["error"] = {"kind": "error", "expected": want, "got": got.get("code"),
                               "message": got.get("message")}
    elif not answer.get("ok"):
        got = answer.get("error", {})
        fields["error"] = {"kind": "error", "expected": None, "got": got.get("code"),
                           "message": got.get("message")}
    else:
        for key, want in expect.items():
            if key not in answer:
                fields[key] = {"kind": "absent"}
                continue
            found = judge_of(key)(variant, want, answer[key])
            if found:
                fields[key] = found
    if not fields:
        return None
    diff = {"fields": fields}
    tokens = [t for f in fields.values() if f["kind"] == "set"
              for t in f["missing"] + f["extra"]]
    if tokens and request is not None:
        diff["san"] = SanNamer(variant, request).names(tokens)
    return diff


def judged_as(variant: str, options=None):
    """What an answer is compared under: the variant id, or its rules object playing the
    rule options a case was judged under (a FEN valid only under them must parse)."""
    if not options:
        return variant
    from doublecheck.oracle import variants
    return variants.get(variant, options)


def aspects(diff: dict | None) -> list[str]:
    """The parts of an answer a difference is about: a key (``moves``, ``nodes``, ``error``),
    ``fen:<field>`` for each FEN field that differs (``fen`` for an invalid FEN), and
    ``status:<key>`` for each status entry. Two differences about disjoint parts have
    different causes (``doublecheck.harness.causes``)."""
    out = []
    for key, f in ((diff or {}).get("fields") or {}).items():
        if f["kind"] in ("fen", "status"):
            prefix = "fen" if f["kind"] == "fen" else "status"
            out += [f"{prefix}:{d.get('field', d.get('key'))}" for d in f["differing"]] or [key]
        else:
            out.append("fen" if f["kind"] == INVALID_FEN else key)
    return out


# --- rendering ------------------------------------------------------------------

MISSING = "missing (expected, not produced): "
EXTRA = "extra (produced, not expected): "


WHY = "why, in the oracle's words (doublecheck explain):"


def diff_lines(diff: dict | None) -> list[str]:
    """The text report's lines for a structured difference (none for None)."""
    if not diff:
        return []
    san = diff.get("san", {})
    lines = []
    for key, f in diff["fields"].items():
        lines += _field_lines(key, f, san)
    lines += note_lines(diff)
    lines += reason_lines(diff.get("reasons"))
    if diff.get("first_divergence"):
        lines += divergence_lines(diff["first_divergence"])
    if diff.get("drill_down"):
        lines += drill_down_lines(diff["drill_down"])
    return lines


def note_lines(found: dict, indent: str = "") -> list[str]:
    """What is said once of a whole list: the engine lists no moves, or the other side's."""
    lines = []
    if found.get("none_listed"):
        lines.append(f"{indent}the engine lists no moves at all here, where the oracle has "
                     f"{found['none_listed']['expected']}: it plays as if the game were over")
    if found.get("other_side"):
        lines.append(f"{indent}{found['other_side']['text']}")
    return lines


def reason_lines(found: dict | None, indent: str = "") -> list[str]:
    """The oracle's reasons for the extra and missing moves (``reasons.reasons``)."""
    if not found or not (found["items"] or found["more"]):
        return []
    lines = [indent + WHY] + [f"{indent}  {reason_line(item)}" for item in found["items"]]
    if found["more"]:
        lines.append(f"{indent}  ... and {found['more']} more without a reason here "
                     "(doublecheck explain gives one)")
    return lines


def reason_line(item: dict) -> str:
    """``extra e1f1: f1 is attacked by the pawn on e2 (FIDE-3.9.2)`` (a ``reasons`` item)."""
    return f"{item['side']} {item['token']}: {item['text']}"


def divergence_text(d: dict) -> str:
    """``turn 12 of 40, move 2 of 3: d4e3 (dxe3)``, numbered by the game's own turns."""
    if d.get("at_start"):
        return "the case's starting position, before any move of its line"
    where = f"turn {d['turn']} of {d['turns']}"
    if d["moves"] > 1:
        where += f", move {d['move']} of {d['moves']}"
    san = f" ({d['san']})" if d.get("san") else ""
    return f"{where}: {d['text']}{san}"


def divergence_lines(d: dict) -> list[str]:
    """Where the engine first parted from the oracle along the case's line (runner.first_divergence)."""
    if "stopped" in d:
        return [f"first divergence in the line: not found ({d['stopped']})"]
    lines = [f"first divergence in the line: {divergence_text(d)}; the engine {d['engine']}"]
    if d.get("position"):
        lines.append(f"  position before it: {d['position']}")
    if d.get("why"):
        lines.append(f"  the oracle: {d['why']['text']}")
    return lines


def _field_lines(key, f, san) -> list[str]:
    kind = f["kind"]
    if kind == "absent":
        return [f"{key}: missing from the answer"]
    if kind == "malformed":
        return [f"{key}: expected {f['wanted']}, got {f['got']}"]
    if kind == "error":   # (an engine's message of several lines is shown as lines)
        if f["expected"] is None:
            return message_lines(f"expected a result, got error {f['got']}: ", f.get("message"))
        if f["got"] is None:
            return [f"expected error {f['expected']}, got a result: {f['result']}"]
        return message_lines(f"expected error {f['expected']}, got error {f['got']}: ", f.get("message"))
    if kind == "set":
        lines = [f"{key}: expected {f['expected_count']}, got {f['got_count']}"]
        if f["missing"]:
            lines.append(MISSING + move_list(f["missing"], san, f["missing_count"]))
        if f["extra"]:
            lines.append(EXTRA + move_list(f["extra"], san, f["extra_count"]))
        if f["repeated"]:
            lines.append(f"{key}: produced more than once: {move_list(f['repeated'])}")
        return lines
    if kind == INVALID_FEN:
        if f["side"] == "expected":
            return [f"fen: the expected FEN is not valid ({f['code']}: {f['message']}): {f['fen']}"]
        return [f"fen: the answer is not a valid FEN ({f['code']}: {f['message']}): {f['fen']}"]
    if kind == "fen":
        return ([f"fen: expected {f['expected']}", f"          got {f['got']}"]
                + [f"fen {d['field']}: expected {d['expected']}, got {d['got']}" for d in f["differing"]])
    if kind == "status":
        lines = []
        for d in f["differing"]:
            if d.get("absent"):
                lines.append(f"status {d['key']}: missing from the answer")
            elif d["key"] == "claimable":
                lines.append(f"status claimable: expected {_short(sorted(d['expected']))}, "
                             f"got {_short(d['got'])}")
            else:
                lines.append(f"status {d['key']}: expected {_short(d['expected'])}, got {_short(d['got'])}")
        return lines
    if kind == "divide":
        lines = [f"divide {d['move']}: expected {d['expected']}, got {d['got']}" for d in f["differing"]]
        if f["missing"]:
            lines.append(MISSING + " ".join(f"{m} ({n})" for m, n in f["missing"].items()))
        if f["extra"]:
            lines.append(EXTRA + " ".join(f"{m} ({n})" for m, n in f["extra"].items()))
        return lines
    if _is_count(f["expected"]) and _is_count(f["got"]):   # a count: how far off it is
        more = f["got"] - f["expected"]
        return [f"{key}: expected {f['expected']}, got {f['got']} "
                f"({abs(more)} {'more' if more > 0 else 'fewer'})"]
    return [f"{key}: expected {_short(f['expected'])}, got {_short(f['got'])}"]


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def drill_down_lines(d: dict) -> list[str]:
    """The text of a perft drill-down (``runner.drill_down``)."""
    out = [f"drill-down (the engine's perft divide against the oracle's, counting {d['unit']}):"]
    for s in d["steps"]:
        where = f"after {' '.join(s['line'])}, " if s["line"] else ""
        out.append(f"  depth {s['depth']}: {where}{s['move']} has {s['got']} below it, "
                   f"expected {s['expected']}")
    end = d["end"]
    if end == "lists-differ":
        shown = " ".join(d["line"]) if d["line"] else "(none: the case position itself)"
        san = f" ({d['line_san']})" if d["line"] else ""
        out.append(f"  line from the case position: {shown}{san}")
        if d.get("position"):
            out.append(f"  position: {d['position']}")
        out.append(f"  {d['unit']} there: expected {d['expected_count']}, got {d['got_count']} "
                   f"(depth {d['depth']})")
        if d["missing"]:
            out.append("  " + MISSING + move_list(d["missing"], d["san"], d["missing_count"]))
        if d["extra"]:
            out.append("  " + EXTRA + move_list(d["extra"], d["san"], d["extra_count"]))
        out += note_lines(d, "  ") + reason_lines(d.get("reasons"), "  ")
    elif end == "no-divide":
        out.append(f"  not possible: the engine does not answer perft with divide ({d['message']})")
    elif end == "stopped":
        out.append(f"  stopped: {d['message']}")
    elif end == "divide-agrees":
        out.append(f"  depth {d['depth']}: the engine's divide here matches the oracle's, but the "
                   "count one level up did not: its perft and its divide disagree")
    else:  # "leaf"
        out.append(f"  at depth 1 the engine counts {d['line'][-1]} as more than one node")
    if end != "lists-differ" and d.get("position"):
        out.insert(-1, f"  line from the case position: {' '.join(d['line']) or '(none)'}"
                       + (f" ({d['line_san']})" if d.get("line_san") else ""))
        out.insert(-1, f"  position: {d['position']}")
    return out


def move_list(tokens, san=None, total=None, limit=LIST_LIMIT) -> str:
    """``e1g1 (O-O), a1a2 (not legal here)``, cut after ``limit`` entries.

    ``san`` maps tokens to their SAN (a dict, or a ``SanNamer``); ``total`` is
    the full number when ``tokens`` was already cut.
    """
    total = len(tokens) if total is None else total
    name = san.san if isinstance(san, SanNamer) else (san or {}).get
    shown = [f"{t} ({name(t)})" if san and name(t) else t for t in tokens[:limit]]
    more = f" ... and {total - limit} more" if total > limit else ""
    return (", " if san else " ").join(shown) + more


def short_diff(diff: dict | None, limit=SHORT_LIMIT) -> str:
    """One line saying how the answer differs (JUnit messages, markdown summaries)."""
    if not diff:
        return ""
    san = diff.get("san", {})
    parts = []
    for key, f in diff["fields"].items():
        kind = f["kind"]
        if kind == "set":
            named = [f"{w} {_few(f[w], f[w + '_count'], san)}" for w in ("missing", "extra") if f[w]]
            if f["repeated"]:
                named.append(f"repeated {_few(f['repeated'], len(f['repeated']), {})}")
            parts.append(f"{key}: " + "; ".join(named))
        elif kind == "fen":
            parts += [f"fen {d['field']}: expected {d['expected']}, got {d['got']}"
                      for d in f["differing"]] or [f"fen: expected {f['expected']}, got {f['got']}"]
        elif kind == "divide":
            counts = [f"{len(f['differing'])} differing", f"{len(f['missing'])} missing",
                      f"{len(f['extra'])} extra"]
            parts.append("divide: " + ", ".join(counts))
        else:   # (an error's message: its first line)
            lines = _field_lines(key, f, san)
            parts += lines[:1] if kind == "error" else lines
    d = diff.get("drill_down")
    if d and d["end"] == "lists-differ":
        named = [f"{w} {_few(d[w], d[w + '_count'], d['san'])}" for w in ("missing", "extra") if d[w]]
        where = f"after {' '.join(d['line'])} ({d['line_san']})" if d["line"] else "at the case position"
        parts.append(f"drill-down: {where}: " + "; ".join(named))
    elif d:
        parts.append(drill_down_lines(d)[-1].strip())
    # the cause goes right after the first part, so that a cut summary still says it
    parts[1:1] = cause_parts(diff)
    text = "; ".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _few(tokens, total, san) -> str:
    shown = [f"{t} ({san[t]})" if san.get(t) else t for t in tokens[:SHORT_ITEMS]]
    return ", ".join(shown) + (f" and {total - SHORT_ITEMS} more" if total > SHORT_ITEMS else "")


def cause_parts(diff: dict) -> list[str]:
    """What the one-line summary says of the cause: the first divergence of the line and
    the oracle's first reason (at the request's position, else where the drill-down stopped)."""
    out = []
    d = diff.get("first_divergence")
    if d and "stopped" not in d:
        out.append(f"first divergence: {divergence_text(d)}")
    found = diff.get("reasons") or (diff.get("drill_down") or {}).get("reasons") or {}
    if found.get("items"):
        out.append(f"why: {reason_line(found['items'][0])}")
    elif d and d.get("why"):
        out.append(f"why: {d['why']['text']}")
    return out


class SanNamer:
    """SAN of move and turn tokens at one position, as the oracle writes it."""

    def __init__(self, variant: str, request: dict):
        from doublecheck.oracle import api, variants
        try:
            self.rules = variants.rules_of(variant)
            self.pos = api.replay(self.rules, request.get("fen"), request.get("moves")).final
        except Exception:  # a position the oracle rejects: moves are shown without SAN
            self.rules = self.pos = None

    def _play(self, pos, token: str):
        """(SAN of a move or turn token at ``pos``, the position after it), stepped by the
        oracle's ``Line.try_play``; None when the oracle refuses it (no reason is worked
        out: a name needs none).  RulesError for text that is no move at all.

        A turn's halves are joined by commas; a lone opening half keeps its
        trailing comma (double-move), as its coordinates do.
        """
        from doublecheck.oracle import api
        line = api.Line(self.rules, pos)
        for half in api.split_tokens([token]):
            if isinstance(line.try_play(half), api.Refused):
                return None
        names = [self.rules.san(s.pos, s.move) for s in line.steps]
        return ",".join([n.rstrip(",") for n in names[:-1]] + names[-1:]), line.final

    def san(self, token: str) -> str:
        """The SAN of a move, or of a turn (its halves joined by commas); a note when not legal."""
        if self.pos is None:
            return "SAN unknown: the oracle rejects this position"
        try:
            played = self._play(self.pos, token)
        except RulesError:
            return "not legal here"
        except Exception as e:  # never let a naming problem hide the diff
            return f"SAN unknown: {type(e).__name__}"
        return played[0] if played is not None else "not legal here"

    def names(self, tokens) -> dict:
        """{token: SAN} for each token."""
        return {t: self.san(t) for t in tokens}

    def line(self, tokens) -> str:
        """SAN of consecutive moves (or turns) from the position, one after the other."""
        pos, names = self.pos, []
        for token in tokens:
            try:
                played = self._play(pos, token)
            except Exception:
                played = None
            if played is None:
                names.append("?")
                break
            name, pos = played
            names.append(name)
        return " ".join(names)
