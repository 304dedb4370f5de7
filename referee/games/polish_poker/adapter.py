"""Polish Poker's engine as the harness drives it (``referee.games.api.Engine``): the seat
first in ``apply``, views and notices as wire maps, the legal actions as ``Raise | Call``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.games.api import Outcome
from referee.games.polish_poker.engine import PolishPoker
from referee.games.polish_poker.events import Dealt, Eliminated, Revealed, RoundLost, event_dicts
from referee.games.polish_poker.wire import Call, Raise, View, round_result_wire


class PolishEngine:
    """A ``PolishPoker`` game behind ``api.Engine`` (whose ``apply`` takes the seat
    first and whose views are wire maps)."""

    __slots__ = ("game", "events", "players", "local_view")

    def __init__(self, game: PolishPoker) -> None:
        self.game = game
        self.events = game._events  # the live transcript, not a copy per read
        self.players = game.players
        # local_view(seat, time_left_ms): ``decode_view(view(seat), time_left_ms)``, built
        # from the state directly: the engine's own view, without a call in between.
        self.local_view: Callable[[int, int | None], View] = game.view

    # Read off the engine's state directly: asked several times per decision.
    @property
    def current_seat(self) -> int | None:
        return self.game._current

    @property
    def is_over(self) -> bool:
        return self.game._current is None

    @property
    def active(self) -> tuple[bool, ...]:
        return self.game.active

    def view(self, seat: int) -> dict[str, Any]:
        return self.game.view(seat).to_wire()

    def event_dicts(self) -> list[dict[str, Any]]:
        """``[e.to_dict() for e in events]``, for the journal to encode (not to change):
        the events every round repeats share their dict (``events.event_dicts``)."""
        return event_dicts(self.events)

    def legal_actions(self) -> list[Raise | Call]:
        raises: list[Raise | Call] = [Raise(d) for d in self.game.legal_declarations()]
        return raises + [Call()] if self.game.can_call else raises

    def apply(self, seat: int, action: Raise | Call) -> None:
        # The engine takes a Declaration or "call" as they are; a Raise or Call it would
        # parse again.
        kind = type(action)
        self.game.play("call" if kind is Call else action.declaration if kind is Raise
                       else action, seat)

    def fault(self, seat: int, label: str) -> None:
        self.game.fault(seat, label)

    def forfeit(self, seat: int, label: str) -> None:
        self.game.forfeit(seat, label)

    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]:
        """One round result per round that ended in ``events[since:]``, to every seat
        that held cards in it: all hands are revealed."""
        return [(seat, result) for result in round_results(self.events, since)
                for seat, hand in enumerate(result["hands"]) if hand]

    def outcome(self) -> Outcome:
        return Outcome(self.game.places, None, self.game.round)


_ROUND_ENDS = (RoundLost, Eliminated)


def round_results(events: Sequence[Any], start: int) -> list[dict[str, Any]]:
    """One result per round that ended in ``events[start:]`` (lost by a call, a fault or
    a forfeit), with every hand of that round revealed (SPEC.md, "round result")."""
    # A result comes only from a round's end among the new events: most decisions add
    # a declaration or a call, and the round need not be walked for them (a plain loop:
    # this runs at every decision).
    for e in events[start:]:
        if isinstance(e, _ROUND_ENDS):
            break
    else:
        return []
    first = start
    while first > 0 and not isinstance(events[first], Dealt):
        first -= 1
    out: list[dict[str, Any]] = []
    dealt: Dealt | None = None
    revealed: Revealed | None = None
    lost: RoundLost | None = None
    for i in range(first, len(events)):
        e = events[i]
        if i < start and not isinstance(e, Dealt | Revealed):
            continue
        if isinstance(e, Dealt):
            dealt, revealed, lost = e, None, None
        elif isinstance(e, Revealed):
            revealed = e
        elif isinstance(e, RoundLost):
            lost = e
            out.append(_result(dealt, revealed, e.seat, e.reason, False))
        elif isinstance(e, Eliminated) and lost is not None and lost.seat == e.seat:
            out[-1]["eliminated"] = True
        elif isinstance(e, Eliminated):
            out.append(_result(dealt, None, e.seat, e.reason, True))
    return out


def _result(dealt: Dealt | None, revealed: Revealed | None, loser: int, reason: str,
            eliminated: bool) -> dict[str, Any]:
    assert dealt is not None, "events of a round start with its deal"
    return round_result_wire(
        dealt.round, dealt.hands, dealt.community,
        revealed.declaration if revealed else None,
        revealed.exists if revealed else None, loser, reason, eliminated)
