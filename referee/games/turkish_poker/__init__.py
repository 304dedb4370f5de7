"""Turkish poker (seed 003): a 5-card draw game with betting, for 2-5 players.

The package plugs into the harness through ``referee.games.api``: ``GAME_PARAMS`` and
``load(params)``. It imports only ``evaluator`` and the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.games.turkish_poker.game import NAME, TurkishPokerGame
from referee.games.turkish_poker.params import GAME_PARAMS


def load(params: Mapping[str, Any]) -> TurkishPokerGame:
    """The game with these (typed) parameters; ValueError names a bad one."""
    return TurkishPokerGame(dict(params))


# The bundled bots (modules) that `referee try` pits a new bot against.
BUNDLED_BOTS = ("bots.turkish_poker.equity_bot", "bots.turkish_poker.rules_bot",
                "bots.turkish_poker.random_bot")

__all__ = ["BUNDLED_BOTS", "GAME_PARAMS", "NAME", "TurkishPokerGame", "load"]
