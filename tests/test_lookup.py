"""Lookups for people: explain (with reasons and rule ids), show, grouped turns, their CLI."""

import json

import pytest

from doublecheck.oracle import api
from doublecheck.oracle.errors import RulesError
from doublecheck.cli import main as cli_main
from doublecheck.lookups import lookup
from doublecheck.lookups.lookup import explain

# Seed 000, "Check first, mate second" and "Double Move can bypass en passant".
MATE_FEN = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
EP_FEN = "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"
DM, ANUL, DC, SM = "double-move", "double-move-anul", "double-chess", "symmetric-monster"


def refused(result, number, rule, *words):
    assert result["legal"] is False, result
    assert result["refused"] == number, result
    assert result["rule"] == rule, result["reason"]
    for word in words:
        assert word in result["reason"], result["reason"]


# --------------------------------------------------- seed 000 worked examples

def test_seed_mate_is_a_legal_turn_that_mates():
    r = explain(DM, MATE_FEN, turn="Qg8+,Qh7#")
    assert r["legal"] and r["reason"] is None and r["rule"] is None
    assert r["turn"] == "b3g8,g8h7" and r["san"] == "Qg8+,Qh7#"
    assert [m["ends_turn"] for m in r["moves"]] == [False, True]
    assert r["status"] == {"over": True, "result": "1-0", "reason": "checkmate", "claimable": []}


def test_seed_mate_first_half_alone_is_legal_but_not_a_turn():
    assert explain(DM, MATE_FEN, move="Qg8+,")["legal"]
    r = explain(DM, MATE_FEN, turn="Qg8+,")
    assert r["legal"] is False and r["incomplete"] and r["rule"] == "DM-activation"


def test_seed_defence_king_takes_queen_walks_into_the_pawn():
    r = explain(DM, MATE_FEN, ["Qg8+,Qh7#"], turn="Kxh7,Kh8")
    refused(r, 1, "DM-every-half-legal", "Kxh7:", "h7 is attacked by the pawn on g6",
            "every half of a Double Move must be legal on its own")
    assert [m["legal"] for m in r["moves"]] == [False, None]
    assert "DM-unused-ability-no-escape" in r["note"]


@pytest.mark.parametrize("turn, first", [("Qg8,Qxh7", "Qg8"), ("Bxg6,Bxh7", "Bxg6")])
def test_seed_defences_leave_the_king_in_check_after_the_first_half(turn, first):
    r = explain(DM, MATE_FEN, ["Qg8+,Qh7#"], turn=turn)
    refused(r, 1, "DM-every-half-legal", f"{first}:", "the king on h8 would still be in check",
            "the queen on h7")


def test_seed_en_passant_after_the_pawn_ends_the_turn():
    r = explain(DM, EP_FEN, ["Kg1,e4"], move="dxe3")
    assert r["legal"] and r["moves"][0]["move"] == "d4e3"


def test_seed_en_passant_expired_when_the_pawn_moved_first():
    r = explain(DM, EP_FEN, ["e4,Kg1"], move="dxe3")
    refused(r, 1, "D4", "the double step e2e4 was the first half of a Double Move")
    assert "DM-en-passant" in r["rules"]
    # both orders reach the same placement: only the order decides
    a = api.handle({"op": "fen", "variant": DM, "fen": EP_FEN, "moves": ["Kg1,e4"]})["fen"]
    b = api.handle({"op": "fen", "variant": DM, "fen": EP_FEN, "moves": ["e4,Kg1"]})["fen"]
    assert a.split()[0] == b.split()[0]


# ---------------------------------------------------------- generic reasons

@pytest.mark.parametrize("move, rule, words", [
    ("e4e5", "G8.1", ["no piece on e4"]),
    ("e7e5", "G8.1", ["no piece of the side to move on e7", "Black's"]),
    ("e2e5", "FIDE-3.7.1", ["a pawn does not move from e2 to e5"]),
    ("Ke2", "FIDE-3.1", ["e2 is occupied by White's own pawn"]),
    ("Bc4", "FIDE-3.2", ["f1: the bishop on f1 cannot pass the pawn on e2"]),
    ("Nf6", "FIDE-3.6", ["no white knight can move to f6"]),
    ("O-O", "FIDE-3.8.2.2", ["f1 holds the bishop"]),
    ("exd3", "FIDE-3.7.3", ["d3 is empty"]),
])
def test_reasons_at_the_start(move, rule, words):
    refused(explain("chess", move=move), 1, rule, *words)


