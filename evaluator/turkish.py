"""Turkish poker's vocabulary: the deck by players dealt in, hand categories, ranking keys.

Cards are the project's card ids (``evaluator.cards``: ``4 * (rank - 2) + suit``, suits
``c d h s`` = 0 1 2 3). ``rank_key`` is the plain-Python ranking (the twin of the numba
kernel in ``evaluator.turkish_kernels``): a larger key is a better hand. Nothing here
compiles anything.

A key is ``category << 22 | r1 << 18 | r2 << 14 | r3 << 10 | r4 << 6 | r5 << 2 | suit``:
the ranks that decide inside the category, most important first (0 where unused), then
the deciding suit's strength (hearts 3 > spades 2 > diamonds 1 > clubs 0).

>>> deck_for(2)[:4], len(deck_for(2)), len(deck_for(5))
((28, 29, 30, 31), 24, 36)
>>> category_name(rank_key(parse_hand("Ah 9c Td Js Qh"), low_rank_for(2)))
'straight'
>>> rank_key(parse_hand("Kh Kc 2d 3d 4d"), 2) > rank_key(parse_hand("Ks Kd 4c 3c 2c"), 2)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evaluator.cards import CARD_TEXT, CardError, parse_card

PLAYERS = range(2, 6)
# The lowest rank in the deck by the number of players dealt in (seed 003's table).
LOW_RANK: dict[int, int] = {2: 9, 3: 8, 4: 7, 5: 6}
ACE = 14
KING = 13

HIGH_CARD, PAIR, TWO_PAIR, STRAIGHT, THREE, FULL_HOUSE, FLUSH, FOUR, STRAIGHT_FLUSH = range(9)
# Names by key category; a straight flush to the ace is reported as a royal flush.
CATEGORY_NAMES: tuple[str, ...] = (
    "high card", "pair", "two pair", "straight", "three of a kind", "full house", "flush",
    "four of a kind", "straight flush", "royal flush")
ROYAL_FLUSH = 9
# Strength of each suit id (c d h s): hearts > spades > diamonds > clubs.
SUIT_STRENGTH: tuple[int, ...] = (0, 1, 3, 2)
CATEGORY_SHIFT = 22
# The smallest key of a pair of kings: the least hand that may open the betting.
OPENING_KEY = PAIR << CATEGORY_SHIFT | KING << 18


def low_rank_for(players: int) -> int:
    """The deck's lowest rank for that many players dealt in."""
    if players not in LOW_RANK:
        raise ValueError(f"Turkish poker deals 2-5 players, not {players}")
    return LOW_RANK[players]


def deck_for(players: int) -> tuple[int, ...]:
    """The card ids of the stripped deck for that many players dealt in, in id order."""
    return tuple(range(4 * (low_rank_for(players) - 2), 52))


def parse_hand(text: str | Iterable[str]) -> tuple[int, ...]:
    """``"Ah Kd 9c 9s Tc"`` (or a list of card texts) -> card ids; CardError if not five
    distinct ordinary cards."""
    parts = text.split() if isinstance(text, str) else list(text)
    ids = tuple(parse_card(p).id for p in parts)
    if len(ids) != 5 or len(set(ids)) != 5 or max(ids) >= 52:
        raise CardError(f"a hand is five distinct cards without the joker, not {parts!r}")
    return ids


def card_text(card: int) -> str:
    return CARD_TEXT[card]


def _pack(category: int, ranks: Sequence[int], suit: int) -> int:
    key = category
    for i in range(5):
        key = key << 4 | (ranks[i] if i < len(ranks) else 0)
    return key << 2 | SUIT_STRENGTH[suit]


def rank_key(cards: Sequence[int], low_rank: int) -> int:
    """The ranking key of five card ids in a deck whose lowest rank is ``low_rank``."""
    cards = [int(c) for c in cards]
    ranks = sorted((c // 4 + 2 for c in cards), reverse=True)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    # Ranks by (count, rank), biggest group first.
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    top = 0
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            top = ranks[0]
        elif ranks == [ACE, low_rank + 3, low_rank + 2, low_rank + 1, low_rank]:
            top = low_rank + 3
    if top:
        top_suit = next(c % 4 for c in cards if c // 4 + 2 == top)
        return _pack(STRAIGHT_FLUSH if flush else STRAIGHT, [top], top_suit)

    def best_suit(rank: int) -> int:
        return max((c % 4 for c in cards if c // 4 + 2 == rank), key=SUIT_STRENGTH.__getitem__)

    if flush:
        return _pack(FLUSH, ranks, cards[0] % 4)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        return _pack(FOUR, groups, 0)
    if shape == [3, 2]:
        return _pack(FULL_HOUSE, groups, 0)
    if shape[0] == 3:
        return _pack(THREE, groups, 0)
    if shape == [2, 2, 1]:
        return _pack(TWO_PAIR, groups, best_suit(groups[0]))
    if shape[0] == 2:
        return _pack(PAIR, groups, best_suit(groups[0]))
    return _pack(HIGH_CARD, ranks, best_suit(ranks[0]))


def key_category(key: int) -> int:
    """The category of a key, with ROYAL_FLUSH for a straight flush to the ace."""
    category = key >> CATEGORY_SHIFT
    if category == STRAIGHT_FLUSH and (key >> 18) & 15 == ACE:
        return ROYAL_FLUSH
    return category


def category_name(key: int) -> str:
    return CATEGORY_NAMES[key_category(key)]


def may_open(cards: Sequence[int], low_rank: int) -> bool:
    """At least a pair of kings by the hand's own cards."""
    return rank_key(cards, low_rank) >= OPENING_KEY
