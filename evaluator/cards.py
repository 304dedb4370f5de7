"""Cards and decks in the notation of RULES.md.

A card is a rank (2..14, ace high) and a suit (c, d, h, s), or the joker. Every card
has one integer id, the same in every ruleset: ``4 * (rank - 2) + suit`` for the 52
ordinary cards and 52 for the joker.

>>> parse_card("10d"), parse_card("jk"), str(parse_card("ah"))
(Card('Td'), Card('Jk'), 'Ah')
>>> deck("official")[:5], len(deck("official")), len(deck("polacco"))
(('9c', '9d', '9h', '9s', 'Tc'), 25, 52)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

RULESETS: tuple[str, ...] = ("official", "polacco")
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
JOKER_ID = 52
N_CARD_IDS = 53


class CardError(ValueError):
    """A card text that is not a card, or a card set with a repeated card."""


class RulesetError(ValueError):
    """A ruleset name that is not one of RULESETS, or a card outside a ruleset's deck."""


def check_ruleset(ruleset: str) -> str:
    if ruleset not in RULESETS:
        raise RulesetError(f"unknown ruleset {ruleset!r}: expected one of {', '.join(RULESETS)}")
    return ruleset


def rank_char(rank: int) -> str:
    return RANK_CHARS[rank - 2]


# Canonical text of each card id. Public so that code printing many cards (transcripts)
# can index it with ``card.id`` instead of paying a ``str()`` call per card.
CARD_TEXT: tuple[str, ...] = (
    tuple(RANK_CHARS[i // 4] + SUIT_CHARS[i % 4] for i in range(52)) + ("Jk",))


def parse_rank(text: str) -> int:
    """``"T"``, ``"10"``, ``"q"`` -> 10, 10, 12."""
    t = text.strip().upper()
    if t == "10":
        return 10
    if len(t) == 1 and t in RANK_CHARS:
        return RANK_CHARS.index(t) + 2
    raise CardError(f"unknown rank {text!r}: expected one of 2-9, T (or 10), J, Q, K, A")


def parse_suit(text: str) -> int:
    t = text.strip().lower()
    if len(t) == 1 and t in SUIT_CHARS:
        return SUIT_CHARS.index(t)
    raise CardError(f"unknown suit {text!r}: expected one of c, d, h, s")


@dataclass(frozen=True, slots=True)
class Card:
    """One card, identified by its integer id (see the module docstring)."""

    id: int

    def __post_init__(self) -> None:
        if not (isinstance(self.id, int) and 0 <= self.id < N_CARD_IDS):
            raise CardError(f"card id {self.id!r} out of range 0..{N_CARD_IDS - 1}")

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        return cls(4 * (rank - 2) + suit)

    @property
    def is_joker(self) -> bool:
        return self.id == JOKER_ID

    @property
    def rank(self) -> int:
        """2..14; 0 for the joker."""
        return 0 if self.is_joker else self.id // 4 + 2

    @property
    def suit(self) -> int:
        """0..3 for c, d, h, s; -1 for the joker."""
        return -1 if self.is_joker else self.id % 4

    def __str__(self) -> str:
        return CARD_TEXT[self.id]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_CARDS = tuple(Card(i) for i in range(N_CARD_IDS))


@cache
def _parse_card_text(text: str) -> Card:
    t = text.strip()
    if t.lower() == "jk":
        return Card(JOKER_ID)
    if len(t) < 2:
        raise CardError(f"unknown card {text!r}: expected rank then suit, like Ah, Td, 10d or Jk")
    try:
        return Card.of(parse_rank(t[:-1]), parse_suit(t[-1]))
    except CardError as exc:
        raise CardError(f"unknown card {text!r}: {exc}") from None


def parse_card(card: str | int | Card) -> Card:
    """A card from its text (``"Ah"``), its integer id, or a Card."""
    if isinstance(card, Card):
        return card
    if isinstance(card, str):
        return _parse_card_text(card)
    if isinstance(card, int) and not isinstance(card, bool):
        return _CARDS[card] if 0 <= card < N_CARD_IDS else Card(card)
    raise CardError(f"not a card: {card!r}")


def parse_cards(cards: str | Iterable[str | int | Card]) -> tuple[Card, ...]:
    """Several cards, from text separated by spaces or commas, or from an iterable.

    A repeated card is an error: every deck holds each card once.

    >>> parse_cards("Ah 10d, jk")
    (Card('Ah'), Card('Td'), Card('Jk'))
    """
    items = cards.replace(",", " ").split() if isinstance(cards, str) else cards
    parsed = tuple(parse_card(c) for c in items)
    if len(set(parsed)) != len(parsed):
        seen: set[Card] = set()
        dup = next(c for c in parsed if c in seen or seen.add(c))
        raise CardError(f"duplicate card {dup}: each card is in the deck once")
    return parsed


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


@cache
def deck_cards(ruleset: str) -> tuple[Card, ...]:
    """The ruleset's cards in ascending id order: the columns of pool arrays."""
    check_ruleset(ruleset)
    if ruleset == "official":
        ids = [*range(4 * (9 - 2), 52), JOKER_ID]
    else:
        ids = list(range(52))
    return tuple(Card(i) for i in ids)


def deck(ruleset: str) -> tuple[str, ...]:
    """The ruleset's cards as canonical text, in the fixed order of pool columns."""
    return tuple(str(c) for c in deck_cards(ruleset))


@cache
def deck_columns(ruleset: str) -> dict[int, int]:
    """Card id -> column index in pool arrays of that ruleset."""
    return {c.id: j for j, c in enumerate(deck_cards(ruleset))}


def check_in_deck(cards: Iterable[Card], ruleset: str) -> None:
    cols = deck_columns(ruleset)
    for c in cards:
        if c.id not in cols:
            raise RulesetError(f"card {c} is not in the {ruleset} deck")


def ruleset_ranks(ruleset: str) -> range:
    """The ranks that occur in the ruleset's deck, ascending."""
    return range(9, 15) if check_ruleset(ruleset) == "official" else range(2, 15)
