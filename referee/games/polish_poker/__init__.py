"""Polish Poker (seeds 000 and 004): the bluffing game with declarations, rulesets
``official`` and ``polacco`` (the parameter ``ruleset``).

The registry calls ``load(params)``; ``GAME_PARAMS`` is the parameter schema. The wire
payloads are in SPEC.md beside this file; the rules in ``rules/``.
"""

from referee.games.polish_poker.game import GAME_PARAMS, NAME, PolishPokerGame, legacy_params, load

# The bundled bots (modules) that `referee try` pits a new bot against.
BUNDLED_BOTS = ("bots.polish_poker.statistician", "bots.polish_poker.caller",
                "bots.polish_poker.random_bot")

__all__ = ["BUNDLED_BOTS", "GAME_PARAMS", "NAME", "PolishPokerGame", "legacy_params", "load"]
