"""Bradley-Terry Elo from finishing orders: reference vectors, closed forms, invariances,
degenerate data (undefeated bots, disconnected pools), anchoring, likelihood of superiority,
and a property test that the fit is always finite and, where the MLE exists, stationary."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards import EloFit, RatingError, bootstrap_elo, fit_elo
from leaderboards.elo import ELO_PER_NAT

# Ten 4-player games, best first; figures computed independently from the published
# formulas of Ordo, BayesElo and fishtest (mean-centred MLE, game-clustered sandwich SE).
REFERENCE_ORDERS = [[0, 1, 2, 3], [0, 2, 1, 3], [1, 0, 3, 2], [2, 0, 1, 3], [0, 1, 3, 2],
                    [3, 0, 1, 2], [1, 2, 0, 3], [0, 3, 2, 1], [2, 1, 3, 0], [1, 0, 2, 3]]
REFERENCE_ELO = {"0": 115.7277, "1": 56.9273, "2": -36.9338, "3": -135.7213}
REFERENCE_SE = {"0": 63.32, "1": 61.66, "2": 67.83, "3": 69.46}


def _finite(fit: EloFit) -> bool:
    values = [v for r in fit.rows for v in (r.elo, r.se, r.ci95, r.los_next or 0.0)]
    return bool(np.isfinite(values).all() and np.isfinite(fit.covariance).all())


def _gradient(orders: list[list[str]], elo: dict[str, float]) -> dict[str, float]:
    """d log-likelihood / d theta, summed pair by pair (independent of the module)."""
    grad = dict.fromkeys(elo, 0.0)
    for order in orders:
        for i, w in enumerate(order):
            for loser in order[i + 1:]:
                q = 1.0 / (1.0 + math.exp((elo[w] - elo[loser]) / ELO_PER_NAT))
                grad[w] += q
                grad[loser] -= q
    return grad


# --------------------------------------------------------------------------- reference


def test_reference_vectors() -> None:
    fit = fit_elo(REFERENCE_ORDERS)
    assert fit.names == ("0", "1", "2", "3")
    for name, r in fit.ratings.items():
        assert r.elo == pytest.approx(REFERENCE_ELO[name], abs=1e-3)
        assert r.se == pytest.approx(REFERENCE_SE[name], abs=0.01)
        assert r.ci95 == pytest.approx(1.96 * r.se)
        assert r.games == 10 and r.bound is None and r.note is None
    assert fit.games == 10 and fit.components == (("0", "1", "2", "3"),)


def test_covariance_is_centred_symmetric_psd() -> None:
    cov = fit_elo(REFERENCE_ORDERS).covariance
    assert np.allclose(cov, cov.T)
    assert np.allclose(cov.sum(axis=1), 0.0, atol=1e-8)  # the Elos sum to 0 exactly
    assert np.linalg.eigvalsh(cov).min() > -1e-8
    assert not cov.flags.writeable


def test_gradient_vanishes_at_the_fit() -> None:
    fit = fit_elo(REFERENCE_ORDERS)
    orders = [[str(b) for b in o] for o in REFERENCE_ORDERS]
    grad = _gradient(orders, {r.name: r.elo for r in fit.rows})
    assert max(map(abs, grad.values())) < 1e-9


def test_relabelling_permutes_results() -> None:
    rename = {0: "zeta", 1: "alpha", 2: ("tuple", 2), 3: 17}
    shuffled = REFERENCE_ORDERS[::-1]
    fit = fit_elo([[rename[b] for b in o] for o in shuffled])
    base = fit_elo(REFERENCE_ORDERS)
    assert set(fit.names) == {"zeta", "alpha", "('tuple', 2)", "17"}
    for old, new in rename.items():
        a, b = base.ratings[str(old)], fit.ratings[str(new)]
        assert (b.elo, b.se, b.los_next) == pytest.approx((a.elo, a.se, a.los_next), abs=1e-9)
    assert np.allclose(fit.covariance, base.covariance, atol=1e-8)  # same ranking order


@pytest.mark.parametrize(("wins", "losses"), [(1, 1), (2, 1), (7, 3), (30, 1)])
def test_two_bots_closed_form(wins: int, losses: int) -> None:
    fit = fit_elo([["a", "b"]] * wins + [["b", "a"]] * losses)
    a, b = fit.ratings["a"], fit.ratings["b"]
    assert a.elo - b.elo == pytest.approx(400 * math.log10(wins / losses), abs=1e-9)
    assert a.elo + b.elo == pytest.approx(0.0, abs=1e-9)
    # One pair per game: the sandwich is the binomial variance of logit(p^).
    n, p = wins + losses, wins / (wins + losses)
    assert math.sqrt(fit.covariance[0, 0] + fit.covariance[1, 1] - 2 * fit.covariance[0, 1]) \
        == pytest.approx(ELO_PER_NAT / math.sqrt(n * p * (1 - p)))
    assert a.se == pytest.approx(ELO_PER_NAT / (2 * math.sqrt(n * p * (1 - p))))


def test_probability_meaning_of_a_gap() -> None:
    # 3 games out of 4 ahead: the fitted gap predicts exactly that share.
    fit = fit_elo([["a", "b"]] * 3 + [["b", "a"]])
    gap = fit.ratings["a"].elo - fit.ratings["b"].elo
    assert 1 / (1 + 10 ** (-gap / 400)) == pytest.approx(0.75)


# --------------------------------------------------------------------------- LOS, anchor


def test_los_next_and_pairwise() -> None:
    fit = fit_elo(REFERENCE_ORDERS)
    rows = fit.rows
    for hi, lo in zip(rows, rows[1:], strict=False):
        assert 0.5 < hi.los_next < 1.0
        assert hi.los_next == pytest.approx(fit.los(hi.name, lo.name))
        assert fit.los(lo.name, hi.name) == pytest.approx(1 - hi.los_next)
    assert rows[-1].los_next is None
    cov = fit.covariance
    d = rows[0].elo - rows[1].elo
    z = d / math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    assert rows[0].los_next == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    with pytest.raises(RatingError):
        fit.los("0", "nobody")


def test_anchoring() -> None:
    base = fit_elo(REFERENCE_ORDERS)
    fit = fit_elo(REFERENCE_ORDERS, anchor=(3, 1500.0))
    assert fit.anchor == ("3", 1500.0)
    assert fit.ratings["3"].elo == 1500.0 and fit.ratings["3"].se == 0.0
    shift = 1500.0 - base.ratings["3"].elo
    i3 = base.names.index("3")
    for name in base.names:
        i = base.names.index(name)
        assert fit.ratings[name].elo == pytest.approx(base.ratings[name].elo + shift)
        var = base.covariance[i, i] + base.covariance[i3, i3] - 2 * base.covariance[i, i3]
        assert fit.ratings[name].se == pytest.approx(math.sqrt(max(var, 0.0)), abs=1e-9)
    assert fit.names == base.names
    assert [r.los_next for r in fit.rows[:-1]] == \
        pytest.approx([r.los_next for r in base.rows[:-1]])
    with pytest.raises(RatingError, match="anchor"):
        fit_elo(REFERENCE_ORDERS, anchor=("9", 0.0))


# --------------------------------------------------------------------------- degenerate data


def test_never_loses_and_never_wins_are_bounded() -> None:
    orders = [["a", "b", "c"], ["a", "c", "b"], ["b", "c"], ["a", "b"]]
    fit = fit_elo(orders)
    assert _finite(fit)
    a, b, c = (fit.ratings[x] for x in "abc")
    assert a.bound == "lower" and "+infinity" in a.note
    # b and c beat each other: their difference is estimable (b ahead 2 of 3: 400 log10 2)
    assert b.bound is None and c.bound is None and b.ci95 > 0
    assert b.elo - c.elo == pytest.approx(400 * math.log10(2))
    assert a.elo > b.elo > c.elo and fit.centre == (("b", "c"),)
    assert a.los_next is None and b.los_next is not None
    with pytest.raises(RatingError, match="no finite estimate"):
        fit.los("a", "b")
    sole = fit_elo([["w", "l"]] * 5)
    assert (sole.ratings["w"].bound, sole.ratings["l"].bound) == ("lower", "upper")
    assert _finite(sole) and sole.ratings["w"].elo > 0


def test_unbeaten_bot_leaves_the_others_finite_the_readme_runs_shape() -> None:
    # README's 3-bot run: statistician first in all 240 games; caller ahead of random_bot
    # in 204 (85 %). By hand: the gap is 400 log10(204/36); its SE on the theta scale is
    # sqrt(1 / (240 * 0.85 * 0.15)) (one pair a game, each game its own cluster), and
    # each bot's half of it around their mean.
    orders = [["statistician", "caller", "random_bot"]] * 204 + \
        [["statistician", "random_bot", "caller"]] * 36
    fit = fit_elo(orders)
    s, c, r = (fit.ratings[x] for x in ("statistician", "caller", "random_bot"))
    assert fit.names == ("statistician", "caller", "random_bot")
    assert s.bound == "lower" and c.bound is None and r.bound is None
    gap = 400 * math.log10(204 / 36)
    assert (c.elo, r.elo) == (pytest.approx(gap / 2), pytest.approx(-gap / 2))
    half_se = ELO_PER_NAT * math.sqrt(1 / (240 * 0.85 * 0.15)) / 2
    assert c.se == pytest.approx(half_se) and r.se == pytest.approx(half_se)
    assert c.los_next == pytest.approx(1.0) and s.elo > c.elo


def test_dominating_group_and_middle_group() -> None:
    # {a, b} always ahead of {c, d}; each pair trades wins: no bot is undefeated, yet the
    # gap between the groups has no finite MLE. {a, b} (first to appear) is the main group.
    fit = fit_elo([["a", "b", "c", "d"], ["b", "a", "d", "c"]])
    assert [fit.ratings[x].bound for x in "abcd"] == [None, None, "upper", "upper"]
    assert fit.ratings["a"].elo == pytest.approx(0.0) and fit.ratings["c"].elo < 0
    assert fit.ratings["c"].elo == pytest.approx(fit.ratings["d"].elo)
    chain = fit_elo([["x", "y"], ["y", "z"], ["x", "z"]] * 2)
    assert [chain.ratings[x].bound for x in "xyz"] == ["lower", "open", "upper"]
    assert _finite(fit) and _finite(chain)


def test_a_bound_never_contradicts_the_order() -> None:
    # u always beats a and b; a and b are far apart (a ahead 50 of 51). The prior alone
    # would place u below a; the bound is moved up so u stays first.
    orders = [["u", "a"], ["u", "b"]] + [["a", "b"]] * 50 + [["b", "a"]]
    fit = fit_elo(orders)
    assert fit.names == ("u", "a", "b")
    assert fit.ratings["u"].bound == "lower" and fit.ratings["u"].elo >= fit.ratings["a"].elo


def test_two_disconnected_groups_each_have_their_own_zero() -> None:
    # {a, b}: a ahead 2 of 3; {c, d}: c ahead 3 of 4. Each gap is 400 log10(wins/losses),
    # and each component is centred on its own mean.
    fit = fit_elo([["a", "b"]] * 2 + [["b", "a"]] + [["c", "d"]] * 3 + [["d", "c"]])
    assert fit.components == (("a", "b"), ("c", "d"))
    assert fit.ratings["a"].elo == pytest.approx(200 * math.log10(2))
    assert fit.ratings["c"].elo == pytest.approx(200 * math.log10(3))
    assert fit.ratings["d"].elo == pytest.approx(-200 * math.log10(3))
    assert all(r.bound is None for r in fit.rows)
    assert fit.ratings["c"].note.startswith("not connected")


def test_disconnected_pools_are_marked() -> None:
    orders = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["x", "y"], ["y", "x"], ["x", "y"]]
    fit = fit_elo(orders)
    assert _finite(fit)
    assert fit.components == (("a", "b", "c"), ("x", "y"))
    for name in "abc":
        assert fit.ratings[name].note is None and fit.ratings[name].bound is None
    for name in "xy":
        assert fit.ratings[name].note.startswith("not connected to the main component (a, b, c)")
    # each component is centred on its own mean
    assert sum(fit.ratings[x].elo for x in "abc") == pytest.approx(0.0, abs=1e-9)
    assert sum(fit.ratings[x].elo for x in "xy") == pytest.approx(0.0, abs=1e-9)
    i, j = fit.names.index("a"), fit.names.index("x")
    assert fit.covariance[i, j] == 0.0
    with pytest.raises(RatingError, match="not connected"):
        fit.los("a", "x")
    for r, nxt in zip(fit.rows, fit.rows[1:], strict=False):
        same = {r.name, nxt.name} <= set("abc") or {r.name, nxt.name} <= set("xy")
        assert (r.los_next is not None) == same
    anchored = fit_elo(orders, anchor=("a", 0.0))
    assert _finite(anchored) and anchored.ratings["a"].se == 0.0


@pytest.mark.parametrize(("orders", "match"), [
    ([], "no games"),
    ([["a", "b"], ["a"]], "at least 2"),
    ([["a", "b", "a"]], "twice"),
    ([[1, "1"]], "twice"),  # names are compared as strings
])
def test_bad_input(orders: list[list[object]], match: str) -> None:
    with pytest.raises(RatingError, match=match):
        fit_elo(orders)


# --------------------------------------------------------------------------- bootstrap


def _simulated_orders(strengths: dict[str, float], games: int, seed: int) -> list[list[str]]:
    """Plackett-Luce draws: the BT pair probabilities hold within each game."""
    rng = random.Random(seed)
    orders = []
    for _ in range(games):
        left, order = list(strengths), []
        while left:
            weights = [math.exp(strengths[b]) for b in left]
            order.append(left.pop(rng.choices(range(len(left)), weights)[0]))
        orders.append(order)
    return orders


def test_bootstrap_agrees_with_sandwich_and_is_seeded() -> None:
    orders = _simulated_orders({"a": 0.6, "b": 0.2, "c": 0.0, "d": -0.8}, 300, seed=1)
    fit = fit_elo(orders)
    boot = bootstrap_elo(orders, n=150, seed=7)
    assert bootstrap_elo(orders, n=5, seed=3) == bootstrap_elo(orders, n=5, seed=3)
    for name, se in boot.items():
        assert se == pytest.approx(fit.ratings[name].se, rel=0.2)


def test_bootstrap_needs_usable_resamples() -> None:
    with pytest.raises(RatingError, match="two resamples"):
        bootstrap_elo([["a", "b"], ["c", "d"]], n=1)


# --------------------------------------------------------------------------- property


@st.composite
def tournaments(draw: st.DrawFn) -> list[list[str]]:
    bots = [f"b{i}" for i in range(draw(st.integers(2, 6)))]
    # Sometimes two pools that never meet, to reach disconnected comparison graphs.
    pools = [bots[:2], bots[2:]] if len(bots) >= 4 and draw(st.booleans()) else [bots]
    orders = []
    for _ in range(draw(st.integers(1, 30))):
        pool = draw(st.sampled_from(pools))
        size = draw(st.integers(2, len(pool)))
        orders.append(draw(st.permutations(pool))[:size])
    return orders


@settings(max_examples=150, deadline=None)
@given(tournaments())
def test_fit_is_always_finite_and_stationary_when_the_mle_exists(
        orders: list[list[str]]) -> None:
    fit = fit_elo(orders)
    assert _finite(fit) and _finite(fit_elo(orders, anchor=(orders[0][-1], 1000.0)))
    assert all(r.los_next is None or 0.0 <= r.los_next <= 1.0 for r in fit.rows)
    assert list(fit.names) == sorted(fit.names, key=lambda n: -fit.ratings[n].elo)
    group_of = {n: k for k, g in enumerate(fit.groups) for n in g}
    for comp in fit.components:  # bound or not, the values never contradict the group order
        ranked = [group_of[n] for n in fit.names if n in comp]
        assert ranked == sorted(ranked)
    if all(r.bound is None for r in fit.rows):  # per component, the gradient is 0
        grad = _gradient(orders, {r.name: r.elo for r in fit.rows})
        assert max(map(abs, grad.values())) < 1e-7


# --------------------------------------------------------------------------- places, clusters


def test_places_without_ties_fit_as_the_finishing_order() -> None:
    orders = [[str(b) for b in o] for o in REFERENCE_ORDERS]
    by_order = fit_elo(orders)
    by_places = fit_elo([{b: k + 1 for k, b in enumerate(o)} for o in orders])
    for name, r in by_order.ratings.items():
        assert by_places.ratings[name].elo == pytest.approx(r.elo, abs=1e-9)
        assert by_places.ratings[name].se == pytest.approx(r.se, abs=1e-9)


def test_identical_copies_in_one_cluster_add_no_information() -> None:
    orders = [[str(b) for b in o] for o in REFERENCE_ORDERS]
    once = fit_elo(orders)
    twice = orders + orders
    apart = fit_elo(twice)  # twenty independent games: errors shrink by sqrt(2)
    together = fit_elo(twice, clusters=list(range(10)) * 2)  # each game and its copy: one
    for name, r in once.ratings.items():
        assert apart.ratings[name].se == pytest.approx(r.se / math.sqrt(2))
        assert together.ratings[name].se == pytest.approx(r.se)
        assert together.ratings[name].elo == pytest.approx(r.elo)


def test_default_clusters_are_single_games() -> None:
    orders = _simulated_orders({"a": 0.4, "b": 0.0, "c": -0.4}, 60, seed=3)
    assert fit_elo(orders).covariance.tolist() == \
        fit_elo(orders, clusters=range(60)).covariance.tolist()  # type: ignore[arg-type]
    assert bootstrap_elo(orders, n=20, seed=5) == \
        bootstrap_elo(orders, n=20, seed=5, clusters=[f"g{g}" for g in range(60)])


def test_bootstrap_over_clusters_agrees_with_the_clustered_sandwich() -> None:
    orders = _simulated_orders({"a": 0.6, "b": 0.2, "c": 0.0, "d": -0.8}, 150, seed=1)
    twice = orders + orders
    clusters = list(range(150)) * 2
    fit = fit_elo(twice, clusters=clusters)
    boot = bootstrap_elo(twice, n=150, seed=7, clusters=clusters)
    for name, se in boot.items():
        assert se == pytest.approx(fit.ratings[name].se, rel=0.2)
