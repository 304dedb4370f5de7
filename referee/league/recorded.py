"""The schedule of a league's run directory: the games its journal records.

A league's matchmaker chooses each game as the league goes (``referee.league.matchmaker``),
so no format can regenerate its schedule from a seed. Its ``config.json`` says
``"format": "league"`` and lists every bot version; this format takes each journalled
game as scheduled, with the seating its record names. ``referee verify`` then re-checks
every game's play against its deal (the deal secret and the game's seed), and that its
seats are bots of the league; that a game was the one the matchmaker chose it cannot
check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.schedule import ScheduledGame


class RecordedSchedule:
    """One stage: the journalled games themselves."""

    name = "league"

    def __init__(self, bot_names: Sequence[str]):
        self._position = {name: i for i, name in enumerate(bot_names)}

    def stage(self, number: int, records: Sequence[Mapping[str, Any]]
              ) -> list[ScheduledGame] | None:
        if number > 0:
            return None
        games = []
        for rec in records:
            unknown = [s for s in rec["seats"] if s not in self._position]
            if unknown:
                raise ValueError(f"game {rec['game']}: seats {unknown} are not bots of the "
                                 "league's config.json")
            games.append(ScheduledGame(rec["game"], tuple(self._position[s] for s in
                                                          rec["seats"]),
                                       rec["seed"], rec["group"], rec["group_size"]))
        return games
