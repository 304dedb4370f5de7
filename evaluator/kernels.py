"""numba kernels for checking many declarations on many pools.

Each function here has a plain-Python twin in ``evaluator.reference``, of the same
name without the leading underscore (``_run_rank`` -> ``run_ranks``, ``_popcount`` ->
``int.bit_count``); the property tests hold the two equal.
Compiled lazily on first call and cached on disk (``cache=True``); nothing compiles at
import.

Arguments are prepared by ``evaluator.batch``: ``reqs`` is an (n_decl, 5) int64
array of requirements (see ``Declaration.requirement``), ``pools`` an (n_pools,
n_columns) uint8 array of 0 and 1 only, and ``column_ids`` the card id of each column;
``exists_many`` fills an ``out`` array that the caller allocates.

Speed: pools are taken ``BLOCK`` at a time. A block's masks are built without a branch
per card; then each requirement is checked over the whole block in a loop that runs
one kind of check only, which the compiler turns into vector code; the block's results
(requirement-major) are then copied into the rows of ``out``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evaluator.cards import JOKER_ID
from evaluator.declarations import (
    KIND_FLUSH_ANY,
    KIND_FLUSH_TOP,
    KIND_RANKS,
    KIND_STRAIGHT,
    KIND_SUITED_RUN,
)

# The same numbers as reference.SUIT_BITS and reference.CARD_BITS (a test checks).
_SUIT_BITS = np.array([sum(1 << (4 * k + s) for k in range(13)) for s in range(4)],
                      dtype=np.uint64)
_CARD_BITS = np.uint64((1 << JOKER_ID) - 1)
# Bit counts of the 16 values of 4 bits, 4 bits each: (_NIBBLE_COUNTS >> 4 * x) & 15.
_NIBBLE_COUNTS = np.uint64(0x4332322132212110)
# Pools per block (a block's results are n_decl x BLOCK bytes, kept in cache).
BLOCK = 64


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> np.int64:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _rank_bits(mask: np.uint64, rank: np.int64) -> np.uint64:
    # The pool's cards of that rank, one bit per suit.
    return (mask >> np.uint64(4 * (rank - 2))) & np.uint64(15)


@njit(cache=True, inline="always")
def _rank_count(mask: np.uint64, rank: np.int64) -> np.int64:
    return np.int64((_NIBBLE_COUNTS >> (_rank_bits(mask, rank) << np.uint64(2))) & np.uint64(15))


@njit(cache=True, inline="always")
def _run_rank(top: np.int64, k: np.int64) -> np.int64:
    # k-th rank (0..4) of the straight with that top; top 5 is A-2-3-4-5.
    if top == 5 and k == 0:
        return 14
    return top - 4 + k


@njit(cache=True, inline="always")
def _ranks_ok(a, b, c, d, mask, joker):
    short_a = b - _rank_count(mask, a)
    missing = short_a if short_a > 0 else 0
    if d:
        short_c = d - _rank_count(mask, c)
        missing += short_c if short_c > 0 else 0
    return missing <= joker


@njit(cache=True, inline="always")
def _straight_ok(top, mask, joker):
    missing = 0
    for k in range(5):
        if _rank_bits(mask, _run_rank(top, k)) == 0:
            missing += 1
    return missing <= joker


@njit(cache=True, inline="always")
def _suited_run_ok(suit, top, mask, joker):
    missing = 0
    for k in range(5):
        if not (mask >> np.uint64(4 * (_run_rank(top, k) - 2) + suit)) & np.uint64(1):
            missing += 1
    return missing <= joker


@njit(cache=True, inline="always")
def _flush_ok(suit, mask, joker, suit_bits):
    return _popcount(mask & suit_bits[suit]) + joker >= 5


@njit(cache=True, inline="always")
def _flush_top_ok(suit, top, mask, suit_bits):
    top_bit = np.uint64(4 * (top - 2) + suit)
    lower = mask & suit_bits[suit] & ((np.uint64(1) << top_bit) - np.uint64(1))
    return bool((mask >> top_bit) & np.uint64(1)) and _popcount(lower) >= 4


@njit(cache=True, inline="always")
def _check_block(req, masks, jokers, n, suit_bits, hits):
    # hits[i] = check(req, masks[i], jokers[i]) for i < n: one loop per kind.
    kind, a, b, c, d = req[0], req[1], req[2], req[3], req[4]
    if kind == KIND_RANKS:
        for i in range(n):
            hits[i] = _ranks_ok(a, b, c, d, masks[i], jokers[i])
    elif kind == KIND_STRAIGHT:
        for i in range(n):
            hits[i] = _straight_ok(a, masks[i], jokers[i])
    elif kind == KIND_SUITED_RUN:
        for i in range(n):
            hits[i] = _suited_run_ok(a, b, masks[i], jokers[i])
    elif kind == KIND_FLUSH_ANY:
        for i in range(n):
            hits[i] = _flush_ok(a, masks[i], jokers[i], suit_bits)
    elif kind == KIND_FLUSH_TOP:
        for i in range(n):
            hits[i] = _flush_top_ok(a, b, masks[i], suit_bits)
    else:
        for i in range(n):
            hits[i] = False


@njit(cache=True, inline="always")
def _row_mask(row, column_ids):
    # Rows hold only 0 and 1, so each card's bit is OR-ed in without a branch; the
    # joker's id is 52, the bit above the ordinary cards.
    mask = np.uint64(0)
    for j in range(row.shape[0]):
        mask |= np.uint64(row[j]) << np.uint64(column_ids[j])
    return mask & _CARD_BITS, np.int64(mask >> np.uint64(JOKER_ID))


@njit(cache=True, inline="always")
def _block_masks(pools, start, stop, column_ids, masks, jokers):
    for i in range(start, stop):
        mask, joker = _row_mask(pools[i], column_ids)
        masks[i - start] = mask
        jokers[i - start] = joker


@njit(cache=True)
def exists_many(reqs, pools, column_ids, out):
    # ``out``: the (n_pools, n_decl) bool result to fill, allocated by the caller with
    # numpy (whose large arrays get huge pages: several times faster to fill the first
    # time than an array numba allocates).
    n_pools, n_decl = pools.shape[0], reqs.shape[0]
    suit_bits = _SUIT_BITS
    masks = np.zeros(BLOCK, dtype=np.uint64)
    jokers = np.zeros(BLOCK, dtype=np.int64)
    block = np.empty((n_decl, BLOCK), dtype=np.bool_)
    for start in range(0, n_pools, BLOCK):
        stop = min(start + BLOCK, n_pools)
        _block_masks(pools, start, stop, column_ids, masks, jokers)
        for k in range(n_decl):
            _check_block(reqs[k], masks, jokers, stop - start, suit_bits, block[k])
        for i in range(stop - start):
            row = out[start + i]
            for k in range(n_decl):
                row[k] = block[k, i]
    return out


@njit(cache=True)
def best_many(reqs, pools, column_ids):
    n_pools, n_decl = pools.shape[0], reqs.shape[0]
    out = np.full(n_pools, -1, dtype=np.int64)
    suit_bits = _SUIT_BITS
    masks = np.zeros(BLOCK, dtype=np.uint64)
    jokers = np.zeros(BLOCK, dtype=np.int64)
    hits = np.empty(BLOCK, dtype=np.bool_)
    for start in range(0, n_pools, BLOCK):
        stop = min(start + BLOCK, n_pools)
        _block_masks(pools, start, stop, column_ids, masks, jokers)
        left = stop - start
        for k in range(n_decl - 1, -1, -1):
            if left == 0:
                break
            _check_block(reqs[k], masks, jokers, stop - start, suit_bits, hits)
            for i in range(stop - start):
                if hits[i] and out[start + i] < 0:
                    out[start + i] = k
                    left -= 1
    return out
