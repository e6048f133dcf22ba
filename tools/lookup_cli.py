"""Command-line front of the lookups: ``show``, ``explain``, ``replay``, ``svg``.

``add_commands(subparsers, fmt)`` registers the four subcommands on the
``doublecheck`` parser.  Three hooks extend existing commands:
``add_lookup_options(op, parser)`` adds ``turns --grouped`` and
``play --pgn FILE`` and ``lookup_extras(args)`` runs them; ``run --html FILE``
is written by ``tools.html_report.write_html_report``.

Conventions as in tools/cli.py: ``--variant`` (default chess), ``--fen``,
``--moves "M1 M2"``, ``--json``; bad input is one line
``error: <code>: <message>`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys


SHOW_HELP = ("draw the position in the terminal, with its turn state and status", """\
Draws the board (Unicode pieces; --ascii for letters), with coordinates on
every side, for every board shape: 16 files for double-chess, the extra
squares c0-f0 and c9-f9 for symmetric-monster (squares the board does not
have stay blank; * marks a double-piece). Below it: the FEN, castling and en
passant, the variant's turn state (Double Moves left, between two halves,
double-kings in hand, the first action of a double turn), the number of legal
moves and of legal turns, and the game status.""", """\
examples:
  doublecheck show
  doublecheck show --variant double-chess --ascii
  doublecheck show --variant symmetric-monster --moves "e4 e5"
  doublecheck show --variant double-move --fen 'r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB' --moves "Qg8+,"
  doublecheck show --variant double-move-anul --moves "e4," --json
""")

EXPLAIN_HELP = ("say whether a move or a turn is legal, and if not, why", """\
Checks one move (--move) or one whole turn (--turn, its moves joined by
commas) at the position reached by --fen and --moves. Moves may be SAN or
coordinates. A refused move is explained with a concrete reason and the id of
the rule that decides it (look it up with 'doublecheck rules ID'): no piece on
the square, the piece does not move that way, a line is blocked, the king
would be left in check (naming the attacker), which castling condition fails,
or the variant's own turn rules (Double Move, the brake on move one,
double-piece turns). A legal one is shown with its SAN, coordinates and the
position and status after it.

--turn asks about a complete turn: a turn that stops where the rules demand a
second move is refused as incomplete. --move asks about one move, which may be
the first half of a turn (in double-move write the opening half of a Double
Move with a trailing comma: --move "Qg8+,").

Exit status: 0 legal, 1 not legal, 2 bad input (unknown variant, invalid FEN,
an illegal move in --moves, move text that cannot be read).""", """\
examples:
  doublecheck explain --move e2e5
  doublecheck explain --variant double-move --fen 'r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB' --turn "Qg8+,Qh7#"
  doublecheck explain --variant double-move --fen 'r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB' --moves "Qg8+,Qh7#" --turn "Kxh7,Kh8"
      prints: Reason: Kxh7: h7 is attacked by the pawn on g6; every half of a
              Double Move must be legal on its own (DM-every-half-legal)
  doublecheck explain --variant double-move --fen '7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB' --moves "e4,Kg1" --move dxe3
  doublecheck explain --variant double-move-anul --moves "e4,d4 d5,Nc6" --turn "exd5,Nf3" --json
  doublecheck explain --variant symmetric-monster --move K@e4
""")

REPLAY_HELP = ("check a PGN game record turn by turn", """\
Reads PGN with a Variant tag (a variant id of this project; none means chess)
and an optional FEN tag. The moves of one turn are joined by commas:
'3. Na5,Bd3 e6,f4'. Every turn is checked; the first illegal one is printed
with its reason and rule, and the final position's status is compared with
the Result tag. A file may hold several games.

Exit status: 0 every game legal and its Result agrees with the board; 1 a game
has an illegal turn, or its Result contradicts the final position; 2 the file
cannot be used (missing file, PGN syntax, unknown Variant or Result value,
invalid FEN, move text that cannot be read: the message names the line).""", """\
examples:
  doublecheck replay game.pgn
  doublecheck replay game.pgn --json
  doublecheck play --variant double-move --moves "e4,d4 e5" --pgn game.pgn   (write one)

a record:
  [Variant "double-move"]
  [FEN "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"]
  [Result "1-0"]

  1. Qg8+,Qh7# 1-0
""")

SVG_HELP = ("draw the position as an SVG picture", """\
Writes an SVG picture of the position reached by --fen and --moves (to
--output FILE, replacing it, or to stdout): squares the board has, coordinates,
pieces as lettered discs (light for White, dark for Black, a double ring for a
double-piece), the side to move and the variant's FEN fields. --turn draws a
turn as numbered arrows (SAN or coordinates; a turn the rules refuse is drawn
only when written in coordinates). A drop is a dashed circle.""", """\
examples:
  doublecheck svg --output start.svg
  doublecheck svg --variant double-move --fen 'r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB' --turn "Qg8+,Qh7#" --output mate.svg
  doublecheck svg --variant symmetric-monster --fen '*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -' --turn "K@d0,*Ke1"
  doublecheck svg --variant double-chess > double-chess.svg
