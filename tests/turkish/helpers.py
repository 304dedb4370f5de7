"""Shared helpers of the Turkish poker tests: engines found by seed, event filters."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from referee.games.turkish_poker import events as ev
from referee.games.turkish_poker.engine import Action, TurkishPoker


def engine_where(players: int, test: Callable[[TurkishPoker], bool], **kw: Any) -> TurkishPoker:
    """The first engine (seed 0, 1, ...) whose starting state passes ``test``."""
    for seed in itertools.count():
        engine = TurkishPoker(players, seed, **kw)
        if test(engine):
            return engine
    raise AssertionError("unreachable")


def can_open(engine: TurkishPoker) -> bool:
    return any(a["kind"] == "open" for a in engine.legal(engine.current_seat))


def opened(players: int, amount: int = 1, **kw: Any) -> TurkishPoker:
    """An engine whose first seat has opened for ``amount``."""
    engine = engine_where(players, can_open, **kw)
    engine.apply(engine.current_seat, Action("open", amount))
    return engine


def of_type(engine: TurkishPoker, kind: type) -> list[Any]:
    return [e for e in engine.events if isinstance(e, kind)]


def call_around(engine: TurkishPoker) -> None:
    """Every seat still to act in this round calls (or passes)."""
    phase = engine.phase
    while engine.phase == phase and not engine.is_over:
        kinds = {a["kind"] for a in engine.legal(engine.current_seat)}
        engine.apply(engine.current_seat, Action("call" if "call" in kinds else "pass"))


def draw_all(engine: TurkishPoker, count: int) -> None:
    """Every seat in the draw discards its first ``count`` cards."""
    while engine.phase == "draw":
        seat = engine.current_seat
        engine.apply(seat, Action("draw", cards=tuple(engine.cards[seat][:count])))


def hand_ended(engine: TurkishPoker) -> ev.HandEnded:
    return of_type(engine, ev.HandEnded)[0]
