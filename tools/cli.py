"""The ``doublecheck`` command line: run the suite, look up rules questions, generate cases."""

import argparse
import json
import sys
import textwrap

from tools.cases import CASES_DIR

MAIN_EPILOG = """\
examples:
  doublecheck run                              run every case against the built-in oracle
  doublecheck run --variant chess 'chess/castling/*'
  doublecheck moves --fen '4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1'
  doublecheck play --moves "e2e4 e7e5 Nf3" --json
  doublecheck perft --depth 3 --divide
  doublecheck rules G3                         show a rule and the cases that test it

Run 'doublecheck COMMAND --help' for the options of one command.
Exit status: 0 success, 1 failing cases (run) or stale files (generate --check),
2 bad input (an invalid FEN, an illegal move, an unknown variant) or bad case files.
"""

LOOKUPS = {
    "moves": ("list the legal next moves", """\
Prints the legal moves of the side to move, one per line, in coordinate
notation (e2e4, e7e8q, e1g1 for castling).

examples:
  doublecheck moves
  doublecheck moves --moves "e2e4 e7e5" --json
  doublecheck moves --variant chess --fen '8/8/8/4k3/8/8/4P3/4K3 w - - 0 1'
"""),
    "turns": ("list the legal complete turns", """\
A turn is everything one side does before the other side moves: one move in
chess, one or two in the double-move variants. The moves of a turn are joined
by commas (g3g8,g8h7). From a position in the middle of a turn, lists the ways
to finish it.

examples:
  doublecheck turns --variant double-move-anul
  doublecheck turns --moves "e2e4" --json
"""),
    "perft": ("count move sequences to a given depth", """\
Counts the sequences of DEPTH moves (or complete turns, with --turns) that the
rules allow. --divide also prints the count below each first move.

examples:
  doublecheck perft --depth 3               prints  Nodes: 8902
  doublecheck perft --depth 2 --divide      one 'e2e4: 20' line per move, then the total
  doublecheck perft --depth 2 --turns --variant double-move --json
"""),
    "play": ("play moves and show the resulting position and status", """\
Plays the moves given with --moves (space-separated, coordinate text or SAN)
from --fen or the start position, then prints the FEN and the game status.
Repetitions are counted over the positions the moves pass through.

examples:
  doublecheck play --moves "e2e4 e7e5 g1f3"
  doublecheck play --moves "f3 e5 g4 Qh4#" --json
"""),
    "status": ("say whether the game is over, and why", """\
Prints whether the game is over (and the result and reason), and which draws
the side to move could claim.

examples:
  doublecheck status --fen '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1'
  doublecheck status --moves "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8" --json
"""),
    "fen": ("check a FEN and print it normalised", """\
Reads a FEN (after playing --moves, if given) and prints it in normal form;
an invalid FEN is reported with the reason.

examples:
  doublecheck fen --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
  doublecheck fen --moves "e2e4 c7c5" --json
"""),
}

REASONS = {
    "checkmate": "checkmate", "stalemate": "stalemate", "dead-position": "dead position",
    "seventy-five-moves": "the seventy-five-move rule",
    "fivefold-repetition": "fivefold repetition", "no-legal-turn": "having no legal turn",
    "no-king": "loss of the kings",
}
CLAIMS = {"fifty-moves": "the fifty-move rule", "threefold-repetition": "threefold repetition"}


def status_text(status: dict) -> str:
    claims = [CLAIMS.get(c, c) for c in status.get("claimable", [])]
    claim = f" A draw can be claimed by {' or '.join(claims)}." if claims else ""
    if not status.get("over"):
        return "The game is in progress." + claim
    result = status.get("result")
    winner = {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "drawn"}.get(result, result)
    reason = REASONS.get(status.get("reason"), status.get("reason"))
    return f"The game is over: {winner} ({result}) by {reason}."


def as_text(op: str, result: dict) -> str:
    if op in ("moves", "turns"):
        return "\n".join(sorted(result[op]))
    if op == "perft":
        lines = [f"{m}: {n}" for m, n in sorted(result.get("divide", {}).items())]
        return "\n".join(lines + ([""] if lines else []) + [f"Nodes: {result['nodes']}"])
    if op == "play":
        return result["fen"] + "\n" + status_text(result["status"])
    if op == "status":
        return status_text(result["status"])
    return result["fen"]


def fail(code: str, message: str, as_json: bool = False) -> int:
    if as_json:
        print(json.dumps({"error": {"code": code, "message": message}}))
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def lookup(args) -> int:
    from oracle import api
    from tools.engines import OracleEngine

    if args.variant not in api.VARIANTS:
        return fail("unknown-variant", f"unknown variant '{args.variant}' "
                    f"(known: {', '.join(api.VARIANTS)})", args.json)
    req = {"op": args.command, "variant": args.variant}
    if args.fen is not None:
        req["fen"] = args.fen
    if args.moves is not None:
        req["moves"] = args.moves.split()
    if args.command == "perft":
        req.update(depth=args.depth, divide=args.divide, turns=args.turns)
    answer = OracleEngine().request(req)
    if not answer.pop("ok"):
        return fail(answer["error"]["code"], answer["error"]["message"], args.json)
    print(json.dumps(answer) if args.json else as_text(args.command, answer))
    return 0


