"""Six-card golf (RULES.md, "Six-card golf"; the wire in this package's SPEC.md).

The registry calls ``load(params)``; ``GAME_PARAMS`` is the parameter schema.
"""

from referee.games.six_card_golf.game import GAME_PARAMS, NAME, SixCardGolfGame, load

__all__ = ["GAME_PARAMS", "NAME", "SixCardGolfGame", "load"]
