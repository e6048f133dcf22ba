"""The deep tier: perft vectors one or two plies deeper than the default files.

``doublecheck generate --deep`` writes ``cases/<variant>/generated-deep-perft.json``
for every generator module that defines ``DEEP_PERFT``, a list of ``DeepPerft``:
the only thing a variant's generator adds to get a deep tier.  The counts come
from ``doublecheck.perft`` (the transposition cache; ``--jobs N`` splits each
count over N processes), and each file is marked ``"tier": "deep"``, so that
``doublecheck run`` leaves its cases out unless asked (``--deep``, or a
``--max-nodes`` at least as large as the case's count).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from doublecheck.authoring import adapter_walk as by_adapter
from doublecheck.authoring.generators import perft_expect, perft_request
from doublecheck.oracle import api, variants
from doublecheck.progress import Progress
from doublecheck.perft.cache import DEFAULT_HASH_MB
from doublecheck.perft.parallel import count

TOPIC = "generated-deep-perft"
SECOND_WALK = ("over 100 million nodes: counted again by the plain walk (no cache) when generated, "
               "as its computed.check records")
ADAPTER_WALK = ("over 100 million nodes: counted again by the python-chess adapter (no code shared "
                "with the oracle) when generated, as its computed.check records")
GENERATOR = "doublecheck generate --deep"


@dataclass(frozen=True)
class DeepPerft:
    """One deep count: perft (or turn-perft) at ``depth`` from a position."""

    slug: str                  # names the position in the case id
    depth: int
    turns: bool = False
    fen: str | None = None     # None: the variant's start position
    moves: tuple = ()          # played from fen first
    divide: bool = True        # also record the count below each first step
    rules: tuple = ("G7",)
    note: str = ""             # where the count is cross-checked, for the case's source
    check: bool = False        # count it a second time when generating, with ...
    second: str = "plain"      # ... this walk: a key of SECOND_WALKS


def deep_rows(cases_dir) -> list[str]:
    """docs/perft.md's deep-tier table (``doublecheck.authoring.derived`` puts it between its
    markers): every deep count, per variant in registry order, with how long it took and
    its second walk."""
    import json
    from pathlib import Path

    rows = ["| variant | case | nodes | counted in | second walk |", "|---|---|---|---|---|"]
    for variant in variants.VARIANT_NAMES:
        path = Path(cases_dir) / variant / f"{TOPIC}.json"
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"] if path.exists() else []
        rows += [f"| `{variant}` | `{c['id'].rsplit('/', 1)[1]}` | {_nodes(c):,} | {_made(c.get('computed'))} | "
                 f"{_checked(c.get('computed'))} |" for c in cases]
    return rows


def _nodes(case: dict) -> int:
    expect = case["expect"]
    return expect["nodes"] if "nodes" in expect else sum(expect.get("divide", {}).values())


def _made(computed: dict | None) -> str:
    if not computed:
        return "(not recorded)"
    processes = computed["how"].rsplit(" on ", 1)[-1]
    walk = "cache" if "transposition cache" in computed["how"] else "plain walk"
    return f"{computed['seconds']:,.0f} s ({walk}, {processes})"


def _checked(computed: dict | None) -> str:
    check = (computed or {}).get("check")
    if not check:
        return "-"
    walk = "python-chess adapter" if "python-chess adapter" in check else "plain walk"
    return f"{walk}, same count" + (f" ({check.rsplit(' in ', 1)[-1]})" if " in " in check else "")


def request_of(spec: DeepPerft) -> dict:
    """The perft request of a deep case, keys in the order the files keep."""
    return perft_request(spec.depth, spec.fen, spec.moves, turns=spec.turns or None, divide=spec.divide)


def case_id(variant: str, spec: DeepPerft) -> str:
    kind = "turn-perft" if spec.turns else "perft"
    return f"{variant}/{TOPIC}/{spec.slug}-{kind}-{spec.depth}"


def how(jobs: int, hash_mb: int) -> str:
    walk = f"the transposition cache (--hash {hash_mb})" if hash_mb else "the plain walk (no cache)"
    where = "one process" if jobs == 1 else f"{jobs} local processes"
    return f"doublecheck generate --deep: {walk} on {where}"


def measure(rules, spec: DeepPerft, jobs: int, hash_mb: int, log) -> tuple[dict, float]:
    """The count of one spec and the seconds it took (wall clock), with a progress line."""
    pos = api.replay(rules, spec.fen, list(spec.moves)).final
    label = f"doublecheck generate --deep ({rules.name} {spec.slug} {'turns' if spec.turns else 'moves'} "\
            f"{spec.depth}{', plain walk' if not hash_mb else ''})"
    started = time.perf_counter()
    with Progress(label, 0, "subtrees", None, stream=log) as progress:
        result = count(rules, pos, spec.depth, turns=spec.turns, hash_mb=hash_mb, jobs=jobs, progress=progress)
    seconds = round(time.perf_counter() - started, 1)
    print(f"{label}: {result['nodes']:,} nodes in {seconds:.1f} s", file=log, flush=True)
    return result, seconds


def plain_walk(rules, spec: DeepPerft, jobs: int, log) -> tuple[dict, float, str]:
    """The oracle's own walk without the table: the same moves, none of the caching."""
    again, seconds = measure(rules, spec, jobs, 0, log)
    return again, seconds, "the plain walk of oracle/perft.py (no cache)"