def rules(args) -> int:
    from tools.cases import load_cases, load_rules

    catalogue, problems = load_rules(args.cases_dir)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.id is None:
        if args.json:
            print(json.dumps({"rules": list(catalogue.values())}))
        else:
            w = max((len(i) for i in catalogue), default=0)
            for rule_id, rule in catalogue.items():
                print(f"{rule_id:<{w}}  {rule.get('title', '')}")
        return 0
    rule = catalogue.get(args.id)
    if rule is None:
        return fail("unknown-rule", f"no rule with id '{args.id}' in {args.cases_dir}", args.json)
    cases, _ = load_cases(args.cases_dir)
    cited = [c.id for c in cases if args.id in c.rules]
    if args.json:
        print(json.dumps({"rule": rule, "cases": cited}))
        return 0
    print(f"{args.id}: {rule.get('title', '')}")
    print(textwrap.fill(rule.get("statement", ""), 78, initial_indent="  ", subsequent_indent="  "))
    print(f"Source: {rule.get('source', '')}")
    print(f"Variants: {', '.join(rule.get('variants', []))}")
    print(f"Cases ({len(cited)}):")
    for case_id in cited:
        print(f"  {case_id}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="doublecheck", formatter_class=fmt, epilog=MAIN_EPILOG,
        description="Rules-conformance suite and reference oracle for double-move chess variants.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run the conformance cases against the oracle",
                         formatter_class=fmt, description="""\
Runs the cases (all, or a selection) against the built-in oracle and prints a
summary per variant and operation, then a diff for every failing case.
Exit status: 0 when every selected case passes (skipped cases do not fail the
run), 1 when a case fails or errors, 2 for bad case files or an empty selection.""",
                         epilog="""\
examples:
  doublecheck run
  doublecheck run --variant chess --max-nodes 200000
  doublecheck run 'chess/castling/*' 'chess/en-passant/*'
  doublecheck run --rule FIDE-3.8.2
""")
    run.add_argument("patterns", nargs="*", metavar="PATTERN",
                     help="case id glob (chess/castling/*); a plain prefix selects everything below it")
    run.add_argument("--variant", help="only cases of this variant")
    run.add_argument("--rule", help="only cases that cite this rule id")
    run.add_argument("--max-nodes", type=int, metavar="N",
                     help="skip perft cases expecting more than N nodes (quick runs)")
    run.add_argument("--cases-dir", default=CASES_DIR, help="case tree to run (default: %(default)s)")

    for op, (summary, description) in LOOKUPS.items():
        description, _, examples = description.partition("examples:")
        p = sub.add_parser(op, help=summary, description=description.strip(),
                           epilog="examples:" + examples, formatter_class=fmt)
        p.add_argument("--variant", default="chess", help="variant id (default: chess)")
        p.add_argument("--fen", help="position (default: the variant's start position)")
        p.add_argument("--moves", metavar='"M1 M2 ..."',
                       help="space-separated moves played first (coordinates or SAN)")
        if op == "perft":
            p.add_argument("--depth", type=int, required=True, help="number of moves (or turns)")
            p.add_argument("--divide", action="store_true", help="also count below each first move")
            p.add_argument("--turns", action="store_true", help="count complete turns, not moves")
        p.add_argument("--json", action="store_true", help="print one JSON object")

    gen = sub.add_parser("generate", help="write (or check) the generated case files",
                         formatter_class=fmt, description="""\
Writes the generated case files (random playouts, perft tables) from the
oracle, deterministically. Files not marked "generated": true are never
overwritten. With --check nothing is written: exits 1 naming every generated
file whose committed text differs from what would be written.""",
                         epilog="""\
examples:
  doublecheck generate
  doublecheck generate --check
  doublecheck generate --variant chess
""")
    gen.add_argument("--check", action="store_true", help="compare only; write nothing")
    gen.add_argument("--variant", help="only the generators of this variant")
    gen.add_argument("--cases-dir", default=CASES_DIR, help="case tree (default: %(default)s)")

    rul = sub.add_parser("rules", help="list the rule catalogue, or show one rule",
                         formatter_class=fmt, description="""\
Without an id, lists every rule and ruling id with its title. With an id, shows
the rule's statement and source and the ids of the cases that test it.""",
                         epilog="""\
examples:
  doublecheck rules
  doublecheck rules G3
  doublecheck rules FIDE-3.8.2 --json
""")
    rul.add_argument("id", nargs="?", help="a rule id (G3, FIDE-3.8.2, ...)")
    rul.add_argument("--json", action="store_true", help="print one JSON object")
    rul.add_argument("--cases-dir", default=CASES_DIR, help="case tree (default: %(default)s)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            from tools.runner import run_command
            return run_command(args.cases_dir, args.variant, args.rule, args.patterns,
                               args.max_nodes)
        if args.command == "generate":
            from tools.generate import generate_command
            return generate_command(args.cases_dir, args.variant, args.check)
        if args.command == "rules":
            return rules(args)
        return lookup(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # never show a traceback to the user
        return fail("internal-error", f"{type(e).__name__}: {e}", getattr(args, "json", False))


if __name__ == "__main__":
    sys.exit(main())
