"""The ``doublecheck`` command line: every subcommand's parser, the shared options, one way to fail.

Each subcommand is an ``add_*`` function below that builds its parser and
sets its handler, a named function beside it (``add_run`` sets ``run_handler``;
``main`` calls ``args.handler``).  Every handler has one shape: it imports the
module of its job (``harness``, ``lookups``, ``authoring``, ...) in its own body,
so that building the parser, and so ``doublecheck --help``, loads none of them
(benchmarks/startup_bench.py), then calls it.  The jobs either return the exit
status or raise an error with a stable code (``RulesError``, ``PgnError``, ``DataError``,
``HelloError``), which ``main`` prints as one line, ``error: <code>:
<message>``, on stderr (with ``--json`` also ``{"error": {...}}`` on stdout)
and turns into exit status 2.  A usage error (an unknown option, a bad
option value) is reported the same way, code ``usage``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import sys

from doublecheck.defaults import (CASES_PER_JOB, DESK_MAX_BODY, DESK_PORT, MUTANTS_MAX_NODES,
                                  QUICK_MAX_NODES, SERVE_BUDGET, SLOW_RATE, SLOW_TURN_RATE, SPLIT_NODES,
                                  TIMEOUT)
from doublecheck.harness.report import REPORT_FILES, STDOUT_FORMATS
from doublecheck.resource_limits import (AUTO_JOBS_CAP, JOBS_AUTO, JOBS_PER_CORE, MAX_TIMEOUT, MIN_TIMEOUT, cpu_cores,
                                max_jobs)
from doublecheck.harness.operations import OPERATIONS
from doublecheck.oracle.errors import INTERNAL_ERROR, UNUSABLE_ENGINE, UsageError, quote
from doublecheck.packaged import CASES_DIR

MAIN_EPILOG = """\
examples:
  doublecheck run                              run every case against the built-in oracle
  doublecheck run --variant chess 'chess/castling/*'
  doublecheck run --engine "./my-engine"       check your engine (doublecheck docs protocol)
  doublecheck serve                            the oracle as a protocol engine on stdin/stdout
  doublecheck moves --fen '4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1'
  doublecheck play --moves "e2e4 e7e5 Nf3" --json
  doublecheck perft --depth 3 --divide
  doublecheck rules G3                         show a rule and the cases that test it
  doublecheck diff main.json branch.json       what changed between two runs' JSON reports
  doublecheck desk                             the rules desk: a web page on this machine

Run 'doublecheck COMMAND --help' for the options of one command, and
'doublecheck docs' for the documentation (a bare 'doublecheck' prints this help).
Exit status: 0 success, 1 failing cases (run), newly failing ones (diff) or stale
files (generate --check),
2 bad input (an invalid FEN, an illegal move, an unknown variant), bad case files
or an unusable engine, 130 interrupted.
"""


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
pieces as chess figures (light for White, dark for Black, a doubled figure for
a double-piece), the side to move and the variant's FEN fields. --turn draws a
turn as numbered arrows (SAN or coordinates; a turn the rules refuse is drawn
only when written in coordinates). A drop is a dashed circle.""", """\
examples:
  doublecheck svg --output start.svg
  doublecheck svg --variant double-move --fen 'r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB' --turn "Qg8+,Qh7#" --output mate.svg
  doublecheck svg --variant symmetric-monster --fen '*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -' --turn "K@d0,*Ke1"
  doublecheck svg --variant double-chess > double-chess.svg
""")


# ------------------------------------------------------------------ failing

def fail(code: str, message: str, as_json: bool = False) -> int:
    """Print one error line (and with --json one JSON object on stdout); exit status 2."""
    if as_json:
        print(json.dumps({"error": {"code": code, "message": message}}))
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


class Parser(argparse.ArgumentParser):
    """argparse, raising UsageError instead of printing and exiting on a bad command line."""

    def error(self, message):
        raise UsageError(message, self.prog)


# ------------------------------------------------------------ option values

# Each checks one kind of value and says what it wants (docs/protocol.md, "Limits").

