"""SPRTs: Wald's binary LLR against reference figures, the generalised LLR against a
brute-force constrained maximum, degenerate counts, the ``Sprt`` state, simulations that
the error rates come out near alpha and beta (trinomial pairs, and pentanomial pairs of
games with draws), and the SPRT match's scoring of journal records with shared places."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards import PAIR_SCORES as PENTANOMIAL
from leaderboards import (
    Sprt,
    SprtError,
    expected_score,
    game_score,
    gsprt_llr,
    gsprt_llr_array,
    sprt_bounds,
    sprt_llr,
)
from referee.sprt import SprtMatch

PAIR_SCORES = (0.0, 0.5, 1.0)

# --------------------------------------------------------------------------- binary


@pytest.mark.parametrize(("wins", "losses", "elo0", "elo1", "llr"), [
    (540, 460, 0, 10, 1.888431),
    (540, 460, 0, 20, 2.949241),
    (2600, 2400, 0, 10, 3.685695),
])
def test_binary_reference(wins: int, losses: int, elo0: float, elo1: float,
                          llr: float) -> None:
    assert sprt_llr(wins, losses, elo0, elo1) == pytest.approx(llr, abs=1e-6)


def test_bounds() -> None:
    lower, upper = sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    for alpha, beta in [(0.0, 0.05), (0.05, 1.0), (0.6, 0.5)]:
        with pytest.raises(SprtError):
            sprt_bounds(alpha, beta)
    with pytest.raises(SprtError):
        sprt_llr(-1, 3, 0, 10)


# --------------------------------------------------------------------------- generalised


def _trinomial_oracle(counts: tuple[int, int, int], elo0: float, elo1: float) -> float:
    """Max log-likelihood over {0, 1/2, 1} distributions with mean s, by ternary search on
    the one free parameter c = p(1): p(1/2) = 2 (s - c), p(0) = 1 - 2 s + c."""
    def best(s: float) -> float:
        def ll(c: float) -> float:
            probs = (1 - 2 * s + c, 2 * (s - c), c)
            return sum(n * math.log(p) for n, p in zip(counts, probs, strict=True) if n)
        lo, hi = max(0.0, 2 * s - 1), s
        for _ in range(200):  # the log-likelihood is concave in c
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            lo, hi = (m1, hi) if ll(m1) < ll(m2) else (lo, m2)
        return ll((lo + hi) / 2)
    return best(expected_score(elo1)) - best(expected_score(elo0))


@settings(max_examples=200, deadline=None)
@given(st.tuples(*[st.integers(0, 60)] * 3), st.floats(-100, 100), st.floats(1, 100))
def test_trinomial_matches_brute_force(counts: tuple[int, int, int], elo0: float,
                                       gap: float) -> None:
    llr = gsprt_llr(dict(zip(PAIR_SCORES, counts, strict=True)), elo0, elo0 + gap)
    assert llr == pytest.approx(_trinomial_oracle(counts, elo0, elo0 + gap), abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 3000), st.floats(-200, 200), st.floats(-200, 200))
def test_binary_scores_reduce_to_wald(wins: int, losses: int, elo0: float,
                                      elo1: float) -> None:
    llr = gsprt_llr({0.0: losses, 1.0: wins}, elo0, elo1)
    assert llr == pytest.approx(sprt_llr(wins, losses, elo0, elo1), rel=1e-9, abs=1e-9)


def test_degenerate_counts() -> None:
    s0, s1 = expected_score(0), expected_score(20)
    assert gsprt_llr({}, 0, 20) == 0.0
    assert gsprt_llr({0.0: 0, 0.5: 0, 1.0: 0}, 0, 20) == 0.0
    assert gsprt_llr({1.0: 10}, 0, 20) == pytest.approx(10 * math.log(s1 / s0))
    assert gsprt_llr({0.0: 10}, 0, 20) == pytest.approx(10 * math.log((1 - s1) / (1 - s0)))
    # All draws: under s0 = 1/2 they are the MLE; under s1 the best is 2 (1 - s1) draws.
    assert gsprt_llr({0.5: 10}, 0, 20) == pytest.approx(10 * math.log(2 * (1 - s1)))
    assert gsprt_llr({0.5: 10}, -20, 20) == pytest.approx(0.0, abs=1e-12)


def test_unseen_inner_values_change_nothing() -> None:
    counts = {0.0: 12, 0.5: 30, 1.0: 19}
    llr = gsprt_llr(counts, 0, 15)
    assert gsprt_llr({**counts, 0.25: 0, 0.75: 0}, 0, 15) == pytest.approx(llr, abs=1e-12)
    assert gsprt_llr({0.5: 30, 1.0: 19}, 0, 15) == pytest.approx(
        gsprt_llr({0.0: 0, 0.5: 30, 1.0: 19}, 0, 15), abs=1e-12)


def test_more_wins_raise_the_llr_on_five_values() -> None:
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    counts = np.array([5, 20, 40, 25, 10])
    base = gsprt_llr(dict(zip(values, counts.tolist(), strict=True)), 0, 10)
    better = gsprt_llr(dict(zip(values, (counts + [-1, 0, 0, 0, 1]).tolist(), strict=True)),
                       0, 10)
    assert better > base


def test_array_form_matches_scalar_form() -> None:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 40, size=(4, 5, 3))
    llr = gsprt_llr_array(PAIR_SCORES, counts, -5, 10)
    assert llr.shape == (4, 5)
    for idx in np.ndindex(4, 5):
        expected = gsprt_llr(dict(zip(PAIR_SCORES, counts[idx].tolist(), strict=True)), -5, 10)
        assert llr[idx] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("values", "counts"), [
    ((0.0, 1.5), (1, 1)),
    ((0.0, 0.0), (1, 1)),
    ((0.0, 1.0), (1, -1)),
    ((0.0, 1.0), (1, 1, 1)),
])
def test_bad_scores(values: tuple[float, ...], counts: tuple[int, ...]) -> None:
    with pytest.raises(SprtError):
        gsprt_llr_array(values, counts, 0, 10)


# --------------------------------------------------------------------------- state


def test_sprt_state() -> None:
    t = Sprt(elo0=0, elo1=10)
    assert (t.pairs, t.llr, t.status) == (0, 0.0, "continue")
    assert t.bounds == sprt_bounds(0.05, 0.05)
    t2 = t.add([1.0, 0.5, 0.5, 0.0, 1.0])
    assert t.pairs == 0 and t2.pairs == 5  # immutable: add returns a new state
    assert dict(t2.counts) == {0.0: 1, 0.5: 2, 1.0: 2}
    assert t2.llr == pytest.approx(gsprt_llr({0.0: 1, 0.5: 2, 1.0: 2}, 0, 10))
    assert t.add([1.0] * 400).status == "H1"
    assert t.add([0.0] * 400).status == "H0"
    with pytest.raises(TypeError):
        t2.counts[1.0] = 7  # type: ignore[index]
    for bad in [dict(elo0=10, elo1=0), dict(elo0=0, elo1=10, alpha=0.0)]:
        with pytest.raises(SprtError):
            Sprt(**bad)
    with pytest.raises(SprtError):
        t.add([1.2])


def test_elo_estimate() -> None:
    big = Sprt(0, 10).add([1.0] * 3000 + [0.5] * 4000 + [0.0] * 2000)
    est = big.elo()
    mean = (3000 + 2000 + 1) / 9002
    assert est.elo == pytest.approx(400 * math.log10(mean / (1 - mean)))
    # delta method: SE of the mean pair score times d elo / d score
    var = (3001 * (1 - mean) ** 2 + 4000 * (0.5 - mean) ** 2 + 2001 * mean**2) / 9002
    half = 1.96 * 400 / math.log(10) / (mean * (1 - mean)) * math.sqrt(var / 9002)
    assert (est.low, est.high) == pytest.approx((est.elo - half, est.elo + half))
    for scores in ([], [1.0] * 50, [0.0] * 50, [0.5] * 50):
        e = Sprt(0, 10).add(scores).elo()
        assert all(math.isfinite(v) for v in (e.elo, e.low, e.high)) and e.low <= e.high
    assert Sprt(0, 10).add([1.0] * 50).elo().elo > 0 > Sprt(0, 10).add([0.0] * 50).elo().elo


# --------------------------------------------------------------------------- simulation


def _trinomial(true_elo: float, draw_ratio: float = 0.4) -> tuple[tuple[float, ...],
                                                                     list[float]]:
    """Pair scores 0, 1/2, 1 whose mean is the expected score of ``true_elo``."""
    s = expected_score(true_elo)
    return PAIR_SCORES, [1 - s - draw_ratio / 2, draw_ratio, s - draw_ratio / 2]


def _pentanomial(true_elo: float, draw: float = 0.3, mirrored: float = 0.3
                 ) -> tuple[tuple[float, ...], list[float]]:
    """Pairs of games with draws whose mean score is the expected score of ``true_elo``:
    with probability ``mirrored`` the deal decides and the pair splits (1/2, as duplicate
    deals make common), otherwise its two games are independent, each a draw with
    probability ``draw``."""
    g = (expected_score(true_elo) - mirrored / 2) / (1 - mirrored)  # a free game's mean
    lose, win = 1 - g - draw / 2, g - draw / 2
    free = [lose**2, 2 * lose * draw, draw**2 + 2 * win * lose, 2 * win * draw, win**2]
    return PENTANOMIAL, [(1 - mirrored) * p + (mirrored if v == 0.5 else 0.0)
                         for p, v in zip(free, PENTANOMIAL, strict=True)]


def _simulate(law: tuple[tuple[float, ...], list[float]], runs: int,
              rng: np.random.Generator, elo0: float, elo1: float, alpha: float, beta: float,
              cap: int, block: int = 500) -> tuple[int, int, int]:
    """(H1 accepted, H0 accepted, hit the cap) over ``runs`` SPRTs on pair scores drawn
    from ``law`` (values, probabilities); all runs advance together, a block of pairs at a
    time, and each stops at its first crossing."""
    values, probs = law
    k = len(values)
    lower, upper = sprt_bounds(alpha, beta)
    verdict = np.zeros(runs, dtype=int)  # +1 H1, -1 H0, 0 undecided
    counts = np.zeros((runs, k))
    active = np.arange(runs)
    for _ in range(0, cap, block):
        outcomes = rng.choice(k, size=(active.size, block), p=probs)
        running = counts[active, None, :] + np.cumsum(np.eye(k)[outcomes], axis=1)
        llr = gsprt_llr_array(values, running, elo0, elo1)
        crossed = (llr >= upper) | (llr <= lower)
        stops = crossed.any(axis=1)
        first = llr[stops, crossed[stops].argmax(axis=1)]
        verdict[active[stops]] = np.where(first >= upper, 1, -1)
        counts[active] = running[:, -1]
        active = active[~stops]
        if not active.size:
            break
    return int((verdict == 1).sum()), int((verdict == -1).sum()), int((verdict == 0).sum())


def test_simulated_error_rates_are_near_alpha_and_beta() -> None:
    rng = np.random.default_rng(2024)
    runs, elo0, elo1, alpha, beta = 400, 0.0, 20.0, 0.05, 0.05
    false_pos, _, capped0 = _simulate(_trinomial(elo0), runs, rng, elo0, elo1, alpha, beta,
                                      cap=20_000)
    _, false_neg, capped1 = _simulate(_trinomial(elo1), runs, rng, elo0, elo1, alpha, beta,
                                      cap=20_000)
    assert capped0 + capped1 <= 2  # the cap is far beyond the typical ~1000 pairs
    # Wald's bounds are a little conservative, but a test accepting 0 errors proves nothing.
    assert 0.01 <= false_pos / runs <= 0.09
    assert 0.01 <= false_neg / runs <= 0.09


# --------------------------------------------------------------------------- draws


def test_pentanomial_law_has_the_intended_mean() -> None:
    values, probs = _pentanomial(20.0)
    assert sum(probs) == pytest.approx(1.0) and min(probs) > 0
    assert sum(v * p for v, p in zip(values, probs, strict=True)) == \
        pytest.approx(expected_score(20.0))


def test_pentanomial_error_rates_with_draws_are_near_alpha_and_beta() -> None:
    rng = np.random.default_rng(77)
    runs, elo0, elo1, alpha, beta = 300, 0.0, 20.0, 0.05, 0.05
    false_pos, _, capped0 = _simulate(_pentanomial(elo0), runs, rng, elo0, elo1, alpha, beta,
                                      cap=20_000)
    _, false_neg, capped1 = _simulate(_pentanomial(elo1), runs, rng, elo0, elo1, alpha, beta,
                                      cap=20_000)
    assert capped0 + capped1 <= 2
    assert 0.01 <= false_pos / runs <= 0.09
    assert 0.01 <= false_neg / runs <= 0.09


@pytest.mark.parametrize(("true_elo", "verdict"), [(60.0, "H1"), (-60.0, "H0")])
def test_a_stream_with_draws_is_decided(true_elo: float, verdict: str) -> None:
    values, probs = _pentanomial(true_elo)
    stream = np.random.default_rng(5).choice(values, size=20_000, p=probs)
    test = Sprt(elo0=0, elo1=10)
    for score in stream:
        test = test.add([float(score)])
        if test.status != "continue":
            break
    assert test.status == verdict and test.pairs < 5_000
    assert sum(test.pentanomial) == test.pairs and all(n > 0 for n in test.pentanomial)
    est = test.elo()
    assert est.low < true_elo < est.high


def test_game_score_from_places() -> None:
    assert game_score(["c", "b"], [1, 2], "c", "b") == 1.0
    assert game_score(["c", "b"], [2, 1], "c", "b") == 0.0
    assert game_score(["c", "b"], [1, 1], "c", "b") == 0.5  # a shared place is a draw
    with pytest.raises(SprtError, match="'x' did not play"):
        game_score(["c", "b"], [1, 2], "x", "b")


def _game(index: int, places: tuple[int, int]) -> dict[str, object]:
    """A journal record of an SPRT game: the pair's second game swaps the seats."""
    seats = ["cand", "base"] if index % 2 == 0 else ["base", "cand"]
    by_bot = dict(zip(("cand", "base"), places, strict=True))
    return {"game": index, "seats": seats, "places": [by_bot[b] for b in seats]}


