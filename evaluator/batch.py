"""Does a declaration exist, and the best that does, for arrays of pools: numpy, and the
numba kernels (``evaluator.kernels``), imported on first use so that importing this
module compiles nothing. The one-pool twins are ``evaluator.evaluate``'s.

>>> pools = pool_array(["9c 9d Jk", "Tc Th"], "official")
>>> exists_many("official", ["pair 9", "pair T"], pools).tolist()
[[True, False], [False, True]]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from evaluator.cards import Card, check_in_deck, deck_cards, parse_cards
from evaluator.declarations import Declaration, ladder, parse_declaration

CardsLike = str | Iterable[str | int | Card]
DeclarationLike = str | int | Declaration


class PoolArrayError(ValueError):
    """A pools array of the wrong shape or with values other than 0 and 1."""


@cache
def _column_ids(ruleset: str) -> np.ndarray:
    return np.array([c.id for c in deck_cards(ruleset)], dtype=np.int64)


@cache
def _ladder_reqs(ruleset: str) -> np.ndarray:
    return np.array([d.requirement for d in ladder(ruleset)], dtype=np.int64).reshape(-1, 5)


def _reqs(ruleset: str, decls: Sequence[DeclarationLike]) -> np.ndarray:
    if isinstance(decls, np.ndarray) and decls.dtype.kind in "iu":
        ids = decls.astype(np.int64, copy=False).ravel()
        if ids.size and (ids.min() < 0 or ids.max() >= len(ladder(ruleset))):
            raise PoolArrayError(f"declaration ids out of range 0..{len(ladder(ruleset)) - 1}")
    else:
        ids = np.array([parse_declaration(d, ruleset).id for d in decls], dtype=np.int64)
    return _ladder_reqs(ruleset)[ids]


def _pools(ruleset: str, pools: np.ndarray) -> np.ndarray:
    arr = np.asarray(pools)
    width = len(deck_cards(ruleset))
    if arr.ndim != 2 or arr.shape[1] != width:
        raise PoolArrayError(
            f"pools must have shape (n_pools, {width}) for {ruleset}, got {arr.shape}"
        )
    if arr.dtype == np.bool_:
        return np.ascontiguousarray(arr).view(np.uint8)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise PoolArrayError("pools must hold only 0 and 1")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def pool_array(pools: Iterable[CardsLike], ruleset: str) -> np.ndarray:
    """A 0/1 uint8 array with one row per pool, columns as in ``deck(ruleset)``.

    >>> pool_array(["9c Jk"], "official").nonzero()
    (array([0, 0]), array([ 0, 24]))
    """
    cols = {c: j for j, c in enumerate(deck_cards(ruleset))}
    rows = [parse_cards(p) for p in pools]
    out = np.zeros((len(rows), len(cols)), dtype=np.uint8)
    for i, cards in enumerate(rows):
        check_in_deck(cards, ruleset)
        out[i, [cols[c] for c in cards]] = 1
    return out


def exists_many(
    ruleset: str, declarations: Sequence[DeclarationLike], pools: np.ndarray
) -> np.ndarray:
    """Boolean (n_pools, n_declarations): does declaration k exist in pool i.

    ``declarations`` are texts, Declarations or ids (a numpy int array of ids is the
    fastest); ``pools`` is 0/1 of shape (n_pools, len(deck(ruleset))).
    """
    from evaluator import kernels

    reqs, arr = _reqs(ruleset, declarations), _pools(ruleset, pools)
    out = np.empty((arr.shape[0], reqs.shape[0]), dtype=np.bool_)
    return kernels.exists_many(reqs, arr, _column_ids(ruleset), out)


def best_many(ruleset: str, pools: np.ndarray) -> np.ndarray:
    """For each pool the id of the strongest existing declaration, or -1."""
    from evaluator import kernels

    return kernels.best_many(_ladder_reqs(ruleset), _pools(ruleset, pools), _column_ids(ruleset))
