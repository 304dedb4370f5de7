"""Declarations: what a player claims exists in the pool.

Parse and print in the notation of RULES.md, order by strength, decide whether one
declaration is a legal raise over a round's earlier ones, and map each declaration
to its compact integer id (its index in the ruleset's ascending ladder).

>>> d = parse_declaration("full-house 9 T", "official")
>>> str(d), d.id, d > parse_declaration("straight big", "official")
('full-house 9 T', 35, True)
>>> is_raise("flush d", ["flush s"], "official"), is_raise("flush s A", ["flush h A"], "polacco")
(True, False)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from evaluator.cards import (
    SUIT_CHARS,
    CardError,
    check_ruleset,
    parse_rank,
    parse_suit,
    rank_char,
    ruleset_ranks,
)


class DeclarationError(ValueError):
    """A declaration text that is malformed or does not belong to the ruleset."""


# Categories weakest to strongest, per ruleset (the short deck reorders them).
CATEGORIES: dict[str, tuple[str, ...]] = {
    "official": (
        "high", "pair", "two-pair", "straight", "three", "full-house",
        "flush", "four", "straight-flush", "royal-flush", "five",
    ),
    "polacco": (
        "pair", "two-pair", "three", "straight", "flush", "full-house",
        "four", "straight-flush",
    ),
}
_ALL_CATEGORIES = frozenset(c for cats in CATEGORIES.values() for c in cats)
_CATEGORY_RANK = {r: {c: i for i, c in enumerate(cats)} for r, cats in CATEGORIES.items()}
_SUITED = frozenset({"flush", "straight-flush", "royal-flush"})
_STRAIGHT_WORDS = {"small": 13, "big": 14}

# Kinds of requirement the kernels know (see ``Declaration.requirement``).
KIND_RANKS = 0        # (kind, rank1, need1, rank2, need2)
KIND_STRAIGHT = 1     # (kind, top, 0, 0, 0): one card of each of five ranks
KIND_SUITED_RUN = 2   # (kind, suit, top, 0, 0): five given cards of one suit
KIND_FLUSH_ANY = 3    # (kind, suit, 0, 0, 0): five cards of the suit
KIND_FLUSH_TOP = 4    # (kind, suit, top, 0, 0): the top card and four lower of its suit


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration of a ruleset. Build it with ``parse_declaration`` or ``ladder``.

    ``ranks`` are the ranks the text names (a straight's top card; two pair and full
    house give two ranks); ``suit`` is 0..3 for suit-named hands, else None.
    Comparison is by strength; suits never decide (``flush h A == flush s A`` in
    strength, though they are distinct declarations with distinct ids).
    """

    ruleset: str
    category: str
    ranks: tuple[int, ...] = ()
    suit: int | None = None
    id: int = field(default=-1, compare=False)

    @property
    def strength(self) -> tuple[int, ...]:
        return (_CATEGORY_RANK[self.ruleset][self.category], *self.ranks)

    # All four comparisons by strength (functools.total_ordering would derive ``>`` and
    # ``<=`` from ``==``, which sees the suit, and make ``flush h A > flush s A`` true).
    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Declaration) or other.ruleset != self.ruleset:
            return NotImplemented
        return self.strength < other.strength

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Declaration) or other.ruleset != self.ruleset:
            return NotImplemented
        return self.strength <= other.strength

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Declaration) or other.ruleset != self.ruleset:
            return NotImplemented
        return self.strength > other.strength

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Declaration) or other.ruleset != self.ruleset:
            return NotImplemented
        return self.strength >= other.strength

    def __str__(self) -> str:
        printed = _PRINTED.get(id(self))
        if printed is not None and printed[0] is self:
            return printed[1]
        return self._compose_text()

    def _compose_text(self) -> str:
        """The text, built from the fields (``str`` looks it up for ladder declarations)."""
        words = [self.category]
        if self.suit is not None:
            words.append(SUIT_CHARS[self.suit])
        if self.ruleset == "official" and self.category == "straight":
            words.append("big" if self.ranks[0] == 14 else "small")
        elif not (self.ruleset == "official" and self.category in _SUITED):
            words.extend(rank_char(r) for r in self.ranks)
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Declaration({str(self)!r}, {self.ruleset!r})"

    @property
    def requirement(self) -> tuple[int, int, int, int, int]:
        """The check the kernels run, as five small integers (KIND_* above)."""
        cat, r, s = self.category, self.ranks, self.suit
        if cat in ("high", "pair", "three", "four", "five"):
            need = {"high": 1, "pair": 2, "three": 3, "four": 4, "five": 5}[cat]
            return (KIND_RANKS, r[0], need, 0, 0)
        if cat == "two-pair":
            return (KIND_RANKS, r[0], 2, r[1], 2)
        if cat == "full-house":
            return (KIND_RANKS, r[0], 3, r[1], 2)
        if cat == "straight":
            return (KIND_STRAIGHT, r[0], 0, 0, 0)
        assert s is not None
        if cat == "straight-flush":
            return (KIND_SUITED_RUN, s, r[0] if r else 13, 0, 0)
        if cat == "royal-flush":
            return (KIND_SUITED_RUN, s, 14, 0, 0)
        if r:
            return (KIND_FLUSH_TOP, s, r[0], 0, 0)
        return (KIND_FLUSH_ANY, s, 0, 0, 0)


