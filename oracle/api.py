"""The oracle's text-level interface: requests and results are plain JSON values.

This is what the command line, the protocol server and the case runner use.
A request is a dict with ``op`` and the fields that operation reads::

    {"op": "moves",  "variant": "chess", "fen": "...", "moves": ["e2e4"]}
    {"op": "perft",  "variant": "chess", "depth": 3, "divide": true, "turns": false}

``fen`` defaults to the variant's start position and ``moves`` (move tokens
in coordinates or SAN) are played from it first.  Bad input raises
``RulesError`` with a stable code.
"""

from doublecheck.oracle import variants
from doublecheck.oracle.errors import INVALID_REQUEST, RulesError
from doublecheck.oracle.perft import turn_text

OPS = ("moves", "turns", "play", "status", "perft", "fen")
VARIANTS = variants.VARIANT_NAMES
PROTOCOL_VERSION = "1"


def start_fen(variant: str) -> str:
    return variants.get(variant).start_fen


def same_fen(variant: str, a: str, b: str) -> bool:
    """Do two FENs describe the same position (parsed and written back the oracle's way)?"""
    rules = variants.get(variant)
    return rules.fen(rules.parse_fen(a)) == rules.fen(rules.parse_fen(b))


def split_tokens(moves):
    """Move tokens as given, with a whole turn ``a,b`` split into ``a,`` and ``b``."""
    if isinstance(moves, str):
        moves = moves.split()
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RulesError(INVALID_REQUEST, "'moves' must be a list of move strings")
    tokens = []
    for item in moves:
        parts = item.split(",")
        for i, part in enumerate(parts):
            if part:
                tokens.append(part + ("," if i < len(parts) - 1 else ""))
            elif i < len(parts) - 1 or len(parts) == 1:
                raise RulesError("invalid-move-text", f"{item!r}: empty move between commas")
    return tokens


def replay(rules, fen, moves):
    """Play move tokens from a FEN; returns the final position and the identity
    keys of the earlier turn-boundary positions (for repetition)."""
    pos = rules.parse_fen(fen if fen is not None else rules.start_fen)
    history = []
    for token in split_tokens(moves or []):
        if not rules.mid_turn(pos):
            history.append(rules.identity(pos))
        move = rules.parse_move(pos, token)
        after = rules.play(pos, move)
        if token.endswith(",") and not rules.mid_turn(after):
            # G8: a trailing comma says the turn goes on after this move
            raise RulesError("illegal-move", f"{token!r}: the comma says the turn continues, "
                                             f"but {token.rstrip(',')} ends the turn here")
        pos = after
    return pos, history


def handle(request: dict, rules=None) -> dict:
    """Answer one request (see the module docstring); raises RulesError on bad input.

    ``rules`` overrides the rules object the request's variant names (the
    mutation tests use it to run the suite against deliberately wrong rules).
    """
    if not isinstance(request, dict):
        raise RulesError(INVALID_REQUEST, "a request must be a JSON object")
    op = request.get("op")
    if op not in OPS:
        raise RulesError(INVALID_REQUEST, f"unknown op {op!r}; known ops: {', '.join(OPS)}")
    registered = rules is None
    if registered:
        rules = variants.get(request.get("variant", "chess"))
    fen = request.get("fen")
    if fen is not None and not isinstance(fen, str):
        raise RulesError("invalid-fen", "'fen' must be a string")
    pos, history = replay(rules, fen, request.get("moves"))
    if op == "moves":
        return {"moves": [rules.move_text(pos, m) for m in rules.legal_moves(pos)]}
    if op == "turns":
        return {"turns": [turn_text(rules, pos, line) for line, _ in rules.turns(pos)]}
    if op == "play":
        return {"fen": rules.fen(pos), "status": rules.status(pos, history)}
    if op == "status":
        return {"status": rules.status(pos, history)}
    if op == "fen":
        return {"fen": rules.fen(pos)}
    depth = request.get("depth")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise RulesError(INVALID_REQUEST, f"'depth' must be a whole number >= 0, not {depth!r}")
    turns = bool(request.get("turns"))
    # The registered rules count through a transposition table (doublecheck.perft,
    # tested to give the plain walk's counts); rules passed in, such as the mutants,
    # count with the plain walk of oracle/perft.py.
    from doublecheck.perft.cache import Counter, Table
    counter = Counter(rules, Table() if registered else None)
    if request.get("divide"):
        if depth < 1:
            raise RulesError(INVALID_REQUEST, "divide needs depth >= 1")
        table = counter.divide(pos, depth, turns=turns)
        return {"nodes": sum(table.values()), "divide": table}
    return {"nodes": counter.count(pos, depth, turns)}


def hello() -> dict:
    return {"protocol": PROTOCOL_VERSION, "name": "doublecheck-oracle",
            "variants": list(VARIANTS), "ops": list(OPS)}