def test_unreadable_text_and_missing_squares():
    for text, words in (("e9e8", "there is no square e9 on the chess board"),
                        ("zz", "neither coordinate notation")):
        r = explain("chess", move=text)
        assert r["legal"] is False and r["code"] == "invalid-move-text" and r["rule"] == "G8.1"
        assert words in r["reason"]


def test_ambiguous_san_and_full_square_disambiguation():
    r = explain("chess", "N1N5/8/8/8/8/8/8/k3K3 w - - 0 1", move="Nb6")
    assert r["legal"] is False and r["rule"] == "FIDE-C.10" and "a8b6, c8b6" in r["reason"]
    assert explain("chess", "N1N5/8/8/8/8/8/8/k3K3 w - - 0 1", move="Nab6")["legal"]
    refused(explain("chess", move="Ne4f6"), 1, "G8.1", "no such piece on e4", "it is empty")
    r = explain("symmetric-monster", move="Ke9f7")
    refused(r, 1, "G8.1", "no such piece on e9")


@pytest.mark.parametrize("fen, move, rule, words", [
    ("4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1", "Bd3", "FIDE-3.9.2",
     ["the king on e1 would be left in check by the rook on e8"]),       # a pinned piece
    ("k7/8/8/8/8/8/1q6/4K3 w - - 0 1", "Kd2", "FIDE-3.9.2",
     ["d2 is attacked by the queen on b2"]),                            # a king stepping into attack
    ("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", "e1g1", "FIDE-3.8.2.1",
     ["no right to castle with the h1 rook"]),                          # a castling right lost
])
def test_a_refusal_names_the_rule_and_the_piece_behind_it(fen, move, rule, words):
    refused(explain("chess", fen, move=move), 1, rule, *words)


@pytest.mark.parametrize("fen, move, words", [
    ("r3k2r/8/8/8/2B5/8/8/R3K2R b KQkq - 0 1", "O-O", ["land on g8", "the bishop on c4"]),
    ("r3k2r/8/8/8/2B5/8/4R3/R3K2R b Kkq - 0 1", "O-O", ["in check from the rook on e2"]),
    ("r3k2r/8/8/8/8/5b2/8/R3K2R w KQkq - 0 1", "O-O-O", ["pass over d1", "the bishop on f3"]),
])
def test_castling_says_which_condition_fails(fen, move, words):
    refused(explain("chess", fen, move=move), 1, "FIDE-3.8.2.2", *words)


def test_promotion_must_name_a_piece():
    r = explain("chess", "8/4P3/8/8/8/8/8/k3K3 w - - 0 1", move="e7e8")
    refused(r, 1, "FIDE-3.7.3.3", "must be promoted")
    assert explain("chess", "8/4P3/8/8/8/8/8/k3K3 w - - 0 1", move="e8=Q")["legal"]


def test_chess_turn_of_two_moves_and_a_comma_that_lies():
    refused(explain("chess", turn="e4,d4"), 2, "G1", "every turn is a single move")
    refused(explain("chess", move="e2e4,"), 1, "G8", "trailing comma")
    refused(explain("chess", turn="e4,"), 1, "G8", "trailing comma")


def test_legal_answers_agree_with_the_oracle_everywhere():
    """For every legal move in a few positions, explain says legal; for a sample of
    from/to pairs the oracle refuses, explain says not legal (never the other way)."""
    for variant in api.VARIANTS:
        rules = lookup.variants.get(variant)
        pos = rules.start
        legal = {rules.move_text(pos, m) for m in rules.legal_moves(pos)}
        for text in sorted(legal):
            assert explain(variant, move=text)["legal"], (variant, text)
        names = [rules.geometry.name[s] for s in rules.geometry.squares][:24]
        for a in names[::3]:
            for b in names[1::5]:
                text = a + b
                if text not in legal:
                    r = explain(variant, move=text)
                    assert r["legal"] is False and r["reason"], (variant, text)


