"""What one seat may know, as the plain map a bot's ``act`` gets (the game's SPEC.md).

Every face-up card of every seat, the whole discard pile, the stock's size, the round's
and the game's points. A card under a face-down position is ``None`` for everyone, its
owner too. The card the seat to act holds is shown to every seat when it came from the
discard pile (everyone saw it there) and only to the holder when it came from the stock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from evaluator.golf import POSITIONS
from referee.games.six_card_golf.actions import PILE, Action


class GolfTable(Protocol):
    """What a view is made of: the engine's read-only state (``engine.SixCardGolf``,
    which this module does not import: the engine imports it)."""

    players: int
    round: int
    dealer: int
    starter: int
    current_seat: int | None
    phase: str
    drawn: int | None
    drawn_from: str | None
    shown: Sequence[Sequence[int | None]]
    frozen: Sequence[bool]
    discard: Sequence[int]
    stock: Sequence[int]
    turns: Sequence[int]
    turn_cap: int
    out_seat: int | None
    active: Sequence[bool]
    totals: Sequence[int]
    history: Sequence[Sequence[int | None]]
    target: int

    def legal_actions(self) -> list[Action]: ...


def build_view(g: GolfTable, seat: int) -> dict[str, Any]:
    to_act = g.current_seat
    held = g.drawn if (g.drawn is not None and (seat == to_act or g.drawn_from == PILE)) else None
    return {
        "seat": seat,
        "players": g.players,
        "round": g.round,
        "dealer": g.dealer,
        "starter": g.starter,
        "to_act": to_act,
        "phase": g.phase if to_act is not None else None,
        "drawn": held,
        "drawn_from": g.drawn_from,
        "grids": [dict(zip(POSITIONS, shown, strict=True)) if shown else None
                  for shown in g.shown],
        "frozen": list(g.frozen),
        "discard": list(g.discard),
        "stock": len(g.stock),
        "turns": list(g.turns),
        "turn_cap": g.turn_cap,
        "out": g.out_seat,
        "active": list(g.active),
        "totals": list(g.totals),
        "rounds": [list(p) for p in g.history],
        "target": g.target,
        "legal": [a.to_wire() for a in g.legal_actions()] if seat == to_act else [],
    }
