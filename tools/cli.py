"""The ``doublecheck`` command line: run the suite, look up rules questions, generate cases."""

import argparse
import json
import os
import sys
import textwrap

from tools.cases import CASES_DIR
from tools.lookup_cli import add_commands, add_lookup_options, lookup_extras

MAIN_EPILOG = """\
examples:
  doublecheck run                              run every case against the built-in oracle
  doublecheck run --variant chess 'chess/castling/*'
  doublecheck run --engine "./my-engine"       check your engine (protocol: docs/protocol.md)
  doublecheck serve                            the oracle as a protocol engine on stdin/stdout
  doublecheck moves --fen '4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1'
  doublecheck play --moves "e2e4 e7e5 Nf3" --json
  doublecheck perft --depth 3 --divide
  doublecheck rules G3                         show a rule and the cases that test it

Run 'doublecheck COMMAND --help' for the options of one command.
Exit status: 0 success, 1 failing cases (run) or stale files (generate --check),
2 bad input (an invalid FEN, an illegal move, an unknown variant), bad case files
or an unusable engine, 130 interrupted.
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

def as_text(op: str, result: dict) -> str:
    from tools.lookup import status_sentence

    if op in ("moves", "turns"):
        return "\n".join(sorted(result[op]))
    if op == "perft":
        lines = [f"{m}: {n}" for m, n in sorted(result.get("divide", {}).items())]
        return "\n".join(lines + ([""] if lines else []) + [f"Nodes: {result['nodes']}"])
    if op == "play":
        return result["fen"] + "\n" + status_sentence(result["status"])
    if op == "status":
        return status_sentence(result["status"])
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
    handled = lookup_extras(args)
    if handled is not None:
        return handled
    req = {"op": args.command, "variant": args.variant}
    if args.fen is not None:
        req["fen"] = args.fen
    if args.moves is not None:
        req["moves"] = args.moves.split()
    if args.command == "perft":
        req.update(depth=args.depth, divide=args.divide, turns=args.turns)
        if args.jobs > 1:
            return parallel_perft(args, req)
    answer = OracleEngine().request(req)
    if not answer.pop("ok"):
        return fail(answer["error"]["code"], answer["error"]["message"], args.json)
    print(json.dumps(answer) if args.json else as_text(args.command, answer))
    return 0


def parallel_perft(args, req) -> int:
    """perft --jobs N: the same answer as perft, split over N processes by first step."""
    from oracle.errors import RulesError
    from tools.parallel_perft import parallel_divide

    if req["depth"] < 1:
        return fail("invalid-request", "--jobs needs --depth 1 or more", args.json)
    try:
        table = parallel_divide(args.variant, req.get("fen"), req.get("moves"), req["depth"],
                                turns=args.turns, jobs=args.jobs)
    except RulesError as e:
        return fail(e.code, e.message, args.json)
    answer = {"nodes": sum(table.values())}
    if args.divide:
        answer["divide"] = table
    print(json.dumps(answer) if args.json else as_text("perft", answer))
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


def run(args) -> int:
    from tools.engines import EngineSpec
    from tools.html_report import write_html_report
    from tools.runner import run_command

    timeout = args.timeout if args.timeout > 0 else None
    spec = EngineSpec(command=args.engine, adapter=args.adapter, timeout=timeout)
    if args.engine and args.engine.startswith("uci:"):   # a UCI engine, through tools/uci.py
        from tools.uci import UciEngine
        uci = args.engine[len("uci:"):]
        spec = EngineSpec(factory=lambda: UciEngine(uci, timeout), label=f"UCI engine {uci!r}")
    return run_command(args.cases_dir, args.variant, args.rule, args.patterns, args.max_nodes,
                       spec=spec, jobs=args.jobs, give_up=args.give_up, fmt=args.format,
                       json_file=args.json, junit_file=args.junit, xfail_file=args.xfail,
                       write_xfail=args.write_xfail, force=args.force,
                       extra_reports=[(args.html, write_html_report)] if args.html else [])


def add_mutants(sub, fmt):
    # Listed here for `doublecheck --help`; main() hands `mutants ...` to tools.mutants,
    # which owns its options (doublecheck mutants --help).
    sub.add_parser("mutants", help="run the suite against deliberately wrong rules (suite strength)",
                   add_help=False)


def serve(args) -> int:
    from tools.serve import serve_command
    return serve_command(args.adapter)


def generate(args) -> int:
    from tools.generate import generate_command
    return generate_command(args.cases_dir, args.variant, args.check)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {value}")
    return value


def add_run(sub, fmt):
    p = sub.add_parser("run", help="run the conformance cases against an implementation",
                       formatter_class=fmt, description="""\
Runs the cases (all, or a selection) against an implementation and prints a
summary per variant and operation, then a diff for every failing case.
The implementation is the built-in oracle unless --engine (a program speaking
the JSON-lines protocol, see docs/protocol.md) or --adapter (a Python class,
in-process) names another. Cases for variants or operations the engine does
not claim in its hello are skipped, never passed.

Exit status: 0 when every selected case passes (skipped and expected failures
do not fail the run); 1 when a case fails, errors, or unexpectedly passes;
2 for bad case files, an empty selection, an unusable engine (it does not start,
refuses hello, or speaks another protocol version) or a bad xfail file;
130 when interrupted (the reports hold the cases that finished).""",
                       epilog="""\
