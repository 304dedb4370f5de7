"""Plain-Python twins of the numba kernels in ``evaluator.kernels``.

Same algorithm, line for line, on Python ints: the oracle that the property tests
hold the kernels to, and the fast path for a single check (no array, no JIT).

A pool is a bitmask over card ids (bit ``id`` set when the card is in the pool) with
the joker kept apart as a 0/1 flag, because it is wild.

The batch functions work on blocks of ``BLOCK`` pools: the masks of a block first,
then one requirement at a time over the whole block (so that the kernels' inner loops
run one kind of check and become vector code), then the block's rows. (The kernel
``exists_many`` fills an ``out`` array its caller allocates; the twin returns a list.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evaluator.cards import JOKER_ID
from evaluator.declarations import (
    KIND_FLUSH_ANY,
    KIND_FLUSH_TOP,
    KIND_RANKS,
    KIND_STRAIGHT,
    KIND_SUITED_RUN,
)

Requirement = tuple[int, int, int, int, int]

# Bits of every card of one suit: SUIT_BITS[s] has bit 4*k + s for k = 0..12.
SUIT_BITS = tuple(sum(1 << (4 * k + s) for k in range(13)) for s in range(4))
# Bits of the 52 ordinary cards (the joker's id is 52, the next bit up).
CARD_BITS = (1 << JOKER_ID) - 1
# Bit counts of the 16 values of 4 bits, 4 bits each: (NIBBLE_COUNTS >> 4 * x) & 15.
NIBBLE_COUNTS = 0x4332322132212110
# Pools per block in the batch functions (as in the kernels; any size gives the same).
BLOCK = 64


def run_ranks(top: int) -> tuple[int, ...]:
    """The five ranks of a straight with that top card; top 5 is A-2-3-4-5."""
    return (14, 2, 3, 4, 5) if top == 5 else tuple(range(top - 4, top + 1))


def pool_mask(card_ids: Iterable[int]) -> tuple[int, int]:
    """(bitmask of the ordinary cards, 1 if the joker is in the pool else 0)."""
    mask = 0
    for c in card_ids:
        mask |= 1 << c
    return mask & CARD_BITS, mask >> JOKER_ID


def row_mask(row: Sequence[int], column_ids: Sequence[int]) -> tuple[int, int]:
    """``pool_mask`` of a 0/1 pool row over ``column_ids``, without a branch per card."""
    mask = 0
    for v, cid in zip(row, column_ids, strict=True):
        mask |= int(v) << cid
    return mask & CARD_BITS, mask >> JOKER_ID


def rank_bits(mask: int, rank: int) -> int:
    """The pool's cards of that rank, one bit per suit."""
    return (mask >> (4 * (rank - 2))) & 15


def rank_count(mask: int, rank: int) -> int:
    return (NIBBLE_COUNTS >> (rank_bits(mask, rank) << 2)) & 15


def ranks_ok(a: int, b: int, c: int, d: int, mask: int, joker: int) -> bool:
    # rank_count(mask, a) and (mask, c) written out: the single-pool path's hottest line
    short_a = b - ((NIBBLE_COUNTS >> (((mask >> (4 * (a - 2))) & 15) << 2)) & 15)
    missing = short_a if short_a > 0 else 0
    if d:
        short_c = d - ((NIBBLE_COUNTS >> (((mask >> (4 * (c - 2))) & 15) << 2)) & 15)
        missing += short_c if short_c > 0 else 0
    return missing <= joker


def straight_ok(top: int, mask: int, joker: int) -> bool:
    missing = sum(1 for r in run_ranks(top) if rank_bits(mask, r) == 0)
    return missing <= joker


def suited_run_ok(suit: int, top: int, mask: int, joker: int) -> bool:
    missing = sum(1 for r in run_ranks(top) if not (mask >> (4 * (r - 2) + suit)) & 1)
    return missing <= joker


def flush_ok(suit: int, mask: int, joker: int) -> bool:
    return (mask & SUIT_BITS[suit]).bit_count() + joker >= 5


def flush_top_ok(suit: int, top: int, mask: int) -> bool:
    top_bit = 4 * (top - 2) + suit
    lower = mask & SUIT_BITS[suit] & ((1 << top_bit) - 1)
    return bool((mask >> top_bit) & 1) and lower.bit_count() >= 4


def check(req: Requirement, mask: int, joker: int) -> bool:
    """Does the declaration with this requirement exist in the pool?"""
    kind, a, b, c, d = req
    if kind == KIND_RANKS:
        return ranks_ok(a, b, c, d, mask, joker)
    if kind == KIND_STRAIGHT:
        return straight_ok(a, mask, joker)
    if kind == KIND_SUITED_RUN:
        return suited_run_ok(a, b, mask, joker)
    if kind == KIND_FLUSH_ANY:
        return flush_ok(a, mask, joker)
    if kind == KIND_FLUSH_TOP:
        return flush_top_ok(a, b, mask)
    raise ValueError(f"unknown requirement kind {kind}")


def check_block(req: Requirement, masks: Sequence[int], jokers: Sequence[int]) -> list[bool]:
    """Twin of ``kernels._check_block``: ``check`` over a block of pools."""
    return [check(req, mask, joker) for mask, joker in zip(masks, jokers, strict=True)]


def block_masks(pools: Sequence[Sequence[int]], start: int, stop: int,
                column_ids: Sequence[int]) -> tuple[list[int], list[int]]:
    """Twin of ``kernels._block_masks``: masks and joker flags of pools start..stop-1."""
    masks, jokers = [], []
    for i in range(start, stop):
        mask, joker = row_mask(pools[i], column_ids)
        masks.append(mask)
        jokers.append(joker)
    return masks, jokers


def exists_many(
    reqs: Sequence[Requirement], pools: Sequence[Sequence[int]], column_ids: Sequence[int]
) -> list[list[bool]]:
    """Twin of ``kernels.exists_many``: pools are 0/1 rows over ``column_ids``."""
    n_pools, n_decl = len(pools), len(reqs)
    out = [[False] * n_decl for _ in range(n_pools)]
    for start in range(0, n_pools, BLOCK):
        stop = min(start + BLOCK, n_pools)
        masks, jokers = block_masks(pools, start, stop, column_ids)
        block = [check_block(reqs[k], masks, jokers) for k in range(n_decl)]
        for i in range(stop - start):
            row = out[start + i]
            for k in range(n_decl):
                row[k] = block[k][i]
    return out


def best_many(
    reqs: Sequence[Requirement], pools: Sequence[Sequence[int]], column_ids: Sequence[int]
) -> list[int]:
    """Twin of ``kernels.best_many``: for each pool the index of the last (strongest)
    requirement that holds, or -1."""
    n_pools, n_decl = len(pools), len(reqs)
    out = [-1] * n_pools
    for start in range(0, n_pools, BLOCK):
        stop = min(start + BLOCK, n_pools)
        masks, jokers = block_masks(pools, start, stop, column_ids)
        left = stop - start
        for k in range(n_decl - 1, -1, -1):
            if left == 0:
                break
            hits = check_block(reqs[k], masks, jokers)
            for i in range(stop - start):
                if hits[i] and out[start + i] < 0:
                    out[start + i] = k
                    left -= 1
    return out
