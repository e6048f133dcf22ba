"""monster (classic Monster chess): the oracle against its cases, a second implementation
built on python-chess that recounts the generated perft and playout cases, the counts
PlayStrategy's own Monster tests publish (both readings of en passant, MO6.1), the rules
class's interface, the desk's turn panel, and the replay of a Monster game record.
"""

import chess
import pytest

from doublecheck.casefiles import load_cases
from doublecheck.desk.ops import position
from doublecheck.harness.compare import compare
from doublecheck.harness.engines import OracleEngine
from doublecheck.lookups.pgn import replay_text
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.variants.monster import Monster

# (cases written for a rule option value are judged under it: tests/test_options.py)
CASES = [c for c in load_cases()[0] if c.variant == "monster" and not c.options]
START = Monster.start_fen


# ------------------------------------------------------ a second implementation

class PyChessMonster:
    """Monster chess on python-chess boards, written apart from the oracle: White's move one
    is any pseudo-legal move after which a legal move two exists; Black's move may not leave
    a king capture within White's two moves (MO4, MO4.1: any move one counts); Black
    never castles out of or across such a threat (MO7); en passant as MO6."""

    def __init__(self, fen=START):
        fields = fen.split()
        self.board = chess.Board(" ".join(fields[:6]))
        self.mid = len(fields) > 6 and fields[6] == "m"

    @staticmethod
    def threatened(board):
        """Could White, to move on ``board``, take the black king with its two moves?"""
        king = board.king(chess.BLACK)
        if board.is_attacked_by(chess.WHITE, king):
            return True
        for move in list(board.pseudo_legal_moves):
            board.push(move)
            hit = board.is_attacked_by(chess.WHITE, king)
            board.pop()
            if hit:
                return True
        return False

    def white_second_moves(self, board):
        out = []
        for move in list(board.pseudo_legal_moves):
            board.push(move)
            safe = not board.is_attacked_by(chess.BLACK, board.king(chess.WHITE))
            board.pop()
            if safe:
                out.append(move)
        return out

    def after_first(self, board, move):
        """The board after White's move one, White to move again, no en passant square."""
        board = board.copy(stack=False)
        board.push(move)
        board.turn, board.ep_square = chess.WHITE, None
        return board

    def black_moves(self, board):
        out = []
        for move in list(board.pseudo_legal_moves):
            if board.is_castling(move):
                path = [move.from_square, (move.from_square + move.to_square) // 2]
                if any(self.threatened(self.king_standing(board, move.from_square, sq)) for sq in path):
                    continue
            after = board.copy(stack=False)
            after.push(move)
            if not self.threatened(after):
                out.append(move)
        return out

    @staticmethod
    def king_standing(board, frm, sq):
        out = board.copy(stack=False)
        out.remove_piece_at(frm)
        out.set_piece_at(sq, chess.Piece(chess.KING, chess.BLACK))
        out.turn = chess.WHITE
        out.ep_square = None
        return out

    def moves(self, board, mid):
        if board.turn == chess.BLACK:
            return self.black_moves(board)
        if mid:
            return self.white_second_moves(board)
        return [m for m in board.pseudo_legal_moves if self.white_second_moves(self.after_first(board, m))]

    def child(self, board, mid, move):
        if board.turn == chess.WHITE and not mid:
            return self.after_first(board, move), True
        after = board.copy(stack=False)
        after.push(move)
        return after, False

    def perft(self, depth, board=None, mid=None):
        board = self.board if board is None else board
        mid = self.mid if mid is None else mid
        moves = self.moves(board, mid)
        if depth == 1:
            return len(moves)
        return sum(self.perft(depth - 1, *self.child(board, mid, m)) for m in moves)

    def turn_perft(self, depth, board=None, mid=None):
        board = self.board if board is None else board
        mid = self.mid if mid is None else mid
        total = 0
        for move in self.moves(board, mid):
            after, after_mid = self.child(board, mid, move)
            if after_mid:
                total += self.turn_perft(depth, after, True)
            else:
                total += 1 if depth == 1 else self.turn_perft(depth - 1, after, False)
        return total


def played(fen, moves):
    """(python-chess board, mid-turn?) after the case's move tokens, in coordinates."""
    walk = PyChessMonster(fen or START)
    board, mid = walk.board, walk.mid
    for turn in moves:
        for token in filter(None, turn.split(",")):
            move = chess.Move.from_uci(token)
            assert move in walk.moves(board, mid), (token, board.fen())
            board, mid = walk.child(board, mid, move)
    return walk, board, mid


GENERATED = [c for c in CASES if c.generated and c.request["op"] in ("perft", "moves")
             and c.expect.get("nodes", 0) <= 25000]


@pytest.mark.parametrize("case", GENERATED, ids=lambda c: c.id)
def test_python_chess_walk_agrees_with_the_generated_cases(case):
    """Every generated perft count up to 25,000 nodes and every generated move list."""
    request = case.request
    walk, board, mid = played(request.get("fen"), request.get("moves", []))
    if request["op"] == "moves":
        assert sorted(m.uci() for m in walk.moves(board, mid)) == sorted(case.expect["moves"])
        return
    count = walk.turn_perft if request.get("turns") else walk.perft
    assert count(request["depth"], board, mid) == case.expect["nodes"]


# ------------------------------------------------------ the oracle against its cases

@pytest.mark.parametrize("case", [c for c in CASES if not c.generated], ids=lambda c: c.id)
def test_curated_case_passes_against_the_oracle(case):
    answer = OracleEngine().request(dict(case.request))
    assert not compare(case.variant, case.expect, answer, case.request)


def test_every_mo_ruling_is_cited_by_a_curated_case():
    cited = {r for c in CASES if not c.generated for r in c.rules}
    assert {"MO1", "MO2", "MO3", "MO4", "MO4.1", "MO5", "MO6", "MO6.1", "MO7", "MO8", "MO8.1", "MO9"} <= cited


# ------------------------------------------------------ PlayStrategy's published counts

def after(rules, moves):
    pos = rules.start
    for token in moves.split():
        pos = rules.play(pos, rules.parse_move(pos, token))
    return pos


# (moves from the start, one per token as PlayStrategy's tests play them; the number of legal
# moves there under MO6, and under PlayStrategy's reading of en passant)
PLAYSTRATEGY = [
    ("e2e4 e4e5 f7f6 e1e2 e5f6", 4, 4),
    ("f2f4 e1f1 g7g5 f4g5 f1g1 e7e6 g5g6 g6h7 d8g5 g1h1 e2e3 h8h7", 2, 2),
    ("f2f4 e1f1 d7d5 f4f5 f1f2 d5d4 c2c4 e2e4", 27, 28),
    ("f2f4 e1f1 d7d5 f4f5 f1f2 d5d4 c2c4 e2e4 g7g5 f2g2", 12, 12),
    ("e2e4 e4e5 e7e6 e1e2 e2e3 e8e7 e3e2 e2e3", 15, 15),
    ("f2f4 f4f5 g7g6 e2e4 d2d4 f8g7 c2c4 e1e2 g8f6 e2e3 e3d3 b8a6 f5g6 d3e3", 3, 3),
    ("f2f4 f4f5 g7g6 e2e4 d2d4 f8g7 c2c4 e1e2 g8f6 e2e3 e3d3 b8a6 f5g6 d3e3 h7g6 e4e5 e5f6", 26, 26),
]


@pytest.mark.parametrize("moves, default, both", PLAYSTRATEGY)
def test_counts_published_by_playstrategy(moves, default, both):
    """PlayStrategy's tests give Black both targets of a White turn (the third line: 28);
    MO6 gives Black only the target of move two (27).  Every other count is the same."""
    assert len(Monster().legal_moves(after(Monster(), moves))) == default
    alt = Monster({"ep-after-white-move-one": "target"})
    assert len(alt.legal_moves(after(alt, moves))) == both


def test_playstrategy_checkmate_and_stalemate_lines():
    mate = "e2e4 e1e2 f7f5 e2e3 e4f5 e7e5 e3e4 e4e5 g8e7 f2f3 f3f4 g7g5 f4g5 e5f6"
    assert Monster().status(after(Monster(), mate))["reason"] == "checkmate"
    stale = ("e2e4 e1e2 e7e6 e2e3 e3f4 f8a3 f4g5 g5h5 d7d6 h5g6 g6g7 e8d7 g7h8 h8h7 d7c6 h7g8 g8f7 "
             "c6b6 f7e8 e8d8 b6a5 d8c8 c8b7 a5a4 b7b8 b8a8 a7a5 a8b8 b8c7 a3c5 c7d6 d6e6 c5d6 e6d6 "
             "f2f4 a4a3 f4f5 f5f6 a3a4 f6f7 d6d5")
    assert Monster().status(after(Monster(), stale))["reason"] == "stalemate"


# ------------------------------------------------------ the MO6.1 alternative

def test_both_targets_written_and_read_under_the_alternative():
    alt = Monster({"ep-after-white-move-one": "target"})
    pos = after(alt, "f2f4 e1f1 d7d5 f4f5 f1f2 d5d4 c2c4")
    assert alt.fen(pos).split()[3] == "c3" and alt.fen(pos).split()[6] == "m"
    pos = alt.play(pos, alt.parse_move(pos, "e2e4"))
    text = alt.fen(pos)
    assert text.split()[3] == "c3,e3"
    assert alt.fen(alt.parse_fen(text)) == text
    with pytest.raises(RulesError):
        Monster().parse_fen(text)


# ------------------------------------------------------ the rules class

def test_rules_state_the_turn_shape_per_colour():
    rules = variants.get("monster")
    assert rules.turn_actions_for("w") == ("Move 1", "Move 2")
    assert rules.turn_actions_for("b") == ("Move",)
    assert rules.colour_lacks() == {"castling": {"w": "White has no castling in monster"},
                                    "second-move": {"b": "every Black turn in monster is a single move"}}


def test_other_variants_lack_nothing():
    for name in variants.registered():
        if name != "monster":
            assert variants.get(name).colour_lacks() == {}, name


def test_turns_agree_with_play():
    """``turns`` is a faster walk of ``play``: the same turns as the generic walk."""
    from doublecheck.oracle.chess import Chess
    rules = variants.get("monster")
    for fen in (START, "8/8/3k4/8/8/8/3K4/8 w - - 0 10 -", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/2PP1P2/4K3 w kq d6 0 3 -",
                "8/8/3k4/8/3K4/8/8/r7 b - - 0 10 -"):
        pos = rules.parse_fen(fen)
        walked = sorted((",".join(map(str, moves)), rules.fen(p)) for moves, p in Chess.turns(rules, pos))
        fast = sorted((",".join(map(str, moves)), rules.fen(p)) for moves, p in rules.turns(pos))
        assert walked == fast and walked


def test_count_turns_counts_what_turns_lists():
    """``count_turns`` (turn-perft's last ply) counts White's moves two without playing
    them: the same number as the turn list, for White at a boundary, between its moves,
    and for Black, also where a move one has no move two after it."""
    rules = variants.get("monster")
    for fen in (START, "r4rk1/pp3ppp/2n5/8/8/2N5/2PPBP2/2B1K1N1 b - - 0 30 -",
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/2PP1P2/4K3 w kq d6 0 3 -", "4k3/8/8/8/8/8/2PP4/r3K3 w - - 0 10 -",
                "8/8/3k4/8/3K4/8/8/r7 b - - 0 10 -"):
        pos = rules.parse_fen(fen)
        for _ in range(3):
            listed = rules.turns(pos)
            assert rules.count_turns(pos) == len(listed), rules.fen(pos)
            if not listed:    # the game is over here (MO5)
                break
            half = rules.play(pos, listed[0][0][0])
            assert rules.count_turns(half) == len(rules.turns(half)), rules.fen(half)
            pos = listed[len(listed) // 2][1]


def test_explain_names_the_two_move_threat():
    answer = api.handle({"variant": "monster", "op": "moves", "moves": ["e2e4,e4e5", "f7f6", "e1e2,e5f6"]})
    assert "e8e7" not in answer["moves"]
    with pytest.raises(RulesError) as e:
        api.handle({"variant": "monster", "op": "play", "moves": ["e2e4,e4e5", "f7f6", "e1e2,e5f6", "a7a6"]})
    assert "MO4" in e.value.message and "f6f7 then f7e8" in e.value.message


def test_a_missing_king_step_cites_the_rule_of_its_side():
    """A failure report says why a left-out king step is legal by the rule that keeps that
    king safe: Black's is MO4 (White's two coming moves), White's MO3 (the end of its turn)."""
    from doublecheck.harness.reasons import reasons
    case = next(c for c in CASES if c.id == "monster/black-check/kings-three-apart")
    black = reasons("monster", case.request, False, [], case.expect["moves"][:3])
    assert [item["rule"] for item in black["items"]] == ["MO4"] * 3
    assert "(MO4: Black is in check when White's two coming moves" in black["items"][0]["text"]
    white = reasons("monster", {"fen": "8/8/3k4/8/8/3K4/8/8 w - - 0 10 -"}, False, [], ["d3c3"])
    assert white["items"][0]["rule"] == "MO3"


def test_san_marks_the_two_move_check():
    from doublecheck.lookups.pgn import pgn_for_line
    text = pgn_for_line("monster", None, ["e2e4,e4e5", "f7f6", "e1e2,e5f6"])
    assert "2. Ke2,exf6+" in text


# ------------------------------------------------------ the desk's turn panel

def test_desk_turn_panel_has_two_slots_for_white_and_one_for_black():
    white = position({"variant": "monster"})
    assert [s["name"] for s in white["turn"]["slots"]] == ["Move 1", "Move 2"]
    middle = position({"variant": "monster", "moves": ["e2e4,"]})
    assert [(s["san"], s["state"]) for s in middle["turn"]["slots"]] == [("e4", "played"), (None, "next")]
    black = position({"variant": "monster", "moves": ["e2e4,d2d4"]})
    assert black["turn_actions"] == ["Move"]
    assert [s["name"] for s in black["turn"]["slots"]] == ["Move"]
    assert black["side_actions"] == {"white": ["Move 1", "Move 2"], "black": ["Move"]}
    back = position({"variant": "monster", "moves": ["e2e4,d2d4", "e7e5"]})
    assert back["line"][1]["actions"] == ["e5"] and back["line"][1]["end"] is None


# ------------------------------------------------------ a game record

# The mating line of PlayStrategy's Monster tests ("checkmate with White's king two moves
# from capturing Black's"), written as a game record in the project's turn notation.
GAME = """[Event "PlayStrategy Monster test line"]
[Variant "monster"]
[Result "1-0"]

1. e4,Ke2 f5 2. Ke3,exf5 e5 3. Ke4,Kxe5 Ne7 4. f3,f4 g5 5. fxg5,Kf6# 1-0
"""


def test_a_monster_game_replays_and_agrees_with_its_result():
    report = replay_text(GAME)
    game = report["games"][0]
    assert report["ok"] and game["legal"] and game["turns"] == 9
    assert game["status"]["reason"] == "checkmate" and game["result_agrees"] is True


# The checkmate the English Wikipedia page on Monster chess shows (section "Checkmating"):
# White's pawns on d4 and e6 against the king on e8 and Black's queen on c2; White plays
# d5 and d6, after which every square the black king has is within reach of White's next
# two moves (the threat d7 then dxe8), and no Black move takes it out of reach (MO4, MO5).
MATE = """[Event "Monster chess: the checkmating example of Wikipedia's Monster chess page"]
[Variant "monster"]
[FEN "4k3/8/4P3/8/3P4/8/2q5/7K w - - 0 1 -"]
[Result "1-0"]

1. d5,d6# 1-0
"""


def test_the_published_two_pawn_mate_replays_to_checkmate():
    report = replay_text(MATE)
    game = report["games"][0]
    assert report["ok"] and game["legal"] and game["turns"] == 1
    assert game["status"]["reason"] == "checkmate" and game["result_agrees"] is True


# ------------------------------------------------------ the coverage matrix per colour

def test_matrix_asks_no_white_castling_and_no_black_second_move():
    from doublecheck.casefiles import load_rules
    from doublecheck.lookups import matrix
    catalogue, _ = load_rules()
    m = matrix.build(catalogue, load_cases()[0])
    assert list(m.components["fen:castling:mover"]["monster"]) == ["black"]
    assert list(m.components["half:second"]["monster"]) == ["white"]
    assert m.absent["half:second (black)"] == {"monster": "every Black turn in monster is a single move"}
    assert m.absent["fen:castling (white)"] == {"monster": "White has no castling in monster"}
    # the hook takes nothing from the variants whose sides have the same rights and turns
    assert all(set(by) == {"monster"} for comp, by in m.absent.items() if comp.endswith(("(white)", "(black)")))
    assert list(m.components["half:second"]["marseillais"]) == ["white", "black"]
    assert matrix.colours_lacking_rule("monster", "FIDE-3.8.2.1") == {"white"}
    assert matrix.colours_lacking_rule("chess", "FIDE-3.8.2.1") == set()
