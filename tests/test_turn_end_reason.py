"""The turn as players see it: each variant names the actions of a turn
(``turn_actions``) and says why a turn ended before its last one
(``turn_end_reason``), with a rule id of the variant's catalogue.

The positions are curated cases (their ids are given) and the seeds' turn
rules: double-move-anul's brakes (seed 002, DA-5, DA-6, DA-no-pass), the
Marseillais check brake and balanced opening (M2, M3, M5), the Double Move
left unused or already spent (DM-ability), symmetric-monster's single-piece
turn (S4), and chess, where a move is the whole turn (G1).
"""

import pytest

from doublecheck.casefiles import CASES_DIR, load_rules
from doublecheck.oracle import api, variants

ANUL_FEN = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"   # double-move-anul/brakes/*
SM_FEN = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -"


def reasons(variant, fen, moves):
    """[(token, rule id or None, words or None)] for every move of the line."""
    rules = variants.get(variant)
    line = api.replay(rules, fen, moves)
    out = []
    for i, step in enumerate(line.steps):
        after = line.steps[i + 1].pos if i + 1 < len(line.steps) else line.final
        found = rules.turn_end_reason(step.pos, step.move, after)
        out.append((step.token, found and found.rule, found and found.words))
    return out


@pytest.mark.parametrize("variant, fen, moves, expected", [
    # double-move-anul/brakes/capture-ends-turn, check-ends-turn, second-move-may-capture
    ("double-move-anul", ANUL_FEN, ["e4d5"], [("e4d5", "DA-5", "move 1 exd5 captures")]),
    ("double-move-anul", ANUL_FEN, ["f1b5"], [("f1b5", "DA-6", "move 1 Bb5+ gives check")]),
    ("double-move-anul", ANUL_FEN, ["b1c3,", "e4d5"], [("b1c3,", None, None), ("e4d5", None, None)]),
    # double-move-anul/game-end/mate-by-first-move-quiet: the mate on move one is the check brake
    ("double-move-anul", "7k/6pp/8/8/8/8/8/1R2K3 w - - 0 1", ["b1b8"],
     [("b1b8", "DA-6", "move 1 Rb8# gives checkmate")]),
    # double-move-anul/turn-structure/no-second-move-ends-turn (DA-no-pass)
    ("double-move-anul", "1r5k/8/8/4p3/3p4/8/4P2r/K7 w - - 0 1", ["e2e4"],
     [("e2e4", "DA-no-pass", "no legal second move after e4")]),
    # marseillais/no-second-move/stalemate-after-move-one (M5)
    ("marseillais", "7k/7p/8/7P/8/1q6/8/K7 w - - 0 2", ["h5h6"],
     [("h5h6", "M5", "no legal move two after h6: drawn by stalemate")]),
    # marseillais/check/check-on-move-one-ends-turn; M2: the balanced opening is one move
    ("marseillais", "4k3/8/8/8/8/8/8/R3K3 w - - 0 2", ["a1a8"],
     [("a1a8", "M3", "move one Ra8+ gives check")]),
    ("marseillais", None, ["e2e4"], [("e2e4", "M2", "White's first turn is the single move e4")]),
    ("marseillais-classic", None, ["e2e4,", "d2d4"], [("e2e4,", None, None), ("d2d4", None, None)]),
    # seed 000: Qg8+,Qh7# is a whole Double Move; an ordinary move leaves it unused, or spent
    ("double-move", "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB", ["b3g8,", "g8h7"],
     [("b3g8,", None, None), ("g8h7", None, None)]),
    ("double-move", None, ["e2e4"], [("e2e4", "DM-ability", "Double Move not used: the turn is one "
                                                             "ordinary move")]),
    ("double-move", None, ["e2e4,", "d2d4", "e7e5,", "d7d5", "g1f3", "b8c6"],
     [("e2e4,", None, None), ("d2d4", None, None), ("e7e5,", None, None), ("d7d5", None, None),
      ("g1f3", "DM-ability", "White's Double Move is already used: the turn is one ordinary move"),
      ("b8c6", "DM-ability", "Black's Double Move is already used: the turn is one ordinary move")]),
    # symmetric-monster (S4, S8): a double turn ending with the drop, then a single-piece move
    ("symmetric-monster", SM_FEN, ["e0e1,", "K@e0", "e7e5"],
     [("e0e1,", None, None), ("K@e0", None, None),
      ("e7e5", "S4", "e5 is a single-piece move, a whole turn")]),
    # symmetric-monster/game-end/last-king-taken-fen: a first double action takes the last king (S7)
    ("symmetric-monster", "4/8/4k3/3*P4/8/8/8/8/1R1R4/*KR2 w - - 0 1 k -", ["d6e7"],
     [("d6e7", "S7", "*dxe7 took the opponent's last king, which ends the game")]),
    ("chess", None, ["e2e4", "e7e5"], [("e2e4", None, None), ("e7e5", None, None)]),
])
def test_turn_end_reasons(variant, fen, moves, expected):
    assert reasons(variant, fen, moves) == expected


@pytest.mark.parametrize("variant", variants.VARIANT_NAMES)
def test_every_variant_names_its_actions_and_cites_its_own_rules(variant):
    rules = variants.get(variant)
    assert rules.turn_actions and all(isinstance(n, str) and n for n in rules.turn_actions)
    longest = max(len(moves) for moves, _after in rules.turns(rules.start))
    assert len(rules.turn_actions) >= longest
    catalogue, _problems = load_rules(CASES_DIR)
    line = api.replay(rules, None, [])
    pos, actions = line.final, 0
    for _ in range(12):                      # a short line of first legal moves
        moves = rules.legal_moves(pos)
        if not moves:
            break
        after = rules.play(pos, moves[0])
        found = rules.turn_end_reason(pos, moves[0], after)
        actions = 0 if not rules.mid_turn(pos) else actions
        actions += 1
        # shorter than this very turn's slots (a side's turn shape, a series' length)
        ended_short = not rules.mid_turn(after) and actions < len(rules.turn_slots(pos))
        assert (found is not None) == ended_short, (variant, moves[0], found)
        if found is not None:
            for rule in (found.rule, *found.also):
                assert variant in catalogue[rule]["variants"] or rule in shared(variant), rule
            assert found.words and found.rule not in found.words
        pos = after


def shared(variant):
    """The general and FIDE rules a variant's catalogue file names as shared."""
    import json
    out = set()
    for path in (CASES_DIR / "rules").glob("*.json"):
        out.update(json.loads(path.read_text(encoding="utf-8")).get("shared", {}).get(variant, []))
    return out


@pytest.mark.parametrize("variant, fen, moves, usual", [
    ("double-move", None, ["e2e4"], True),                      # DM-ability: the ordinary turn
    ("symmetric-monster", SM_FEN, ["a2a3"], True),              # S4: a single-piece move
    ("double-move-anul", ANUL_FEN, ["e4d5"], False),            # DA-5: the capture brake
])
def test_a_turn_that_ends_as_most_turns_do_says_so(variant, fen, moves, usual):
    """The desk's move list marks only the turns that ended unlike most of their variant's."""
    rules = variants.get(variant)
    line = api.replay(rules, fen, moves)
    found = rules.turn_end_reason(line.steps[0].pos, line.steps[0].move, line.final)
    assert found is not None and found.usual is usual
