"""The perft cache and the tree split give exactly the plain walk's counts.

Positions come from seeded random play from each variant's start position and
from a few busy positions (so they include positions between the two moves of
a turn, spent abilities, drops, en passant targets and castling rights in every
state).  On each, perft and turn-perft with divide are counted by the plain
walk of oracle/perft.py and by the cached Counter (with a table so small that
it evicts all the time, and with a roomy one), and the tree is split at
several depths and added back up.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.cli import main
from doublecheck.oracle import perft as plain
from doublecheck.oracle import variants
from doublecheck.perft.cache import Counter, Table, entry_bytes
from doublecheck.perft.parallel import count
from doublecheck.progress import Progress
from doublecheck.perft.split import plan

VARIANTS = variants.VARIANT_NAMES
BUSY = {  # positions with castling, en passant and promotions about to happen
    "chess": ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
              "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"],
    "double-move": ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 WB",
                    "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"],
    "double-move-anul": ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 -"],
    "double-chess": [],
    "symmetric-monster": [],
}
NODE_LIMIT = 3000   # no count is started that looks larger than this
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


def random_position(variant, seed):
    """A position reached by up to 12 random moves from the start or a busy position."""
    rules = variants.get(variant)
    rng = random.Random(seed)
    starts = [rules.start_fen] + BUSY.get(variant, [])
    pos = rules.parse_fen(rng.choice(starts))
    for _ in range(rng.randrange(13)):
        moves = sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m))
        if not moves:
            break
        pos = rules.play(pos, rng.choice(moves))
    return rules, pos


def depths(rules, pos, turns):
    """Depths 1, 2, 3 with their plain counts, as long as the next count looks small
    (the last count times the last branching factor stays under NODE_LIMIT)."""
    found, before = [], 1
    for depth in (1, 2, 3):
        n = (plain.perft_turns if turns else plain.perft)(rules, pos, depth)
        found.append((depth, n))
        if n == 0 or n * n / before > NODE_LIMIT:
            break
        before = n
    return found


# Variants whose turns grow without bound (progressive series): one turn from a random
# position can already be astronomically many sequences, so their turn counts are left to
# their own tests (tests/test_progressive.py); their move counts are drawn here as any other.
GROWING = {v for v in VARIANTS
           if variants.get(v).perft_depth_limit(True) < variants.get(v).max_perft_depth}
positions = st.tuples(st.sampled_from(VARIANTS), st.integers(0, 10**6), st.booleans()) \
    .filter(lambda c: not (c[2] and c[0] in GROWING))


@SETTINGS
@given(positions)
def test_cached_counts_and_divides_equal_the_plain_walk(case):
    variant, seed, turns = case
    rules, pos = random_position(variant, seed)
    tiny = Table(1)
    tiny.capacity = 20          # evicts on almost every store
    for depth, n in depths(rules, pos, turns):
        want = plain.divide(rules, pos, depth, turns=turns)
        assert sum(want.values()) == n
        for table in (Table(64), tiny):
            counter = Counter(rules, table)
            assert counter.count(pos, depth, turns) == n
            assert counter.divide(pos, depth, turns) == want
    assert tiny.evicted > 0 or tiny.stored <= tiny.capacity


@SETTINGS
@given(positions, st.integers(1, 400))
def test_a_split_tree_adds_up_to_the_plain_divide(case, min_tasks):
    variant, seed, turns = case
    rules, pos = random_position(variant, seed)
    for depth, n in depths(rules, pos, turns):
        split = plan(rules, pos, depth, turns, min_tasks=min_tasks)
        assert 1 <= split.split <= depth
        counts = [Counter(rules, None).count(t.pos, t.depth, t.turns) for t in split.tasks]
        assert split.divide(counts) == plain.divide(rules, pos, depth, turns=turns)
        assert count(rules, pos, depth, turns, hash_mb=1)["divide"] == plain.divide(rules, pos, depth, turns)


@SETTINGS
@given(positions, st.integers(0, 99), st.integers(1, 300))
def test_the_perft_key_leaves_out_only_what_perft_never_reads(case, halfmove, fullmove):
    """Positions that differ in what the key leaves out (the clocks, an en passant
    square no pawn can use) have equal keys only if their counts are equal: the key
    is complete for perft.  (A variant whose moves read the fullmove number keeps it
    in its key; its keys then differ and nothing is compared.)"""
    variant, seed, turns = case
    rules, pos = random_position(variant, seed)
    key = rules.perft_key(pos)
    others = [pos.replace(halfmove=halfmove, fullmove=fullmove, ep=None),
              pos.replace(halfmove=halfmove, fullmove=fullmove)]
    same = [other for other in others if rules.perft_key(other) == key]
    if variant in ("chess", "double-move", "double-move-anul", "double-chess", "symmetric-monster"):
        assert same, "these variants' moves never read the clocks"
    for other in same[:1]:
        for depth, n in depths(rules, pos, turns):
            assert (plain.perft_turns if turns else plain.perft)(rules, other, depth) == n


def test_the_key_tells_apart_what_perft_does_read():
    rules = variants.get("double-move")
    pos = rules.parse_fen("r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1 WB")
    assert rules.ep_in_reach(pos) is not None
    variants_of_it = [pos, pos.replace(ep=None), pos.replace(castling=frozenset()),
                      pos.replace(state=pos.state._replace(unused="W")), pos.replace(turn="w")]
    assert len({rules.perft_key(p) for p in variants_of_it}) == len(variants_of_it)


def test_modes_and_variants_do_not_share_counts():
    """One table holds moves and turns, and several variants, apart."""
    table = Table(64)
    for variant in ("double-move-anul", "chess", "double-move"):
        rules = variants.get(variant)
        for turns in (False, True, False):
            assert Counter(rules, table).count(rules.start, 2, turns) == \
                (plain.perft_turns if turns else plain.perft)(rules, rules.start, 2)


def test_a_full_table_evicts_the_shallowest_and_oldest_first():
    table = Table(1)
    table.capacity = 8
    deep, shallow = table.level("chess", False, 3), table.level("chess", False, 1)
    for i in range(4):
        table.store(deep, ("d", i), i)
    for i in range(5):
        table.store(shallow, ("s", i), i)
    # 9 > 8: cut down to 6, taking the three oldest of depth 1
    assert list(shallow) == [("s", 3), ("s", 4)] and len(deep) == 4
    assert table.size == 6 and table.evicted == 3


def test_the_table_size_follows_the_budget():
    rules = variants.get("chess")
    one = entry_bytes(rules.perft_key(rules.start))
    assert 150 < one < 1000
    table = Table(10)
    counter = Counter(rules, table)
    counter.count(rules.start, 4)
    assert table.capacity == 10 * 2**20 // one
    assert table.size <= table.capacity


def test_perft_command_options(capsys):
    for extra in ([], ["--no-hash"], ["--hash", "1"], ["--jobs", "2"]):
        assert main(["perft", "--depth", "3", "--divide", "--json", "--quiet", *extra]) == 0
        out = capsys.readouterr().out
        assert '"nodes": 8902' in out and '"e2e4": 600' in out
    assert main(["perft", "--depth", "0", "--json"]) == 0
    assert capsys.readouterr().out.strip() == '{"nodes": 1}'
    for bad in (["--hash", "0"], ["--hash", "1", "--no-hash"], ["--jobs", "2", "--scheduler", "x"]):
        assert main(["perft", "--depth", "2", *bad]) == 2
        assert "error: usage:" in capsys.readouterr().err
    assert main(["perft", "--depth", "-1"]) == 2              # refused by the parser
    assert "error: usage:" in capsys.readouterr().err
    assert main(["perft", "--depth", "99"]) == 2              # over the variant's limit
    assert "error: invalid-request" in capsys.readouterr().err


def test_progress_reports_subtrees_and_speed(capsys):
    import io
    stream = io.StringIO()
    rules = variants.get("chess")
    progress = Progress("doublecheck perft", 0, "subtrees", None, stream=stream, interval=3600)
    result = count(rules, rules.start, 3, progress=progress)
    assert result["nodes"] == 8902
    progress.tick()                       # the line the timer prints every interval
    line = stream.getvalue().splitlines()[-1]
    assert line.startswith("doublecheck perft: 20/20 subtrees done, 8,902 nodes, ")
    assert line.split(", ")[2].endswith("nodes/s")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_counts_the_same_from_its_start(variant):
    rules = variants.get(variant)
    for turns in (False, True):
        d = 2 if not turns or variant in ("chess", "double-chess", "symmetric-monster") else 1
        want = plain.divide(rules, rules.start, d, turns=turns)
        assert Counter(rules, Table(16)).divide(rules.start, d, turns) == want
