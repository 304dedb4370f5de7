"""The errors the Polish Poker engine raises."""

from __future__ import annotations

from typing import ClassVar

from referee.games import api


class EngineError(Exception):
    """Base of every error the engine raises."""


class PlayerCountError(EngineError, ValueError):
    """A number of players the ruleset does not allow."""


class UsageError(EngineError, ValueError):
    """The program driving the engine (not a player) asked for something impossible:
    a seat that is not in the game, a bad fault label, hands that do not fit the round."""


class EventFormatError(EngineError, ValueError):
    """A dict that is not the ``to_dict`` form of an event."""


class IllegalAction(EngineError, api.IllegalAction):
    """An action the rules forbid; the engine's state is unchanged."""

    reason: ClassVar[str] = "illegal"

    def __init__(self, detail: str) -> None:
        super().__init__(f"{self.reason}: {detail}")
        self.detail = detail


class NotYourTurn(IllegalAction):
    reason = "not-your-turn"


class NothingToCall(IllegalAction):
    reason = "nothing-to-call"


class NotARaise(IllegalAction):
    reason = "not-a-raise"


class WrongDeclaration(IllegalAction):
    reason = "wrong-declaration"


class GameAlreadyOver(IllegalAction):
    """Any action after the end. (Named so, not ``GameOver``, which is the event.)"""

    reason = "game-over"
