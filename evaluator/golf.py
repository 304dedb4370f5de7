"""Six-card golf: the two-deck pack, the points of a card, and the points of a grid.

Cards are the integer ids of ``evaluator.cards`` (``4 * (rank - 2) + suit``, the joker
52). The golf pack is two 54-card decks: every ordinary id twice and the joker four times,
108 cards. A grid is six cards in three rows of two, listed in ``POSITIONS`` order:
``r0c0 r0c1`` (the top row), ``r1c0 r1c1``, ``r2c0 r2c1``.

Points (RULES.md, "Six-card golf"): K 0, Q and J 10, joker -3, A 1, 2-10 face value. Two
cards of the same rank in one row score 0 together, except two jokers, which score -6
(the sum of their points: a joker pair is the one pair that keeps its value).

>>> from evaluator.cards import parse_card
>>> grid = [parse_card(c).id for c in "Kh Ks 5d 5c Jk Jk".split()]
>>> grid_points(grid)
-6
>>> grid_points([parse_card(c).id for c in "Qh Jd 7c 2s Ac Ad".split()])
29
>>> len(GOLF_PACK), GOLF_PACK.count(JOKER_ID)
(108, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluator.cards import JOKER_ID, N_CARD_IDS, CardError

POSITIONS: tuple[str, ...] = ("r0c0", "r0c1", "r1c0", "r1c1", "r2c0", "r2c1")
TOP_ROW: tuple[int, ...] = (0, 1)
BOTTOM: tuple[int, ...] = (2, 3, 4, 5)
ROWS: tuple[tuple[int, int], ...] = ((0, 1), (2, 3), (4, 5))
# The other card of the same row, by position index.
PARTNER: tuple[int, ...] = (1, 0, 3, 2, 5, 4)
GRID_SIZE = 6
# The most a grid can score: a queen and a jack (different ranks, 10 each) in every row.
MAX_GRID_POINTS = 60

_FACE_POINTS = {11: 10, 12: 10, 13: 0, 14: 1}


def _points_of_id(card: int) -> int:
    if card == JOKER_ID:
        return -3
    rank = card // 4 + 2
    return _FACE_POINTS.get(rank, rank)


# Points by card id; RANK_KEY by card id: equal keys make a pair (the joker's key is 13).
CARD_POINTS: tuple[int, ...] = tuple(_points_of_id(i) for i in range(N_CARD_IDS))
RANK_KEY: tuple[int, ...] = tuple(i // 4 for i in range(52)) + (13,)
N_RANK_KEYS = 14
# Points of one card of each rank key (2..A, then the joker).
KEY_POINTS: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 0, 1, -3)
JOKER_KEY = 13

GOLF_PACK: tuple[int, ...] = tuple(sorted([*range(52)] * 2 + [JOKER_ID] * 4))


def card_points(card: int) -> int:
    """The points of one card id.

    >>> [card_points(c) for c in (0, 32, 36, 44, 48, 52)]   # 2c, Tc, Jc, Kc, Ac, joker
    [2, 10, 10, 0, 1, -3]
    """
    if not (isinstance(card, int) and 0 <= card < N_CARD_IDS):
        raise CardError(f"card id {card!r} out of range 0..{N_CARD_IDS - 1}")
    return CARD_POINTS[card]


def row_points(a: int, b: int) -> int:
    """Two cards in one row: 0 for a pair of equal rank, else the sum (jokers: -6)."""
    if RANK_KEY[a] == RANK_KEY[b] and a != JOKER_ID:
        return 0
    return CARD_POINTS[a] + CARD_POINTS[b]


def key_row_points(a: int, b: int) -> int:
    """``row_points`` for two rank keys (0..13) instead of card ids."""
    if a == b and a != JOKER_KEY:
        return 0
    return KEY_POINTS[a] + KEY_POINTS[b]


def grid_points(grid: Sequence[int]) -> int:
    """The points of a whole grid of six card ids (every card counts, face up or not)."""
    if len(grid) != GRID_SIZE:
        raise ValueError(f"a golf grid holds {GRID_SIZE} cards, got {len(grid)}")
    return row_points(grid[0], grid[1]) + row_points(grid[2], grid[3]) + row_points(
        grid[4], grid[5])


def position_index(name: str) -> int:
    """``"r1c0"`` -> 2; ValueError naming the valid positions otherwise."""
    try:
        return POSITIONS.index(name)
    except ValueError:
        raise ValueError(
            f"unknown position {name!r}: expected one of {', '.join(POSITIONS)}") from None
