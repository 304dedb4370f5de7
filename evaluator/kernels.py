"""numba kernels for checking many declarations on many pools.

Each function here has a plain-Python twin of the same name in
``evaluator.reference``; the property tests hold the two equal. Compiled lazily on
first call and cached on disk (``cache=True``); nothing compiles at import.

Arguments are prepared by ``evaluator.evaluate``: ``reqs`` is an (n_decl, 5) int64
array of requirements (see ``Declaration.requirement``), ``pools`` an (n_pools,
n_columns) uint8 array of 0/1, and ``column_ids`` the card id of each column.
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

_SUIT_BITS = np.array([sum(1 << (4 * k + s) for k in range(13)) for s in range(4)], dtype=np.uint64)


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> np.int64:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _rank_count(mask: np.uint64, rank: np.int64) -> np.int64:
    return _popcount((mask >> np.uint64(4 * (rank - 2))) & np.uint64(15))


@njit(cache=True, inline="always")
def _run_rank(top: np.int64, k: np.int64) -> np.int64:
    # k-th rank (0..4) of the straight with that top; top 5 is A-2-3-4-5.
    if top == 5 and k == 0:
        return 14
    return top - 4 + k


@njit(cache=True)
def _check(kind, a, b, c, d, mask, joker, suit_bits):
    if kind == KIND_RANKS:
        missing = max(0, b - _rank_count(mask, a))
        if d:
            missing += max(0, d - _rank_count(mask, c))
        return missing <= joker
    if kind == KIND_STRAIGHT:
        missing = 0
        for k in range(5):
            if _rank_count(mask, _run_rank(a, k)) == 0:
                missing += 1
        return missing <= joker
    if kind == KIND_SUITED_RUN:
        missing = 0
        for k in range(5):
            if not (mask >> np.uint64(4 * (_run_rank(b, k) - 2) + a)) & np.uint64(1):
                missing += 1
        return missing <= joker
    if kind == KIND_FLUSH_ANY:
        return _popcount(mask & suit_bits[a]) + joker >= 5
    if kind == KIND_FLUSH_TOP:
        top_bit = np.uint64(4 * (b - 2) + a)
        lower = mask & suit_bits[a] & ((np.uint64(1) << top_bit) - np.uint64(1))
        return bool((mask >> top_bit) & np.uint64(1)) and _popcount(lower) >= 4
    return False


@njit(cache=True, inline="always")
def _pool_mask(row, column_ids):
    mask = np.uint64(0)
    joker = 0
    for j in range(row.shape[0]):
        if row[j]:
            cid = column_ids[j]
            if cid == JOKER_ID:
                joker = 1
            else:
                mask |= np.uint64(1) << np.uint64(cid)
    return mask, joker


@njit(cache=True)
def exists_many(reqs, pools, column_ids):
    n_pools, n_decl = pools.shape[0], reqs.shape[0]
    out = np.zeros((n_pools, n_decl), dtype=np.bool_)
    suit_bits = _SUIT_BITS
    for i in range(n_pools):
        mask, joker = _pool_mask(pools[i], column_ids)
        for k in range(n_decl):
            out[i, k] = _check(reqs[k, 0], reqs[k, 1], reqs[k, 2], reqs[k, 3], reqs[k, 4],
                               mask, joker, suit_bits)
    return out


@njit(cache=True)
def best_many(reqs, pools, column_ids):
    n_pools, n_decl = pools.shape[0], reqs.shape[0]
    out = np.full(n_pools, -1, dtype=np.int64)
    suit_bits = _SUIT_BITS
    for i in range(n_pools):
        mask, joker = _pool_mask(pools[i], column_ids)
        for k in range(n_decl - 1, -1, -1):
            if _check(reqs[k, 0], reqs[k, 1], reqs[k, 2], reqs[k, 3], reqs[k, 4],
                      mask, joker, suit_bits):
                out[i] = k
                break
    return out
