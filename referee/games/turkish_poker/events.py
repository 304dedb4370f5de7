"""Every state change of a Turkish poker game, as a value with ``to_dict`` and per-seat
``notice`` (what that seat is told of it: a deal and the cards drawn only to their owner).

Cards in events are texts (``"Ah"``), as the journal keeps them; in notices they are
the protocol's integers (protocol/SPEC.md section 2). Every amount is whole chips.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from evaluator.cards import parse_card


def wire_cards(texts: tuple[str, ...]) -> list[int]:
    """Card texts as the protocol's integers.

    >>> wire_cards(("Ah", "9c"))
    [50, 28]
    """
    return [parse_card(t).id for t in texts]


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


class Event:
    """Base of the events: ``to_dict`` gives the JSON-safe form with a ``"type"`` key."""

    TYPE: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = _plain(getattr(self, f.name))
        return out

    def notice(self, seat: int) -> dict[str, Any] | None:
        """What ``seat`` is told of this event (None: nothing)."""
        return self.to_dict()


@dataclass(frozen=True)
class HandStarted(Event):
    TYPE: ClassVar[str] = "hand_started"
    hand: int
    dealer: int
    seats: tuple[int, ...]      # the seats playing this hand (not sitting out)
    stacks: tuple[int, ...]     # chips per seat at the start of the hand


@dataclass(frozen=True)
class Antes(Event):
    TYPE: ClassVar[str] = "antes"
    deal: int
    seats: tuple[int, ...]
    amount: int
    deck: int                   # cards in this deal's deck


@dataclass(frozen=True)
class Dealt(Event):
    TYPE: ClassVar[str] = "dealt"
    deal: int
    seat: int
    cards: tuple[str, ...]

    def notice(self, seat: int) -> dict[str, Any] | None:
        return {**self.to_dict(), "cards": wire_cards(self.cards)} if seat == self.seat \
            else None


@dataclass(frozen=True)
class Acted(Event):
    """A betting decision: fold, pass, open (``amount``), call (``amount`` paid) or raise
    (``amount`` = the seat's bet this round after it). ``forced``: a fold imposed by a
    fault or a forfeit, not chosen."""

    TYPE: ClassVar[str] = "action"
    seat: int
    kind: str
    amount: int = 0
    all_in: bool = False
    forced: bool = False


@dataclass(frozen=True)
class Drew(Event):
    TYPE: ClassVar[str] = "drew"
    seat: int
    discarded: tuple[str, ...]
    received: tuple[str, ...]

    def notice(self, seat: int) -> dict[str, Any] | None:
        if seat == self.seat:
            return {**self.to_dict(), "discarded": wire_cards(self.discarded),
                    "received": wire_cards(self.received)}
        return {"type": self.TYPE, "seat": self.seat, "count": len(self.discarded)}


@dataclass(frozen=True)
class Reshuffled(Event):
    """The stock ran short: the discards and folded hands became a new stock."""

    TYPE: ClassVar[str] = "reshuffled"
    cards: int


@dataclass(frozen=True)
class Returned(Event):
    """The part of a bet no one called goes back to its seat."""

    TYPE: ClassVar[str] = "returned"
    seat: int
    amount: int


@dataclass(frozen=True)
class Shown(Event):
    TYPE: ClassVar[str] = "shown"
    seat: int
    cards: tuple[str, ...]
    category: str

    def notice(self, seat: int) -> dict[str, Any] | None:
        return {**self.to_dict(), "cards": wire_cards(self.cards)}


@dataclass(frozen=True)
class PotWon(Event):
    """One pot (0 = main) and who takes it: ``shares`` per winner, after ``rake``."""

    TYPE: ClassVar[str] = "pot"
    index: int
    amount: int
    rake: int
    seats: tuple[int, ...]      # eligible
    winners: tuple[int, ...]
    shares: tuple[int, ...]


@dataclass(frozen=True)
class HandEnded(Event):
    TYPE: ClassVar[str] = "hand_ended"
    hand: int
    net: tuple[int, ...]        # chips won (+) or lost (-) this hand, per seat
    reason: str                 # showdown, folds, redeal-cap


@dataclass(frozen=True)
class Faulted(Event):
    TYPE: ClassVar[str] = "fault"
    seat: int
    label: str


@dataclass(frozen=True)
class Forfeited(Event):
    TYPE: ClassVar[str] = "forfeit"
    seat: int
    label: str


@dataclass(frozen=True)
class GameOver(Event):
    TYPE: ClassVar[str] = "game_over"
    scores: tuple[int, ...]
    places: tuple[int, ...]
