"""Does a declaration exist in one pool, and the best that does (arrays of pools:
``evaluator.batch``).

``exists`` and ``best`` run the plain-Python twins: one pool needs no array and no JIT,
nor numpy, so a bot that reads cards and declarations does not import it.

>>> exists("pair K", ["Kd", "Jk"]), exists("flush h A", "Ah Kh 9h 4h 2h", "polacco")
(True, True)
>>> str(best("9c 9d Tc Ts Jk", "official"))
'full-house T 9'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evaluator import reference
from evaluator.cards import JOKER_ID, Card, check_in_deck, deck_cards, parse_cards
from evaluator.declarations import Declaration, ladder, parse_declaration

CardsLike = str | Iterable[str | int | Card]
DeclarationLike = str | int | Declaration


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
