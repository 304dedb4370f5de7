"""The events of a Polish Poker game: its transcript, and their dict form.

>>> from evaluator import parse_declaration
>>> e = Declared(2, 1, parse_declaration("two-pair K 5", "polacco"))
>>> event_from_dict(e.to_dict(), "polacco") == e
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator import (
    CARD_TEXT,
    Card,
    CardError,
    Declaration,
    DeclarationError,
    in_ladder,
    parse_card,
    parse_cards,
    parse_declaration,
)
from referee.games.polish_poker.errors import EventFormatError


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round was dealt. ``counts`` and ``hands`` per seat; 0 and () for seats out."""

    round: int
    opener: int
    cap: int
    counts: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    community: Card | None

    def to_dict(self) -> dict[str, Any]:
        # CARD_TEXT by id rather than str(): transcripts print every card dealt.
        hands = [[CARD_TEXT[c.id] for c in h] for h in self.hands]
        return {
            "type": "dealt", "round": self.round, "opener": self.opener, "cap": self.cap,
            "counts": list(self.counts), "hands": hands,
            "community": None if self.community is None else CARD_TEXT[self.community.id],
        }


@dataclass(frozen=True, slots=True)
class Declared:
    round: int
    seat: int
    declaration: Declaration

    def to_dict(self) -> dict[str, Any]:
        return {"type": "declared", "round": self.round, "seat": self.seat,
                "declaration": str(self.declaration)}


@dataclass(frozen=True, slots=True)
class Called:
    """``automatic`` when the call was deemed made (the five-aces rule)."""

    round: int
    seat: int
    automatic: bool

    def to_dict(self) -> dict[str, Any]:
        return {"type": "called", "round": self.round, "seat": self.seat,
                "automatic": self.automatic}


@dataclass(frozen=True, slots=True)
class Revealed:
    """The last declaration was checked against the pool (hands are in ``Dealt``)."""

    round: int
    declaration: Declaration
    exists: bool

    def to_dict(self) -> dict[str, Any]:
        return {"type": "revealed", "round": self.round,
                "declaration": str(self.declaration), "exists": self.exists}


@dataclass(frozen=True, slots=True)
class RoundLost:
    """``reason``: "bluff", "wrong-call", or a fault label such as "timeout"."""

    round: int
    seat: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "round_lost", "round": self.round, "seat": self.seat,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Eliminated:
    """``place`` is the final place (1-based); ``reason`` "cards" or "forfeit:<label>"."""

    round: int
    seat: int
    place: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "eliminated", "round": self.round, "seat": self.seat,
                "place": self.place, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class GameOver:
    """The finishing order, seats best first."""

    order: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "game_over", "order": list(self.order)}


Event = Dealt | Declared | Called | Revealed | RoundLost | Eliminated | GameOver


# The engine builds the events of every round with these instead of the classes. Dealt
# is made from a plain object with its slots, then made an instance of Dealt (CPython
# allows __class__ assignment between classes with identical slot layouts, and raises
# TypeError should they ever differ), as ``View.build`` does: a frozen dataclass's
# __init__ pays one object.__setattr__ per field. The other four are shared (below).


def _slots_holder(cls: type) -> type:
    """A plain class with the slots of ``cls``, writable."""
    return type(f"_{cls.__name__}Slots", (), {"__slots__": cls.__slots__})


_DealtSlots = _slots_holder(Dealt)


def _dealt(round: int, opener: int, cap: int, counts: tuple[int, ...],
           hands: tuple[tuple[Card, ...], ...], community: Card | None) -> Dealt:
    e = _DealtSlots()
    e.round, e.opener, e.cap, e.counts, e.hands = round, opener, cap, counts, hands
    e.community = community
    e.__class__ = Dealt
    return e  # type: ignore[return-value]


# Every round of every game makes a Declared, a Called, a Revealed and a RoundLost, and
# games repeat the same few thousand of them (a round number, a seat, a ladder
# declaration): those are shared, one object per value (events are immutable), made
# once with their dict (``event_dicts``). Past SHARED_MAX values, new ones are made
# afresh. Keys hold a declaration by its id() and only a ladder declaration (which lives
# as long as the process), so that the key cannot stand for another object.
SHARED_MAX = 20_000  # about 9 MB at most
_shared: dict[tuple[Any, ...], Event] = {}
# id() of a shared event -> (the event, its to_dict()): the event is held, so that its
# id() cannot be another object's (even one that lost a race between two threads to be
# the shared one).
_dicts: dict[int, tuple[Event, dict[str, Any]]] = {}