def _enumerate(ruleset: str) -> list[Declaration]:
    ranks = ruleset_ranks(ruleset)
    suits = range(4)
    out: list[Declaration] = []
    for cat in CATEGORIES[ruleset]:
        if cat in ("high", "pair", "three", "four", "five"):
            out += [Declaration(ruleset, cat, (r,)) for r in ranks]
        elif cat == "two-pair":
            out += [Declaration(ruleset, cat, (a, b)) for a in ranks for b in ranks if a > b]
        elif cat == "full-house":
            out += [Declaration(ruleset, cat, (a, b)) for a in ranks for b in ranks if a != b]
        elif cat == "straight":
            tops = (13, 14) if ruleset == "official" else range(5, 15)
            out += [Declaration(ruleset, cat, (t,)) for t in tops]
        elif ruleset == "official":
            out += [Declaration(ruleset, cat, (), s) for s in suits]
        else:
            tops = range(6, 15) if cat == "flush" else range(5, 15)
            out += [Declaration(ruleset, cat, (t,), s) for t in tops for s in suits]
    out.sort(key=lambda d: (d.strength, -1 if d.suit is None else d.suit))
    return [Declaration(d.ruleset, d.category, d.ranks, d.suit, i) for i, d in enumerate(out)]


# id() of each ladder Declaration -> (the Declaration, its text). Transcripts print
# every declaration, and composing the words each time was most of ``to_dict``'s cost.
# The Declaration is kept in the value, so its id() cannot be reused by another object.
_PRINTED: dict[int, tuple[Declaration, str]] = {}


@cache
def ladder(ruleset: str) -> tuple[Declaration, ...]:
    """Every declaration of the ruleset, weakest first; ``ladder(r)[i].id == i``."""
    out = tuple(_enumerate(check_ruleset(ruleset)))
    _PRINTED.update((id(d), (d, d._compose_text())) for d in out)
    return out


def in_ladder(declaration: Declaration) -> bool:
    """Whether ``declaration`` is the ladder's own object (which lives as long as the
    process: code may key a table by its ``id()``), not an equal one built by hand."""
    lad = ladder(declaration.ruleset)
    return 0 <= declaration.id < len(lad) and lad[declaration.id] is declaration


def declarations(ruleset: str) -> tuple[Declaration, ...]:
    """Every declaration of the ruleset in ascending order (``str()`` gives the text)."""
    return ladder(ruleset)


@cache
def _index(ruleset: str) -> dict[tuple[str, tuple[int, ...], int | None], Declaration]:
    return {(d.category, d.ranks, d.suit): d for d in ladder(ruleset)}


def from_id(declaration_id: int, ruleset: str) -> Declaration:
    lad = ladder(ruleset)
    if not (isinstance(declaration_id, int) and 0 <= declaration_id < len(lad)):
        raise DeclarationError(
            f"declaration id {declaration_id!r} out of range 0..{len(lad) - 1} for {ruleset}"
        )
    return lad[declaration_id]


def _ranks_of(words: Sequence[str], ruleset: str, what: str) -> tuple[int, ...]:
    allowed = ruleset_ranks(ruleset)
    out = []
    for w in words:
        try:
            r = parse_rank(w)
        except CardError:
            raise DeclarationError(f"{what}: {w!r} is not a rank") from None
        if r not in allowed:
            lo, hi = rank_char(allowed[0]), rank_char(allowed[-1])
            raise DeclarationError(f"{what}: rank {w} is not in the {ruleset} deck ({lo}..{hi})")
        out.append(r)
    return tuple(out)


def _suit_of(word: str, what: str) -> int:
    try:
        return parse_suit(word)
    except CardError:
        raise DeclarationError(f"{what}: {word!r} is not a suit (c, d, h, s)") from None


def _usage(category: str, ruleset: str) -> str:
    examples = {
        "high": "high A", "pair": "pair K", "two-pair": "two-pair A K", "three": "three 9",
        "four": "four Q", "five": "five A", "full-house": "full-house 9 T",
        "royal-flush": "royal-flush s",
    }
    official = {"straight": "straight small", "flush": "flush h",
                "straight-flush": "straight-flush d"}
    polacco = {"straight": "straight T", "flush": "flush h A",
               "straight-flush": "straight-flush s K"}
    return (official if ruleset == "official" else polacco).get(category) or examples[category]


