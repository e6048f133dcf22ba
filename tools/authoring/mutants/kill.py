"""The kill run: every case of a mutant's variant against the mutant, in process.

``run_mutant`` plays the cases against a mutant (``oracle.api.handle(request,
rules=mutant)``, answered and compared exactly as the harness does for an
adapter).  A mutant is *killed* when at least one case fails; the run stops
after the first few killing cases.  The cases that cite the mutant's rule go
first, then the rest, cheap ones before expensive ones; perft cases above a
node budget are skipped.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import sys
import time
from dataclasses import dataclass

from doublecheck.authoring.mutants import CATALOGUE, Mutant
from doublecheck.casefiles import CASES_NOT_FOUND, DataError, check_cases_dir, load_cases
from doublecheck.harness.compare import compare, judged_as
from doublecheck.harness.engines import AdapterEngine
from doublecheck.harness.runner import expected_nodes
from doublecheck.oracle import api, variants
from doublecheck.resource_limits import auto_jobs
from doublecheck.progress import Progress
from doublecheck.oracle.errors import UNKNOWN_MUTANT

from doublecheck.defaults import MUTANTS_MAX_NODES as DEFAULT_MAX_NODES  # noqa: E402 (perft cases above it are skipped)
KILLERS_SHOWN = 3            # a mutant's run stops after this many killing cases

EXIT_ALL_KILLED, EXIT_SURVIVOR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass
class Outcome:
    mutant: Mutant
    killers: list           # ids of the first killing cases
    diff: list              # the first killer's diff lines
    ran: int = 0
    skipped: int = 0
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return bool(self.killers)

    def as_json(self) -> dict:
        m = self.mutant
        return {"mutant": m.name, "variant": m.variant, "rule": m.rule, "description": m.description,
                "killed": self.killed, "killers": self.killers, "diff": self.diff,
                "cases_run": self.ran, "cases_skipped": self.skipped, "seconds": round(self.seconds, 2)}


class RulesAdapter:
    """A rules object as an in-process adapter, asked and answered like any engine
    (``rules=None`` is the oracle itself)."""

    def __init__(self, rules, name: str, variant: str):
        self.rules, self.name, self.variant = rules, name, variant

    def hello(self) -> dict:
        return {"name": self.name, "variants": [self.variant], "ops": list(api.OPS)}

    def handle(self, request: dict) -> dict:
        return api.handle(request, rules=self.rules)


def engine_for(m: Mutant, oracle: bool = False, options=None) -> AdapterEngine:
    """The mutant (or, with oracle=True, the oracle) as a harness engine, playing under the
    rule ``options`` (a case's own)."""
    if oracle:
        rules = variants.get(m.variant, options) if options else None
    else:
        rules = m.rules(options)
    name = "oracle" if oracle else m.name
    return AdapterEngine(RulesAdapter(rules, name, m.variant), name)


class CaseEngines:
    """The mutant as a harness engine for each set of rule options the cases name: every
    case is asked under its own options, as the harness asks the oracle."""

    def __init__(self, m: Mutant):
        self.m, self.made = m, {}

    def answer(self, case) -> dict:
        key = tuple(sorted(case.options.items()))
        if key not in self.made:
            self.made[key] = engine_for(self.m, options=case.options)
        return self.made[key].request(case.request)


def schedule(cases, m: Mutant, max_nodes=DEFAULT_MAX_NODES):
    """(cases to run, in order; number skipped): the mutant's variant only, cases citing its
    rule first, cheap before expensive, perft above max_nodes left out."""
    mine = [c for c in cases if c.variant == m.variant]
    runnable = [c for c in mine if max_nodes is None or expected_nodes(c) <= max_nodes]
    order = sorted(range(len(runnable)),
                   key=lambda i: (m.rule not in runnable[i].rules, expected_nodes(runnable[i]), i))
    return [runnable[i] for i in order], len(mine) - len(runnable)


def run_mutant(m: Mutant, cases, max_nodes=DEFAULT_MAX_NODES, stop_after=KILLERS_SHOWN) -> Outcome:
    """Play the cases against the mutant until `stop_after` of them fail."""
    start = time.perf_counter()
    chosen, skipped = schedule(cases, m, max_nodes)
    engines = CaseEngines(m)
    outcome = Outcome(m, [], [], skipped=skipped)
    for case in chosen:
        outcome.ran += 1
        answer = engines.answer(case)
        lines = compare(judged_as(case.variant, case.options), case.expect, answer)
        if lines:
            outcome.killers.append(case.id)
            if not outcome.diff:
                outcome.diff = lines[:4]
            if len(outcome.killers) >= stop_after:
                break
    outcome.seconds = time.perf_counter() - start
    return outcome


_cases = None   # the cases, in a worker process of outcomes_of


def _keep_cases(cases) -> None:
    global _cases
    _cases = cases


def _run_named(name: str, max_nodes) -> Outcome:
    return run_mutant(CATALOGUE[name], _cases, max_nodes)


def outcomes_of(chosen, cases, max_nodes, jobs: int = 1):
    """The outcome of each chosen mutant, in the order chosen, computed here or on ``jobs``
    processes (each gets the cases once); the outcomes are the same either way."""
    if jobs <= 1 or len(chosen) <= 1:
        yield from (run_mutant(m, cases, max_nodes) for m in chosen)
        return
    with cf.ProcessPoolExecutor(jobs, initializer=_keep_cases, initargs=(cases,)) as pool:
        futures = [pool.submit(_run_named, m.name, max_nodes) for m in chosen]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def witness_diff(m: Mutant) -> list[str]:
    """How the mutant's answer to its witness differs from the oracle's (empty: it does not)."""
    request = m.witness_request()
    want = engine_for(m, oracle=True, options=m.options).request(request)
    expect = ({k: v for k, v in want.items() if k != "ok"} if want.get("ok")
              else {"error": {"code": want["error"]["code"]}})
    return compare(m.variant, expect, engine_for(m, options=m.options).request(request))


def chosen_mutants(variant=None, name=None) -> list[Mutant]:
    return [m for m in CATALOGUE.values()
            if (variant is None or m.variant == variant) and (name is None or m.name == name)]


def table(outcomes) -> str:
    rows = [("mutant", "rule", "result", "first killing cases")]
    for o in outcomes:
        rows.append((o.mutant.name, o.mutant.rule, "killed" if o.killed else "SURVIVED",
                     ", ".join(o.killers) if o.killed else f"none of {o.ran} cases failed"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * len(rows[0][3]))
    return "\n".join(lines)


def counts(outcomes) -> str:
    per = {}
    for o in outcomes:
        k, n = per.get(o.mutant.variant, (0, 0))
        per[o.mutant.variant] = (k + o.killed, n + 1)
    parts = [f"{v}: {k}/{n} killed" for v, (k, n) in per.items()]
    total_k = sum(k for k, _ in per.values())
    total_n = sum(n for _, n in per.values())
    return "; ".join(parts) + f"; total {total_k}/{total_n} killed"


def mutants_command(args) -> int:
    """``doublecheck mutants`` (options: see the CLI); returns the exit status."""
    if args.variant is not None:
        variants.get(args.variant)  # RulesError unknown-variant, naming the known ones
    if args.mutant is not None and args.mutant not in CATALOGUE:
        raise DataError(UNKNOWN_MUTANT, f"unknown mutant {args.mutant!r}; "
                                          f"'--list' shows the {len(CATALOGUE)} known ones")
    chosen = chosen_mutants(args.variant, args.mutant)
    if not chosen:
        raise DataError(UNKNOWN_MUTANT, f"no mutant of {args.variant} is named {args.mutant}")
    if args.list:
        if args.json:
            print(json.dumps([{"mutant": m.name, "variant": m.variant, "rule": m.rule,
                               "description": m.description} for m in chosen], indent=2))
        else:
            for m in chosen:
                print(f"{m.name}  [{m.rule}]  {m.description}")
        return EXIT_ALL_KILLED
    cases, problems = load_cases(check_cases_dir(args.cases_dir))
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    # A verdict needs cases to judge by: "survived" against no cases would be a false one.
    empty = sorted({m.variant for m in chosen} - {c.variant for c in cases})
    if empty:
        raise DataError(CASES_NOT_FOUND, f"{args.cases_dir} has no cases of {', '.join(empty)}, "
                                         f"so no mutant of it can be judged")
    max_nodes = args.max_nodes or None
    start = time.perf_counter()
    outcomes = []
    quiet = getattr(args, "quiet", False)
    jobs = getattr(args, "jobs", 1) or auto_jobs(len(chosen))
    try:
        with Progress("doublecheck mutants", len(chosen), "mutants", "survived",
                      quiet=quiet) as progress:
            results = outcomes_of(chosen, cases, max_nodes, jobs)
            for m in chosen:
                progress.start(m.name)
                outcomes.append(next(results))
                progress.finish(m.name, bad=not outcomes[-1].killed)
                if not args.json and not quiet:
                    progress.note(f"  {m.name}: {'killed' if outcomes[-1].killed else 'SURVIVED'} "
                                  f"({outcomes[-1].ran} cases, {outcomes[-1].seconds:.1f}s)")
    except KeyboardInterrupt:
        print(f"doublecheck mutants: interrupted after {len(outcomes)} of {len(chosen)} mutants",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    elapsed = time.perf_counter() - start
    if args.json:
        print(json.dumps({"max_nodes": max_nodes, "seconds": round(elapsed, 1),
                          "mutants": [o.as_json() for o in outcomes]}, indent=2))
    else:
        print(table(outcomes))
        print()
        budget = f"perft cases above {max_nodes} nodes skipped" if max_nodes else "no perft case skipped"
        print(counts(outcomes) + f" ({elapsed:.0f}s; {budget})")
        for o in outcomes:
            if not o.killed:
                print(f"survivor {o.mutant.name} [{o.mutant.rule}]: {o.mutant.description}")
    return EXIT_ALL_KILLED if all(o.killed for o in outcomes) else EXIT_SURVIVOR
