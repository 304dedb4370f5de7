"""numba kernel ranking many Turkish poker hands at once.

``rank_keys(hands, low_rank)`` is the batch twin of ``evaluator.turkish.rank_key`` (the
property tests hold the two equal): ``hands`` is an (n, 5) integer array of card ids,
the result an (n,) int64 array of the same keys. Compiled lazily on first call and
cached on disk (``cache=True``); nothing compiles at import.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evaluator.turkish import (
    ACE,
    FLUSH,
    FOUR,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_STRENGTH,
    THREE,
    TWO_PAIR,
)

_SUIT_STRENGTH = np.array(SUIT_STRENGTH, dtype=np.int64)


@njit(cache=True, inline="always")
def _pack(category, r1, r2, r3, r4, r5, strength):
    return ((((((category << 4 | r1) << 4 | r2) << 4 | r3) << 4 | r4) << 4 | r5) << 2
            | strength)


@njit(cache=True)
def _rank_one(hand, low_rank, strength_of):
    # Registers only (no arrays): per rank, a 4-bit count and a 4-bit best suit strength + 1.
    counts = np.int64(0)
    best = np.int64(0)
    suit_mask = np.int64(0)
    for i in range(5):
        c = np.int64(hand[i])
        shift = 4 * (c // 4 + 2)
        s = strength_of[c % 4] + 1
        counts += np.int64(1) << shift
        cur = (best >> shift) & 15
        if s > cur:
            best += (s - cur) << shift
        suit_mask |= np.int64(1) << (c % 4)
    flush = suit_mask & (suit_mask - 1) == 0
    # Ranks grouped: quads, trips, pairs, singles (packed high to low), each high to low.
    quad = 0
    trip = 0
    pair_hi = 0
    pair_lo = 0
    singles = np.int64(0)
    n_single = 0
    for r in range(ACE, 1, -1):
        k = (counts >> (4 * r)) & 15
        if k == 1:
            singles = singles << 4 | r
            n_single += 1
        elif k == 2:
            if pair_hi == 0:
                pair_hi = r
            else:
                pair_lo = r
        elif k == 3:
            trip = r
        elif k == 4:
            quad = r
    if n_single == 5:
        s1 = (singles >> 16) & 15
        s2 = (singles >> 12) & 15
        s5 = singles & 15
        top = 0
        if s1 - s5 == 4:
            top = s1
        elif s1 == ACE and s2 == low_rank + 3 and s5 == low_rank:
            top = low_rank + 3
        if top:
            category = STRAIGHT_FLUSH if flush else STRAIGHT
            return _pack(category, top, 0, 0, 0, 0, ((best >> (4 * top)) & 15) - 1)
        category = FLUSH if flush else HIGH_CARD
        return (category << 22 | singles << 2) | (((best >> (4 * s1)) & 15) - 1)
    if quad:
        return _pack(FOUR, quad, singles, 0, 0, 0, 0)
    if trip and pair_hi:
        return _pack(FULL_HOUSE, trip, pair_hi, 0, 0, 0, 0)
    if trip:
        return _pack(THREE, trip, singles >> 4, singles & 15, 0, 0, 0)
    hi_suit = ((best >> (4 * pair_hi)) & 15) - 1
    if pair_lo:
        return _pack(TWO_PAIR, pair_hi, pair_lo, singles, 0, 0, hi_suit)
    return _pack(PAIR, pair_hi, singles >> 8, (singles >> 4) & 15, singles & 15, 0, hi_suit)


@njit(cache=True)
def _rank_keys(hands, low_rank, strength_of, out):
    for i in range(hands.shape[0]):
        out[i] = _rank_one(hands[i], low_rank, strength_of)


def rank_keys(hands: np.ndarray, low_rank: int) -> np.ndarray:
    """Keys of an (n, 5) array of card ids in a deck whose lowest rank is ``low_rank``."""
    if hands.ndim != 2 or hands.shape[1] != 5:
        raise ValueError(f"hands must be an (n, 5) array of card ids, not shape {hands.shape}")
    out = np.empty(hands.shape[0], np.int64)
    _rank_keys(hands, np.int64(low_rank), _SUIT_STRENGTH, out)
    return out
