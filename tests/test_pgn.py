"""PGN game records: replaying with reasons, bad input with line numbers, writing a line."""

import os
import random
import threading
import time

import pytest

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.cli import main as cli_main
from doublecheck.lookups.pgn import PgnError, parse_pgn, pgn_for_line, replay_file, replay_text

MATE_FEN = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
EP_FEN = "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"


def game(movetext, variant=None, fen=None, result=None, extra=""):
    tags = []
    if variant:
        tags.append(f'[Variant "{variant}"]')
    if fen:
        tags.append(f'[FEN "{fen}"]')
    if result:
        tags.append(f'[Result "{result}"]')
    return "\n".join(tags) + extra + "\n\n" + movetext + "\n"


def one(text):
    report = replay_text(text)
    assert len(report["games"]) == 1
    return report, report["games"][0]


# ----------------------------------------------------------- seed examples

def test_seed_mate_replays_and_agrees_with_the_result():
    report, g = one(game("1. Qg8+,Qh7# {check, then mate} 1-0", "double-move", MATE_FEN, "1-0"))
    assert report["ok"] and g["legal"] and g["turns"] == 1
    assert g["status"]["reason"] == "checkmate" and g["result_agrees"] is True


@pytest.mark.parametrize("defence, half, words", [
    ("Kxh7,Kh8", "Kxh7", "h7 is attacked by the pawn on g6"),
    ("Qg8,Qxh7", "Qg8", "would still be in check from the queen on h7"),
    ("Bxg6,Bxh7", "Bxg6", "would still be in check from the queen on h7"),
])
def test_seed_refuted_defences_are_illegal_turns(defence, half, words):
    report, g = one(game(f"1. Qg8+,Qh7# {defence} *", "double-move", MATE_FEN, "*"))
    assert not report["ok"] and not g["legal"] and g["turns"] == 1
    bad = g["illegal"]
    assert bad["turn"] == "1..." and bad["side"] == "black" and bad["number"] == 2
    assert bad["rule"] == "DM-every-half-legal"
    assert bad["reason"].startswith(f"{half}: ") and words in bad["reason"]


def test_seed_en_passant_move_order():
    _, g = one(game("1. Kg1,e4 dxe3 *", "double-move", EP_FEN))
    assert g["legal"] and g["turns"] == 2
    _, g = one(game("1. e4,Kg1 dxe3 *", "double-move", EP_FEN))
    assert not g["legal"] and g["illegal"]["rule"] == "D4"
    assert "first half of a Double Move" in g["illegal"]["reason"]


# ---------------------------------------------------------- illegal turns

def test_illegal_turn_in_the_middle_stops_with_its_line_and_number():
    text = game("1. e4,Nf3 d5,Nc6\n2. exd5,Nc3 Qxd5\n3. Nc3,d4 *", "double-move-anul")
    report, g = one(text)
    assert not report["ok"]
    bad = g["illegal"]
    assert (bad["turn"], bad["number"], bad["line"], bad["side"]) == ("2.", 3, 4, "white")
    assert bad["rule"] == "A1" and "exd5 captures" in bad["reason"]
    assert g["turns"] == 2


def test_result_contradicting_the_board_fails():
    report, g = one(game("1. f3 e5 2. g4 Qh4# 1-0", "chess", result="1-0"))
    assert not report["ok"] and g["legal"] and g["result_agrees"] is False
    assert "0-1" in " ".join(g["notes"])


def test_result_without_mate_on_the_board_is_accepted():
    report, g = one(game("1. e4 e5 2. Nf3 1-0", result="1-0"))
    assert report["ok"] and g["result_agrees"] is True and g["variant"] == "chess"
    assert "resignation" in " ".join(g["notes"])


def test_star_on_a_finished_game_contradicts():
    report, g = one(game("1. f3 e5 2. g4 Qh4# *", result="*"))
    assert not report["ok"] and g["result_agrees"] is False


# ------------------------------------------------------------- bad input

def bad(text):
    with pytest.raises(PgnError) as e:
        replay_text(text)
    return e.value


def test_unknown_variant_names_the_tag_line():
    e = bad('[Event "x"]\n[Variant "kriegspiel"]\n\n1. e4,d4 *\n')
    assert e.code == "unknown-variant" and e.line == 2 and "kriegspiel" in e.message


def test_unknown_result_value():
    e = bad('[Result "2-0"]\n\n1. e4 *\n')
    assert e.code == "unknown-result" and e.line == 1


def test_malformed_san_names_line_and_turn():
    e = bad(game("1. e4 e5\n2. Nf3 Nzz9 *", "chess"))
    assert e.code == "invalid-move-text" and e.line == 4 and "2..." in e.message
    assert "Nzz9" in e.message