def adapter_walk(rules, spec: DeepPerft, jobs: int, log) -> tuple[dict, float, str]:
    """A walk sharing no code with the oracle: the python-chess adapter, for the variants it
    plays (its divide keys are the oracle's)."""
    label = f"doublecheck generate --deep ({rules.name} {spec.slug} {'turns' if spec.turns else 'moves'} " \
            f"{spec.depth}, python-chess adapter)"
    again, seconds = by_adapter.divide(rules.name, spec.fen, spec.moves, spec.depth, spec.turns, jobs, log, label)
    print(f"{label}: {again['nodes']:,} nodes in {seconds:.1f} s", file=log or sys.stderr, flush=True)
    return again, seconds, by_adapter.NAME


SECOND_WALKS = {"plain": plain_walk, "adapter": adapter_walk}


def same_divide(one: dict, other: dict) -> bool:
    """Divides agree when each first step has the same count.  A trailing comma (G8) is
    set aside only where no two first steps differ by it alone (in double-move they do)."""
    if one == other:
        return True
    bare = [{k.rstrip(","): v for k, v in d.items()} for d in (one, other)]
    return len(bare[0]) == len(one) and len(bare[1]) == len(other) and bare[0] == bare[1]


def cross_check(rules, spec: DeepPerft, counted: dict, jobs: int, log) -> str:
    """Count again with the spec's second walk, split over ``jobs`` processes; the record
    of the check, or DeepError when the two walks disagree."""
    again, seconds, walk = SECOND_WALKS[spec.second](rules, spec, jobs, log)
    if again["nodes"] != counted["nodes"] or (spec.divide and not same_divide(again["divide"], counted["divide"])):
        raise DeepError(f"{rules.name} {spec.slug}: the cached walk counted {counted['nodes']:,}, "
                        f"{walk} {again['nodes']:,}" + ("" if again["nodes"] != counted["nodes"]
                                                         else ", with another divide"))
    where = "one process" if jobs == 1 else f"{jobs} local processes"
    return f"{walk} on {where} gave the same count" + (" and divide" if spec.divide else "") \
        + f" in {seconds:.1f} s"


class DeepError(Exception):
    """Two walks of a deep count disagree: nothing is written."""


def reusable(committed: dict | None, variant: str, spec: DeepPerft):
    """The committed case of this spec when its request is unchanged (and its expectation
    is there to keep)."""
    old = (committed or {}).get(case_id(variant, spec))
    if not old or old.get("request") != request_of(spec) or not isinstance(old.get("expect"), dict):
        return None
    return old


def deep_case(variant: str, spec: DeepPerft, expect: dict, computed: dict | None) -> dict:
    kind = "turn-perft" if spec.turns else "perft"
    unit = "complete turns" if spec.turns else "moves"
    where = "the start position" if spec.slug == "start" else f"the {spec.slug} position"
    source = ("generated by `doublecheck generate --deep` from the oracle, counted through the "
              "transposition cache (checked against the plain walk in tests/test_perft_cache.py)"
              + (f"; {spec.note}" if spec.note else ""))
    return {"id": case_id(variant, spec), "rules": list(spec.rules),
            "description": f"{kind} {spec.depth} from {where}, counting {unit}"
                           + (", with divide" if spec.divide else ""),
            "source": source, "request": request_of(spec), **({"computed": computed} if computed else {}),
            "expect": expect}


def deep_file(variant: str, specs, jobs: int = 1, log=None, committed: dict | None = None,
              hash_mb: int = DEFAULT_HASH_MB, check: bool = True, recount: bool = False,
              save=None) -> tuple[str, dict]:
    """(path relative to the cases directory, case-file dict) of one variant's deep tier.

    ``committed`` (case id -> case of the file on disk) lets a count whose request
    did not change be kept instead of counted again: a deep count is a fact, and
    counting it again takes minutes to an hour (``generate --deep --check`` does
    recount everything).  ``check``: make the cross-checks the specs ask for that are
    not on record yet (without it they are left for a later run).  ``recount``: count
    every spec again but keep the record of how the committed count was made, so that
    the file's text differs from the committed one exactly when a count does.
    ``save(path, data)``, when given, gets the file after every new count or check (the
    specs not reached yet keep their committed cases), so a long run that is stopped
    keeps what it finished."""
    log = log or sys.stderr
    rules = variants.get(variant)
    cases = []
    for n, spec in enumerate(specs):
        old = reusable(committed, variant, spec)
        if old is not None and not recount:
            expect, computed = old["expect"], old.get("computed")
        else:
            result, seconds = measure(rules, spec, jobs, hash_mb, log)
            computed = old.get("computed") if old else {"how": how(jobs, hash_mb), "seconds": seconds}
            expect = perft_expect(result, spec.divide)
        if check and spec.check and computed is not None and "check" not in computed:
            computed = {**computed, "check": cross_check(rules, spec, expect, jobs, log)}
        cases.append(deep_case(variant, spec, expect, computed))
        if save is not None and computed is not (old or {}).get("computed"):
            rest = [deep_case(variant, s, o["expect"], o.get("computed")) for s in specs[n + 1:]
                    for o in [reusable(committed, variant, s)] if o is not None]
            save(f"{variant}/{TOPIC}.json", file_data(variant, cases + rest))
    return f"{variant}/{TOPIC}.json", file_data(variant, cases)


def file_data(variant: str, cases: list) -> dict:
    return {"variant": variant, "topic": TOPIC, "generated": True, "generator": GENERATOR,
            "tier": "deep",
            "description": "The deep tier: perft and turn-perft one or two plies deeper than the "
                           "default files, left out of a default `doublecheck run` (run them with "
                           "`doublecheck run --deep`).",
            "cases": cases}
