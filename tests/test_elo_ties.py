"""Bradley-Terry Elo from places with ties: a shared place is half a win each way (closed
forms, equivalence with finishing orders, a stationarity property test), and errors
clustered by a label per game (duplicate groups), the bootstrap included."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards import RatingError, fit_elo
from leaderboards.elo import ELO_PER_NAT


def test_two_bots_that_always_tie_are_rated_equal() -> None:
    fit = fit_elo([{"a": 1, "b": 1}] * 20)
    a, b = fit.ratings["a"], fit.ratings["b"]
    assert a.elo == pytest.approx(0.0, abs=1e-9) and b.elo == pytest.approx(0.0, abs=1e-9)
    assert a.bound is b.bound is None and a.note is None  # ties link both ways: a finite MLE
    # Every game scores exactly its expectation, so the sandwich sees no spread (as a
    # bootstrap would: every resample ties throughout): SE 0, LOS one half.
    assert a.se == 0.0 and a.los_next == 0.5


def test_ties_half_wins_half_ranks_above() -> None:
    # a wins 10 and ties 10 against b: a scores 15 of 20, so D = 400 log10(15 / 5).
    fit = fit_elo([{"a": 1, "b": 2}] * 10 + [{"a": 1, "b": 1}] * 10)
    assert fit.names == ("a", "b")
    diff = fit.ratings["a"].elo - fit.ratings["b"].elo
    assert diff == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert fit.ratings["a"].bound is None  # b never won, but its ties keep the MLE finite


def test_a_tie_counts_as_one_win_and_one_loss_in_halves() -> None:
    # One tie weighs like a win plus a loss at half weight: 2 ties = 1 win + 1 loss.
    tied = fit_elo([{"a": 1, "b": 2}] * 3 + [{"a": 1, "b": 1}] * 2)
    split = fit_elo([["a", "b"]] * 4 + [["b", "a"]])
    assert tied.ratings["a"].elo == pytest.approx(split.ratings["a"].elo, abs=1e-9)


def test_three_way_game_with_a_shared_first() -> None:
    # [1, 1, 3] each time, the pair (a, b) tied: a and b equal, c an upper bound.
    fit = fit_elo([{"a": 1, "b": 1, "c": 3}] * 5)
    assert fit.ratings["a"].elo == pytest.approx(fit.ratings["b"].elo, abs=1e-9)
    assert fit.ratings["c"].bound == "upper" and fit.ratings["a"].bound is None


@pytest.mark.parametrize(("games", "message"), [
    ([{"a": 0, "b": 1}], "not a positive integer"),
    ([{"a": 1.5, "b": 1}], "not a positive integer"),
    ([{"a": 1}], "need at least 2"),
])
def test_bad_places(games: list[dict[str, object]], message: str) -> None:
    with pytest.raises(RatingError, match=message):
        fit_elo(games)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- clusters


def test_clusters_must_be_one_per_game() -> None:
    with pytest.raises(RatingError, match="3 cluster labels for 2 games"):
        fit_elo([["a", "b"], ["b", "a"]], clusters=[0, 0, 1])


# --------------------------------------------------------------------------- property


@st.composite
def placings(draw: st.DrawFn) -> list[dict[str, int]]:
    bots = [f"b{i}" for i in range(draw(st.integers(2, 5)))]
    games = []
    for _ in range(draw(st.integers(1, 25))):
        seated = draw(st.permutations(bots))[:draw(st.integers(2, len(bots)))]
        results = draw(st.lists(st.integers(0, 3), min_size=len(seated),
                                max_size=len(seated)))
        # competition ranking of the drawn results, lower is better: [0, 0, 2] -> 1, 1, 3
        games.append({b: 1 + sum(r < mine for r in results)
                      for b, mine in zip(seated, results, strict=True)})
    return games


def _gradient(games: list[dict[str, int]], elo: dict[str, float]) -> dict[str, float]:
    """d log-likelihood / d theta pair by pair, a tie as half a win each way."""
    grad = dict.fromkeys(elo, 0.0)
    for game in games:
        bots = list(game)
        for i, x in enumerate(bots):
            for y in bots[i + 1:]:
                r = 1.0 if game[x] < game[y] else 0.5 if game[x] == game[y] else 0.0
                p = 1.0 / (1.0 + math.exp((elo[y] - elo[x]) / ELO_PER_NAT))
                grad[x] += r - p
                grad[y] -= r - p
    return grad


@settings(max_examples=120, deadline=None)
@given(placings())
def test_fit_with_ties_is_finite_and_stationary_when_the_mle_exists(
        games: list[dict[str, int]]) -> None:
    fit = fit_elo(games)
    assert all(math.isfinite(r.elo) and math.isfinite(r.se) for r in fit.rows)
    if all(r.bound is None for r in fit.rows) and len(fit.components) == 1:
        grad = _gradient(games, {r.name: r.elo for r in fit.rows})
        assert max(map(abs, grad.values())) < 1e-7
    # Renaming bots that tie in every game they play together changes nothing: symmetry.
    swapped = [{{"b0": "b1", "b1": "b0"}.get(b, b): p for b, p in g.items()} for g in games]
    refit = fit_elo(swapped)
    for name in ("b0", "b1"):
        other = "b1" if name == "b0" else "b0"
        if name in fit.ratings:
            assert refit.ratings[other].elo == pytest.approx(fit.ratings[name].elo, abs=1e-6)
