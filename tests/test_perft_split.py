"""The split that keeps transpositions together (doublecheck.perft.split): a deep
split and chunks by neighbourhood give the plain counts, put every task in
exactly one chunk, and keep the split positions that transpose a ply further
down in one chunk.  The speed it buys is measured by benchmarks/deep_perft_bench.py."""

from collections import defaultdict

from hypothesis import given
from hypothesis import strategies as st

from doublecheck.oracle import perft as plain
from doublecheck.oracle import variants
from doublecheck.perft.cache import Counter, Table
from doublecheck.perft.parallel import count
from doublecheck.perft.split import plan
from test_perft_cache import SETTINGS, depths, positions, random_position


@SETTINGS
@given(positions, st.integers(1, 3), st.integers(1, 40))
def test_a_deep_split_in_chunks_adds_up_to_the_plain_divide(case, below, n_chunks):
    variant, seed, turns = case
    rules, pos = random_position(variant, seed)
    for depth, _ in depths(rules, pos, turns):
        split = plan(rules, pos, depth, turns, below=below)
        assert 1 <= split.split <= max(1, depth - 1)
        chunks = split.chunks(n_chunks)
        assert sorted(i for chunk in chunks for i in chunk) == list(range(len(split.tasks)))
        assert len(chunks) <= n_chunks and all(chunks)
        counter = Counter(rules, Table(16))
        counts = [None] * len(split.tasks)
        for chunk in chunks:
            for i in chunk:
                counts[i] = counter.count(split.tasks[i].pos, split.tasks[i].depth, turns)
        assert split.divide(counts) == plain.divide(rules, pos, depth, turns=turns)


def test_the_split_goes_down_to_two_plies_above_the_leaves():
    chess = variants.get("chess")
    assert plan(chess, chess.start, 5, below=2).split == 3
    assert plan(chess, chess.start, 5, min_tasks=32).split == 2   # without below: the first ply with enough
    assert plan(chess, chess.start, 2, below=2).split == 1        # never above the first ply


def test_positions_that_transpose_a_ply_down_share_a_chunk():
    """Chess from the start, split after two plies: the 400 positions lead to 5,362
    distinct ones a ply further, many through several of them (no capture is possible
    yet), and each of those is reached from one chunk only."""
    chess = variants.get("chess")
    split = plan(chess, chess.start, 4, below=2)
    assert split.split == 2 and len(split.tasks) == 400
    chunk_of = {i: n for n, chunk in enumerate(split.chunks(8)) for i in chunk}
    parents = defaultdict(set)
    for i, task in enumerate(split.tasks):
        for move in chess.legal_moves(task.pos):
            parents[chess.perft_key(chess.play(task.pos, move))].add(i)
    assert len(parents) == 5362
    assert sum(len(p) > 1 for p in parents.values()) > 1000          # transpositions abound
    assert all(len({chunk_of[i] for i in p}) == 1 for p in parents.values())


def test_two_local_processes_give_the_plain_divide():
    anul = variants.get("double-move-anul")
    want = plain.divide(anul, anul.start, 3)
    got = count(anul, anul.start, 3, jobs=2)
    assert got["divide"] == want and got["nodes"] == 8864   # cases/double-move-anul/generated-perft.json


def test_the_progress_of_a_split_counts_chunks_of_subtrees():
    """Over processes the tasks travel in chunks, so the progress line counts chunks."""
    import io
    from doublecheck.progress import Progress
    stream = io.StringIO()
    rules = variants.get("chess")
    progress = Progress("doublecheck perft", 0, "subtrees", None, stream=stream, interval=3600)
    assert count(rules, rules.start, 4, jobs=2, progress=progress)["nodes"] == 197281
    progress.tick()
    done, total = stream.getvalue().splitlines()[-1].split(": ", 1)[1].split(" ", 1)[0].split("/")
    assert done == total and f"{total} chunks of subtrees done, 197,281 nodes" in stream.getvalue()


def test_a_task_is_counted_under_the_rules_options_not_the_defaults():
    """A worker process rebuilds the rules from the variant id and the non-default options
    its task carries.  Under ep-after-move-one=none a two-square step made as move one
    leaves no target (the Marseillais options record), so fewer captures are counted; here
    the step and the capture both fall inside the tasks below Black's first move."""
    from doublecheck.perft.parallel import count_task
    fen = "4k3/8/8/8/3p4/8/4P3/4K3 b - - 0 5"   # Black's turn, then e2-e4 as move one, then d4xe3?
    house = variants.get("marseillais", {"ep-after-move-one": "none"})
    default = variants.get("marseillais")
    want = plain.perft(house, house.parse_fen(fen), 5)
    assert want != plain.perft(default, default.parse_fen(fen), 5)
    split = plan(house, house.parse_fen(fen), 5, below=4)
    assert sum(split.divide([count_task(task, 0) for task in split.tasks]).values()) == want
