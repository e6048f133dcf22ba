"""The cases for each side's part of a side-owned state component (``covers`` ``<component>:mover``
or ``<component>:other``, see docs/case-format.md) test what they say they test.

- A repetition case for a part ends at a position whose side to move fits the part
  (the owner for ``mover``, the other colour for ``other``); the oracle counts no
  repetition there, and rules that leave exactly that part out of the repetition key
  count a threefold one: the positions differ in that part only.
- A FEN case for a part gives the part's owner less than the full field (castling
  rights, ability, hand) while the other colour's part is full; a Marseillais target
  case lists squares of the owner's pawns only.
"""

import pytest

from doublecheck.casefiles import load_cases
from doublecheck.lookups.matrix import part_of
from doublecheck.oracle import api, variants
from doublecheck.oracle.position import BLACK, WHITE, colored, other
from doublecheck.oracle.variants.double_move import LETTER

COLOUR = {"white": WHITE, "black": BLACK}


def rights(rules, pos, colour):
    return pos.castling & rules.rights_of[colour], rules.rights_of[colour]


def ability(rules, pos, colour):
    return frozenset(pos.state.unused) & {LETTER[colour]}, frozenset(LETTER[colour])


def hand(rules, pos, colour):
    return frozenset(pos.state.hand) & {colored("K", colour)}, frozenset(colored("K", colour))


# component -> (the colour's part of a position and that part when full, the position keeping one colour's part)
PARTS = {
    "castling": (rights, lambda rules, pos, c: pos.replace(castling=rights(rules, pos, c)[0])),
    "abilities": (ability, lambda rules, pos, c: pos.replace(
        state=pos.state._replace(unused="".join(sorted(ability(rules, pos, c)[0]))))),
    "hand": (hand, lambda rules, pos, c: pos.replace(state=pos.state._replace(hand="".join(hand(rules, pos, c)[0])))),
}

CASES, _ = load_cases()


def part_cases(family):
    return [(case, comp) for case in CASES for comp in case.covers
            if part_of(comp) and comp.startswith(family + ":")]


IDENTITY = part_cases("identity")
FEN = part_cases("fen")


def owner_of(case):
    (owner,) = [c for c in COLOUR if f"colour:{c}" in case.covers]
    return COLOUR[owner]


def keeping_one_part(variant, component):
    """The variant's rules with only the side to move's (``keep='mover'``) or the other
    side's part of ``component`` in the repetition key."""
    base = type(variants.get(variant))
    keep_part = PARTS[component][1]

    class OnePart(base):
        keep = "mover"

        def identity(self, pos):
            colour = pos.turn if self.keep == "mover" else other(pos.turn)
            return super().identity(keep_part(self, pos, colour))
    return OnePart


def test_there_are_part_cases_for_every_side_owned_component():
    assert {comp.split(":")[1] for _, comp in IDENTITY} == set(PARTS)
    assert {comp.split(":")[1] for _, comp in FEN} == set(PARTS) | {"en-passant"}


@pytest.mark.parametrize("case, component", IDENTITY, ids=[f"{c.id}:{p}" for c, p in IDENTITY])
def test_a_repetition_case_differs_in_its_part_only(case, component):
    _, name, part = component.split(":")
    request = {**case.request, "variant": case.variant}
    final = api.replay(variants.get(case.variant), request["fen"], request["moves"]).final
    owner = owner_of(case)
    assert final.turn == (owner if part == "mover" else other(owner))
    assert api.handle(request)["status"]["claimable"] == []
    blind = keeping_one_part(case.variant, name)()
    blind.keep = "other" if part == "mover" else "mover"       # the case's part left out
    assert api.handle(request, rules=blind)["status"]["claimable"] == ["threefold-repetition"]
    seeing = keeping_one_part(case.variant, name)()
    seeing.keep = part                                          # only the case's part kept
    assert api.handle(request, rules=seeing)["status"]["claimable"] == []


@pytest.mark.parametrize("case, component", FEN, ids=[f"{c.id}:{p}" for c, p in FEN])
def test_a_fen_case_differs_from_the_full_field_in_its_part_only(case, component):
    _, name, part = component.split(":")
    rules = variants.get(case.variant)
    pos = rules.parse_fen(case.expect["fen"])
    owner = owner_of(case)
    assert pos.turn == (owner if part == "mover" else other(owner))
    if name == "en-passant":
        assert pos.ep and all(rules.geometry.rank[t] == rules.passed_rank[owner] for t in pos.ep)
        return
    held = PARTS[name][0]
    mine, full = held(rules, pos, owner)
    theirs, their_full = held(rules, pos, other(owner))
    if other(owner) in rules.colour_lacks().get(name, {}):
        # the other colour never has this part (Monster's White has no castling): the whole
        # field is the owner's, so the case shows its part by the other side's being empty
        assert full and not theirs and not their_full
        return
    assert mine < full and theirs == their_full
