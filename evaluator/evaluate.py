"""Does a declaration exist in a pool: for one pool, for arrays of pools, and the best.

``exists`` and ``best`` run the plain-Python twins (one pool needs no array and no
JIT); ``exists_many`` and ``best_many`` run the numba kernels, imported on first use
so that importing the vocabulary compiles nothing.

>>> exists("pair K", ["Kd", "Jk"]), exists("flush h A", "Ah Kh 9h 4h 2h", "polacco")
(True, True)
>>> str(best("9c 9d Tc Ts Jk", "official"))
'full-house T 9'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from evaluator import reference
from evaluator.cards import JOKER_ID, Card, check_in_deck, deck_cards, parse_cards
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


class _Fast:
    """What the single-pool functions of one ruleset look up, all in one place."""

    __slots__ = ("by_ident", "card_texts", "decl_texts", "deck_bits", "ladder", "reqs")

    def __init__(self, ruleset: str) -> None:
        self.ladder = ladder(ruleset)  # raises RulesetError for an unknown ruleset
        self.reqs = tuple(d.requirement for d in self.ladder)
        # id() of each ladder Declaration (they live as long as the cached ladder, so no
        # other live object has the same id) -> its requirement
        self.by_ident = {id(d): r for d, r in zip(self.ladder, self.reqs, strict=True)}
        self.deck_bits = sum(1 << c.id for c in deck_cards(ruleset))
        # text -> requirement, and card text (in this deck) -> 1 << id, for every
        # spelling met so far (only texts that parsed)
        self.decl_texts: dict[str, reference.Requirement] = {}
        self.card_texts: dict[str, int] = {}


_FAST: dict[str, _Fast] = {}
_BITS = tuple(1 << i for i in range(JOKER_ID + 1))  # prebuilt: no big int made per card
_ID_BITS = dict(enumerate(_BITS))  # for ids given as ints: .get does not wrap -1 around
_FOREIGN = 1 << 63  # in no deck: sends a pool with an unknown item to _pool_checked


def _fast(ruleset: str) -> _Fast:
    fast = _FAST.get(ruleset)
    if fast is None:
        fast = _FAST[ruleset] = _Fast(ruleset)
    return fast


def _requirement(d: Declaration) -> reference.Requirement:
    fast = _fast(d.ruleset)
    if 0 <= d.id < len(fast.ladder) and fast.ladder[d.id] is d:
        return fast.reqs[d.id]
    return d.requirement  # a Declaration built by hand, not taken from the ladder


def _pool(cards: CardsLike, fast: _Fast, ruleset: str) -> tuple[int, int]:
    """``reference.pool_mask`` of the cards: a fast path for known card texts, Cards and
    ids, and ``_pool_checked`` (which raises what is wrong) for everything else."""
    if isinstance(cards, str):
        items: Sequence[str | int | Card] = (
            cards.replace(",", " ") if "," in cards else cards).split()
        try:
            mask = sum(map(fast.card_texts.__getitem__, items))
        except KeyError:
            return _pool_checked(items, fast, ruleset)
    else:
        items = cards if type(cards) in (list, tuple) else list(cards)
        mask = sum([_BITS[c.id] if type(c) is Card
                    else _ID_BITS.get(c, _FOREIGN) if type(c) is int
                    else fast.card_texts.get(c, _FOREIGN) if type(c) is str
                    else _FOREIGN for c in items])
    # a repeated card makes the sum carry; a card outside the deck sets a foreign bit
    if mask.bit_count() != len(items) or mask & ~fast.deck_bits:
        return _pool_checked(items, fast, ruleset)
    return mask & reference.CARD_BITS, mask >> JOKER_ID


def _pool_checked(items: Sequence[str | int | Card], fast: _Fast,
                  ruleset: str) -> tuple[int, int]:
    parsed = parse_cards(items)  # an unknown card, then a duplicate card
    check_in_deck(parsed, ruleset)
    for item, card in zip(items, parsed, strict=True):
        if type(item) is str:
            fast.card_texts[item] = _BITS[card.id]
    return reference.pool_mask(c.id for c in parsed)


def exists(declaration: DeclarationLike, cards: CardsLike, ruleset: str = "official") -> bool:
    """Does the declaration exist among the cards? The joker is wild in ``official``."""
    fast = _FAST.get(ruleset) or _fast(ruleset)
    kind = type(declaration)
    if kind is str:
        req = fast.decl_texts.get(declaration)
        if req is None:
            req = _requirement(parse_declaration(declaration, ruleset))
            fast.decl_texts[declaration] = req
    elif kind is int and 0 <= declaration < len(fast.reqs):
        req = fast.reqs[declaration]
    else:
        req = fast.by_ident.get(id(declaration))
        if req is None:
            req = _requirement(parse_declaration(declaration, ruleset))
    mask, joker = _pool(cards, fast, ruleset)
    return reference.check(req, mask, joker)


def pool_bits(groups: Iterable[Iterable[Card]]) -> int:
    """The cards of ``groups`` (the hands, say, and the community card in a tuple) as one
    bitmask over card ids (bit ``id`` set per card, the joker's too): the pool form that
    ``exists_bits`` takes. The cards are trusted: distinct Cards of the deck (a repeated
    card would carry into the next bit)."""
    return sum([_BITS[c.id] for cards in groups for c in cards])


def exists_bits(declaration: Declaration, bits: int) -> bool:
    """``exists`` for a pool given as ``pool_bits`` and a Declaration of its ruleset.

    For callers that already hold valid pools, such as the engine at every call: it
    skips the parsing and checking that ``exists`` does on arbitrary input.
    """
    fast = _FAST.get(declaration.ruleset) or _fast(declaration.ruleset)
    req = fast.by_ident.get(id(declaration))
    if req is None:
        req = _requirement(declaration)
    return reference.check(req, bits & reference.CARD_BITS, bits >> JOKER_ID)


def best(cards: CardsLike, ruleset: str) -> Declaration | None:
    """The strongest declaration that exists among the cards, or None."""
    fast = _fast(ruleset)
    mask, joker = _pool(cards, fast, ruleset)
    for i in range(len(fast.reqs) - 1, -1, -1):
        if reference.check(fast.reqs[i], mask, joker):
            return fast.ladder[i]
    return None