def test_square_off_the_board_is_unreadable():
    e = bad(game("1. e4 e5 2. Qh9 *"))
    assert e.code == "invalid-move-text" and "no square h9" in e.message


def test_invalid_fen_tag():
    e = bad(game("1. e4 *", "chess", "8/8/8 w - - 0 1"))
    assert e.code == "invalid-fen" and e.line == 2


def test_syntax_errors():
    assert bad('[Event "x"\n\n1. e4 *').code == "pgn-syntax"
    assert bad("1. e4 {never closed\n").code == "pgn-syntax"
    assert bad("1. e4 (1. d4 *\n").code == "pgn-syntax"
    e = bad("1. e4 } e5 *\n")                     # (this looped for ever, growing)
    assert e.code == "pgn-syntax" and "'}' without a matching '{'" in e.message and e.line == 1
    e = bad('[Result "1-0"]\n\n1. e4 0-1\n')
    assert e.code == "pgn-syntax" and "Result" in e.message
    assert bad("").code == "pgn-syntax"


def test_three_moves_in_one_turn_is_an_illegal_turn():
    report, g = one(game("1. e4,d4, Nf3 e5 *", "double-move-anul"))
    assert not report["ok"] and g["illegal"]["rule"] == "A1"
    assert g["illegal"]["reason"].startswith("Nf3: ") and "at most two moves" in g["illegal"]["reason"]


def test_unfinished_turn_before_the_next_move_number():
    e = bad(game("1. e4, 2. d4 *", "double-move-anul"))
    assert e.code == "invalid-move-text" and e.line == 3 and "another turn follows" in e.message


# ----------------------------------------------------------------- reading

def test_comments_nags_variations_and_numbers_are_skipped():
    text = ('[Variant "chess"]\n% an escaped line\n\n'
            "1.e4 $1 {best} e5!? (1... c5 2. Nf3) 2. Nf3 ; rest of line\nNc6 3.Bb5 a6 *\n")
    report, g = one(text)
    assert report["ok"] and g["turns"] == 6


def test_several_games_and_a_space_after_a_comma():
    text = (game("1. e4,Nf3 d5, Nc6 *", "double-move-anul", result="*")
            + "\n" + game("1. d4 *", "chess", result="*"))
    report = replay_text(text)
    assert report["ok"] and [g["turns"] for g in report["games"]] == [2, 1]
    assert [g["line"] for g in report["games"]] == [1, 6]
    assert parse_pgn(text)[0].turns[1].text == "d5,Nc6"


def test_record_may_stop_in_the_middle_of_its_last_turn():
    report, g = one(game("1. e4,Nf3 d5, *", "double-move-anul", result="*"))
    assert report["ok"] and "middle" in " ".join(g["notes"])
    assert g["final_fen"].endswith(" m")


def test_black_to_move_start():
    fen = "7k/8/8/8/3p4/8/4P3/7K b - - 0 1 WB"
    report, g = one(game("1... Kg8 2. e4,Kg1 *", "double-move", fen, "*"))
    assert report["ok"] and g["turns"] == 2


# ----------------------------------------------------------------- writing

def test_pgn_for_line_writes_tags_numbers_and_result():
    text = pgn_for_line("double-move", MATE_FEN, ["Qg8+,Qh7#"])
    assert '[Variant "double-move"]' in text and f'[FEN "{MATE_FEN}"]' in text
    assert '[SetUp "1"]' in text and '[Result "1-0"]' in text
    assert text.rstrip().endswith("1. Qg8+,Qh7# 1-0")
    start = pgn_for_line("chess", None, ["e4"])
    assert "FEN" not in start and start.rstrip().endswith("1. e4 *")


@pytest.mark.parametrize("variant", list(api.VARIANTS))
def test_random_lines_round_trip(variant):
    """A line written as PGN replays legally to the same position and status."""
    rules = variants.get(variant)
    rng = random.Random(f"pgn-{variant}")
    for _ in range(3):
        pos, tokens = rules.start, []
        for _ in range(rng.randint(4, 16)):
            if rules.status(pos)["over"]:
                break
            line, after = _random_turn(rules, pos, rng)
            texts = _turn_token(rules, pos, line).split(",")   # one token a move: a long series passes 64 characters
            tokens += [t + "," for t in texts[:-1]] + texts[-1:]
            pos = after
        text = pgn_for_line(variant, None, tokens)
        report, g = one(text)
        assert report["ok"], (text, g)
        want = api.handle({"op": "play", "variant": variant, "moves": tokens})
        assert api.same_fen(variant, g["final_fen"], want["fen"])
        assert g["status"] == want["status"]