def test_sprt_match_scores_pairs_with_shared_places() -> None:
    match = SprtMatch(Sprt(elo0=0, elo1=10), "cand", "base", max_games=100)
    # candidate's places per game: pairs (win, draw), (draw, draw), (loss, draw),
    # (win, win), (loss, win): scores 3/4, 1/2, 1/4, 1, 1/2.
    results = [(1, 2), (1, 1), (1, 1), (1, 1), (2, 1), (1, 1), (1, 2), (1, 2), (2, 1), (1, 2)]
    for g, places in enumerate(results):
        match.on_game(_game(g, places))
    assert match.test.pentanomial == (0, 1, 2, 1, 1)
    assert match.outcomes == {"W": 2, "D": 2, "L": 1}
    doc = match.to_dict()
    assert doc["pentanomial"] == [0, 1, 2, 1, 1] and doc["pairs"] == 5
    assert doc["llr"] == pytest.approx(
        gsprt_llr({0.25: 1, 0.5: 2, 0.75: 1, 1.0: 1}, 0, 10), abs=1e-6)


def test_sprt_match_reads_old_records_as_before() -> None:
    # Schema 1 records (strict places, an `order`): pair scores 0, 1/2 and 1 only.
    match = SprtMatch(Sprt(elo0=0, elo1=10), "cand", "base", max_games=100)
    for g, places in enumerate([(1, 2), (1, 2), (1, 2), (2, 1), (2, 1), (2, 1)]):
        rec = _game(g, places)
        rec["order"] = sorted(rec["seats"], key=lambda b: rec["places"][rec["seats"].index(b)])
        match.on_game(rec)
    assert match.outcomes == {"W": 1, "D": 1, "L": 1}
    assert match.test.pentanomial == (1, 0, 1, 0, 1)
