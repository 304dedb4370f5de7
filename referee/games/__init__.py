"""The games the referee can run, and what the runner needs from each.

The runner, the journal and the CLI are game-generic: they drive an engine through the
small ``Engine`` protocol (the shape of OpenSpiel's ``State``) and reach the wire only
through the game's ``GameRules``: the view payload a seat is sent, the action payload it
answers with, and the round results everyone is told.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from protocol.polish import GAME as POLISH_GAME
from protocol.polish import Action, Raise, RoundResult, View, parse_action
from referee.games.polish import (
    PLAYER_RANGE,
    Dealt,
    Eliminated,
    IllegalAction,
    PolishPoker,
    Revealed,
    RoundLost,
)


class Engine(Protocol):
    """What the runner reads and calls on a game in progress."""

    round: int
    current_seat: int | None
    is_over: bool
    finishing_order: tuple[int, ...]
    active: tuple[bool, ...]
    events: list[Any]

    def fault(self, seat: int, label: str) -> list[Any]: ...
    def forfeit(self, seat: int, label: str) -> list[Any]: ...


class GameRules(Protocol):
    """A game (with its parameters) as the runner sees it."""

    name: str
    params: dict[str, Any]

    def player_range(self) -> range: ...
    def new_game(self, players: int, seed: int) -> Engine: ...
    def view(self, engine: Any, seat: int, time_left_ms: int | None = None) -> Any: ...
    def view_payload(self, engine: Any, seat: int) -> dict[str, Any]: ...
    def parse_action(self, payload: Any) -> Any: ...
    def parse_local_action(self, value: Any) -> Any: ...
    def local_result(self, result: dict[str, Any]) -> Any: ...
    def apply(self, engine: Any, seat: int, action: Any) -> str | None: ...
    def round_results(self, events: Sequence[Any], start: int) -> list[dict[str, Any]]: ...


class PolishPokerRules:
    """Polish Poker with one ruleset (``official`` or ``polacco``)."""

    name = POLISH_GAME

    def __init__(self, ruleset: str):
        self.ruleset = ruleset
        self.params = {"ruleset": ruleset}

    def player_range(self) -> range:
        lo, hi = PLAYER_RANGE[self.ruleset]
        return range(lo, hi + 1)

    def new_game(self, players: int, seed: int) -> PolishPoker:
        return PolishPoker(self.ruleset, players, seed)

    def view(self, engine: PolishPoker, seat: int, time_left_ms: int | None = None) -> View:
        """The seat's view as an in-process bot gets it (the SDK fills ``time_left_ms``
        from the request's deadline)."""
        return engine.view(seat, time_left_ms)

    def view_payload(self, engine: PolishPoker, seat: int) -> dict[str, Any]:
        return engine.view(seat).to_wire()

    def parse_action(self, payload: Any) -> Any:
        """An action off the wire; ValueError says what is wrong with it."""
        return Action.from_wire(payload, self.ruleset)

    def parse_local_action(self, value: Any) -> Any:
        """What an in-process bot's ``act`` returned, read as the SDK reads it."""
        return parse_action(value, self.ruleset)

    def local_result(self, result: dict[str, Any]) -> RoundResult:
        """A round result (as ``round_results`` gives it) as the SDK hands it to a bot."""
        return RoundResult.from_wire(result, self.ruleset)

    def apply(self, engine: PolishPoker, seat: int, action: Any) -> str | None:
        try:
            engine.apply(action, seat=seat)
        except IllegalAction as exc:
            return str(exc)
        return None

    def round_results(self, events: Sequence[Any], start: int) -> list[dict[str, Any]]:
        """One result per round that ended in ``events[start:]`` (lost by a call, a fault or
        a forfeit), with every hand of that round revealed."""
        if start >= len(events):
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
                out.append(self._result(dealt, revealed, e.seat, e.reason, False))
            elif isinstance(e, Eliminated) and lost is not None and lost.seat == e.seat:
                out[-1]["eliminated"] = True
            elif isinstance(e, Eliminated):
                out.append(self._result(dealt, None, e.seat, e.reason, True))
        return out

    def _result(self, dealt: Dealt | None, revealed: Revealed | None, loser: int,
                reason: str, eliminated: bool) -> dict[str, Any]:
        assert dealt is not None, "events of a round start with its deal"
        return RoundResult(
            round=dealt.round, hands=dealt.hands, community=dealt.community,
            declaration=revealed.declaration if revealed else None,
            exists=revealed.exists if revealed else None, loser=loser, reason=reason,
            eliminated=eliminated,
        ).to_wire()


def game_rules(game: str, ruleset: str) -> GameRules:
    if game != POLISH_GAME:
        raise ValueError(f"unknown game {game!r}")
    return PolishPokerRules(ruleset)


__all__ = ["Engine", "GameRules", "PolishPokerRules", "Raise", "game_rules"]
