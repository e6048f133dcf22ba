"""Compare what a case expects with what an engine answered.

``compare(variant, expect, answer, request)`` returns human-readable diff
lines; an empty list means the answer passes. ``answer`` is an engine answer
as defined in ``doublecheck.harness.engines``. Only the keys present in ``expect`` are
compared:

- ``moves`` and ``turns`` as sets of strings; missing and extra ones are
  listed in coordinates with their SAN at the request's position (from the
  oracle) when ``request`` is given;
- ``fen`` semantically (``doublecheck.oracle.api.same_fen``), with a field-by-field diff;
- ``status``: ``over``, ``result`` and ``reason`` exactly, ``claimable`` as a set;
- ``nodes`` and ``divide`` exactly;
- ``error`` by its ``code``.
"""

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError

FEN_FIELDS = ("placement", "side to move", "castling", "en passant",
              "halfmove clock", "fullmove number")


LIST_LIMIT = 40  # moves shown in one missing/extra line


def compare(variant: str, expect: dict, answer: dict, request: dict | None = None) -> list[str]:
    if "error" in expect:
        want = expect["error"].get("code")
        if answer.get("ok"):
            got = {k: v for k, v in answer.items() if k != "ok"}
            return [f"expected error {want}, got a result: {_short(got)}"]
        got = answer.get("error", {})
        if got.get("code") != want:
            return [f"expected error {want}, got error {got.get('code')}: {got.get('message')}"]
        return []
    if not answer.get("ok"):
        got = answer.get("error", {})
        return [f"expected a result, got error {got.get('code')}: {got.get('message')}"]
    lines = []
    for key, want in expect.items():
        if key not in answer:
            lines.append(f"{key}: missing from the answer")
            continue
        if key in ("moves", "turns"):
            lines += _move_set(variant, key, want, answer[key], request)
        else:
            lines += CHECKS.get(key, _equal)(variant, key, want, answer[key])
    return lines


def _short(value, limit=200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _equal(variant, key, want, got):
    return [] if want == got else [f"{key}: expected {_short(want)}, got {_short(got)}"]


def _move_set(variant, key, want, got, request=None):
    if not isinstance(got, list) or not all(isinstance(m, str) for m in got):
        return [f"{key}: expected a list of strings, got {_short(got)}"]
    lines = []
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    seen, twice = set(), set()
    for m in got:
        (twice if m in seen else seen).add(m)
    namer = SanNamer(variant, request) if request is not None and (missing or extra) else None
    if missing:
        lines.append("missing (expected, not produced): " + move_list(missing, namer))
    if extra:
        lines.append("extra (produced, not expected): " + move_list(extra, namer))
    if twice:
        lines.append(f"{key}: produced more than once: {move_list(sorted(twice))}")
    if lines:
        lines.insert(0, f"{key}: expected {len(set(want))}, got {len(got)}")
    return lines


def move_list(tokens, namer=None, limit=LIST_LIMIT) -> str:
    """``e1g1 (O-O), a1a2 (not legal here)``, cut after ``limit`` entries."""
    shown = [f"{t} ({namer.san(t)})" if namer else t for t in tokens[:limit]]
    more = f" ... and {len(tokens) - limit} more" if len(tokens) > limit else ""
    return (", " if namer else " ").join(shown) + more


class SanNamer:
    """SAN of move and turn tokens at one position, as the oracle writes it."""

    def __init__(self, variant: str, request: dict):
        try:
            self.rules = variants.get(variant)
            self.pos = api.replay(self.rules, request.get("fen"), request.get("moves")).final
        except Exception:  # a position the oracle rejects: moves are shown without SAN
            self.rules = self.pos = None

    def _play(self, pos, token: str):
        """(SAN of a move or turn token at ``pos``, the position after it); RulesError if illegal.

        A turn's halves are joined by commas; a lone opening half keeps its
        trailing comma (double-move), as its coordinates do.
        """
        line = api.replay(self.rules, moves=[token], start=pos)
        names = [self.rules.san(s.pos, s.move) for s in line.steps]
        return ",".join([n.rstrip(",") for n in names[:-1]] + names[-1:]), line.final

    def san(self, token: str) -> str:
        """The SAN of a move, or of a turn (its halves joined by commas); a note when not legal."""
        if self.pos is None:
            return "SAN unknown: the oracle rejects this position"
        try:
            return self._play(self.pos, token)[0]
        except RulesError:
            return "not legal here"
        except Exception as e:  # never let a naming problem hide the diff
            return f"SAN unknown: {type(e).__name__}"

    def line(self, tokens) -> str:
        """SAN of consecutive moves (or turns) from the position, one after the other."""
        pos, names = self.pos, []
        for token in tokens:
            try:
                name, pos = self._play(pos, token)
            except Exception:
                names.append("?")
                break
            names.append(name)
        return " ".join(names)


def _fen(variant, key, want, got):
    if not isinstance(got, str):
        return [f"fen: expected a FEN string, got {_short(got)}"]
    try:
        want_norm = _normal_fen(variant, want)
    except RulesError as e:
        return [f"fen: the expected FEN is not valid ({e.code}: {e.message}): {want}"]
    try:
        got_norm = _normal_fen(variant, got)
    except RulesError as e:
        return [f"fen: the answer is not a valid FEN ({e.code}: {e.message}): {got}"]
    if api.same_fen(variant, want, got):
        return []
    lines = [f"fen: expected {want}", f"          got {got}"]
    a, b = want_norm.split(), got_norm.split()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(absent)"
        y = b[i] if i < len(b) else "(absent)"
        if x != y:
            name = FEN_FIELDS[i] if i < len(FEN_FIELDS) else f"field {i + 1}"
            lines.append(f"fen {name}: expected {x}, got {y}")
    return lines


def _normal_fen(variant, fen):
    return api.handle({"op": "fen", "variant": variant, "fen": fen})["fen"]


def _status(variant, key, want, got):
    if not isinstance(got, dict):
        return [f"status: expected an object, got {_short(got)}"]
    lines = []
    for field, value in want.items():
        if field not in got:
            lines.append(f"status {field}: missing from the answer")
        elif field == "claimable":
            if not isinstance(got[field], list) or set(value) != set(got[field]):
                lines.append(f"status claimable: expected {sorted(value)}, got {_short(got[field])}")
        elif value != got[field]:
            lines.append(f"status {field}: expected {_short(value)}, got {_short(got[field])}")
    return lines


def _nodes(variant, key, want, got):
    if want == got:
        return []
    if isinstance(got, int) and not isinstance(got, bool):
        diff = got - want
        return [f"nodes: expected {want}, got {got} ({abs(diff)} {'more' if diff > 0 else 'fewer'})"]
    return [f"nodes: expected {want}, got {_short(got)}"]


def _divide(variant, key, want, got):
    if not isinstance(got, dict):
        return [f"divide: expected an object, got {_short(got)}"]
    lines = [f"divide {m}: expected {want[m]}, got {got[m]}"
             for m in sorted(set(want) & set(got)) if want[m] != got[m]]
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    if missing:
        lines.append("missing (expected, not produced): "
                     + " ".join(f"{m} ({want[m]})" for m in missing))
    if extra:
        lines.append("extra (produced, not expected): "
                     + " ".join(f"{m} ({got[m]})" for m in extra))
    return lines


CHECKS = {"fen": _fen, "status": _status,
          "nodes": _nodes, "divide": _divide}