# ----------------------------------------------------------- double-move

def test_double_move_spent_ability():
    r = explain(DM, moves=["e4,d4", "e5,d5"], turn="Nf3,Nc3")
    refused(r, 1, "DM-ability", "White has already used its Double Move")


def test_double_move_needs_a_second_half():
    r = explain(DM, "4k1r1/2b5/8/8/p7/8/P7/7K w - - 0 1 WB", turn="a3,Kg1")
    refused(r, 1, "D2", "no legal second half")


def test_double_move_second_half_never_takes_the_king():
    r = explain(DM, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB", turn="Ra8+,Rxe8")
    refused(r, 2, "D3", "may never capture the king on e8")
    assert explain(DM, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB", turn="Ra8+,Kd2")["legal"]


def test_double_move_en_passant_not_on_the_second_half():
    fen = "7k/8/8/8/4p3/8/3P4/7K w - - 0 1 WB"
    assert explain(DM, fen, ["d4"], turn="exd3,Kg8")["legal"]
    r = explain(DM, fen, ["d4"], turn="Kg8,exd3")
    refused(r, 2, "D4", "open only to the first move of this turn")


def test_double_move_no_second_double_move_between_halves():
    refused(explain(DM, moves=["e4,"], move="d4,"), 1, "DM-activation", "between the halves")
    refused(explain(DM, turn="e4,d4,Nf3"), 2, "DM-activation")


# ------------------------------------------------------ double-move-anul

def test_anul_capture_on_move_one_ends_the_turn():
    r = explain(ANUL, moves=["e4,d4", "d5,Nc6"], turn="exd5,Nf3")
    refused(r, 2, "A1", "second move not allowed", "exd5 captures")
    assert "DA-5" in r["rules"]
    assert explain(ANUL, moves=["e4,d4", "d5,Nc6"], turn="exd5")["legal"]


def test_anul_check_on_move_one_ends_the_turn():
    r = explain(ANUL, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", turn="Ra8+,Kd2")
    refused(r, 2, "A1", "gives check")
    assert "DA-6" in r["rules"]


def test_anul_quiet_first_move_owes_a_second():
    r = explain(ANUL, turn="e4")
    assert r["legal"] is False and r["incomplete"] and r["rule"] == "A1"
    assert "second move is compulsory" in r["reason"]
    assert explain(ANUL, move="e4")["legal"]          # as one move it is fine
    refused(explain(ANUL, turn="e4,Nf3,d4"), 3, "A1", "at most two moves")


def test_anul_each_move_keeps_the_king_safe():
    r = explain(ANUL, "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", turn="Kd1,Ke2")
    assert r["legal"] is True   # Ke2 takes the rook: legal
    r = explain(ANUL, "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1", turn="Bd3,Bc4")
    refused(r, 1, "DA-4", "left in check by the rook on e7")


# ------------------------------------------------------------ double-chess

def test_double_chess_castling_rook_shielding_the_king():
    r = explain(DC, "8k7/16/16/16/16/16/16/8K2R2r1 w L - 0 1", move="O-O")
    refused(r, 1, "C3", "after castling the king on k1 would be in check from the rook on o1")


def test_double_chess_unknown_castling_name_and_outside_castling():
    refused(explain(DC, move="O-O-O-O-O-O"), 1, "DC-castling-san", "no castling written")
    fen = "8k7/16/16/16/16/5b10/16/R7K2R3R w ALP - 0 1"
    refused(explain(DC, fen, move="O-O-O-O-O"), 1, "C3", "pass over h1", "bishop on f3")


# ------------------------------------------------------- symmetric-monster

SM_FEN = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -"
SM_DK = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P*K*P*P w kq - 0 1 k -"


def test_monster_null_move():
    r = explain(SM, SM_DK, turn="*Ke1,*Kd0")
    refused(r, 2, "S6", "straight back to d0", "null move")


def test_monster_lone_double_action_and_single_after_double():
    r = explain(SM, SM_FEN, turn="K@d0")
    assert r["incomplete"] and r["rule"] == "S4"
    refused(explain(SM, SM_FEN, turn="e0e1,Nf3"), 2, "S4", "must be one too")
    refused(explain(SM, SM_FEN, turn="Nf3,Nc3"), 2, "S4", "single-piece move")
    assert explain(SM, SM_FEN, turn="K@d0,*Ke1")["legal"]


def test_monster_drop_squares():
    refused(explain(SM, SM_FEN, move="K@e4"), 1, "S8", "c0-f0")
    refused(explain(SM, SM_FEN, move="K@e0"), 1, "S8", "occupied")
    refused(explain(SM, SM_DK, move="K@c0"), 1, "S8", "not in hand")


def test_monster_lost_kings():
    no_single = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNB2BNR/*P*K*P*P w kq - 0 1 k -"
    refused(explain(SM, no_single, move="Nf3"), 1, "S5", "single king has been captured")
    no_double = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 k -"
    refused(explain(SM, no_double, move="e0e1,"), 1, "S5", "double-king has been captured")


def test_monster_taking_the_last_king_ends_the_game():
    fen = "4/4k3/8/8/8/8/8/8/3qK3/4 b - - 0 1 - -"
    r = explain(SM, fen, turn="Qxe1")
    assert r["legal"] and r["status"]["reason"] == "no-king" and r["status"]["result"] == "0-1"


# ---------------------------------------------------------------- errors

def test_bad_input_raises_rules_errors():
    with pytest.raises(RulesError) as e:
        explain("nope", move="e4")
    assert e.value.code == "unknown-variant"
    with pytest.raises(RulesError) as e:
        explain("chess", "not a fen", move="e4")
    assert e.value.code == "invalid-fen"
    with pytest.raises(RulesError) as e:
        explain("chess", moves=["e4", "e4"], move="d4")
    assert e.value.code == "illegal-move"
    with pytest.raises(RulesError):
        explain("chess", turn="e4,,d4")


# -------------------------------------------------------------------- show

def test_show_draws_every_board_shape():
    text = lookup.show(SM, ascii_only=True)
    rows = text.splitlines()
    rank9 = next(r for r in rows if r.startswith(" 9 "))
    assert rank9.split() == ["9", "*p", "*p", "*p", "*p", "9"]
    assert rank9.index("*p") == rows[1].index("c") - 1   # the c-file, a and b blank
    assert "Double-kings in hand: White, Black" in text
    wide = lookup.show(DC).splitlines()
    assert wide[1].split() == list("abcdefghijklmnop")
    assert wide[2].split()[0] == "8" and len(wide[2].split()) == 18 and "♚" in wide[2]
    assert wide[9].split()[0] == "1" and "♔" in wide[9]


def test_show_turn_state_and_counts():
    text = lookup.show(DM, MATE_FEN, ["Qg8+,"])
    assert "between the two halves of its Double Move" in text
    assert "Double Moves unused: Black" in text
    n = len(api.handle({"op": "moves", "variant": DM, "fen": MATE_FEN, "moves": ["Qg8+,"]})["moves"])
    assert f"Legal moves: {n}   Ways to finish the turn: {n}" in text
    data = lookup.show_data(DM, MATE_FEN, ["Qg8+,Qh7#"])
    assert data["status"]["reason"] == "checkmate" and data["moves"] == 0 and data["turns"] == 0
    assert data["board"]["h7"] == "Q"
    anul = lookup.show(ANUL, moves=["e4,"])
    assert "owes the second" in anul


def test_grouped_turns_cover_every_turn_once():
    data = lookup.grouped_turns(DM, EP_FEN)
    turns = api.handle({"op": "turns", "variant": DM, "fen": EP_FEN})["turns"]
    listed = [t["turn"] for g in data["groups"] for t in g["turns"]]
    assert sorted(listed) == sorted(turns) and data["count"] == len(turns)
    opener = next(g for g in data["groups"] if g["first"] == "e2e4,")
    assert {t["san"] for t in opener["turns"]} == {"e4,e5", "e4,Kg1", "e4,Kg2", "e4,Kh2"}
    assert "e4,Kg1" in lookup.grouped_turns_text(data)


# --------------------------------------------------------------------- CLI

def cli(capsys, *argv):
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_explain_exit_codes_and_json(capsys):
    code, out, _ = cli(capsys, "explain", "--variant", DM, "--fen", MATE_FEN,
                       "--moves", "Qg8+,Qh7#", "--turn", "Kxh7,Kh8")
    assert code == 1 and "h7 is attacked by the pawn on g6" in out
    code, out, _ = cli(capsys, "explain", "--variant", DM, "--fen", MATE_FEN,
                       "--turn", "Qg8+,Qh7#", "--json")
    assert code == 0 and json.loads(out)["legal"] is True


@pytest.mark.parametrize("argv, code_word", [
    (["explain", "--move", "e4", "--variant", "nope"], "unknown-variant"),
    (["explain", "--move", "e4", "--fen", "bad"], "invalid-fen"),
    (["explain", "--move", "zz"], "invalid-move-text"),
    (["show", "--moves", "e4 e4"], "illegal-move"),
    (["svg", "--turn", "Ke5"], "illegal-move"),
])
def test_cli_errors_are_one_line(capsys, argv, code_word):
    code, out, err = cli(capsys, *argv)
    assert code == 2
    assert err.startswith(f"error: {code_word}: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_show_svg_and_help(capsys, tmp_path):
    code, out, _ = cli(capsys, "show", "--variant", SM, "--json")
    assert code == 0 and json.loads(out)["board"]["c0"] == "*P"
    target = tmp_path / "b.svg"
    code, _, _ = cli(capsys, "svg", "--variant", DC, "--output", str(target))
    assert code == 0 and target.read_text().startswith("<svg")
    for name in ("show", "explain", "replay", "svg"):
        with pytest.raises(SystemExit):
            cli_main([name, "--help"])
        out = capsys.readouterr().out
        assert "examples:" in out and f"doublecheck {name}" in out


def test_turns_grouped_and_play_pgn(capsys, tmp_path):
    """The options the lookups add to existing commands: turns --grouped, play --pgn."""
    code, out, _ = cli(capsys, "turns", "--variant", DM, "--fen", EP_FEN, "--grouped", "--json")
    assert code == 0 and json.loads(out)["count"] == 38
    pgn = tmp_path / "line.pgn"
    code, out, _ = cli(capsys, "play", "--moves", "f3 e5 g4 Qh4#", "--pgn", str(pgn))
    assert code == 0 and "checkmate" in out.lower()          # the normal play output follows
    assert "2. g4 Qh4# 0-1" in pgn.read_text()
    code, _, err = cli(capsys, "play", "--moves", "e4 e4", "--pgn", "-")
    assert code == 2 and err.startswith("error: illegal-move: ")


# --------------------------------------------------- rule titles

def test_rule_titles_come_from_the_catalogue(monkeypatch):
    monkeypatch.setattr(lookup, "_TITLES", None)
    titles = lookup.rule_titles(["G1", "DM-activation", "no-such-rule"])
    assert set(titles) == {"G1", "DM-activation"} and all(titles.values())


def test_rule_titles_without_a_usable_catalogue_are_left_out(monkeypatch, tmp_path):
    """A damaged install or a wrong --cases-dir costs only the titles: the answer stands."""
    from doublecheck import casefiles

    def unusable(*_args, **_kwargs):
        raise casefiles.DataError("cases-not-found", "no case tree here")
    monkeypatch.setattr(casefiles, "load_rules", unusable)
    monkeypatch.setattr(lookup, "_TITLES", None)
    assert lookup.rule_titles(["G1"]) == {}
    assert lookup.rule_titles(["G1"], cases_dir=tmp_path) == {}


def test_a_fault_while_reading_rule_titles_is_raised(monkeypatch):
    """Only an unusable catalogue is expected; any other exception is a fault in the code
    and is not hidden behind an answer without titles."""
    from doublecheck import casefiles

    def broken(*_args, **_kwargs):
        raise KeyError("title")
    monkeypatch.setattr(casefiles, "load_rules", broken)
    monkeypatch.setattr(lookup, "_TITLES", None)
    with pytest.raises(KeyError):
        lookup.rule_titles(["G1"])
