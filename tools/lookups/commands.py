"""What the lookup commands do once the command line (``doublecheck.cli``) has parsed them.

Every handler takes the parsed arguments and returns the exit status; bad
input is raised (``RulesError``, ``PgnError``, ``DataError``) and printed by
the CLI as one ``error: <code>: <message>`` line, exit status 2.
"""

from __future__ import annotations

import json
import sys
import textwrap

from doublecheck.harness.operations import operation
from doublecheck.oracle import api, variants
from doublecheck.oracle.request_limits import check_perft_depth
from doublecheck.oracle.errors import (INVALID_MOVE_TEXT, INVALID_REQUEST, UNKNOWN_RULE,
                                       UNKNOWN_VARIANT, RulesError, UsageError)

# Each handler imports the rest of what it needs itself: a one-position lookup then
# starts without the case loader, PGN, SVG or the perft pool.


def _moves(args):
    return args.moves.split() if args.moves else []


def _write(path: str, text: str) -> None:
    """Write a file the user named (``harness.output``: whole, or through a device or FIFO);
    failing, a ``cannot-write`` error."""
    from doublecheck.harness.output import OutputError, write_output

    try:
        write_output(path, text)
    except OutputError as e:
        raise RulesError(e.code, e.message) from None


def as_text(op: str, result: dict) -> str:
    """A lookup's answer as the plain text the command prints without --json
    (the operations table's ``text``; an unknown operation is an error, never a guess)."""
    return operation(op).text(result)


def _print(args, op: str, answer: dict) -> None:
    print(json.dumps(answer) if args.json else as_text(op, answer))


def lookup_command(args) -> int:
    """moves, status, fen (and turns, play without their own options): one oracle request,
    printed."""
    rules = variants.get(args.variant)   # looked up once: everything below gets the object
    req = {"op": args.command, "variant": args.variant}
    if args.fen is not None:
        req["fen"] = args.fen
    if args.moves is not None:
        req["moves"] = args.moves.split()
    _print(args, args.command, api.handle(req, rules=rules))
    return 0


def turns_command(args) -> int:
    """turns: the legal turns, or with --grouped grouped by their first move."""
    if not args.grouped:
        return lookup_command(args)
    from doublecheck.lookups import lookup
    data = lookup.grouped_turns(variants.get(args.variant), args.fen, _moves(args))
    print(json.dumps(data) if args.json else lookup.grouped_turns_text(data))
    return 0


def play_command(args) -> int:
    """play: the position and status after the moves; --pgn FILE also writes them as PGN
    (``-``: prints only the PGN)."""
    if args.pgn:
        from doublecheck.lookups import pgn
        text = pgn.pgn_for_line(variants.get(args.variant), args.fen, _moves(args))
        if args.pgn == "-":
            sys.stdout.write(text)
            return 0
        _write(args.pgn, text)
    return lookup_command(args)


def perft_command(args) -> int:
    """perft: through the transposition cache (or --no-hash, the plain walk), in this
    process, over --jobs N processes or on the Dask cluster at --scheduler."""
    from doublecheck.perft.parallel import count as perft_count
    from doublecheck.progress import Progress

    rules = variants.get(args.variant)
    check_perft_depth(rules, args.depth, args.turns)
    if args.divide and args.depth < 1:
        raise RulesError(INVALID_REQUEST, "--divide needs --depth 1 or more")
    pos = api.replay(rules, args.fen, _moves(args)).final
    if args.depth == 0:
        answer = {"nodes": 1}
    else:
        with Progress("doublecheck perft", 0, "subtrees", None, quiet=args.quiet) as progress:
            answer = perft_count(rules, pos, args.depth, turns=args.turns,
                                 hash_mb=0 if args.no_hash else args.hash,
                                 jobs=args.jobs or perft_jobs(rules, pos, args.depth, args.turns),
                                 scheduler=args.scheduler, progress=progress)
        if not args.divide:
            del answer["divide"]
    _print(args, args.command, answer)
    return 0


