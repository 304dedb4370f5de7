"""Six-card golf (RULES.md, "Six-card golf"; the wire in this package's SPEC.md).

The registry calls ``load(params)``; ``GAME_PARAMS`` is the parameter schema.
"""

from referee.games.six_card_golf.game import GAME_PARAMS, NAME, SixCardGolfGame, load

# The bundled bots (modules) that `referee try` pits a new bot against.
BUNDLED_BOTS = ("bots.six_card_golf.expected_bot", "bots.six_card_golf.greedy_bot",
                "bots.six_card_golf.random_bot")

__all__ = ["BUNDLED_BOTS", "GAME_PARAMS", "NAME", "SixCardGolfGame", "load"]
