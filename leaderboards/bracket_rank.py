"""A tables tournament's leaderboard ranked by its bracket first: the bracket decides who
won, so the table must agree with it. Bots are ranked by the last stage they reached,
then their place at that stage's table, then their score there; the Elo (from all their
games) stays beside them, and the likelihood of superiority is recomputed for the new
neighbours (none where the fit cannot say, see :meth:`leaderboards.EloFit.los`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from leaderboards.elo import RatingError
from leaderboards.report import Report, ReportRow

RANKED_BY_BRACKET = "bracket"


def rank_by_bracket(report: Report, bracket: Mapping[str, Any] | None) -> Report:
    """``report`` with its rated rows in the bracket's order (unchanged without a bracket
    or before any table has standings); ``settings["ranked_by"]`` says so."""
    key = _bracket_keys(bracket) if bracket is not None else {}
    if not key:
        return report
    rated = [r for r in report.rows if r.rank is not None]
    unrated = [r for r in report.rows if r.rank is None]
    elo_rank = {r.bot: r.rank for r in rated}
    ordered = sorted(rated, key=lambda r: (*key.get(r.bot, (1, 0, 0.0)), elo_rank[r.bot]))
    rows: list[ReportRow] = []
    for n, r in enumerate(ordered):
        nxt = ordered[n + 1].bot if n + 1 < len(ordered) else None
        rows.append(dataclasses.replace(r, rank=n + 1, los_next=_los(report, r.bot, nxt)))
    return dataclasses.replace(report, rows=tuple(rows + unrated),
                               settings={**report.settings, "ranked_by": RANKED_BY_BRACKET})


def _bracket_keys(bracket: Mapping[str, Any]) -> dict[str, tuple[int, int, float]]:
    """Per bot: (minus the last stage with its standings, its place there, minus its
    score there); lower sorts first."""
    keys: dict[str, tuple[int, int, float]] = {}
    for stage in bracket.get("stages", []):
        for table in stage["tables"]:
            for s in table["standings"]:
                keys[s["bot"]] = (-stage["stage"], s["place"], -s["score"])
    return keys


def _los(report: Report, bot: str, nxt: str | None) -> float | None:
    if nxt is None:
        return None
    try:
        return report.fit.los(bot, nxt)
    except RatingError:
        return None