def perft_jobs(rules, pos, depth: int, turns: bool) -> int:
    """--jobs auto for perft: the usable cores when the count may reach PERFT_POOL_NODES
    (estimated as the number of first steps to the power of the depth), else one process
    (starting a pool costs more than a small count)."""
    from doublecheck.defaults import PERFT_POOL_NODES
    from doublecheck.resource_limits import auto_jobs
    from doublecheck.oracle.perft import steps

    first = sum(1 for _ in steps(rules, pos, turns))
    return auto_jobs() if first ** depth >= PERFT_POOL_NODES else 1


def rules_command(args) -> int:
    """The rule catalogue, one rule with the cases that cite it, or the coverage matrix."""
    from doublecheck.casefiles import DataError, check_cases_dir, load_cases, load_rules

    if getattr(args, "options", False):
        if args.id is not None or args.matrix or getattr(args, "pairs", False):
            raise UsageError("--options lists every option: not with a rule id, --matrix or --pairs",
                             "doublecheck rules")
        return option_list(args)
    cases_dir = check_cases_dir(args.cases_dir)
    catalogue, problems = load_rules(cases_dir)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.matrix and getattr(args, "pairs", False):
        raise UsageError("--matrix prints the pair tables too: give one of --matrix and --pairs",
                         "doublecheck rules")
    if args.matrix:
        return _matrix(args, cases_dir, catalogue, problems)
    if getattr(args, "pairs", False):
        return _pairs(args, cases_dir, catalogue, problems)
    _known_variants(args.variant, catalogue)
    if args.id is None:
        return _rule_list(args, catalogue)
    rule = catalogue.get(args.id)
    if rule is None:
        raise DataError(UNKNOWN_RULE, f"no rule with id '{args.id}' in {args.cases_dir}")
    cases, _ = load_cases(cases_dir, wanted=lambda _variant, raw: args.id in (raw.get("rules") or ()))
    cited = [c for c in cases if args.id in c.rules and (not args.variant or c.variant in args.variant)]
    if args.json:
        print(json.dumps({"rule": rule, "cases": [c.id for c in cited],
                          "case_counts": _case_counts(cited)}))
        return 0
    print(f"{args.id}: {rule.get('title', '')}")
    print(textwrap.fill(rule.get("statement", ""), 78, initial_indent="  ", subsequent_indent="  "))
    print(f"Source: {rule.get('source', '')}")
    print(f"Variants: {', '.join(rule.get('variants', []))}")
    for variant, reason in rule.get("not_tested", {}).items():
        print(textwrap.fill(f"Not tested in {variant}: {reason}", 78, subsequent_indent="  "))
    if rule.get("components"):
        print(f"State components: {', '.join(rule['components'])} (doublecheck rules --matrix)")
    _case_summary(args, cited)
    return 0


def options_data(chosen=None) -> list[dict]:
    """Every declared option (doublecheck.oracle.options): its kind, summary, default, values
    with their sources, and the variants that take it, asked of each registered rules class
    (a capability concerns the engine, so every variant).  ``chosen``: only options some of
    these variants take."""
    from doublecheck.oracle import options
    every = list(variants.registered())
    classes = {v: variants.descriptor(v).rules_class() for v in every}
    out = []
    for name, option in options.table().items():
        which = every if option.kind == options.CAPABILITY else \
            [v for v in every if name in options.taken_by(classes[v])]
        if chosen and not set(chosen) & set(which):
            continue
        own = {v: {"default": options.default_of(classes[v], name),
                   "values": list(options.values_of(classes[v], name))}
               for v in which if option.kind == options.RULE
               and (options.default_of(classes[v], name), options.values_of(classes[v], name))
               != (option.default, tuple(option.values))}
        out.append({"name": name, "kind": option.kind, "summary": option.summary,
                    "default": option.default, "rule": option.rule, "variants": which,
                    "in_variants": own,
                    "values": [{"value": value, "default": value == option.default,
                                "summary": v.summary, "sources": list(v.sources)}
                               for value, v in option.values.items()]})
    return out


