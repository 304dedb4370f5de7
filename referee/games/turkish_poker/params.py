"""Turkish poker's parameters: the schema ``referee.games.api.resolve_params`` checks."""

from __future__ import annotations

from referee.games.api import Param
from referee.games.turkish_poker.betting import LIMITS

GAME_PARAMS: tuple[Param, ...] = (
    Param("limit", "no-limit", str, choices=LIMITS, help="betting limit"),
    Param("hands", 100, int, minimum=1, maximum=100_000, help="hands in a game"),
    Param("stack", 200, int, minimum=20, maximum=1_000_000,
          help="chips (antes) every seat holds at the start of each hand"),
    Param("rake", 0.0, float, minimum=0.0, maximum=0.5,
          help="fraction of each pot taken once the betting was opened (rounded down)"),
    Param("rake_cap", 0, int, minimum=0, maximum=1_000_000,
          help="most chips raked from one pot (0: no cap)"),
)

