"""How the ratings converged: the Elo fit again at checkpoints over a run's games in order.

:func:`elo_history` refits :func:`leaderboards.fit_elo` on the first ``k`` records of the
journal (complete duplicate groups only, as the leaderboard counts them) for about
``CHECKPOINTS`` values of ``k`` evenly spread up to all of them, so that it stays cheap
for a run of any length (20 fits, each of the games so far). ``leaderboard.html`` draws
it: one line per bot, with its 95 % band where the value is an estimate (not a bound).

>>> recs = [{"seats": ["a", "b"], "places": [1 + (g % 3 == 0), 2 - (g % 3 == 0)]}
...         for g in range(30)]
>>> h = elo_history(recs, ("a", "b"), checkpoints=3)
>>> h.games, [round(p.elo, 1) for p in h.points["a"]]
((10, 20, 30), [35.2, 53.8, 60.2])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leaderboards.elo import Bound, RatingError, fit_elo
from leaderboards.report import Placings, cluster_keys, complete_groups

CHECKPOINTS = 20


@dataclass(frozen=True)
class HistoryPoint:
    """A bot's Elo after ``games`` records; ``ci95`` is None for a bound."""

    elo: float
    ci95: float | None
    bound: Bound | None


@dataclass(frozen=True)
class EloHistory:
    """``games``: the checkpoints (records of the journal taken, in order); ``points[bot]``
    one entry per checkpoint, None before the bot was rated."""

    games: tuple[int, ...]
    points: dict[str, tuple[HistoryPoint | None, ...]]


def elo_history(records: Sequence[Mapping[str, Any]], names: Sequence[str],
                anchor: tuple[str, float] | None = None,
                checkpoints: int = CHECKPOINTS) -> EloHistory:
    """The Elo of each of ``names`` refitted at ``checkpoints`` points over ``records``
    (in journal order). A checkpoint whose games cannot be fitted (none complete yet, or
    the anchor not yet playing) is left out."""
    n = len(records)
    marks = sorted({math.ceil(n * i / checkpoints) for i in range(1, checkpoints + 1)} - {0})
    games: list[int] = []
    points: dict[str, list[HistoryPoint | None]] = {name: [] for name in names}
    for k in marks:
        recs = complete_groups(records[:k])
        placings = Placings(recs)
        if not recs or (anchor and not any(anchor[0] in r["seats"] for r in recs)):
            continue
        try:
            fit = fit_elo(placings, anchor, cluster_keys(recs))
        except RatingError:
            continue
        games.append(k)
        for name in names:
            r = fit.ratings.get(name)
            points[name].append(None if r is None else
                                HistoryPoint(r.elo, None if r.bound else r.ci95, r.bound))
    return EloHistory(tuple(games), {name: tuple(p) for name, p in points.items()})