def option_list(args) -> int:
    """``rules --options``: every option, as text or JSON."""
    if args.variant:
        unknown = [v for v in args.variant if v not in variants.registered()]
        if unknown:
            raise RulesError(UNKNOWN_VARIANT, variants.unknown_message(unknown[0]))
    found = options_data(args.variant)
    if args.json:
        print(json.dumps({"options": found}))
        return 0
    wrap = dict(width=78, subsequent_indent="      ", break_on_hyphens=False)
    for n, option in enumerate(found):
        if n:
            print()
        kind = ("rule option, doublecheck rules " + option["rule"] if option["rule"]
                else f"{option['kind']} option")
        print(textwrap.fill(f"{option['name']} ({kind}): {option['summary']}", width=78,
                            subsequent_indent="  ", break_on_hyphens=False))
        print(textwrap.fill(f"  variants: {', '.join(option['variants'])}", **wrap))
        for value in option["values"]:
            mark = " (default)" if value["default"] else ""
            print(textwrap.fill(f"  {option['name']}={value['value']}{mark}: {value['summary']}", **wrap))
            for source in value["sources"]:
                print(textwrap.fill(f"    source: {source}", **wrap))
    print()
    print("Declare them in the engine's hello or with 'doublecheck run --option NAME=VALUE';")
    print("'doublecheck docs options' explains how a run judges under them.")
    return 0


def _case_counts(cases) -> dict[str, dict[str, int]]:
    """How many of ``cases`` each variant has, by case file (topic), in the tree's order."""
    counts: dict[str, dict[str, int]] = {}
    for case in cases:
        topics = counts.setdefault(case.variant, {})
        topics[case.topic] = topics.get(case.topic, 0) + 1
    return counts


def _case_summary(args, cited) -> None:
    """The cases citing the rule: a count per variant and case file, or with --cases every id.
    The answer comes first; a rule cited by a hundred cases must not bury it."""
    if args.cases:
        print(f"Cases ({len(cited)}):")
        for case in cited:
            print(f"  {case.id}")
        return
    print(f"Cases: {len(cited)}" + (f" (doublecheck rules {args.id} --cases lists them)" if cited else ""))
    for variant, topics in _case_counts(cited).items():
        files = ", ".join(f"{topic} {n}" for topic, n in topics.items())
        print(textwrap.fill(f"{variant}: {sum(topics.values())} ({files})", 78, break_on_hyphens=False,
                            initial_indent="  ", subsequent_indent="    "))


def _known_variants(chosen, catalogue) -> None:
    """RulesError(unknown-variant) for a --variant the catalogue does not name."""
    from doublecheck.lookups import matrix

    unknown = [v for v in chosen or [] if v not in matrix.variant_order(catalogue)]
    if unknown:
        raise RulesError(UNKNOWN_VARIANT, f"unknown variant {unknown[0]!r}; the catalogue names "
                                          f"{', '.join(matrix.variant_order(catalogue))}")


def _rule_list(args, catalogue) -> int:
    """Every rule (of the --variant ones, if given): id, title and the variants it belongs to."""
    from doublecheck.lookups import matrix

    every = matrix.variant_order(catalogue)
    rules = {rid: rule for rid, rule in catalogue.items()
             if not args.variant or set(args.variant) & set(rule.get("variants", []))}
    if args.json:
        print(json.dumps({"rules": list(rules.values())}))
        return 0
    w = max((len(i) for i in rules), default=0)
    t = max((len(rule.get("title", "")) for rule in rules.values()), default=0)
    for rule_id, rule in rules.items():
        print(f"{rule_id:<{w}}  {rule.get('title', ''):<{t}}  [{_variants_of(rule, every)}]")
    return 0