""")


def fail(code: str, message: str, as_json: bool = False) -> int:
    if as_json:
        print(json.dumps({"error": {"code": code, "message": message}}))
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def _common(p, json_help="print one JSON object"):
    p.add_argument("--variant", default="chess", help="variant id (default: chess)")
    p.add_argument("--fen", help="position (default: the variant's start position)")
    p.add_argument("--moves", metavar='"M1 M2 ..."',
                   help="space-separated moves played first (coordinates or SAN; a turn's "
                        "moves joined by commas)")
    p.add_argument("--json", action="store_true", help=json_help)


def _moves(args):
    return args.moves.split() if args.moves else []


def _guarded(handler):
    """Run a handler; a RulesError or PgnError becomes the one-line error and exit 2."""
    def run(args) -> int:
        from oracle.errors import RulesError
        from tools.pgn import PgnError
        try:
            return handler(args)
        except (RulesError, PgnError) as e:
            return fail(e.code, e.message, getattr(args, "json", False))
    run.__name__ = handler.__name__
    return run


def add_commands(sub, fmt=None) -> None:
    """Register show, explain, replay and svg on the ``doublecheck`` subparsers."""
    fmt = fmt or argparse.RawDescriptionHelpFormatter
    for name, (summary, description, epilog), handler, extra in (
            ("show", SHOW_HELP, show_command, _show_options),
            ("explain", EXPLAIN_HELP, explain_command, _explain_options),
            ("replay", REPLAY_HELP, replay_command, _replay_options),
            ("svg", SVG_HELP, svg_command, _svg_options)):
        p = sub.add_parser(name, help=summary, description=description, epilog=epilog,
                           formatter_class=fmt)
        extra(p)
        p.set_defaults(handler=_guarded(handler))


def _show_options(p):
    _common(p)
    p.add_argument("--ascii", action="store_true", help="letters instead of Unicode pieces")


def _explain_options(p):
    _common(p, "print one JSON object (keys: docs/lookups.md)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--move", metavar="M", help="one move: Kxh7, e7e8q, O-O, K@e0, Qg8+,")
    what.add_argument("--turn", metavar="T", help="a whole turn, moves joined by commas: Kxh7,Kh8")


def _replay_options(p):
    p.add_argument("file", metavar="FILE.pgn", help="the PGN file")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _svg_options(p):
    p.add_argument("--variant", default="chess", help="variant id (default: chess)")
    p.add_argument("--fen", help="position (default: the variant's start position)")
    p.add_argument("--moves", metavar='"M1 M2 ..."', help="space-separated moves played first")
    p.add_argument("--turn", metavar="T", help="draw this turn as numbered arrows: Qg8+,Qh7#")
    p.add_argument("--title", help="the picture's title (default: variant and FEN)")
    p.add_argument("--output", "-o", metavar="FILE", help="write here (default: stdout)")


# ------------------------------------------------------------------ handlers

def show_command(args) -> int:
    from tools import lookup
    if args.json:
        print(json.dumps(lookup.show_data(args.variant, args.fen, _moves(args))))
    else:
        print(lookup.show(args.variant, args.fen, _moves(args), ascii_only=args.ascii))
    return 0


def explain_command(args) -> int:
    from tools import lookup
    result = lookup.explain(args.variant, args.fen, _moves(args), move=args.move, turn=args.turn)
    if not result["legal"] and result["code"] == "invalid-move-text":
        return fail("invalid-move-text", result["reason"], args.json)
    print(json.dumps(result) if args.json else lookup.explain_text(result))
    return 0 if result["legal"] else 1


def replay_command(args) -> int:
    from tools import pgn
    report = pgn.replay_file(args.file)
    print(json.dumps(report) if args.json else pgn.report_text(report))
    return pgn.exit_code(report)


def svg_command(args) -> int:
    from tools.svg import svg_for
    text = svg_for(args.variant, args.fen, _moves(args), turn=args.turn, title=args.title)
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        return fail("cannot-write", f"{args.output}: {e.strerror or e}")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


# ------------------------------------------------ hooks for existing commands

def add_lookup_options(op: str, p) -> None:
    """Options this module adds to the existing lookups: ``turns --grouped``, ``play --pgn``."""
    if op == "turns":
        p.add_argument("--grouped", action="store_true",
                       help="group the turns by their first move, in SAN and coordinates")
    if op == "play":
        p.add_argument("--pgn", metavar="FILE",
                       help="also write the line as PGN to FILE ('-': print only the PGN)")


def lookup_extras(args) -> int | None:
    """Run ``turns --grouped`` or ``play --pgn``; None when the plain command should run."""
    if args.command == "turns" and getattr(args, "grouped", False):
        return _guarded(turns_grouped)(args)
    if args.command == "play" and getattr(args, "pgn", None):
        code = _guarded(write_pgn)(args)
        if code != 0 or args.pgn == "-":
            return code
    return None


def turns_grouped(args) -> int:
    from tools import lookup
    data = lookup.grouped_turns(args.variant, args.fen, _moves(args))
    print(json.dumps(data) if args.json else lookup.grouped_turns_text(data))
    return 0


def write_pgn(args) -> int:
    from tools.pgn import pgn_for_line
    text = pgn_for_line(args.variant, args.fen, _moves(args))
    if args.pgn == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.pgn, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        return fail("cannot-write", f"{args.pgn}: {e.strerror or e}", getattr(args, "json", False))
    return 0


def main(argv=None) -> int:
    """A stand-alone entry for these commands (``python -m tools.lookup_cli show ...``)."""
    parser = argparse.ArgumentParser(prog="doublecheck", formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_commands(sub)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # never show a traceback
        return fail("internal-error", f"{type(e).__name__}: {e}", getattr(args, "json", False))


if __name__ == "__main__":
    sys.exit(main())
