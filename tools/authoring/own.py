"""``doublecheck generate --seed/--count/--depth/--fen``: new vectors of a user's own.

The built-in generators rewrite the shipped files; this module makes one new
case file for one variant from the options given, answered by the oracle:

- ``--count N`` seeded random games (``--seed S``, default 1) of at most
  ``TURNS`` turns each, from ``--fen`` or the start position: each move is drawn
  by ``random.Random`` among the oracle's legal moves (sorted), and the file
  keeps checkpoints along it (``Kit.checkpoint_cases``: legal turn counts,
  legal moves, one full turn list) and the FEN and status at the end;
- ``--depth D`` perft in moves from ``--fen`` (or the start) at depths 1 to D,
  the last one with divide.

The file is ``<variant>/<topic>.json`` with a topic built from the options,
marked ``"generated": true`` and carrying its provenance: the command that
makes it again (``generator``) and ``source`` in every case.  The same options
give the same file, byte for byte.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from doublecheck import __version__
from doublecheck.authoring.generators import Kit
from doublecheck.oracle import variants
from doublecheck.oracle.errors import INVALID_REQUEST, RulesError
from doublecheck.oracle.limits import check_perft_depth

TURNS = 40           # turns of one random game at most
EVERY = 10           # a checkpoint every EVERY turns
MAX_COUNT = 100      # random games per file at most (each costs a few seconds)
DEFAULT_FEN_DEPTH = 2
OWN_PREFIX = "own-"  # every topic this module writes starts so (``generate --check`` skips them)
PLAYOUT_RULES = ["G1", "G7"]   # legal moves and turns (G1), turn counts as perft 1 (G7)
FINAL_RULES = ["G1", "G9"]     # the position reached, as FEN (G9)
PERFT_RULES = ["G7"]


@dataclass(frozen=True)
class OwnOptions:
    variant: str = "chess"
    seed: int | None = None
    count: int | None = None
    depth: int | None = None
    fen: str | None = None

    @property
    def games(self) -> int:
        return self.count if self.count is not None else (1 if self.seed is not None else 0)

    @property
    def perft_depth(self) -> int:
        return self.depth if self.depth is not None else (DEFAULT_FEN_DEPTH if self.fen else 0)

    def command(self) -> str:
        """The command line that makes this file again."""
        words = ["doublecheck generate", f"--variant {self.variant}"]
        if self.games:
            words += [f"--seed {self.seed or 1}", f"--count {self.games}"]
        if self.perft_depth:
            words.append(f"--depth {self.perft_depth}")
        if self.fen:
            words.append(f"--fen '{self.fen}'")
        return " ".join(words)

    def topic(self) -> str:
        parts = [f"seed-{self.seed or 1}-games-{self.games}"] if self.games else []
        if self.perft_depth:
            where = hashlib.sha256(self.fen.encode()).hexdigest()[:8] if self.fen else "start"
            parts.append(f"perft-{self.perft_depth}-{where}")
        return OWN_PREFIX + "-".join(parts)


def check(options: OwnOptions) -> None:
    """RulesError for options that cannot make a file (unknown variant, bad FEN, depth)."""
    rules = variants.get(options.variant)
    if options.fen is not None:
        rules.parse_fen(options.fen)
    if options.games > MAX_COUNT:
        raise RulesError(INVALID_REQUEST, f"--count {options.games} is more than {MAX_COUNT} games")
    if not options.games and not options.perft_depth:
        raise RulesError(INVALID_REQUEST, "nothing to generate: give --count (random games) "
                                          "or --depth (perft)")
    check_perft_depth(rules, options.perft_depth)


def random_game(variant: str, seed: int, fen: str | None) -> list[str]:
    """The turns of one seeded random game, each move drawn among the legal moves (sorted by
    their text) until the turn is complete; a turn is written as its moves joined by commas."""
    rules = variants.get(variant)
    rng = random.Random(seed)
    pos, history, line = rules.parse_fen(fen or rules.start_fen), [], []
    while len(line) < TURNS and not rules.status(pos, history)["over"]:
        history.append(rules.identity(pos))
        texts = []
        while True:
            moves = sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m))
            move = rng.choice(moves)
            texts.append(rules.move_text(pos, move).rstrip(","))   # "e2e4," opens a Double Move
            pos = rules.play(pos, move)
            if not rules.mid_turn(pos):
                break
        line.append(",".join(texts))
    return line


def playout_cases(kit: Kit, options: OwnOptions) -> list:
    origin = {"fen": options.fen} if options.fen else {}
    cases = []
    first = options.seed or 1
    for game in range(first, first + options.games):
        line = random_game(options.variant, game, options.fen)
        cases += kit.checkpoint_cases(game, line, EVERY, PLAYOUT_RULES, origin)
        cases.append(kit.final_case(game, line, FINAL_RULES, origin))
    return cases


def perft_cases(kit: Kit, options: OwnOptions) -> list:
    where = "the given position" if options.fen else "the start position"
    runs = [(d, False, d == options.perft_depth) for d in range(1, options.perft_depth + 1)]
    return kit.perft_cases([("perft", where, options.fen, runs)], lambda fen: PERFT_RULES)


def own_file(options: OwnOptions) -> tuple[str, dict]:
    """(path relative to the case tree, case-file dict) for ``options``."""
    check(options)
    topic = options.topic()
    source = (f"generated by `{options.command()}` from the oracle of doublecheck {__version__}; "
              "not checked by a second implementation")
    kit = Kit(options.variant, source, options.command(), perft_topic=topic, playouts_topic=topic)
    cases = (playout_cases(kit, options) if options.games else []) + \
        (perft_cases(kit, options) if options.perft_depth else [])
    return f"{options.variant}/{topic}.json", kit.case_file(
        topic, f"Vectors of your own: {options.command()}", cases)
