"""The events of six-card golf: every state change, in two forms.

- ``to_dict()``: the transcript (the journal's record, what ``replay`` reads): everything,
  with cards as text (``"Ah"``, ``"Jk"``) and grids as lists in ``POSITIONS`` order.
- ``notice(seat)``: what that seat is told (the wire: cards as integer ids, grids as maps
  from position name to card). A card under a face-down position and a card another seat
  took from the stock are ``None`` until the end of the round reveals them.

>>> e = Took(1, 2, "stock", 50)
>>> e.to_dict()["card"], e.notice(2)["card"], e.notice(0)["card"]
('Ah', 50, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.cards import CARD_TEXT
from evaluator.golf import POSITIONS, TOP_ROW
from referee.games.six_card_golf.actions import STOCK

Grid = tuple[int, ...]


def _text_grids(grids: Sequence[Grid]) -> list[list[str]]:
    return [[CARD_TEXT[c] for c in g] for g in grids]


def public_grid(grid: Grid, face_up: Sequence[bool]) -> dict[str, int | None] | None:
    """A grid as a seat other than the game sees it: face-down cards are None; an empty
    grid (a seat out of the game) is None."""
    if not grid:
        return None
    return {p: (c if up else None) for p, c, up in zip(POSITIONS, grid, face_up, strict=True)}


def _open_grid(grid: Grid) -> dict[str, int] | None:
    return dict(zip(POSITIONS, grid, strict=True)) if grid else None


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round was dealt: ``grids`` per seat (empty for seats out of the game), the first
    card of the discard pile, the stock's size. Only the top rows are face up."""

    round: int
    dealer: int
    starter: int
    grids: tuple[Grid, ...]
    discard: int
    stock: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "dealt", "round": self.round, "dealer": self.dealer,
                "starter": self.starter, "grids": _text_grids(self.grids),
                "discard": CARD_TEXT[self.discard], "stock": self.stock}

    def notice(self, seat: int) -> dict[str, Any]:
        up = [i in TOP_ROW for i in range(len(POSITIONS))]
        return {"type": "dealt", "round": self.round, "dealer": self.dealer,
                "starter": self.starter, "grids": [public_grid(g, up) for g in self.grids],
                "discard": self.discard, "stock": self.stock}


@dataclass(frozen=True, slots=True)
class Took:
    """``seat`` took ``card`` from ``source`` ("stock" or "discard-pile")."""

    round: int
    seat: int
    source: str
    card: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "took", "round": self.round, "seat": self.seat, "from": self.source,
                "card": CARD_TEXT[self.card]}

    def notice(self, seat: int) -> dict[str, Any]:
        private = self.source == STOCK and seat != self.seat
        return {"type": "took", "round": self.round, "seat": self.seat, "from": self.source,
                "card": None if private else self.card}


@dataclass(frozen=True, slots=True)
class Placed:
    """``seat`` laid ``card`` face up at ``position``; ``replaced`` went face up onto the
    discard pile."""

    round: int
    seat: int
    position: int
    card: int
    replaced: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "placed", "round": self.round, "seat": self.seat,
                "at": POSITIONS[self.position], "card": CARD_TEXT[self.card],
                "replaced": CARD_TEXT[self.replaced]}

    def notice(self, seat: int) -> dict[str, Any]:
        return {"type": "placed", "round": self.round, "seat": self.seat,
                "at": POSITIONS[self.position], "card": self.card, "replaced": self.replaced}


@dataclass(frozen=True, slots=True)
class Discarded:
    """``seat`` discarded the card it took from the stock."""

    round: int
    seat: int
    card: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "discarded", "round": self.round, "seat": self.seat,
                "card": CARD_TEXT[self.card]}

    def notice(self, seat: int) -> dict[str, Any]:
        return {"type": "discarded", "round": self.round, "seat": self.seat, "card": self.card}


@dataclass(frozen=True, slots=True)
class WentOut:
    """``seat`` has no face-down card left: every other seat has one more turn."""

    round: int
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "went_out", "round": self.round, "seat": self.seat}

    def notice(self, seat: int) -> dict[str, Any]:
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """The stock ran out: the discard pile but its top card became the new stock."""

    round: int
    stock: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "reshuffled", "round": self.round, "stock": self.stock}

    def notice(self, seat: int) -> dict[str, Any]:
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class Faulted:
    """``seat`` faulted (``label``: timeout, illegal, malformed...): the round ends and the
    seat scores ``points`` for it."""

    round: int
    seat: int
    label: str
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "fault", "round": self.round, "seat": self.seat,
                "label": self.label, "points": self.points}

    def notice(self, seat: int) -> dict[str, Any]:
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class Forfeited:
    """``seat`` left the game (``label``: crash, faults...): the round ends, the seat
    scores ``points`` for it, and finishes at ``place``."""

    round: int
    seat: int
    label: str
    points: int
    place: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "forfeit", "round": self.round, "seat": self.seat,
                "label": self.label, "points": self.points, "place": self.place}

    def notice(self, seat: int) -> dict[str, Any]:
        return self.to_dict()


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round is over (``reason``: "out", "cap", "fault" or "forfeit"): every card is
    revealed; ``points`` of the round and game ``totals`` per seat (None for seats that
    were out of the game before the round)."""

    round: int
    reason: str
    grids: tuple[Grid, ...]
    points: tuple[int | None, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "round_ended", "round": self.round, "reason": self.reason,
                "grids": _text_grids(self.grids), "points": list(self.points),
                "totals": list(self.totals)}

    def notice(self, seat: int) -> dict[str, Any]:
        return {"type": "round_ended", "round": self.round, "reason": self.reason,
                "grids": [_open_grid(g) for g in self.grids], "points": list(self.points),
                "totals": list(self.totals)}


@dataclass(frozen=True, slots=True)
class GameOver:
    """Final ``places`` (1 = best, ties share) and ``totals`` (lower is better)."""

    places: tuple[int, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "game_over", "places": list(self.places), "totals": list(self.totals)}

    def notice(self, seat: int) -> dict[str, Any]:
        return self.to_dict()


Event = (Dealt | Took | Placed | Discarded | WentOut | Reshuffled | Faulted | Forfeited
         | RoundEnded | GameOver)
