"""Sequential probability ratio tests: is a candidate ``elo0`` (H0) or ``elo1`` (H1) Elo
stronger than a baseline?

Elo is logistic throughout: ``s(elo) = 1 / (1 + 10 ** (-elo / 400))`` is the expected score.

* :func:`sprt_llr`: Wald's binary test on wins and losses,
  ``LLR = W ln(s1 / s0) + L ln((1 - s1) / (1 - s0))``.
* :func:`gsprt_llr`: the generalised SPRT on scores taking a finite set of values in [0, 1]
  (here the score of a game pair, the same deal played twice with seats swapped, from the
  candidate's view: see "Draws" below), by fishtest's method (``LLRcalc.MLE_expected``): under each
  hypothesis the score distribution is the maximum-likelihood one whose mean is ``s0`` resp.
  ``s1``, ``p_i = p^_i / (1 + lam (x_i - s))`` with the Lagrange multiplier ``lam`` found by
  bisection, and ``LLR = sum_i n_i ln(p1_i / p0_i)``. On binary scores it equals
  :func:`sprt_llr`.
* :func:`sprt_bounds`: Wald's stopping bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``.
* :class:`Sprt`: the immutable state of one test, fed per-pair scores.
* :func:`game_score`: the candidate's score in one game from the journal's places.

Draws. A game scores 1 for the candidate when it finishes ahead of the baseline, 1/2 when
they share a place (a draw), 0 otherwise; a pair scores the mean of its two games: 0, 1/4,
1/2, 3/4 or 1 (``PAIR_SCORES``). The test is the pentanomial GSPRT over pairs, as
fastchess and fishtest run it on paired openings: the two games of a pair replay one deal
and are correlated, so the pair, not the game, is the independent trial, and a trinomial
test over single games would misjudge the variance. For a game without draws (Polish
Poker) the inner values 1/4 and 3/4 never occur, and the test is the trinomial one over
pairs it always was, with the same LLR.

Degenerate counts. No scores: the LLR is 0.0. Scores on one side of ``s`` only (say every
pair won): fishtest pads empty outcomes with a small pseudo-count; instead, since a score of
0 or 1 is always possible, the constrained maximum is taken over distributions on the observed
values together with 0 and 1. Its multiplier then sits at the end of its range and the
missing mass goes to the unobserved end value, which is the exact limit: all pairs won gives
``n ln(s1 / s0)``. So the LLR is finite whenever there are scores, and the same as fishtest's
whenever every listed outcome has been seen and 0 and 1 are among them.

>>> round(sprt_llr(540, 460, 0, 10), 6)
1.888431
>>> [round(b, 4) for b in sprt_bounds(0.05, 0.05)]
[-2.9444, 2.9444]
>>> round(gsprt_llr({0.0: 460, 1.0: 540}, 0, 10), 6)
1.888431
>>> t = Sprt(elo0=0, elo1=10).add([1.0] * 300 + [0.5] * 400 + [0.0] * 200)
>>> t.pairs, round(t.llr, 3), t.status
(900, 4.519, 'H1')
>>> est = t.elo()
>>> round(est.low, 1) < round(est.elo, 1) < round(est.high, 1)
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

ELO_PER_NAT = 400 / math.log(10)
Z95 = 1.96
Status = Literal["H0", "H1", "continue"]
# The scores of a pair of games (two losses, a loss and a draw, ..., two wins).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

# The multiplier's bracket is 1 / (s (1 - s)) wide, under 1e5 for |elo| < 2000: 80
# halvings take it below 1e-19, far finer than the LLR needs.
_BISECTIONS = 80


class SprtError(ValueError):
    """Bad test parameters (error rates, Elo bounds) or scores (outside [0, 1], negative
    counts)."""


def expected_score(elo: float) -> float:
    """The logistic expected score of an Elo advantage."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def game_score(seats: Sequence[str], places: Sequence[int], candidate: str,
               baseline: str) -> float:
    """The candidate's score against the baseline in one game: 1 ahead, 1/2 on a shared
    place, 0 behind (``seats`` and ``places`` as in the journal, 1 = best).

    >>> game_score(["b", "c"], [1, 2], "c", "b"), game_score(["b", "c"], [1, 1], "c", "b")
    (0.0, 0.5)
    """
    place = dict(zip(seats, places, strict=True))
    try:
        mine, theirs = place[candidate], place[baseline]
    except KeyError as exc:
        raise SprtError(f"{exc.args[0]!r} did not play this game: seats {list(seats)}") \
            from None
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def sprt_llr(wins: int, losses: int, elo0: float, elo1: float) -> float:
    """Wald's log-likelihood ratio of H1 (``elo1``) to H0 (``elo0``) on wins and losses."""
    if wins < 0 or losses < 0:
        raise SprtError(f"negative counts: wins={wins}, losses={losses}")
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return wins * math.log(s1 / s0) + losses * math.log((1.0 - s1) / (1.0 - s0))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds: accept H0 at or below the first, H1 at or above the second."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise SprtError(f"need 0 < alpha, beta and alpha + beta < 1; got {alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def gsprt_llr(counts: Mapping[float, int], elo0: float, elo1: float) -> float:
    """Generalised-SPRT log-likelihood ratio of H1 to H0 for counts of score values in [0, 1].

    >>> round(gsprt_llr({0.0: 20, 0.5: 60, 1.0: 30}, 0, 20), 4)
    0.8697
    >>> gsprt_llr({}, 0, 10)
    0.0
    """
    values = sorted(counts)
    return float(gsprt_llr_array(values, [counts[v] for v in values], elo0, elo1))


def gsprt_llr_array(values: Sequence[float], counts: ArrayLike, elo0: float,
                    elo1: float) -> np.ndarray:
    """:func:`gsprt_llr` for many count vectors at once: ``counts[..., i]`` counts
    ``values[i]``; the result has the shape of ``counts`` without its last axis."""
    x = np.asarray(values, dtype=float)
    n = np.asarray(counts, dtype=float)
    if x.ndim != 1 or len(np.unique(x)) != len(x) or n.shape[-1:] != x.shape:
        raise SprtError(f"need distinct values and counts over them; got {x.shape}, {n.shape}")
    if not ((x >= 0.0) & (x <= 1.0)).all():
        raise SprtError(f"score values must lie in [0, 1]; got {values}")
    if not (np.isfinite(n) & (n >= 0)).all():
        raise SprtError("counts must be finite and non-negative")
    s0, s1 = expected_score(elo0), expected_score(elo1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # p1_i / p0_i = (1 + lam0 (x_i - s0)) / (1 + lam1 (x_i - s1)); unseen values add 0
        # even where a multiplier at the end of its range makes their factor 0.
        log_ratio = (np.log1p(_multiplier(x, n, s0)[..., None] * (x - s0))
                     - np.log1p(_multiplier(x, n, s1)[..., None] * (x - s1)))
        return np.where(n > 0, n * log_ratio, 0.0).sum(axis=-1)


def _multiplier(x: np.ndarray, n: np.ndarray, s: float) -> np.ndarray:
    """Lagrange multiplier of the mean-``s`` maximum-likelihood distribution.

    ``f(lam) = sum_i n_i (x_i - s) / (1 + lam (x_i - s))`` decreases in ``lam``; the root is
    sought where every value in [0, 1] keeps a non-negative probability, lam in
    [-1 / (1 - s), 1 / s]. With no root there (scores on one side of ``s``) bisection ends
    at the bracket's end, which is the constrained maximum with mass on 0 or 1."""
    d = x - s
    weights = np.ascontiguousarray(np.moveaxis(n * d, -1, 0))  # one slab per value: fast sums
    lo = np.full(n.shape[:-1], -1.0 / (1.0 - s))
    hi = np.full(n.shape[:-1], 1.0 / s)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        above = sum(w / (1.0 + mid * d_i) for w, d_i in zip(weights, d, strict=True)) > 0
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class EloEstimate:
    """A point estimate and its 95 % interval, in Elo."""

    elo: float
    low: float
    high: float


@dataclass(frozen=True)
class Sprt:
    """One generalised SPRT of ``elo0`` against ``elo1`` on per-pair scores.

    Immutable: :meth:`add` returns the state after more scores. ``status`` is read from the
    current LLR; callers stop feeding once it is no longer ``"continue"``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    counts: Mapping[float, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise SprtError(f"need elo0 < elo1; got {self.elo0}, {self.elo1}")
        sprt_bounds(self.alpha, self.beta)  # validates the error rates
        counts = {float(v): int(c) for v, c in sorted(self.counts.items())}
        if any(not 0.0 <= v <= 1.0 for v in counts) or any(c < 0 for c in counts.values()):
            raise SprtError(f"scores must lie in [0, 1] with non-negative counts: {counts}")
        object.__setattr__(self, "counts", MappingProxyType(counts))

    def add(self, scores: Iterable[float]) -> Sprt:
        """The state after more per-pair scores (each in [0, 1])."""
        counts = dict(self.counts)
        for score in scores:
            counts[float(score)] = counts.get(float(score), 0) + 1
        return replace(self, counts=counts)

    @property
    def pairs(self) -> int:
        return sum(self.counts.values())

    @property
    def pentanomial(self) -> tuple[int, ...]:
        """How many pairs scored each of ``PAIR_SCORES`` (other scores are not counted)."""
        return tuple(self.counts.get(v, 0) for v in PAIR_SCORES)

    @property
    def llr(self) -> float:
        return gsprt_llr(self.counts, self.elo0, self.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    @property
    def status(self) -> Status:
        lower, upper = self.bounds
        llr = self.llr
        return "H1" if llr >= upper else "H0" if llr <= lower else "continue"

    def elo(self) -> EloEstimate:
        """Elo of the mean pair score, with a delta-method 95 % interval from the pair
        scores' spread. One virtual pair scoring 0 and one scoring 1 (Laplace's rule) keep
        both finite at 0 % and 100 % and with no scores; they move the mean by O(1/pairs)."""
        x = np.array([*self.counts, 0.0, 1.0])
        n = np.array([*self.counts.values(), 1, 1], dtype=float)
        total = n.sum()
        mean = float((n * x).sum() / total)
        var = float((n * (x - mean) ** 2).sum() / total)
        elo = ELO_PER_NAT * math.log(mean / (1.0 - mean))
        half = Z95 * ELO_PER_NAT / (mean * (1.0 - mean)) * math.sqrt(var / total)
        return EloEstimate(elo, elo - half, elo + half)
