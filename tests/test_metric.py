"""A game's own metric: the ratio of cluster totals and its delta-method interval (hand
figures, coverage of the true mean on synthetic duplicate groups, agreement with a
bootstrap over groups), the column label, and records that cannot give it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards import MetricError, estimate_ratio, metric_by_bot, metric_label
from referee.games.api import Metric

CHIPS = Metric("chips won", "antes", "hand", scale=1 / 2)
POINTS = Metric("points", "", "round", higher_is_better=False)


def test_ratio_by_hand() -> None:
    est = estimate_ratio([(12.0, 10), (-2.0, 10), (5.0, 10)])
    assert est.value == 0.5 and (est.units, est.groups) == (30, 3)
    # residuals y - R u: 7, -7, 0; se**2 = 3/2 * 98 / 30**2
    assert est.se == pytest.approx(math.sqrt(1.5 * 98) / 30)
    assert est.ci95 == pytest.approx(1.96 * est.se)


def test_one_group_has_no_interval() -> None:
    est = estimate_ratio([(7.0, 4)])
    assert (est.value, est.se, est.ci95, est.groups) == (1.75, None, None, 1)


def test_no_spread_gives_a_zero_interval() -> None:
    assert estimate_ratio([(3.0, 3), (6.0, 6)]).ci95 == 0.0


def test_bad_groups() -> None:
    with pytest.raises(MetricError, match="no games"):
        estimate_ratio([])
    with pytest.raises(MetricError, match="0 units"):
        estimate_ratio([(1.0, 0)])


def test_labels() -> None:
    assert metric_label(CHIPS) == "chips won/hand (antes)"
    assert metric_label(POINTS) == "points/round (lower is better)"
    assert metric_label(Metric("points", "points", "round", higher_is_better=False)) == \
        "points/round (points, lower is better)"


def test_per_bot_over_groups() -> None:
    recs = [{"game": 0, "seats": ["a", "b"], "scores": [10, -10], "units": 5},
            {"game": 1, "seats": ["b", "a"], "scores": [4, -4], "units": 5},
            {"game": 2, "seats": ["a", "b"], "scores": [2, -2], "units": 5}]
    got = metric_by_bot(recs, ["g0", "g0", "g1"], CHIPS)
    # a: group g0 (10 - 4) / 2 = 3 over 10 hands, g1 2 / 2 = 1 over 5: 4 / 15
    assert got["a"].value == pytest.approx(4 / 15) and got["a"].groups == 2
    assert got["b"].value == pytest.approx(-4 / 15) and got["b"].ci95 == got["a"].ci95
    assert got["a"].units == 15


def test_records_without_scores_or_units() -> None:
    with pytest.raises(MetricError, match="game 3 has no scores"):
        metric_by_bot([{"game": 3, "seats": ["a", "b"], "scores": None}], [0], CHIPS)
    got = metric_by_bot([{"game": 0, "seats": ["a", "b"], "scores": [1.0, 0.0]}], [0], POINTS)
    assert got["a"].units == 1 and got["a"].value == 1.0  # no `units`: one per game


# --------------------------------------------------------------------------- coverage


def _duplicate_groups(rng: np.random.Generator, groups: int, true_mean: float
                      ) -> list[tuple[float, int]]:
    """Per group a bot's total over two games of one deal (seats swapped) of a varying
    number of hands: the deal's luck counts for it in one game and against it in the
    other, and mostly cancels, as duplicate deals intend."""
    out = []
    for _ in range(groups):
        hands = int(rng.integers(50, 150))
        luck = rng.normal(0.0, 3.0, hands)  # the deal: the same cards in both games
        skill = rng.normal(true_mean, 1.0, (2, hands))
        total = float((skill[0] + luck).sum() + (skill[1] - 0.8 * luck).sum())
        out.append((total, 2 * hands))
    return out


def test_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(13)
    true_mean, trials = 0.3, 600
    # The luck has mean 0: a group's expected total is 2 * hands * true_mean.
    covered = 0
    for _ in range(trials):
        est = estimate_ratio(_duplicate_groups(rng, 40, true_mean))
        assert est.ci95 is not None
        covered += abs(est.value - true_mean) <= est.ci95
    assert 0.92 <= covered / trials <= 0.975


def test_interval_agrees_with_a_bootstrap_over_groups() -> None:
    rng = np.random.default_rng(4)
    groups = _duplicate_groups(rng, 200, -0.2)
    est = estimate_ratio(groups)
    y, u = np.array(groups).T
    picks = rng.integers(0, len(groups), (4000, len(groups)))
    boot = y[picks].sum(axis=1) / u[picks].sum(axis=1)
    assert est.se == pytest.approx(float(boot.std(ddof=1)), rel=0.1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e4, 1e4), st.integers(1, 500)), min_size=1,
                max_size=30))
def test_value_is_the_ratio_of_sums_and_the_interval_is_finite(
        groups: list[tuple[float, int]]) -> None:
    est = estimate_ratio(groups)
    assert est.value == pytest.approx(sum(y for y, _ in groups) / sum(u for _, u in groups))
    assert est.ci95 is None or (math.isfinite(est.ci95) and est.ci95 >= 0)
    # Scaling every score scales the value and the interval alike.
    scaled = estimate_ratio([(3 * y, u) for y, u in groups])
    assert scaled.value == pytest.approx(3 * est.value, abs=1e-9)
    if est.ci95 is not None and scaled.ci95 is not None:
        assert scaled.ci95 == pytest.approx(3 * est.ci95, rel=1e-6, abs=1e-9)
