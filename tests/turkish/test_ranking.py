"""Turkish poker hand ranking: the numba kernel equals its plain-Python twin, the exact
category counts of every deck size equal an independent enumeration, and the seed's
orderings (flush over full house, three over straight, the ace-low straight, suits)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.turkish import (
    CATEGORY_NAMES,
    LOW_RANK,
    OPENING_KEY,
    category_name,
    deck_for,
    key_category,
    may_open,
    parse_hand,
    rank_key,
)
from evaluator.turkish_kernels import rank_keys

# Suit strength by suit letter, hearts > spades > diamonds > clubs (seed 003).
SUIT_ORDER = "cdsh"


def classify(hand: tuple[int, ...], low: int) -> str:
    """A second, deliberately plain classifier: category names by counting."""
    ranks = sorted(c // 4 + 2 for c in hand)
    suits = {c % 4 for c in hand}
    counts = sorted(Counter(ranks).values())
    run = len(set(ranks)) == 5 and (
        ranks[4] - ranks[0] == 4 or ranks == [low, low + 1, low + 2, low + 3, 14])
    if run and len(suits) == 1:
        return "royal flush" if ranks[0] == 10 else "straight flush"
    if counts == [1, 4]:
        return "four of a kind"
    if len(suits) == 1:
        return "flush"
    if counts == [2, 3]:
        return "full house"
    if counts == [1, 1, 3]:
        return "three of a kind"
    if run:
        return "straight"
    if counts == [1, 2, 2]:
        return "two pair"
    if counts == [1, 1, 1, 2]:
        return "pair"
    return "high card"


def test_category_counts_match_an_independent_enumeration() -> None:
    for players, low in LOW_RANK.items():
        hands = list(itertools.combinations(deck_for(players), 5))
        keys = rank_keys(np.array(hands, dtype=np.int8), low)
        ours = Counter(CATEGORY_NAMES[key_category(int(k))] for k in keys)
        theirs = Counter(classify(h, low) for h in hands)
        assert ours == theirs, players
        # Closed forms: 4 royal flushes; straights of each top in every suit mix but one.
        tops = 14 - (low + 3) + 1
        assert ours["royal flush"] == 4
        assert ours["straight"] == tops * (4**5 - 4)
        assert ours["flush"] == 4 * math.comb(15 - low, 5) - 4 * tops


def test_every_hand_of_the_smallest_deck_equals_the_twin() -> None:
    hands = np.array(list(itertools.combinations(deck_for(2), 5)), dtype=np.int8)
    keys = rank_keys(hands, LOW_RANK[2])
    assert [int(k) for k in keys] == [rank_key(h, LOW_RANK[2]) for h in hands]


@st.composite
def deals(draw):
    players = draw(st.sampled_from(sorted(LOW_RANK)))
    cards = draw(st.permutations(deck_for(players)))
    n = draw(st.integers(1, len(cards) // 5))
    return players, [tuple(cards[5 * i:5 * i + 5]) for i in range(n)]


@settings(max_examples=300, deadline=None)
@given(deals())
def test_kernel_equals_twin(deal) -> None:
    players, hands = deal
    low = LOW_RANK[players]
    keys = rank_keys(np.array(hands, dtype=np.int64), low)
    assert [int(k) for k in keys] == [rank_key(h, low) for h in hands]
    # Hands of one deal (no card in common) are never equal.
    assert len(set(keys.tolist())) == len(hands)


def key(text: str, players: int = 2) -> int:
    return rank_key(parse_hand(text), LOW_RANK[players])


def test_the_seeds_category_order() -> None:
    assert key("Ah Kh Jh Th 9h") > key("Ac Ad As Kc Kd")        # flush over full house
    assert key("9c 9d 9h Ac Kd") > key("Ac Kd Qh Js Tc")        # three over straight
    assert key("Ks Qs Js Ts 9s") > key("Ac Ad As Ah 9c")       # straight flush over four
    assert category_name(key("Ah Kh Qh Jh Th")) == "royal flush"


def test_ace_low_straight_uses_the_decks_lowest_ranks() -> None:
    for players, low_straight in {2: "Ah 9c Td Js Qh", 3: "Ah 8c 9d Ts Jh",
                                  4: "Ah 7c 8d 9s Th", 5: "Ah 6c 7d 8s 9h"}.items():
        assert category_name(key(low_straight, players)) == "straight", players
    # In the 24-card deck A-9-T-J-Q is the lowest straight: its top card is the queen.
    assert key("9c Td Js Qh Kd") > key("Ah 9c Td Js Qh")
    # With 36 cards A-9-T-J-Q is no straight.
    assert category_name(key("Ah 9c Td Js Qh", 5)) == "high card"


def test_suits_decide_equal_hands() -> None:
    # hearts > spades > diamonds > clubs
    assert key("Ah Kh Jh Th 9h") > key("As Ks Js Ts 9s") > key("Ad Kd Jd Td 9d")
    assert key("Ad Kd Jd Td 9d") > key("Ac Kc Jc Tc 9c")
    # straights by the suit of the top card; the ace-low straight's top is the queen
    assert key("Ah Kc Qc Jc Tc") > key("As Kh Qh Jh Td")
    assert key("Ah 9h Td Jd Qs") > key("As 9s Tc Jc Qd")
    # pairs and two pairs by the best suit in the (upper) pair
    assert key("Kh Kc Qd Js 9c") > key("Ks Kd Qc Jd 9d")
    assert key("Ah Ac Kd Ks 9c") > key("As Ad Kh Kc 9d")
    # high card by the suit of the highest card
    assert key("Ah Kc Jd Ts 9c") > key("As Kd Jc Th 9d")
    assert SUIT_ORDER == "cdsh"


def test_opening_needs_kings_or_better() -> None:
    low = LOW_RANK[2]
    assert may_open(parse_hand("Kh Kc 9d Ts Jc"), low)
    assert may_open(parse_hand("Ah Ac 9d Ts Jc"), low)
    assert may_open(parse_hand("Qh Qc 9d 9s Jc"), low)       # two pair
    assert not may_open(parse_hand("Qh Qc 9d Ts Ac"), low)
    assert not may_open(parse_hand("Ah Kc Qd Js 9c"), low)   # no straight: high card
    assert key("Kc Kd 9c Tc Jc") >= OPENING_KEY > key("Qh Qs Ac Kd Jd")
