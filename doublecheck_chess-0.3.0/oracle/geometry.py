"""Board shapes as data.

A board is a set of named squares laid out on a grid of files (``a``..``p``)
and ranks (``0``..``9``).  Squares are numbered ``row * width + file`` where
``row`` counts up from the lowest rank.  Grid cells that are not part of the
board simply do not exist: a sliding piece's line stops at the first missing
cell, exactly as it stops at the edge of an ordinary board.  All movement
tables are computed once here, so the move generator never needs to know
which board it is on.
"""

FILE_LETTERS = "abcdefghijklmnop"

ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
QUEEN_DIRECTIONS = ROOK_DIRECTIONS + BISHOP_DIRECTIONS
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


class Geometry:
    """Which squares exist, what they are called and what lies in each direction."""

    def __init__(self, width: int, ranks: range, extra_squares=(), missing_squares=()):
        self.width = width
        self.ranks = ranks  # rank labels from bottom to top
        self.height = len(ranks)
        names = {f"{FILE_LETTERS[f]}{r}" for r in ranks for f in range(width)}
        names = (names | set(extra_squares)) - set(missing_squares)
        self.size = self.width * self.height
        self.name = [None] * self.size
        self.index = {}
        for r in ranks:
            for f in range(width):
                sq = (r - ranks.start) * width + f
                n = f"{FILE_LETTERS[f]}{r}"
                if n in names:
                    self.name[sq] = n
                    self.index[n] = sq
        self.squares = tuple(sq for sq in range(self.size) if self.name[sq])
        self.file = [sq % width for sq in range(self.size)]
        self.rank = [ranks.start + sq // width for sq in range(self.size)]
        # rays[sq][(df, dr)]: the squares met walking from sq in that direction
        self.rays = [{d: self._ray(sq, d) for d in QUEEN_DIRECTIONS} for sq in range(self.size)]
        self.knight = [tuple(t for t in (self.step(sq, d) for d in KNIGHT_JUMPS) if t is not None)
                       for sq in range(self.size)]
        self.king = [tuple(ray[0] for ray in self.rays[sq].values() if ray) for sq in range(self.size)]

    def square(self, file: int, rank: int):
        """The square at (file index, rank label), or None if the board has no such square."""
        if 0 <= file < self.width and rank in self.ranks:
            sq = (rank - self.ranks.start) * self.width + file
            if self.name[sq]:
                return sq
        return None

    def step(self, sq: int, d):
        return self.square(self.file[sq] + d[0], self.rank[sq] + d[1])

    def _ray(self, sq, d):
        out = []
        if self.name[sq]:
            nxt = self.step(sq, d)
            while nxt is not None:
                out.append(nxt)
                nxt = self.step(nxt, d)
        return tuple(out)

    def rank_squares(self, rank: int):
        """The existing squares of one rank, from the a-file side."""
        return [sq for sq in (self.square(f, rank) for f in range(self.width)) if sq is not None]

    def is_light(self, sq: int) -> bool:
        """Square colour: a1 is dark, so a square is light when file index + rank is even."""
        return (self.file[sq] + self.rank[sq]) % 2 == 0


STANDARD = Geometry(8, range(1, 9))
