"""Plain-Python twins of the numba kernels in ``evaluator.kernels``.

Same algorithm, line for line, on Python ints: the oracle that the property tests
hold the kernels to, and the fast path for a single check (no array, no JIT).

A pool is a bitmask over card ids (bit ``id`` set when the card is in the pool) with
the joker kept apart as a 0/1 flag, because it is wild.
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


def run_ranks(top: int) -> tuple[int, ...]:
    """The five ranks of a straight with that top card; top 5 is A-2-3-4-5."""
    return (14, 2, 3, 4, 5) if top == 5 else tuple(range(top - 4, top + 1))


def pool_mask(card_ids: Iterable[int]) -> tuple[int, int]:
    """(bitmask of the ordinary cards, 1 if the joker is in the pool else 0)."""
    mask = 0
    joker = 0
    for c in card_ids:
        if c == JOKER_ID:
            joker = 1
        else:
            mask |= 1 << c
    return mask, joker


def rank_count(mask: int, rank: int) -> int:
    return ((mask >> (4 * (rank - 2))) & 15).bit_count()


def check(req: Requirement, mask: int, joker: int) -> bool:
    """Does the declaration with this requirement exist in the pool?"""
    kind, a, b, c, d = req
    if kind == KIND_RANKS:
        missing = max(0, b - rank_count(mask, a))
        if d:
            missing += max(0, d - rank_count(mask, c))
        return missing <= joker
    if kind == KIND_STRAIGHT:
        missing = sum(1 for r in run_ranks(a) if rank_count(mask, r) == 0)
        return missing <= joker
    if kind == KIND_SUITED_RUN:
        missing = sum(1 for r in run_ranks(b) if not (mask >> (4 * (r - 2) + a)) & 1)
        return missing <= joker
    if kind == KIND_FLUSH_ANY:
        return (mask & SUIT_BITS[a]).bit_count() + joker >= 5
    if kind == KIND_FLUSH_TOP:
        top_bit = 4 * (b - 2) + a
        lower = mask & SUIT_BITS[a] & ((1 << top_bit) - 1)
        return bool((mask >> top_bit) & 1) and lower.bit_count() >= 4
    raise ValueError(f"unknown requirement kind {kind}")


def exists_many(
    reqs: Sequence[Requirement], pools: Sequence[Sequence[int]], column_ids: Sequence[int]
) -> list[list[bool]]:
    """Twin of ``kernels.exists_many``: pools are 0/1 rows over ``column_ids``."""
    out = []
    for row in pools:
        mask, joker = pool_mask(cid for cid, v in zip(column_ids, row, strict=True) if v)
        out.append([check(r, mask, joker) for r in reqs])
    return out


def best_many(
    reqs: Sequence[Requirement], pools: Sequence[Sequence[int]], column_ids: Sequence[int]
) -> list[int]:
    """Twin of ``kernels.best_many``: for each pool the index of the last (strongest)
    requirement that holds, or -1."""
    out = []
    for row in pools:
        mask, joker = pool_mask(cid for cid, v in zip(column_ids, row, strict=True) if v)
        strongest = (i for i in range(len(reqs) - 1, -1, -1) if check(reqs[i], mask, joker))
        out.append(next(strongest, -1))
    return out