examples:
  doublecheck run
  doublecheck run --variant chess --max-nodes 200000
  doublecheck run 'chess/castling/*' 'chess/en-passant/*'
  doublecheck run --rule FIDE-3.8.2
  doublecheck run --engine "./my-engine --protocol" --timeout 5 --jobs 4
  doublecheck run --adapter my_adapter:Adapter --xfail known-failures.txt
  doublecheck run --engine "doublecheck serve" --junit report.xml --format markdown
""")
    p.add_argument("patterns", nargs="*", metavar="PATTERN",
                   help="case id glob (chess/castling/*); a plain prefix selects everything below it")
    p.add_argument("--variant", help="only cases of this variant")
    p.add_argument("--rule", help="only cases that cite this rule id")
    p.add_argument("--max-nodes", type=int, metavar="N",
                   help="skip perft cases expecting more than N nodes (quick runs)")
    p.add_argument("--cases-dir", default=CASES_DIR, help="case tree to run (default: %(default)s)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--engine", metavar='"CMD ARGS"',
                     help="run this command (split like a shell would) as a protocol engine; "
                          "uci:PATH checks a UCI chess engine (docs/uci-bridge.md)")
    who.add_argument("--adapter", metavar="MODULE:CLASS",
                     help="load this Python adapter class in-process (see docs/protocol.md)")
    p.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS",
                   help="per-request limit for engine processes (default: %(default)g; 0: none)")
    p.add_argument("--jobs", type=positive, default=1, metavar="N",
                   help="run N engine processes in parallel (the oracle and adapters are then "
                        "run by N 'doublecheck serve' processes)")
    p.add_argument("--give-up", type=int, default=5, metavar="N",
                   help="after N crashes or timeouts in a row, send that engine no more cases; "
                        "they are reported as errors (default: %(default)s; 0: never)")
    p.add_argument("--format", choices=("text", "markdown"), default="text",
                   help="report printed on stdout (markdown suits CI job summaries)")
    p.add_argument("--json", metavar="FILE", help="also write a JSON report (schemas/report.schema.json)")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--html", metavar="FILE",
                   help="also write an HTML report: each failing case with its board (docs/lookups.md)")
    p.add_argument("--xfail", metavar="FILE",
                   help="expected failures: case ids with reasons (see docs/harness.md)")
    p.add_argument("--write-xfail", metavar="FILE",
                   help="write the current failures as an xfail file (refuses to replace a file)")
    p.add_argument("--force", action="store_true", help="let --write-xfail replace an existing file")
    p.set_defaults(handler=run)


def add_serve(sub, fmt):
    p = sub.add_parser("serve", help="answer protocol requests on stdin/stdout (the oracle as an engine)",
                       formatter_class=fmt, description="""\
Speaks the JSON-lines engine protocol (docs/protocol.md): one request per line
on stdin, one response per line on stdout, until end of input. This is the
reference server; --adapter serves a Python adapter class instead of the oracle.""",
                       epilog="""\
examples:
  doublecheck serve
  echo '{"id": 1, "op": "moves", "variant": "chess"}' | doublecheck serve
  doublecheck run --engine "doublecheck serve"
  doublecheck serve --adapter my_adapter:Adapter
""")
    p.add_argument("--adapter", metavar="MODULE:CLASS", help="serve this adapter instead of the oracle")
    p.set_defaults(handler=serve)


def add_lookups(sub, fmt):
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
            p.add_argument("--jobs", type=positive, default=1, metavar="N",
                           help="split the count by first move over N processes (default 1)")
        add_lookup_options(op, p)
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(handler=lookup)


def add_generate(sub, fmt):
    p = sub.add_parser("generate", help="write (or check) the generated case files",
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
    p.add_argument("--check", action="store_true", help="compare only; write nothing")
    p.add_argument("--variant", help="only the generators of this variant")
    p.add_argument("--cases-dir", default=CASES_DIR, help="case tree (default: %(default)s)")
    p.set_defaults(handler=generate)


def add_rules(sub, fmt):
    p = sub.add_parser("rules", help="list the rule catalogue, or show one rule",
                       formatter_class=fmt, description="""\
Without an id, lists every rule and ruling id with its title. With an id, shows
the rule's statement and source and the ids of the cases that test it.""",
                       epilog="""\
examples:
  doublecheck rules
  doublecheck rules G3
  doublecheck rules FIDE-3.8.2 --json
""")
    p.add_argument("id", nargs="?", help="a rule id (G3, FIDE-3.8.2, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--cases-dir", default=CASES_DIR, help="case tree (default: %(default)s)")
    p.set_defaults(handler=rules)


# Each entry adds one subcommand (its parser sets ``handler``); the order is the --help order.
SUBCOMMANDS = [add_run, add_serve, add_lookups, add_commands, add_generate, add_rules, add_mutants]


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="doublecheck", formatter_class=fmt, epilog=MAIN_EPILOG,
        description="Rules-conformance suite and reference oracle for double-move chess variants.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub, fmt)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["mutants"]:
            from tools.mutants import main as mutants_main
            return mutants_main(argv[1:])
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # never show a traceback to the user
        return fail("internal-error", f"{type(e).__name__}: {e}", "--json" in argv)


if __name__ == "__main__":
    sys.exit(main())