def _random_turn(rules, pos, rng):
    """(moves, position after) of a random legal turn: drawn from the turn list, or move by
    move where the rules refuse to list the turns (a long progressive series, P8)."""
    try:
        return rng.choice(rules.turns(pos))
    except RulesError:
        line = []
        while True:
            move = rng.choice(sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m)))
            line.append(move)
            pos = rules.play(pos, move)
            if not rules.mid_turn(pos):
                return line, pos


def _turn_token(rules, pos, line):
    texts = []
    for m in line:
        texts.append(rules.move_text(pos, m).rstrip(","))
        pos = rules.play(pos, m)
    return ",".join(texts)


# --------------------------------------------------------------------- CLI

def test_cli_replay_exit_codes(capsys, tmp_path):
    good = tmp_path / "good.pgn"
    good.write_text(game("1. Qg8+,Qh7# 1-0", "double-move", MATE_FEN, "1-0"))
    assert cli_main(["replay", str(good)]) == 0
    assert "agrees with the board" in capsys.readouterr().out
    illegal = tmp_path / "illegal.pgn"
    illegal.write_text(game("1. Qg8+,Qh7# Kxh7,Kh8 *", "double-move", MATE_FEN))
    assert cli_main(["replay", str(illegal)]) == 1
    out = capsys.readouterr().out
    assert "ILLEGAL turn 1... (black, line 4): Kxh7,Kh8" in out
    unknown = tmp_path / "unknown.pgn"
    unknown.write_text(game("1. e4 *", "fischer-random"))
    assert cli_main(["replay", str(unknown)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown-variant: line 1: ") and err.count("\n") == 1
    assert cli_main(["replay", str(tmp_path / "missing.pgn")]) == 2
    assert capsys.readouterr().err.startswith("error: file-not-found: ")


@pytest.mark.parametrize("variant, movetext, label, middle, stopped_in", [
    # P9: series n is numbered n, whoever plays it; a record stopped inside series 3 says so
    ("progressive-scottish", "1. e4 2. e5 d5 3. exd5 Qe2 Kd1 4. a6 *", "4. (black, line 3): a6",
     "1. e4 2. e5 d5 3. exd5 Qe2, *", "3."),
    # fullmove numbers, shared by a White and a Black turn
    ("double-move", "1. e4 e5 2. Nf3,Nc3 Nc6,Nf6 3. Bc4 Nxe4,Nxc3 *",
     "3... (black, line 3): Nxe4,Nxc3", "1. e4 e5 2. Nf3, *", "2.")])
def test_cli_replay_numbers_turns_as_the_record_does(capsys, tmp_path, variant, movetext, label,
                                                     middle, stopped_in):
    illegal = tmp_path / "illegal.pgn"
    illegal.write_text(game(movetext, variant))
    assert cli_main(["replay", str(illegal)]) == 1
    assert f"ILLEGAL turn {label}" in capsys.readouterr().out
    stopped = tmp_path / "stopped.pgn"
    stopped.write_text(game(middle, variant))
    assert cli_main(["replay", str(stopped)]) == 0
    assert f"in the middle of White's turn {stopped_in}\n" in capsys.readouterr().out


def test_replay_file_reads_utf8_with_bom(tmp_path):
    path = tmp_path / "bom.pgn"
    path.write_bytes("\ufeff".encode() + game("1. e4 *").encode())
    assert replay_file(path)["ok"]


# ------------------------------------------------------ hostile records

def test_tag_values_with_escapes_and_malformed_tags():
    games = parse_pgn('[Event "a \\"b\\" c\\\\"]\n[Site ""]\n\n1. e4 *\n')
    assert games[0].tags == {"Event": 'a "b" c\\', "Site": ""}
    for tag in ('[Event "a"b"]', '[Event "a\\"]', '[Event "a\\\\\\"]', '[Event "a" "b"]', '[Event "a"'):
        assert bad(tag + "\n\n1. e4 *\n").code == "pgn-syntax", tag


def test_a_huge_tag_is_read_in_linear_memory():
    """Memory traced while a 5 MB tag value is read: the text, its copies, no per-character
    backtracking state (a pattern with a group per character kept ~170 bytes a character)."""
    import tracemalloc
    for value, expected in (("x" * 5_000_000, True), ('\\"' * 2_500_000, True),
                            ("x" * 4_999_999 + '"', "pgn-syntax")):
        text = f'[Event "{value}"]\n\n1. e4 *\n'
        tracemalloc.start()
        try:
            outcome = replay_text(text)["ok"]
        except PgnError as e:
            outcome = e.code
            assert len(e.message) < 400                       # the tag is quoted, clipped
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert outcome == expected
        assert peak < 8 * len(text), (len(text), peak)


def naive_history(rules, line) -> tuple:
    """The repetition history by its definition (G3): the identity of every position a
    step was played from that is a turn boundary, asked position by position."""
    return tuple(rules.identity(s.pos) for s in line.steps if not rules.mid_turn(s.pos))


@pytest.mark.parametrize("variant, first, cycle", [
    ("chess", ["Nf3"], ["Nf6", "Ng1", "Ng8", "Nf3"]),
    ("marseillais", ["Nc3"], ["Nf6,Ng8", "Nb1,Nc3"]),
    ("double-move-anul", [], ["Nc3,Nb1", "Nf6,Ng8"])])
def test_a_long_game_keeps_its_repetition_history_turn_by_turn(variant, first, cycle):
    """300 turns of knights going back and forth: every turn legal, and the status at the
    end is the one the whole history gives, counted position by position."""
    rules = variants.get(variant)
    turns = (first + cycle * 300)[:300]
    report, g = one(game(" ".join(turns), variant))
    assert g["legal"] and g["turns"] == 300
    line = api.replay(rules, None, turns)
    assert tuple(line.history) == naive_history(rules, line)
    assert g["status"] == rules.status(line.final, naive_history(rules, line))
    assert g["final_fen"] == rules.fen(line.final)


def test_a_refused_turn_leaves_the_history_as_it_was():
    """A turn whose first move is legal and second is not: the game is judged on the
    position before it, with the history of the turns before it only."""
    rules = variants.get("marseillais")
    turns = ["Nc3", "Nf6,Ng8", "Nb1,Nc3", "Nf6,Ng8", "Nb1,Nc3", "Nf6,Ng8"]   # White to move
    report, g = one(game(" ".join(turns + ["Nb1,Ke2"]), "marseillais"))    # (e2 holds a pawn)
    assert not g["legal"] and g["turns"] == 6 and g["illegal"]["number"] == 7
    line = api.replay(rules, None, turns)
    assert g["status"] == rules.status(line.final, naive_history(rules, line))
    assert g["status"]["claimable"] == ["threefold-repetition"]   # after turns 2, 4 and 6 (G3)


def test_replay_reads_at_most_16_mib(tmp_path, capsys):
    big = tmp_path / "big.pgn"
    with open(big, "wb") as f:
        f.truncate(16 * 2 ** 20 + 1)                           # sparse: nothing is written
    assert cli_main(["replay", str(big)]) == 2
    assert capsys.readouterr().err.startswith(f"error: file-too-large: {big} holds more than 16 MiB")
    if os.path.exists("/dev/zero"):                            # a device without end
        assert cli_main(["replay", "/dev/zero"]) == 2
        assert capsys.readouterr().err.startswith("error: file-too-large: /dev/zero")
    assert cli_main(["replay", str(tmp_path)]) == 2            # a directory
    assert capsys.readouterr().err.startswith("error: unreadable-file: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_replay_reads_a_pipe_and_never_waits_to_open_one(tmp_path):
    fifo = tmp_path / "game.pgn"
    os.mkfifo(fifo)
    with pytest.raises(PgnError) as e:                         # nobody writes: empty, at once
        replay_file(fifo)
    assert e.value.code == "pgn-syntax" and "no game" in e.value.message
    writer = threading.Thread(target=lambda: fifo.write_text(game("1. e4 e5 *")))
    writer.start()
    try:
        report = None
        for _ in range(200):                                   # (the writer opens it first)
            try:
                report = replay_file(fifo)
                break
            except PgnError:
                time.sleep(0.05)
    finally:
        writer.join(timeout=30)
    assert report is not None and report["ok"] and report["games"][0]["turns"] == 2


def test_tag_pairs_are_read_as_the_pgn_grammar_says():
    """On short lines, the linear reading agrees with the grammar written as one pattern
    (a value is characters other than quote and backslash, or a backslash and any
    character), which is exact but keeps state per character."""
    import re
    grammar = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
    rng = random.Random(5)
    for _ in range(20000):
        line = '[Event "' + "".join(rng.choice('a"\\] [') for _ in range(rng.randint(0, 9)))
        line = (line + '"]' if rng.random() < 0.8 else line).strip()
        m = grammar.fullmatch(line)
        want = m and (m[1], m[2].replace('\\"', '"').replace("\\\\", "\\"))
        try:
            games = parse_pgn(line + "\n\n1. e4 *\n")
            got = next(iter(games[0].tags.items()))
        except PgnError as e:
            assert e.code == "pgn-syntax"
            got = None
        assert got == (want or None), line
