"""A simple standings table from journal records: games, wins, mean place, score.

Places are per seat, 1 = best; equal results share a place (``[1, 1, 3]``: two seats tie
for first). A win is a first place held alone; a first place shared with another seat is
counted apart, as a shared win. Score is the share of opponents a bot finished ahead of,
a shared place counting half (as in the Elo fit), averaged over its games (1.0: won
every game; 0.0: last every time). Pure functions of the records.

>>> recs = [{"players": 2, "seats": ["a", "b"], "places": [1, 2], "faults": []},
...         {"players": 2, "seats": ["b", "a"], "places": [2, 1], "faults": []}]
>>> [(r.bot, r.games, r.wins, r.mean_place, r.score) for r in standings(recs)]
[('a', 2, 2, 1.0, 1.0), ('b', 2, 0, 2.0, 0.0)]
>>> tie = [{"players": 3, "seats": ["a", "b", "c"], "places": [1, 1, 3], "faults": []}]
>>> [(r.bot, r.wins, r.shared_wins, r.score) for r in standings(tie)]
[('a', 0, 1, 0.75), ('b', 0, 1, 0.75), ('c', 0, 0, 0.0)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Standing:
    """One bot's row: ``wins`` are first places held alone, ``shared_wins`` first places
    shared with another seat."""

    bot: str
    games: int
    wins: int
    mean_place: float
    score: float
    faults: dict[str, int] = field(default_factory=dict)
    shared_wins: int = 0


def standings(records: Iterable[Mapping[str, Any]], bots: Iterable[str] = ()) -> list[Standing]:
    """One row per bot (those in ``bots`` even with no game yet, with mean place and
    score 0.0), best score first."""
    games: Counter[str] = Counter({b: 0 for b in bots})
    wins: Counter[str] = Counter()
    shared: Counter[str] = Counter()
    place_sum: Counter[str] = Counter()
    score_sum: dict[str, float] = {}
    faults: dict[str, Counter[str]] = {}
    for rec in records:
        places = rec["places"]
        held = Counter(places)
        for bot, place in zip(rec["seats"], places, strict=True):
            games[bot] += 1
            wins[bot] += place == 1 and held[1] == 1
            shared[bot] += place == 1 and held[1] > 1
            place_sum[bot] += place
            behind = sum(1 for other in places if other > place)
            score_sum[bot] = (score_sum.get(bot, 0.0)
                              + (behind + 0.5 * (held[place] - 1)) / (len(places) - 1))
        for f in rec["faults"]:
            faults.setdefault(f["bot"], Counter())[f["label"]] += 1
    rows = [
        Standing(bot, g, wins[bot], place_sum[bot] / g if g else 0.0,
                 score_sum.get(bot, 0.0) / g if g else 0.0,
                 dict(sorted(faults.get(bot, Counter()).items())), shared[bot])
        for bot, g in games.items()
    ]
    return sorted(rows, key=lambda r: (-r.score, -r.wins, -r.shared_wins, r.bot))