def _whole(text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        raise argparse.ArgumentTypeError(f"must be a whole number, not {quote(text, 40)}")
    return int(text)


def count(text: str) -> int:
    """A whole number >= 0 (--max-nodes, --give-up, --depth)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def positive(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


WITNESS_PIECES = "QRBNPqrbnp"     # what a constructed position may draw besides the kings
WITNESS_EXTRA = 8                 # at most this many drawn pieces


def piece_pool(text: str) -> str:
    """--pool: piece letters of WITNESS_PIECES (a letter twice is drawn twice as often)."""
    if not 1 <= len(text) <= 24 or set(text) - set(WITNESS_PIECES):
        raise argparse.ArgumentTypeError(f"must be 1 to 24 letters of {WITNESS_PIECES}, not {quote(text, 40)}")
    return text


def extra_pieces(text: str) -> int:
    value = positive(text)
    if value > WITNESS_EXTRA:
        raise argparse.ArgumentTypeError(f"must be at most {WITNESS_EXTRA}, not {value}")
    return value


def jobs(text: str) -> int:
    """--jobs: ``auto`` (JOBS_AUTO: the command picks, see resource_limits.auto_jobs), or at least 1
    and at most JOBS_PER_CORE processes per CPU core."""
    if text == "auto":
        return JOBS_AUTO
    value = positive(text)
    if value > max_jobs():
        raise argparse.ArgumentTypeError(
            f"at most {max_jobs()} ({JOBS_PER_CORE} per CPU core; {cpu_cores()} "
            f"core{'s' if cpu_cores() > 1 else ''} here), not {value}")
    return value


def seconds(text: str) -> float:
    """A time limit: 0 (no limit) or a finite number of seconds from MIN_TIMEOUT to MAX_TIMEOUT."""
    try:
        value = float(text) if text.isascii() else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds (0 for no limit), "
                                         f"not {quote(text, 40)}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {value:g}")
    if 0 < value < MIN_TIMEOUT:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or at least {MIN_TIMEOUT:g} seconds, "
                                         f"not {value:g}")
    if value > MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TIMEOUT:g} seconds; "
                                         f"0 means no limit")
    return value


def engine_command(text: str) -> str:
    """--engine: a command line a shell could split (no shell runs it), or a known prefix
    (uci:) followed by a program."""
    from doublecheck.harness.engines import ENGINE_KINDS

    command, example = text, '"./my-engine --protocol"'
    for prefix in (kind.prefix for kind in ENGINE_KINDS.values() if kind.prefix):
        if text.startswith(prefix):
            command, example = text[len(prefix):], f"{prefix}/usr/games/stockfish"
            if os.path.exists(command):   # a path, used as it is
                return text
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"cannot be read as a command line ({e}): "
                                         f"{quote(text, 80)}") from None
    if not argv:
        raise argparse.ArgumentTypeError(f"names no program: {quote(text, 80)} "
                                         f"(example: --engine {example})")
    return text


def option_assignment(text: str) -> tuple[str, str]:
    """--option NAME=VALUE, as a pair (the names and values are checked once all are read)."""
    from doublecheck.harness.declared import parse_assignment
    try:
        return parse_assignment(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_option_option(p, what: str):
    p.add_argument("--option", type=option_assignment, action="append", default=[],
                   metavar="NAME=VALUE",
                   help=f"{what} (repeatable; 'doublecheck rules --options' lists the names and "
                        "values, 'doublecheck docs options' explains them; an unknown name or "
                        "value is refused, exit 2)")


def declared_options(args) -> dict:
    """The --option values, checked: RulesError(unknown-option) listing the known ones."""
    from doublecheck.harness.declared import from_command_line
    return from_command_line(args.option)


def add_position_options(p, moves_help="space-separated moves played first (coordinates or SAN)"):
    """--variant, --fen (or the FEN as the command's argument), --moves: the position every
    lookup starts from."""
    p.add_argument("--variant", default="chess", help="variant id (default: chess)")
    p.add_argument("fen_words", nargs="*", metavar="FEN",
                   help="the position, as --fen gives it (quoted or not: its fields are joined "
                        "by spaces)")
    p.add_argument("--fen", help="position (default: the variant's start position)")
    p.add_argument("--moves", metavar='"M1 M2 ..."', help=moves_help)


def scheduler_address(text: str) -> str:
    """--scheduler: a plain TCP address, checked before Dask is imported (a scheme it does not
    speak, such as http:// or tls://, would otherwise hang for the connect timeout)."""
    from doublecheck.perft.parallel import scheduler_problem
    problem = scheduler_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def megabytes(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 2**20:
        raise argparse.ArgumentTypeError(f"must be between 1 and {2**20} (megabytes), not {value}")
    return value


def add_json_option(p, text="print one JSON object"):
    p.add_argument("--json", action="store_true", help=text)


def add_quiet_option(p):
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress lines on stderr (by default: a live line on a terminal, "
                        "a line every 10 s elsewhere)")


def add_cases_dir_option(p, what="case tree"):
    p.add_argument("--cases-dir", default=CASES_DIR,
                   help=f"{what} (default: the one installed with doublecheck, %(default)s)")


# The value checks an operation's options name (``operations.Option.type``), and the command
# line's own options an operation may share (``Option.shared``).
VALUE_TYPES = {"count": count, "jobs": jobs, "megabytes": megabytes, "address": scheduler_address}
SHARED_OPTIONS = {"--quiet": add_quiet_option}


def add_operation_options(p, options):
    """An operation's own options, from its row (``doublecheck.harness.operations``)."""
    groups = {}
    for option in options:
        if option.shared:
            SHARED_OPTIONS[option.flags[0]](p)
            continue
        where = p if option.group is None else groups.get(option.group)
        if where is None:
            where = groups[option.group] = p.add_mutually_exclusive_group()
        arguments = option.arguments()
        if "type" in arguments:
            arguments["type"] = VALUE_TYPES[arguments["type"]]
        where.add_argument(*option.flags, **arguments)


# -------------------------------------------------------------- subcommands

def add_run(sub, fmt):
    p = sub.add_parser("run", help="run the conformance cases against an implementation",
                       formatter_class=fmt, description=f"""\
Runs the cases (all, or a selection) against an implementation and prints a
summary per variant and operation, then a diff for every failing case: the
rules it tests, the oracle's reason for each extra or missing move, and the
first move of its line where the engine parted from the oracle (failures with
the same first divergence are described once; doublecheck docs harness).
The implementation is the built-in oracle unless --engine (a program speaking
the JSON-lines protocol: doublecheck docs protocol) or --adapter (a Python class,
in-process) names another. Cases for variants or operations the engine does
not claim in its hello are skipped, never passed. An engine that follows
conventions where sources differ declares them in its hello or with --option;
the cases are then judged under them (doublecheck docs options).

Each request may take --timeout seconds; a perft request gets one second more
for every {SLOW_RATE} nodes the case expects (every {SLOW_TURN_RATE} for turn perft;
doublecheck docs harness). Cases run cheapest first, the perft counts last and
by size, so the first failures show soon. While it runs, a
progress line goes to stderr: live on a terminal, every 10 s in a CI log.

Exit status: 0 when every selected case passes (skipped and expected failures
do not fail the run); 1 when a case fails, errors, or unexpectedly passes;
2 for bad case files, an empty selection, an unknown variant, an unusable
engine (it does not start, refuses hello, or speaks another protocol version)
or a bad xfail file; 130 when interrupted (the reports hold the cases that
finished).""",
                       epilog="""\
examples:
  doublecheck run
  doublecheck run --jobs 1                     the same, in this process only
  doublecheck run --quick                      a first report: skip the perft cases above 20000 nodes
  doublecheck run --variant chess --max-nodes 200000
  doublecheck run --deep --max-nodes 20000000 --variant double-move-anul
                                               the deep perft tier too, up to 20 million nodes a case
  doublecheck run --deep 'chess/generated-deep-perft/*' --jobs 2
                                               chess perft 7 and the other deep chess counts, each
                                               counted over two processes
  doublecheck run 'chess/castling/*' 'chess/en-passant/*'
  doublecheck run --rule FIDE-3.8.2
  doublecheck run --engine "./my-engine --protocol" --timeout 5 --jobs 4
  doublecheck run --adapter my_adapter:Adapter --xfail known-failures.txt
  doublecheck run --engine "doublecheck serve" --junit report.xml --format markdown
  doublecheck run --variant marseillais --engine "./site-engine" --option draws=automatic \
      --option fen-validation=lenient        judge it under the conventions it declares
  doublecheck run --list --variant chess --quick   the ids a run would select, without running
  doublecheck run --list --json -                  the same as JSON (id, variant, op, file, rules)
""")
    p.add_argument("patterns", nargs="*", metavar="PATTERN",
                   help="case id glob (chess/castling/*); a plain prefix selects everything below it")
    p.add_argument("--variant", help="only cases of this variant")
    p.add_argument("--rule", help="only cases that cite this rule id")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--max-nodes", type=count, metavar="N",
                      help="skip perft cases expecting more than N nodes (quicker runs; it only "
                           "leaves cases out: the deep tier needs --deep)")
    size.add_argument("--quick", action="store_const", dest="max_nodes", const=QUICK_MAX_NODES,
                      help=f"the same as --max-nodes {QUICK_MAX_NODES}: every case but the largest "
                           "perft counts, a first report in about a minute even for a slow engine "
                           "(doublecheck docs harness lists them)")
    p.add_argument("--deep", action="store_true",
                   help="also run the deep tier: perft cases of up to hundreds of millions of "
                        "nodes (generated-deep-perft.json; doublecheck docs perft)")
    add_cases_dir_option(p, "case tree to run")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--engine", metavar='"CMD ARGS"', type=engine_command,
                     help="run this command (split like a shell would) as a protocol engine; "
                          "uci:PATH checks a UCI chess engine (doublecheck docs uci-bridge)")
    who.add_argument("--adapter", metavar="MODULE:CLASS",
                     help="load this Python adapter class in-process (doublecheck docs adapter-guide)")
    p.add_argument("--timeout", type=seconds, default=TIMEOUT, metavar="SECONDS",
                   help="per-request limit, for engine processes and in-process runs alike "
                        f"(default: %(default)g; 0: none; at most {MAX_TIMEOUT:g}); perft requests "
                        f"get 1 s more per {SLOW_RATE} nodes the case expects ({SLOW_TURN_RATE} for turns)")
    p.add_argument("--jobs", type=jobs, default=JOBS_AUTO, metavar="N",
                   help="run N engine processes in parallel (the oracle and adapters are then "
                        "run by N 'doublecheck serve' processes; default: auto, the usable cores up to "
                        f"{AUTO_JOBS_CAP}, one per {CASES_PER_JOB} selected cases; 1: this process "
                        f"only); at most {JOBS_PER_CORE} per CPU core. With --deep against the oracle, "
                        f"each perft case of {SPLIT_NODES:,} nodes or more is then split over N "
                        f"processes (auto: every usable core) and counted last")
    add_option_option(p, "judge the engine under this rule option or capability, declared "
                         "here or overriding its hello's 'options' (the oracle also plays "
                         "under it); cases it changes are judged by the oracle's answer under "
                         "it, cases it rules out are skipped with the reason")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --deep against the oracle: count each deep perft case on the Dask cluster "
                        "whose scheduler is at ADDRESS instead of over --jobs local processes "
                        "(needs 'doublecheck-chess[cluster]'; doublecheck docs perft)")
    p.add_argument("--give-up", type=count, default=5, metavar="N",
                   help="after N crashes or timeouts in a row, send that engine no more cases; "
                        "they are reported as errors (default: %(default)s; 0: never)")
    p.add_argument("--format", choices=tuple(STDOUT_FORMATS), default="text",
                   help="report printed on stdout (markdown suits CI job summaries)")
    for name, report in REPORT_FILES.items():
        p.add_argument(f"--{name}", metavar="FILE", help=report.help)
    p.add_argument("--xfail", metavar="FILE",
                   help="expected failures: case ids with reasons (doublecheck docs harness)")
    p.add_argument("--write-xfail", metavar="FILE",
                   help="write the current failures as an xfail file (refuses to replace a file)")
    p.add_argument("--force", action="store_true", help="let --write-xfail replace an existing file")
    p.add_argument("--list", action="store_true",
                   help="print the ids of the selected cases, one a line, and run nothing; with "
                        "--json FILE write them as JSON instead ('-': on stdout)")
    add_quiet_option(p)
    p.set_defaults(handler=run_handler)


def run_handler(args) -> int:
    from doublecheck.harness.engines import engine_spec
    from doublecheck.harness.runner import RunOptions, run_command

    timeout = args.timeout if args.timeout > 0 else None
    declared = declared_options(args)
    if args.list and (args.write_xfail or args.junit or args.html):
        raise UsageError("--list runs nothing, so it writes no report: only --json FILE goes with it",
                         "doublecheck run")
    options = RunOptions(
        cases_dir=args.cases_dir, variant=args.variant, rule=args.rule, patterns=tuple(args.patterns),
        max_nodes=args.max_nodes, timeout=timeout, jobs=args.jobs, give_up=args.give_up,
        fmt=args.format, files={name: getattr(args, name) for name in REPORT_FILES if getattr(args, name)},
        xfail_file=args.xfail, write_xfail=args.write_xfail, force=args.force, quiet=args.quiet,
        deep=args.deep, declared=declared, list_only=args.list, scheduler=args.scheduler)
    return run_command(options, spec=engine_spec(args.engine, args.adapter, timeout, declared))


def add_serve(sub, fmt):
    p = sub.add_parser("serve", help="answer protocol requests on stdin/stdout (the oracle as an engine)",
                       formatter_class=fmt, description="""\
Speaks the JSON-lines engine protocol (doublecheck docs protocol): one request per line
on stdin, one response per line on stdout, until end of input. This is the
reference server; --adapter serves a Python adapter class instead of the oracle.
A request that runs longer than --budget seconds is stopped and answered with
the error code budget-exceeded; the server goes on with the next request.
--option NAME=VALUE (repeatable) makes the oracle play under a rule option and
declares it, or a capability, in the hello answer (doublecheck docs options).""",
                       epilog="""\
examples:
  doublecheck serve
  echo '{"id": 1, "op": "moves", "variant": "chess"}' | doublecheck serve
  doublecheck run --engine "doublecheck serve"
  doublecheck serve --adapter my_adapter:Adapter
  doublecheck serve --budget 60                 stop any request after a minute
  doublecheck serve --option draws=automatic --option fullmove=per-move
                                                the oracle under two declared options
""")
    p.add_argument("--adapter", metavar="MODULE:CLASS", help="serve this adapter instead of the oracle")
    p.add_argument("--budget", type=seconds, default=SERVE_BUDGET, metavar="SECONDS",
                   help="time one request may run before it is stopped and answered "
                        "budget-exceeded (default: %(default)g, two hours; 0: no limit)")
    add_option_option(p, "play under this rule option (the oracle) and declare it, or a "
                         "capability, in the hello answer")
    p.set_defaults(handler=serve_handler)


def serve_handler(args) -> int:
    from doublecheck.harness.serve import serve_command
    return serve_command(args.adapter, args.budget, declared_options(args))


def add_lookups(sub, fmt):
    """One command per protocol operation, all from its row: help, options, handler."""
    for op, row in OPERATIONS.items():
        description, _, examples = row.help.partition("examples:")
        p = sub.add_parser(op, help=row.summary, description=description.strip(),
                           epilog="examples:" + examples, formatter_class=fmt)
        add_position_options(p)
        add_operation_options(p, row.options)
        add_json_option(p)
        p.set_defaults(handler=lookup_handler)


def lookup_handler(args) -> int:
    """Every protocol operation's command: the function its row names (``command``, a
    "module:function" of doublecheck.lookups.commands), imported when it runs."""
    import importlib
    module, name = OPERATIONS[args.command].command.split(":")
    return getattr(importlib.import_module(module), name)(args)


def add_people_lookups(sub, fmt):
    """show, explain, replay, svg: the lookups written for people."""
    for name, (summary, description, epilog), handler in (
            ("show", SHOW_HELP, show_handler), ("explain", EXPLAIN_HELP, explain_handler),
            ("replay", REPLAY_HELP, replay_handler), ("svg", SVG_HELP, svg_handler)):
        p = sub.add_parser(name, help=summary, description=description, epilog=epilog,
                           formatter_class=fmt)
        if name == "replay":
            p.add_argument("file", metavar="FILE.pgn", help="the PGN file")
            add_json_option(p)
        elif name == "svg":
            add_position_options(p, "space-separated moves played first")
            p.add_argument("--turn", metavar="T", help="draw this turn as numbered arrows: Qg8+,Qh7#")
            p.add_argument("--title", help="the picture's title (default: variant and FEN)")
            p.add_argument("--output", "-o", metavar="FILE", help="write here (default: stdout)")
        else:
            add_position_options(p, "space-separated moves played first (coordinates or SAN; "
                                    "a turn's moves joined by commas)")
            if name == "show":
                add_json_option(p)
                p.add_argument("--ascii", action="store_true", help="letters instead of Unicode pieces")
            else:
                add_json_option(p, "print one JSON object (keys: doublecheck docs lookups)")
                what = p.add_mutually_exclusive_group(required=True)
                what.add_argument("--move", metavar="M", help="one move: Kxh7, e7e8q, O-O, K@e0, Qg8+,")
                what.add_argument("--turn", metavar="T",
                                  help="a whole turn, moves joined by commas: Kxh7,Kh8")
        p.set_defaults(handler=handler)


def show_handler(args) -> int:
    from doublecheck.lookups.commands import show_command
    return show_command(args)


def explain_handler(args) -> int:
    from doublecheck.lookups.commands import explain_command
    return explain_command(args)


def replay_handler(args) -> int:
    from doublecheck.lookups.commands import replay_command
    return replay_command(args)


def svg_handler(args) -> int:
    from doublecheck.lookups.commands import svg_command
    return svg_command(args)


def add_generate(sub, fmt):
    p = sub.add_parser("generate", help="write (or check) the generated case files, or new vectors",
                       formatter_class=fmt, description="""\
Writes the generated case files (random playouts, perft tables) from the
oracle, deterministically. Files not marked "generated": true are never
overwritten. With --check nothing is written: exits 1 naming every generated
file whose committed text differs from what would be written.

With --count or --depth it makes new vectors instead: one case file for
--variant (default chess) with --count seeded random games (--seed, default
1) and perft to --depth, from --fen or the start position, written to
--cases-dir as <variant>/own-....json. The same options give the same file.
'doublecheck run --cases-dir DIR' runs a tree written here as it is (with the
installed rule catalogue unless DIR has its own rules/).

A variant plugin's files (its generated cases, the rule table of its doc
page) are written into the plugin's own source tree: where its package is
imported from when that is a checkout or an editable install, else the
folder --into names; never into site-packages. With --variant of a plugin
only that plugin's files are written or checked.
More in: doublecheck docs own-cases, doublecheck docs plugins.""",
                       epilog="""\
examples:
  doublecheck generate
  doublecheck generate --check
  doublecheck generate --variant chess
  doublecheck generate --deep                the deep tier (generated-deep-perft.json; about 10 minutes)
  doublecheck generate --deep --check --variant double-move-anul
  doublecheck generate --cases-dir mycases     the shipped generated files, into a tree of your own
  doublecheck generate --cases-dir mycases --variant marseillais --seed 7 --count 3
  doublecheck generate --cases-dir mycases --depth 3 --fen '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1'
  doublecheck run --cases-dir mycases
  doublecheck generate --variant my-rules --into ~/src/my-rules   a plugin installed without -e
""")
    p.add_argument("--check", action="store_true", help="compare only; write nothing")
    p.add_argument("--variant", help="only the generators of this variant (of a plugin: only its files)")
    p.add_argument("--into", metavar="SOURCE",
                   help="with --variant of a plugin: its source folder, to write into (needed when the "
                        "plugin is installed in site-packages, where generate never writes)")
    p.add_argument("--deep", action="store_true",
                   help="the deep tier of perft vectors instead of the default files (doublecheck docs perft); "
                        "prints each count's time on stderr")
    p.add_argument("--jobs", type=positive, default=1, metavar="N",
                   help="with --deep: count each perft over N local processes (default 1)")
    p.add_argument("--hash", type=megabytes, default=None, metavar="MB",
                   help="with --deep: the transposition table of each counting process, in MB")
    p.add_argument("--no-cross-check", dest="cross_check", action="store_false",
                   help="with --deep: count only; the second walks that new counts ask for are made "
                        "by a later run without this option")
    own = p.add_argument_group("new vectors (one file of your own)")
    own.add_argument("--seed", type=count, metavar="S", help="the first random game's seed (default 1)")
    own.add_argument("--count", type=count, metavar="N", help="this many seeded random games")
    own.add_argument("--depth", type=count, metavar="D", help="perft to depth D (the last with divide)")
    own.add_argument("--fen", help="start the games and the perft here (default: the start position)")
    add_cases_dir_option(p)
    add_quiet_option(p)
    p.set_defaults(handler=generate_handler)


OWN_OPTIONS = ("seed", "count", "depth", "fen")


def generate_handler(args) -> int:
    from doublecheck.authoring.generate import generate_command, generate_own
    from doublecheck.authoring.own import OwnOptions

    own = {name: getattr(args, name) for name in OWN_OPTIONS if getattr(args, name) is not None}
    if own and (args.check or args.deep):
        raise UsageError("--seed, --count, --depth and --fen make new vectors: "
                         "not with --check or --deep", "doublecheck generate")
    if own and os.path.realpath(args.cases_dir) == os.path.realpath(CASES_DIR):
        raise UsageError("new vectors go into a case tree of your own: give --cases-dir DIR "
                         "(the installed tree is left as it is)", "doublecheck generate")
    if own:
        return generate_own(args.cases_dir, OwnOptions(variant=args.variant or "chess", **own))
    return generate_command(args.cases_dir, args.variant, args.check, quiet=args.quiet, deep=args.deep,
                            jobs=args.jobs, hash_mb=args.hash, cross_check=args.cross_check, into=args.into)


def add_rules(sub, fmt):
    p = sub.add_parser("rules", help="list the rule catalogue, or show one rule",
                       formatter_class=fmt, description="""\
Without an id, lists every rule and ruling id with its title and the variants
it belongs to (--variant: only the rules of that variant). With an id, shows
the rule's statement and source, then how many cases test it, per variant and
case file (--cases lists their ids; --variant keeps that variant's cases).

--options lists the declared options instead: the points where sources and
real implementations differ (rule options) and what an engine may lack
(capabilities), each with its values, default, variants and sources.

--matrix prints the coverage matrix instead: rule ids (rows) against variants
(columns) with the number of cases citing each, then the state components
(position identity, each half of a turn, FEN fields) with the cases covering
each side of them: repetition counted / not counted, White / Black. Empty
cells the catalogue does not justify are listed as gaps; a rule cell that
fewer than two curated cases (or curated cases of one colour only) carry, and
a mutant that fewer than two curated cases kill (a case and its colour mirror
counting once), are listed as thin. Last comes the pair table of each variant
that declares one (cases/rules/pairs/<variant>.json): every two conditions
that can hold at one moment (a stalemate in a dead position, a mate given by
a Double Move's second half, an en passant capture whose taken pawn shielded
the king), each covered by at least two cases that are not colour mirrors
of each other and of both colours, or impossible with the reason; a pair
without an entry is missing. The exit status is 1 when there is a gap, a
thin cell or mutant, or a missing or thin pair (doublecheck docs
case-format, "The coverage matrix" and "The pair table").

--pairs prints only the pair tables, with each pair's probe (the mutant that
applies its two rules in the wrong order), for 'doublecheck witness PROBE' to
search new cases with.""",
                       epilog="""\
examples:
  doublecheck rules
  doublecheck rules --variant marseillais
  doublecheck rules G3
  doublecheck rules DA-6 --cases               every case citing DA-6
  doublecheck rules FIDE-3.8.2 --json
  doublecheck rules --matrix
  doublecheck rules --matrix --variant double-move --json
  doublecheck rules --pairs --variant chess       each pair of rules that can meet, and its cases
  doublecheck rules --options                  the options an engine may declare (run --option)
  doublecheck rules --options --variant marseillais --json
""")
    p.add_argument("id", nargs="?", help="a rule id (G3, FIDE-3.8.2, ...)")
    p.add_argument("--cases", action="store_true",
                   help="with an id: list the id of every case citing the rule (by default: how "
                        "many, per variant and case file)")
    p.add_argument("--matrix", action="store_true",
                   help="print the coverage matrix and the pair tables; exit 1 when either has a gap, "
                        "a thin cell or a missing pair")
    p.add_argument("--pairs", action="store_true",
                   help="list the pair table of each variant (--variant: of those): every two rules "
                        "that can hold at one moment, with its state (covered by N cases, impossible "
                        "and why, thin, missing) and the probe mutant that 'doublecheck witness' "
                        "searches with; exit 1 when a pair is missing or thin")
    p.add_argument("--options", action="store_true",
                   help="list the declared options instead: each rule option and engine "
                        "capability with its values, default, the variants that take it and "
                        "the sources of each value (doublecheck docs options)")
    p.add_argument("--variant", metavar="V", action="append",
                   help="only the rules (or, with --matrix, the column) of this variant "
                        "(may be repeated)")
    add_json_option(p)
    add_cases_dir_option(p)
    p.set_defaults(handler=rules_handler)


def rules_handler(args) -> int:
    from doublecheck.lookups.commands import rules_command
    return rules_command(args)


def add_witness(sub, fmt):
    p = sub.add_parser("witness", help="search positions where a mutant and the oracle disagree (new cases)",
                       formatter_class=fmt, description="""\
Runs the seeded witness search (doublecheck.authoring.witness) for one
catalogued mutant: small constructed positions (--budget of them), then the
positions along --games seeded random games, asking at each its status, its
moves, its turns and every move played, until --want requests of each colour
are found on which the mutant answers otherwise than the oracle. For the
variants the python-chess-backed adapter plays, a request it answers
otherwise than the oracle is dropped (no second opinion, no candidate).

The pair table names, for a pair of rules that can hold at one moment, the
mutant that applies the two in the wrong order (its probe: doublecheck rules
--pairs); a search with that probe finds the positions where the order
matters. The same arguments always give the same witnesses.

--clock sets the draw clock of every constructed position at or just below
the automatic move-count draw (the halfmove clock at 148-150 under G3's
seventy-five-move rule; in progressive chess the quiet series of P5, field 9,
at 13-15), for the pairs where a mate or stalemate meets that draw.

--repeat asks each constructed position's status after the kings walk it
back to itself (two or four quiet turns, played four times: the fifth
occurrence, G3), its draw clock set so that the same last move reaches the
automatic move-count draw, for the pair seventy-five moves + fivefold
repetition.

--out FILE writes them as a case file of candidates (topic
witness-candidates), each expecting the oracle's answer. Read each one, say
in its description what the position shows and in its source the ruling that
decides it, check it by hand, and only then move it into cases/<variant>/.
Exit status: 0 when a witness about White and one about Black that are not
colour mirrors of each other were found, 1 when the budget ran out first
(not found within the budget), 2 for an unknown mutant or a bad option.
More in: doublecheck docs mutants.""",
                       epilog="""\
examples:
  doublecheck witness chess/dead-position-before-stalemate
  doublecheck witness double-move/mate-after-first-half --seed 7 --budget 800
  doublecheck witness chess/en-passant-rank-only --motif en-passant --out found.json
  doublecheck witness monster/seventy-five-beats-mate --clock --games 0
  doublecheck witness chess/fivefold-before-seventy-five --repeat --games 0
  doublecheck witness double-move/dead-position-before-stalemate --pool BNbn --extra 1 --budget 20000 --games 0
""")
    p.add_argument("mutant", help="a catalogued mutant, <variant>/<slug> (doublecheck mutants --list)")
    p.add_argument("--seed", type=count, default=1, metavar="S", help="the search's seed (default 1)")
    p.add_argument("--budget", type=count, default=400, metavar="N",
                   help="constructed positions to look at (default 400)")
    p.add_argument("--games", type=count, default=20, metavar="N",
                   help="seeded random games whose positions are looked at after that (default 20)")
    p.add_argument("--want", type=positive, default=2, metavar="N",
                   help="stop once N witnesses of each colour are found (default 2)")
    p.add_argument("--motif", choices=WITNESS_MOTIFS,
                   help="build every constructed position around this pattern (en-passant: a pawn "
                        "that has just stepped two squares, beside an enemy pawn)")
    p.add_argument("--pool", type=piece_pool, metavar="PIECES",
                   help="the pieces a constructed position draws from besides the kings, as FEN letters "
                        "(default QRBNPPqrbnpp; BNbn for a stalemate with too little material to mate)")
    p.add_argument("--extra", type=extra_pieces, metavar="N",
                   help=f"draw 1 to N pieces from the pool (default 3, at most {WITNESS_EXTRA})")
    p.add_argument("--repeat", action="store_true",
                   help="ask each constructed position's status after its kings walk it back to "
                        "its fifth occurrence, the draw clock reaching the automatic mark on the "
                        "same move (the pair seventy-five moves + fivefold repetition)")
    p.add_argument("--clock", action="store_true",
                   help="draw each constructed position's draw clock at or just below the automatic "
                        "move-count draw (halfmove clock 148-150; progressive: quiet series 13-15)")
    p.add_argument("--out", metavar="FILE", help="write the witnesses found as a case file of candidates")
    add_json_option(p)
    p.set_defaults(handler=witness_handler)


def witness_handler(args) -> int:
    from doublecheck.authoring.witness import witness_command
    return witness_command(args)


WITNESS_MOTIFS = ("en-passant",)     # the names of doublecheck.authoring.witness.MOTIFS (a test keeps them equal)


def add_mutants(sub, fmt):
    p = sub.add_parser("mutants", help="run the suite against deliberately wrong rules (suite strength)",
                       formatter_class=fmt, description="""\
Runs the cases against deliberately wrong rules (the mutant catalogue,
doublecheck docs mutants) and reports which mutants no case catches. Exit status: 0
every chosen mutant is killed, 1 one survives, 2 bad input.""",
                       epilog="""\
examples:
  doublecheck mutants
  doublecheck mutants --variant double-move-anul
  doublecheck mutants --mutant double-move-anul/capture-no-brake
  doublecheck mutants --list
""")
    p.add_argument("--variant", metavar="V", help="only the mutants of this variant")
    p.add_argument("--mutant", metavar="NAME", help="only this mutant (as listed by --list)")
    p.add_argument("--max-nodes", metavar="N", type=count, default=MUTANTS_MAX_NODES,
                   help=f"skip perft cases expecting more than N nodes (default {MUTANTS_MAX_NODES}; "
                        "0: no limit)")
    p.add_argument("--list", action="store_true", help="list the catalogue and exit")
    p.add_argument("--jobs", type=jobs, default=JOBS_AUTO, metavar="N",
                   help=f"run the mutants on N processes (default: auto, the usable cores up to "
                        f"{AUTO_JOBS_CAP}; 1: this process only); the results are the same")
    add_json_option(p, "print the results as JSON")
    add_cases_dir_option(p, "the case tree to run")
    add_quiet_option(p)
    p.set_defaults(handler=mutants_handler)


def mutants_handler(args) -> int:
    from doublecheck.authoring.mutants.kill import mutants_command
    return mutants_command(args)


def port_number(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 (any free port) to 65535, not {value}")
    return value


def add_desk(sub, fmt):
    p = sub.add_parser("desk", help="the rules desk: a local web page for asking the oracle",
                       formatter_class=fmt, description=f"""\
Serves the rules desk, a web page on this machine where players and arbiters
ask the oracle: pick a variant, set up a position (or paste a FEN), click a
piece to see its legal moves and play them, try a move the rules refuse and
read why (with the rule's id and text), follow the status after every turn,
copy the FEN or the PGN, paste a game record and step through it.

Prints the address and serves until Ctrl-C. It listens on 127.0.0.1 only
unless --host says otherwise (then it warns: the desk has no login). Nothing
is stored: every request carries the variant, the FEN and the moves. A
request body may hold at most {DESK_MAX_BODY // 1024} KiB. More in: doublecheck docs desk.""",
                       epilog="""\
examples:
  doublecheck desk                       then open http://127.0.0.1:8765/
  doublecheck desk --port 0              any free port (the address is printed)
  doublecheck desk --open                also open the page in the browser
  doublecheck desk --host 0.0.0.0        every interface: other machines can use it
  doublecheck desk --option draws=automatic   the page starts under a house rule
""")
    p.add_argument("--port", type=port_number, default=DESK_PORT,
                   help="TCP port (default: %(default)s; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: %(default)s, this machine only)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--verbose", action="store_true", help="log every request on stderr")
    add_option_option(p, "open the page with this rule option chosen under House rules")
    p.set_defaults(handler=desk_handler)


def desk_handler(args) -> int:
    from doublecheck.desk.server import desk_command
    args.declared = declared_options(args)   # refused before the server starts when unknown
    return desk_command(args)


def add_example(sub, fmt):
    from doublecheck.templates import TEMPLATES

    listing = "\n".join(f"  {name:8} {t.summary}" for name, t in TEMPLATES.items())
    p = sub.add_parser("example", help="write a starting point for your engine (Node.js, Python, CI)",
                       formatter_class=fmt, description=f"""\
Writes a template from the installed package into DIR (made if missing), then
prints the commands to run there. Each template passes the chess cases it
claims as it is; replace the part that plays chess with your engine. An
existing file is never replaced without --force.

templates:
{listing}""",
                       epilog="""\
examples:
  doublecheck example --list
  doublecheck example node my-engine       then: cd my-engine && npm ci
  doublecheck example python my-engine     then: doublecheck run --adapter my_adapter:MyAdapter
  doublecheck example ci my-engine         the README's CI recipe, with its workflow file
""")
    p.add_argument("name", nargs="?", choices=tuple(TEMPLATES), metavar="NAME",
                   help=f"the template: {', '.join(TEMPLATES)}")
    p.add_argument("dir", nargs="?", metavar="DIR", help="the folder to write it to")
    p.add_argument("--list", action="store_true", help="list the templates")
    p.add_argument("--force", action="store_true", help="replace files DIR already has")
    p.set_defaults(handler=example_handler)


def example_handler(args) -> int:
    from doublecheck.templates import example_command
    return example_command(args)


def add_export(sub, fmt):
    p = sub.add_parser("export", help="write the case tree and its schemas for another language's test runner",
                       formatter_class=fmt, description="""\
Writes the case tree (every variant, or --variant's), the rule catalogue, the
JSON Schemas and a page on reading them (README.md: what to compare, how FENs
compare as positions, which fields are optional) into DIR, for a test runner
that reads the JSON files itself (vitest, cargo test, go test) instead of
running 'doublecheck run'. index.json says which version wrote it and how many
cases each variant has. The files are the ones a run uses, checked as a run
checks them; DIR must be empty or new (--force writes into it). --path prints
where the installed tree is instead. More in: doublecheck docs vectors.""",
                       epilog="""\
examples:
  doublecheck export vectors
  doublecheck export vectors --variant chess
  doublecheck export --path                    where the installed case tree and schemas are
  doublecheck export mine --cases-dir mycases  a tree of your own (doublecheck docs own-cases)
""")
    p.add_argument("dir", nargs="?", metavar="DIR", help="the folder to write (new or empty)")
    p.add_argument("--variant", metavar="V", help="only this variant's case files (the catalogue "
                                                  "and schemas are always written)")
    p.add_argument("--path", action="store_true", help="print where the case tree and schemas are")
    p.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    add_cases_dir_option(p, "case tree to export")
    p.set_defaults(handler=export_handler)


def export_handler(args) -> int:
    from doublecheck.vectors import export_command
    return export_command(args)


def add_docs(sub, fmt):
    from doublecheck.manual import schemas

    p = sub.add_parser("docs", help="read the documentation installed with doublecheck",
                       formatter_class=fmt, description="""\
Without a topic, lists the docs pages (topic and title). With one, prints the
page (Markdown) on stdout; --path prints where the file is instead, for a
pager or an editor. --schema NAME prints a JSON Schema (the protocol's, the
case files', the JSON report's or the rule catalogue's).""",
                       epilog="""\
examples:
  doublecheck docs
  doublecheck docs protocol
  doublecheck docs protocol | less
  less "$(doublecheck docs harness --path)"
  doublecheck docs --schema protocol
""")
    p.add_argument("topic", nargs="?", help="a page's name, as listed (protocol, harness, perft, ...)")
    p.add_argument("--path", action="store_true", help="print the file's path, not its text")
    p.add_argument("--schema", metavar="NAME", help=f"print a JSON Schema: {', '.join(schemas())}")
    p.set_defaults(handler=docs_handler)


def docs_handler(args) -> int:
    from doublecheck.manual import docs_command
    return docs_command(args)


def add_plugins(sub, fmt):
    p = sub.add_parser("plugins", help="list the variant plugins: loaded, and left out with the reason",
                       formatter_class=fmt, description="""\
Lists every variant plugin installed (the entry point group
doublecheck.variants): the variant ids each one brought, and each one left
out with the reason (its entry point, descriptor, package, rules class or
first use failed, or a file of its catalogue has a problem), and each case
file left out (that file alone; the plugin's other cases are kept). A
plugin left out costs only itself: every other variant works. Exit status:
0 every plugin is in use with all its files, 1 a plugin or a case file was
left out (doublecheck docs plugins).""",
                       epilog="""\
examples:
  doublecheck plugins
  doublecheck plugins --json
""")
    add_json_option(p)
    add_cases_dir_option(p)
    p.set_defaults(handler=plugins_handler)


def plugins_handler(args) -> int:
    from doublecheck.plugins import plugins_command
    return plugins_command(args)


def add_new_variant(sub, fmt):
    p = sub.add_parser("new-variant", help="write a working variant plugin package to start a variant from",
                       formatter_class=fmt, description="""\
Writes a variant plugin package for the new variant ID into DIR (new or
empty), started from the variant --from names (default chess). As written
the variant is that variant unchanged, and every command serves it once the
package is installed. DIR then holds:

  pyproject.toml                   the doublecheck.variants entry point
  README.md                        what each file is for, and what to run
  PACKAGE/__init__.py              VARIANT, the descriptor the entry point names
  PACKAGE/rules.py                 the rules class, a subclass of the base's: the differences go here
  PACKAGE/cases/rules/ID.json      the catalogue: rule <PREFIX>1, "otherwise the base"
  PACKAGE/cases/ID/as-BASE.json    curated cases of that rule, the base's answers, from each side
  PACKAGE/generator.py             the generated perft cases (doublecheck generate)
  PACKAGE/mutants.py, mutants.json a deliberately wrong rule, killed by the curated cases
  PACKAGE's docs folder            the doc page ID.md (doublecheck docs ID)
  tests/test_PACKAGE.py            the commands below, as tests

PACKAGE is ID with '_' for '-' (with '_variant' added where that name is
taken). Then install it editable, so that generate writes into DIR, and run:

  pip install -e DIR
  doublecheck generate --variant ID          writes PACKAGE/cases/ID/generated-perft.json
  doublecheck run --variant ID               every case passes
  doublecheck rules --matrix --variant ID    no gap, nothing thin
  doublecheck mutants --variant ID           every mutant killed

Refused (exit 2, nothing written): an ID that is not lower-case words
joined by '-' or is already registered, an unknown --from, a DIR that is a
file or not empty. More in: doublecheck docs plugins.""",
                       epilog="""\
examples:
  doublecheck new-variant no-en-passant my-variant
  doublecheck new-variant brave-marseillais --from marseillais ../brave-marseillais
""")
    p.add_argument("id", metavar="ID", help="the new variant's id: lower-case words joined by '-'")
    p.add_argument("dir", metavar="DIR", help="the folder to write the package to (new or empty)")
    p.add_argument("--from", dest="base", default="chess", metavar="VARIANT",
                   help="the registered variant it starts from (default chess; doublecheck rules lists them)")
    p.set_defaults(handler=new_variant_handler)


def new_variant_handler(args) -> int:
    from doublecheck.authoring.scaffold import new_variant_command
    return new_variant_command(args)


DIFF_FORMATS = ("text", "markdown", "json")   # doublecheck.harness.rundiff.FORMATS (a test keeps them equal)


def add_diff(sub, fmt):
    p = sub.add_parser("diff", help="compare two JSON reports of one engine: what is fixed, what newly fails",
                       formatter_class=fmt, description="""\
Compares two JSON reports of one engine (written by 'doublecheck run --json
FILE'), case by case: fixed (failed or errored before, passes now), newly
failing (passed before, or was skipped or is new, and fails or errors now),
still failing, added, removed, and otherwise changed (now skipped, say). An
expected failure (xfailed) counts as the failure it is: the diff compares
what the engine did. Failures are grouped by cause (the report's causes, or
each case's first line in a report that names none), newly failing first; a
still failing case whose cause changed says so.

The runs may differ in the engine's name or command, its declared options,
the report version or the suite version: each difference is printed first,
as a warning, since some changes may come from it.

Exit status: 0 nothing newly fails, 1 a case newly fails, 2 a report cannot
be used (a missing file, unreadable, not JSON, or not a doublecheck report).
More in: doublecheck docs harness.""",
                       epilog="""\
examples:
  doublecheck diff main.json branch.json
  doublecheck diff main.json branch.json --format json > changes.json
  doublecheck diff main.json branch.json --format markdown >> "$GITHUB_STEP_SUMMARY"

in an engine's CI, with main's report kept from its last run (an artifact):
  doublecheck run --engine "./build/my-engine" --json branch.json || true
  doublecheck diff main.json branch.json --format markdown >> "$GITHUB_STEP_SUMMARY"
      the job fails (exit 1) only when the branch makes a case fail
""")
    p.add_argument("old", metavar="OLD.json", help="the report to compare with (main's)")
    p.add_argument("new", metavar="NEW.json", help="the report of the run to judge (the branch's)")
    p.add_argument("--format", choices=DIFF_FORMATS, default="text",
                   help="text (default), markdown (suits a CI job summary) or json (one object)")
    p.set_defaults(handler=diff_handler)


def diff_handler(args) -> int:
    from doublecheck.casefiles import DataError
    from doublecheck.harness.rundiff import diff_command
    try:
        return diff_command(args.old, args.new, args.format)
    except DataError as e:   # with --format json the error is JSON on stdout too, as --json gives it
        return fail(e.code, e.message, args.format == "json")


# Each entry adds subcommands (its parsers set ``handler``); the order is the --help order.
SUBCOMMANDS = [add_run, add_diff, add_serve, add_lookups, add_people_lookups, add_generate, add_rules,
               add_witness, add_mutants, add_desk, add_example, add_new_variant, add_export, add_docs,
               add_plugins]


class VersionAction(argparse.Action):
    """--version: the version is looked up only when asked for (see ``doublecheck.__getattr__``)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from doublecheck import __version__
        print(f"doublecheck {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = Parser(
        prog="doublecheck", formatter_class=fmt, epilog=MAIN_EPILOG,
        description="Rules-conformance suite and reference oracle for double-move chess variants.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=Parser)
    for add in SUBCOMMANDS:
        add(sub, fmt)
    return parser


def wants_json(argv) -> bool:
    """Whether a command line asks for JSON output, read before (or without) parsing it, so
    that a command line argparse refuses is reported as JSON too. ``run --json`` names a
    report file, so a refused ``run`` is reported as text."""
    if argv[:1] == ["run"]:
        return False
    words = argv[:argv.index("--")] if "--" in argv else argv
    return any(w == "--json" or (len(w) >= 4 and "--json".startswith(w)) for w in words)


# The errors main reports by their code: (module, class, code or None for the error's own).
CODED_ERRORS = (("doublecheck.oracle.errors", "RulesError", None), ("doublecheck.lookups.pgn", "PgnError", None),
                ("doublecheck.casefiles", "DataError", None), ("doublecheck.perft.parallel", "PerftError", None),
                ("doublecheck.harness.process", "HelloError", UNUSABLE_ENGINE))


def known_error(e: Exception) -> tuple[str, str]:
    """(code, message) for an error raised by a command.  Only a module already imported
    can have raised its errors, so none is imported here just to compare."""
    for module, name, code in CODED_ERRORS:
        cls = getattr(sys.modules.get(module), name, None)
        if cls is not None and isinstance(e, cls):
            return (code, str(e)) if code else (e.code, e.message)
    return INTERNAL_ERROR, f"{type(e).__name__}: {e}"


def positional_fen(args) -> None:
    """A lookup's FEN may be its argument, as in 'doublecheck moves FEN'; it is then --fen.
    Both at once is a usage error, since one of them would be silently ignored."""
    words = getattr(args, "fen_words", None)
    if not words:
        return
    if args.fen is not None:
        raise UsageError("give the FEN once: as the argument or with --fen, not both",
                         f"doublecheck {args.command}")
    args.fen = " ".join(words)


def warn_about_plugins() -> None:
    """Say on stderr why a variant plugin was left out (the command goes on without it)."""
    from doublecheck.oracle import options, variants
    for problem in variants.plugin_problems() + options.plugin_option_problems():
        print(f"warning: {problem}", file=sys.stderr)


def main(argv=None) -> int:
    """Run one command; returns its exit status (never raises, never prints a traceback)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    as_json = wants_json(argv)
    try:
        if not argv:   # a bare `doublecheck`: the overview, as --help gives it (exit 0)
            build_parser().print_help()
            return 0
        args = build_parser().parse_args(argv)
        as_json = getattr(args, "json", None) is True
        positional_fen(args)
        warn_about_plugins()
        return args.handler(args)
    except UsageError as e:
        return fail(e.code, e.message, as_json)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # never show a traceback to the user
        return fail(*known_error(e), as_json)


if __name__ == "__main__":
    sys.exit(main())