@cache
def _parse_text(text: str, ruleset: str) -> Declaration:
    words = text.split()
    if not words:
        raise DeclarationError("empty declaration")
    cat = words[0].lower()
    what = f"declaration {text.strip()!r}"
    if cat not in _ALL_CATEGORIES:
        raise DeclarationError(f"{what}: unknown category {words[0]!r}; expected one of "
                               + ", ".join(CATEGORIES[ruleset]))
    if cat not in CATEGORIES[ruleset]:
        raise DeclarationError(f"{what}: {cat} is not a declaration in {ruleset}")
    args = words[1:]
    usage = f"write it like '{_usage(cat, ruleset)}'"
    suit: int | None = None
    if cat == "straight" and ruleset == "official":
        if len(args) != 1 or args[0].lower() not in _STRAIGHT_WORDS:
            raise DeclarationError(f"{what}: an official straight is 'small' (9-K) or 'big' (T-A)")
        ranks: tuple[int, ...] = (_STRAIGHT_WORDS[args[0].lower()],)
    elif cat in _SUITED:
        n_args = 1 if ruleset == "official" else 2
        if len(args) != n_args:
            raise DeclarationError(f"{what}: {usage}")
        suit = _suit_of(args[0], what)
        ranks = _ranks_of(args[1:], ruleset, what)
    else:
        n_args = 2 if cat in ("two-pair", "full-house") else 1
        if len(args) != n_args:
            raise DeclarationError(f"{what}: {usage}")
        ranks = _ranks_of(args, ruleset, what)
        if n_args == 2 and ranks[0] == ranks[1]:
            raise DeclarationError(f"{what}: {cat} needs two different ranks")
        if cat == "two-pair" and ranks[0] < ranks[1]:
            raise DeclarationError(f"{what}: the higher pair comes first, "
                                   f"'two-pair {rank_char(ranks[1])} {rank_char(ranks[0])}'")
    found = _index(ruleset).get((cat, ranks, suit))
    if found is None:
        lowest = {"straight": "5", "flush": "6", "straight-flush": "5"}.get(cat, "?")
        raise DeclarationError(f"{what}: the top card of a {cat} in {ruleset} is {lowest}..A")
    return found


def parse_declaration(value: str | int | Declaration, ruleset: str) -> Declaration:
    """A declaration of the ruleset from its text, its id, or a Declaration."""
    check_ruleset(ruleset)
    if isinstance(value, Declaration):
        if value.ruleset != ruleset:
            raise DeclarationError(f"declaration {value} belongs to {value.ruleset}, not {ruleset}")
        return value
    if isinstance(value, str):
        return _parse_text(value, ruleset)
    if isinstance(value, int) and not isinstance(value, bool):
        return from_id(value, ruleset)
    raise DeclarationError(f"not a declaration: {value!r}")


def raise_error(
    new: str | int | Declaration, history: Iterable[str | int | Declaration], ruleset: str
) -> str | None:
    """Why ``new`` is not a legal raise after the round's ``history``; None if it is.

    An empty history means ``new`` opens the round, which any declaration may.
    In ``official`` a suit-named hand may be raised by the same hand in a suit not yet
    declared for that category this round.
    """
    d = parse_declaration(new, ruleset)
    prior = [parse_declaration(h, ruleset) for h in history]
    if not prior:
        return None
    last = prior[-1]
    if d.strength > last.strength:
        return None
    if ruleset == "official" and d.strength == last.strength and d.category in _SUITED:
        used = [h for h in prior if h.category == d.category and h.suit == d.suit]
        if not used:
            return None
        return f"{d} was already declared this round; raise with another suit or a higher hand"
    return f"{d} is not higher than {last}"


@cache
def _strengths(ruleset: str) -> tuple[tuple[int, ...], ...]:
    return tuple(d.strength for d in ladder(ruleset))


def legal_raises(
    history: Sequence[str | int | Declaration], ruleset: str
) -> tuple[Declaration, ...]:
    """Every declaration that is a legal raise after ``history``, weakest first.

    >>> [str(d) for d in legal_raises(["flush s", "flush d", "flush h"], "official")][:2]
    ['flush c', 'four 9']
    """
    prior = [parse_declaration(h, ruleset) for h in history]
    lad = ladder(ruleset)
    if not prior:
        return lad
    # Stronger than the last: every one. As strong (official's suit rule, as in
    # raise_error): a suited hand in a suit not yet declared for its category. One pass
    # over the history, not one per candidate.
    strengths, last = _strengths(ruleset), prior[-1]
    start = bisect_left(strengths, last.strength)
    stop = bisect_right(strengths, last.strength, start)
    if ruleset != "official":
        return lad[stop:]
    used = {(h.category, h.suit) for h in prior}
    same = tuple(d for d in lad[start:stop]
                 if d.category in _SUITED and (d.category, d.suit) not in used)
    return same + lad[stop:]


def is_raise(
    new: str | int | Declaration, history: Iterable[str | int | Declaration], ruleset: str
) -> bool:
    return raise_error(new, history, ruleset) is None