def _share(key: tuple[Any, ...], event: Event) -> Event:
    if len(_shared) < SHARED_MAX:
        _shared[key] = event
        _dicts[id(event)] = (event, event.to_dict())
    return event


def _declared(round: int, seat: int, declaration: Declaration) -> Declared:
    key = (Declared, round, seat, id(declaration))
    e = _shared.get(key)
    if e is None:
        e = Declared(round, seat, declaration)
        if in_ladder(declaration):
            _share(key, e)
    return e  # type: ignore[return-value]


def _called(round: int, seat: int, automatic: bool) -> Called:
    key = (Called, round, seat, automatic)
    e = _shared.get(key)
    return e or _share(key, Called(round, seat, automatic))  # type: ignore[return-value]


def _revealed(round: int, declaration: Declaration, exists: bool) -> Revealed:
    key = (Revealed, round, id(declaration), exists)
    e = _shared.get(key)
    if e is None:
        e = Revealed(round, declaration, exists)
        if in_ladder(declaration):
            _share(key, e)
    return e  # type: ignore[return-value]


def _round_lost(round: int, seat: int, reason: str) -> RoundLost:
    key = (RoundLost, round, seat, reason)
    e = _shared.get(key)
    return e or _share(key, RoundLost(round, seat, reason))  # type: ignore[return-value]


def event_dicts(events: Sequence[Event]) -> list[dict[str, Any]]:
    """``[e.to_dict() for e in events]``, in which a shared event's dict is the one made
    when it was: the caller must not change them (the journal only encodes them)."""
    known = _dicts.get
    return [shared[1] if (shared := known(id(e))) else e.to_dict() for e in events]


def _get(d: Mapping[str, Any], key: str, kind: type) -> Any:
    if key not in d:
        raise EventFormatError(f"{d.get('type')} event without {key!r}")
    value = d[key]
    # bool is an int subclass; an int field holding True is a format error.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise EventFormatError(
            f"{d.get('type')} event: {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _int_tuple(d: Mapping[str, Any], key: str) -> tuple[int, ...]:
    values = tuple(_get(d, key, list))
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise EventFormatError(f"{d.get('type')} event: {key!r} must be a list of integers")
    return values


def event_from_dict(d: Mapping[str, Any], ruleset: str) -> Event:
    """The event whose ``to_dict()`` is ``d`` (the inverse of ``to_dict``).

    >>> e = Declared(2, 1, parse_declaration("two-pair K 5", "polacco"))
    >>> event_from_dict(e.to_dict(), "polacco") == e
    True
    """
    if not isinstance(d, Mapping):
        raise EventFormatError(f"an event is a dict, got {type(d).__name__}")
    kind = d.get("type")
    try:
        if kind == "dealt":
            community = d.get("community")
            return Dealt(
                _get(d, "round", int), _get(d, "opener", int), _get(d, "cap", int),
                _int_tuple(d, "counts"),
                tuple(parse_cards(h) for h in _get(d, "hands", list)),
                None if community is None else parse_card(community),
            )
        if kind == "declared":
            return Declared(_get(d, "round", int), _get(d, "seat", int),
                            parse_declaration(_get(d, "declaration", str), ruleset))
        if kind == "called":
            return Called(_get(d, "round", int), _get(d, "seat", int),
                          _get(d, "automatic", bool))
        if kind == "revealed":
            return Revealed(_get(d, "round", int),
                            parse_declaration(_get(d, "declaration", str), ruleset),
                            _get(d, "exists", bool))
        if kind == "round_lost":
            return RoundLost(_get(d, "round", int), _get(d, "seat", int),
                             _get(d, "reason", str))
        if kind == "eliminated":
            return Eliminated(_get(d, "round", int), _get(d, "seat", int),
                              _get(d, "place", int), _get(d, "reason", str))
        if kind == "game_over":
            return GameOver(_int_tuple(d, "order"))
    except (CardError, DeclarationError) as exc:
        raise EventFormatError(f"{kind} event: {exc}") from None
    raise EventFormatError(f"unknown event type {kind!r}")
