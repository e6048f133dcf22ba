"""Perft: counting move and turn sequences (ruling G7).

``perft`` counts sequences of moves (one half of a double turn is one move);
``perft_turns`` counts sequences of complete turns.  Draw rules do not stop
the count; a position where the game has ended has no legal moves and so no
children.
"""


def perft(rules, pos, depth: int) -> int:
    if depth == 0:
        return 1
    moves = rules.legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(rules, rules.play(pos, m), depth - 1) for m in moves)


def perft_turns(rules, pos, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft_turns(rules, after, depth - 1) for _, after in rules.turns(pos))


def divide(rules, pos, depth: int, turns: bool = False) -> dict:
    """Each first step (a move, or with turns=True a whole turn) with the count below it."""
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    count = perft_turns if turns else perft
    return {text: count(rules, after, depth - 1) for text, after in steps(rules, pos, turns)}


def steps(rules, pos, turns: bool = False) -> list:
    """The first steps of a divide: (move text, position after) for each legal
    move, or with turns=True (turn text, position after) for each legal turn."""
    if turns:
        return [(turn_text(rules, pos, line), after) for line, after in rules.turns(pos)]
    return [(rules.move_text(pos, m), rules.play(pos, m)) for m in rules.legal_moves(pos)]


def turn_text(rules, pos, line) -> str:
    """A turn as its moves joined by commas (G8): ``g3g8,g8h7``."""
    texts = []
    for m in line:
        texts.append(rules.move_text(pos, m).rstrip(","))
        pos = rules.play(pos, m)
    return ",".join(texts)