def _variants_of(rule, every) -> str:
    """The variants a rule belongs to, in catalogue order ("all" when it is every one)."""
    mine = [v for v in every if v in rule.get("variants", [])]
    return "all variants" if mine == every else ", ".join(mine)


def _matrix(args, cases_dir, catalogue, shown) -> int:
    """rules --matrix: exit 0 when every cell the catalogue does not justify has cases,
    nothing is thin and every declared pair is covered or impossible, else 1."""
    from doublecheck.lookups import matrix, pairs

    if args.id is not None:
        raise UsageError("--matrix shows every rule; give either a rule id or --matrix",
                         "doublecheck rules")
    _known_variants(args.variant, catalogue)
    cases = _cases_told(cases_dir, shown)
    columns = args.variant or matrix.variant_order(catalogue)
    table = matrix.build(catalogue, cases, args.variant, matrix.mutant_kills(cases, columns))
    tables = [pairs.build(v, cases, catalogue, cases_dir) for v in table.variants]
    if args.json:
        print(json.dumps({**table.as_json(), "pairs": [t.as_json() for t in tables]}))
    else:
        print(matrix.as_text(table))
        print("\n".join(pairs.as_text(tables)))
    failing = any(t.failing() or t.problems for t in tables)
    return 1 if table.gaps or table.problems or table.thin or failing else 0


def _cases_told(cases_dir, shown) -> list:
    """The cases, each problem of loading them warned about once (the catalogue's own
    problems, in ``shown``, were printed already)."""
    from doublecheck.casefiles import load_cases
    cases, problems = load_cases(cases_dir)
    for problem in problems:
        if problem not in shown:
            print(f"warning: {problem}", file=sys.stderr)
    return cases


def _pairs(args, cases_dir, catalogue, shown) -> int:
    """rules --pairs: the pair tables alone, each pair with its state and its probe; exit 0
    when every declared pair is covered or impossible, else 1 (a variant without a pair
    catalogue is listed as having none yet, as in the matrix)."""
    from doublecheck.lookups import matrix, pairs

    if args.id is not None:
        raise UsageError("--pairs lists the pair tables: not with a rule id",
                         "doublecheck rules")
    _known_variants(args.variant, catalogue)
    cases = _cases_told(cases_dir, shown)
    tables = [pairs.build(v, cases, catalogue, cases_dir)
              for v in (args.variant or matrix.variant_order(catalogue))]
    if args.json:
        print(json.dumps({"pairs": [t.as_json() for t in tables]}))
    else:
        print("\n".join(pairs.as_text(tables, probes=True)))
    return 1 if any(t.failing() or t.problems for t in tables) else 0


def show_command(args) -> int:
    from doublecheck.lookups import lookup

    if args.json:
        print(json.dumps(lookup.show_data(args.variant, args.fen, _moves(args))))
    else:
        print(lookup.show(args.variant, args.fen, _moves(args), ascii_only=args.ascii))
    return 0


def explain_command(args) -> int:
    """Exit 0 when the move or turn is legal, 1 when it is not."""
    from doublecheck.lookups import lookup

    result = lookup.explain(args.variant, args.fen, _moves(args), move=args.move, turn=args.turn)
    if not result["legal"] and result["code"] == INVALID_MOVE_TEXT:
        raise RulesError(INVALID_MOVE_TEXT, result["reason"])
    print(json.dumps(result) if args.json else lookup.explain_text(result))
    return 0 if result["legal"] else 1


def replay_command(args) -> int:
    from doublecheck.lookups import pgn

    report = pgn.replay_file(args.file)
    print(json.dumps(report) if args.json else pgn.report_text(report))
    return pgn.exit_code(report)


def svg_command(args) -> int:
    from doublecheck.pictures.svg import svg_for

    text = svg_for(args.variant, args.fen, _moves(args), turn=args.turn, title=args.title)
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return 0
    _write(args.output, text)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
