"""Compare what a case expects with what an engine answered.

``compare(variant, expect, answer)`` returns human-readable diff lines; an
empty list means the answer passes. ``answer`` is an engine answer as defined
in ``tools.engines``. Only the keys present in ``expect`` are compared:

- ``moves`` and ``turns`` as sets of strings;
- ``fen`` semantically (``oracle.api.same_fen``), with a field-by-field diff;
- ``status``: ``over``, ``result`` and ``reason`` exactly, ``claimable`` as a set;
- ``nodes`` and ``divide`` exactly;
- ``error`` by its ``code``.
"""

from oracle import api
from oracle.errors import RulesError

FEN_FIELDS = ("placement", "side to move", "castling", "en passant",
              "halfmove clock", "fullmove number")


def compare(variant: str, expect: dict, answer: dict) -> list[str]:
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
        check = CHECKS.get(key, _equal)
        lines += check(variant, key, want, answer[key])
    return lines


def _short(value, limit=200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _equal(variant, key, want, got):
    return [] if want == got else [f"{key}: expected {_short(want)}, got {_short(got)}"]


def _move_set(variant, key, want, got):
    if not isinstance(got, list) or not all(isinstance(m, str) for m in got):
        return [f"{key}: expected a list of strings, got {_short(got)}"]
    lines = []
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    twice = sorted({m for m in got if got.count(m) > 1})
    if missing:
        lines.append(f"missing (expected, not produced): {' '.join(missing)}")
    if extra:
        lines.append(f"extra (produced, not expected): {' '.join(extra)}")
    if twice:
        lines.append(f"{key}: produced more than once: {' '.join(twice)}")
    if lines:
        lines.insert(0, f"{key}: expected {len(set(want))}, got {len(got)}")
    return lines


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


CHECKS = {"moves": _move_set, "turns": _move_set, "fen": _fen, "status": _status,
          "nodes": _nodes, "divide": _divide}
