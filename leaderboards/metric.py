"""A game's own measure of each bot (chips won per hand, points per round), with its 95 %
interval over clusters of games (duplicate groups).

The measure is a ratio (``Metric``, which a game declares): over a bot's games, the sum of
``score * scale`` divided by the sum of the games' ``units`` (hands, rounds). Games of one
duplicate group replay one deal, so they are not independent; the groups are. Per group
``g`` the bot has ``y_g`` (its sum of ``score * scale``) and ``u_g`` (its sum of units);
the estimate is ``R = sum y_g / sum u_g``, and its standard error is the delta-method
(linearised) one of a ratio of cluster totals, as for a ratio estimator in survey
sampling::

    se(R)**2 = G / (G - 1) * sum_g (y_g - R u_g)**2 / (sum_g u_g)**2

over the ``G`` groups the bot played in; ``ci95 = 1.96 * se``. Chosen over a bootstrap
over groups because it is exact arithmetic on the records, with no seed and no resampling
cost, so a report stays a function of the set of records, bit for bit; the two agree to a
few per cent once there are a few dozen groups (tests/test_metric.py checks the
interval's coverage on synthetic data). With one group there is no spread to measure:
``se`` and ``ci95`` are None.

>>> est = estimate_ratio([(12.0, 10), (-2.0, 10), (5.0, 10)])
>>> round(est.value, 4), round(est.ci95, 4), est.units, est.groups
(0.5, 0.7921, 30, 3)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Z95 = 1.96


class Metric(Protocol):
    """What the leaderboards read of a game's own measure (``referee.games.api.Metric``
    is one): over a bot's games, the sum of ``score * scale`` divided by the sum of the
    games' units, named ``name`` in ``unit`` per ``per``. A protocol, so that the
    leaderboards import nothing of the games."""

    @property
    def name(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def per(self) -> str: ...
    @property
    def scale(self) -> float: ...
    @property
    def higher_is_better(self) -> bool: ...


class MetricError(ValueError):
    """Records that cannot give the metric: a game without scores, scores or units that
    are not numbers of the right shape."""


@dataclass(frozen=True)
class MetricEstimate:
    """One bot's metric: ``value`` with ``se`` and ``ci95`` (the half-width of the 95 %
    interval; None with fewer than two groups), over ``units`` units in ``groups``
    groups of games."""

    value: float
    se: float | None
    ci95: float | None
    units: int
    groups: int


def metric_label(metric: Metric) -> str:
    """The column header: ``chips won/hand (antes)``; a measure where less is better says
    so: ``points/round (lower is better)``.

    >>> from types import SimpleNamespace as Metric
    >>> metric_label(Metric(name="chips won", unit="antes", per="hand", higher_is_better=True))
    'chips won/hand (antes)'
    >>> metric_label(Metric(name="points", unit="", per="round", higher_is_better=False))
    'points/round (lower is better)'
    """
    notes = [metric.unit] if metric.unit else []
    notes += [] if metric.higher_is_better else ["lower is better"]
    return f"{metric.name}/{metric.per}" + (f" ({', '.join(notes)})" if notes else "")


def estimate_ratio(groups: Sequence[tuple[float, int]]) -> MetricEstimate:
    """The ratio of sums and its delta-method interval from per-group ``(sum of score *
    scale, sum of units)`` pairs (see the module doc)."""
    if not groups:
        raise MetricError("no games to measure")
    total_y = math.fsum(y for y, _ in groups)
    total_u = sum(u for _, u in groups)
    if total_u <= 0:
        raise MetricError(f"the games hold {total_u} units; need at least 1")
    value = total_y / total_u
    g = len(groups)
    if g < 2:
        return MetricEstimate(value, None, None, total_u, g)
    spread = math.fsum((y - value * u) ** 2 for y, u in groups)
    se = math.sqrt(g / (g - 1) * spread) / total_u
    return MetricEstimate(value, se, Z95 * se, total_u, g)


def metric_by_bot(records: Sequence[Mapping[str, Any]], clusters: Sequence[Hashable],
                  metric: Metric) -> dict[str, MetricEstimate]:
    """Each bot's metric over journal records (with ``seats``, ``scores`` and ``units``;
    ``units`` 1 when absent), ``clusters`` giving each record's group. MetricError for a
    record without scores."""
    by_bot: dict[str, dict[Hashable, list[float]]] = {}
    for rec, cluster in zip(records, clusters, strict=True):
        scores = rec.get("scores")
        if scores is None:
            raise MetricError(f"the record of game {rec.get('game')} has no scores, and "
                              f"{metric.name}/{metric.per} is computed from them")
        units = rec.get("units", 1)
        for bot, score in zip(rec["seats"], scores, strict=True):
            acc = by_bot.setdefault(bot, {}).setdefault(cluster, [0.0, 0])
            acc[0] += score * metric.scale
            acc[1] += units
    return {bot: estimate_ratio([(y, int(u)) for y, u in per_group.values()])
            for bot, per_group in by_bot.items()}
