"""Bradley-Terry ratings on the Elo scale from game results, with clustered errors.

Model. A game is a finishing order of two or more bots (a sequence, best first) or, when
places can be shared, a mapping from bot to place (1 = best; ``{"a": 1, "b": 1, "c": 3}``:
a and b tie for first). Every game is split into its pairs of bots: "A finished ahead of
B" counts as a win for A, a shared place as half a win each way (the usual treatment of a
draw in Bradley-Terry, as in BayesElo's and Ordo's draw-as-half-point default). ``theta``
maximises the log-likelihood ``sum over pairs of r log sigmoid(theta_A - theta_B) +
(1 - r) log sigmoid(theta_B - theta_A)``, ``r`` = 1 or 1/2 (Newton's method, with a
backtracking line search because the first steps from zero can overshoot on lopsided
data). Ratings are
reported on the Elo scale, ``Elo = 400 / ln 10 * theta``: a gap ``D`` means that in a game
with both, A finishes ahead of B with probability ``1 / (1 + 10 ** (-D / 400))``. Bots are
identified by ``str(name)``, so any hashable names do; the output names are strings.

Errors. The pairs of one game are not independent, and with duplicate deals neither are the
games of one group: the covariance is the clustered sandwich ``C S C`` with ``C`` the
Moore-Penrose pseudo-inverse of the negative Hessian (the inverse on the mean-zero subspace,
which fixes the gauge) and ``S`` the sum over clusters of ``s_c s_c^T``, ``s_c`` the sum of the
score vectors (gradients of the log-likelihood) of the cluster's games at the estimate. A
cluster is one game unless ``clusters`` gives each game's cluster label (e.g. its duplicate
group). There is no small-sample factor ``G / (G - 1)``: the reference figures (from the
published formulas of Ordo, BayesElo and fishtest; see tests/test_elo.py) are reproduced without
it. Each row reports ``se``, ``ci95 = 1.96 * se`` (the half-width of the 95 % interval) and
``los_next``, the likelihood of superiority over the next bot in the ranking, ``Phi(D / SE_D)``
with ``SE_D**2 = var_a + var_b - 2 cov_ab``. :func:`bootstrap_elo` gives seeded bootstrap errors
over whole clusters as a cross-check.

Anchoring. By default ratings are centred on the pool mean. ``anchor=(name, elo)`` shifts them
so that bot sits at ``elo``, and reports errors relative to it: its SE is 0, another bot's SE
is that of its difference to the anchor (``var_i + var_a - 2 cov_ia``). Likelihoods of
superiority do not depend on the anchor.

Degenerate data, handled explicitly and never as NaN, infinity or an exception:

* The comparison graph (bots linked when they met) may fall apart into components. The
  components are fitted separately, each with its own Elo 0; ``EloFit.components`` lists
  them, largest first, and rows outside the largest one carry ``note = "not connected to
  ..."``. Their covariance with other components is 0, ``los_next`` is None when the next
  bot is in another component, and :meth:`EloFit.los` refuses such a pair. With an anchor,
  every component gets the same shift, and SEs outside the anchor's component are
  ``sqrt(var_i + var_a)``: finite, but flagged by the note.
* Within a component, a difference has a finite maximum-likelihood estimate only inside
  a strongly connected group of the "finished ahead of" graph (:mod:`leaderboards.elogroups`:
  Ordo's treatment of perfect scores). Each group's Elos among themselves are that
  estimate, with their clustered errors from the games' pairs inside the group (the pairs
  across groups are certain at the estimate and carry no information). The component's
  Elo 0 is its *main group*'s mean (``EloFit.centre``); the other groups are bounds
  (``bound = "lower"``, ``"upper"`` or ``"open"``, see :mod:`leaderboards.elogroups`),
  placed by a symmetric prior (one virtual half-win each way for every pair of bots that
  met, BayesElo's device) only to get a finite number, and then moved, if need be, so the
  values never contradict the order the results give. ``los_next`` is None across groups
  and :meth:`EloFit.los` refuses such a pair: the results leave no doubt to measure. A
  group of one bot has no interval.

>>> fit = fit_elo([["a", "b"], ["a", "b"], ["b", "a"]])
>>> [(r.name, round(r.elo, 1), r.bound) for r in fit.rows]
[('a', 60.2, None), ('b', -60.2, None)]
>>> round(fit.rows[0].elo - fit.rows[1].elo, 2) == round(400 * math.log10(2 / 1), 2)
True
>>> fit_elo([["a", "b"], ["a", "b"]]).ratings["a"].bound
'lower'
>>> tied = fit_elo([{"a": 1, "b": 2}, {"a": 1, "b": 1}])  # a scores 1.5 of 2
>>> round(tied.rows[0].elo - tied.rows[1].elo, 2) == round(400 * math.log10(3), 2)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from leaderboards.elogroups import Bound, Structure, order_groups, structure

ELO_PER_NAT = 400 / math.log(10)
Z95 = 1.96
# A game: a finishing order (best first), or each bot's place (1 = best, shared on a tie).
GameResult = Sequence[Hashable] | Mapping[Hashable, int]

_MAX_NEWTON = 200
_STEP_TOL = 1e-12
_LL_SLACK = 1e-13
_PRIOR_WINS = 0.5
_NOTE_NAMES = 5
PAIR_CHUNK = 1 << 16  # pairs whose residuals are looked up at once

BOUND_NOTE = {
    "lower": "the results put it ahead of the bots with finite Elo: maximum-likelihood Elo "
             "is +infinity; value (from a half-win prior) is a lower bound",
    "upper": "the results put it behind the bots with finite Elo: maximum-likelihood Elo "
             "is -infinity; value (from a half-win prior) is an upper bound",
    "open": "the results do not order it against the bots with finite Elo: "
            "maximum-likelihood Elo is not finite; value from a half-win prior, only its "
            "order is known",
}


class RatingError(ValueError):
    """The games cannot be rated (none, a game of fewer than two bots, a bot twice in one
    game, a place that is not a positive integer, clusters not one per game), or a question
    about the fit has no answer (unknown bot, bots in different components)."""


@dataclass(frozen=True)
class BotRating:
    """One bot's row. ``elo`` is mean-centred (per component) unless the fit is anchored;
    ``ci95`` is the half-width of the 95 % interval (``1.96 * se``); ``los_next`` is the
    likelihood of superiority over the next bot in the ranking (None for the last bot and
    across components); ``bound`` and ``note`` flag degenerate data (see the module doc)."""

    name: str
    elo: float
    se: float
    ci95: float
    games: int
    bound: Bound | None = None
    los_next: float | None = None
    note: str | None = None


@dataclass(frozen=True, eq=False)
class EloFit:
    """A fit: rows best first (``names`` and ``ratings`` in ranking order) and the
    covariance of the reported Elos (Elo squared, rows and columns in ``names`` order);
    ``groups``: the strongly connected groups, in ranking order; ``centre``: per component,
    the bots whose mean is Elo 0 (before an anchor shifts it)."""

    names: tuple[str, ...]
    ratings: dict[str, BotRating]
    covariance: np.ndarray
    games: int
    components: tuple[tuple[str, ...], ...]
    anchor: tuple[str, float] | None = None
    groups: tuple[tuple[str, ...], ...] = ()
    centre: tuple[tuple[str, ...], ...] = ()

    @property
    def rows(self) -> list[BotRating]:
        return list(self.ratings.values())

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority of ``a`` over ``b``: ``Phi(D / SE_D)``."""
        i, j = self._index(a), self._index(b)
        if self._component(a) != self._component(b):
            raise RatingError(f"{a!r} and {b!r} are not connected by any game")
        if not any(a in g and b in g for g in self.groups):
            raise RatingError(f"the results order {a!r} and {b!r} with certainty: their "
                              "Elo difference has no finite estimate")
        cov = self.covariance
        diff = self.ratings[a].elo - self.ratings[b].elo
        return _los(diff, cov[i, i] + cov[j, j] - 2 * cov[i, j])

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise RatingError(f"no bot named {name!r}") from None

    def _component(self, name: str) -> int:
        return next(k for k, comp in enumerate(self.components) if name in comp)


def fit_elo(games: Sequence[GameResult], anchor: tuple[Hashable, float] | None = None,
            clusters: Sequence[Hashable] | None = None) -> EloFit:
    """Fit Bradley-Terry Elo ratings to games (each a finishing order, best first, or a
    mapping from bot to place); ``clusters``: each game's cluster label for the errors
    (default: every game its own cluster)."""
    names, players, places = _index_games(games)
    n = len(names)
    cluster = _cluster_index(clusters, len(players))
    gid, first, second, tie = _pairs(players, places)
    wins = np.zeros((n, n))  # wins[i, j]: how often i finished ahead of j (a tie: 1/2)
    for part in _chunks(len(gid)):  # sums of halves: exact in any order
        result = np.where(tie[part], 0.5, 1.0)
        np.add.at(wins, (first[part], second[part]), result)
        np.add.at(wins, (second[part], first[part]), 1.0 - result)

    def meat(theta: np.ndarray, group_of: np.ndarray) -> np.ndarray:
        scores = np.zeros((int(cluster.max()) + 1, n))
        # d/d theta_first of the pair's log-likelihood: its result less its expected
        # result; pairs across groups are certain at the estimate (their residual is 0 in
        # the limit). It depends on the two bots and the tie alone: a table of them, then
        # one look-up per pair, a chunk of pairs at a time (a hundred thousand games' worth
        # of temporaries would outweigh the records). Every pair's first, then every
        # pair's second: the order of the sums, and so every bit of them, as one pass.
        expected = _sigmoid(theta[:, None] - theta[None, :])
        inside = group_of[:, None] == group_of[None, :]
        table = np.stack([np.where(inside, 1.0 - expected, 0.0),
                          np.where(inside, 0.5 - expected, 0.0)])
        ties = tie.view(np.int8)
        for bots, sign in ((first, 1.0), (second, -1.0)):
            for part in _chunks(len(gid)):
                resid = table[ties[part], first[part], second[part]]
                np.add.at(scores, (cluster[gid[part]], bots[part]),
                          resid if sign > 0 else -resid)
        return scores.T @ scores

    counts = np.bincount(np.fromiter(itertools.chain.from_iterable(players), dtype=int),
                         minlength=n)
    return fit_wins(names, wins, counts, len(players), meat, anchor)


def fit_wins(names: Sequence[str], wins: np.ndarray, counts: np.ndarray, games: int,
             meat: Callable[[np.ndarray, np.ndarray], np.ndarray],
             anchor: tuple[Hashable, float] | None = None) -> EloFit:
    """:func:`fit_elo` from its sufficient statistics: ``wins[i, j]``, how often bot
    ``names[i]`` finished ahead of ``names[j]`` (a shared place 1/2); ``counts``, each
    bot's games; ``games``, the games in all; ``meat(theta, group_of)``, the clustered
    ``S = sum over clusters of s_c s_c^T`` (n x n, in nats) at the estimate ``theta``,
    counting only the pairs whose bots are in the same group (``group_of``: each bot's
    group number). ``leaderboards.sums`` keeps these as games come in."""
    names = list(names)
    n = len(names)
    st = structure(wins)
    theta, cinv, order = _fit_components(wins, st)
    group_of = np.empty(n, dtype=int)
    for k, group in enumerate(g for parts in order for g in parts):
        group_of[group] = k
    cov = cinv @ meat(theta, group_of) @ cinv * ELO_PER_NAT**2
    elo = theta * ELO_PER_NAT

    anchored: tuple[str, float] | None = None
    if anchor is not None:
        if str(anchor[0]) not in names:
            raise RatingError(f"anchor {anchor[0]!r} played no game")
        a = names.index(str(anchor[0]))
        shift = np.eye(n)
        shift[:, a] -= 1.0  # row i of `shift` maps Elos to elo_i - elo_a
        elo = elo - elo[a] + float(anchor[1])
        cov = shift @ cov @ shift.T
        anchored = (names[a], float(anchor[1]))

    comp_of = np.empty(n, dtype=int)
    for k, comp in enumerate(st.comps):
        comp_of[comp] = k
    notes = _notes(names, st.comps, st.bounds, comp_of)

    rank = sorted(range(n), key=lambda i: (-elo[i], group_of[i], names[i]))
    cov = cov[np.ix_(rank, rank)]
    cov.setflags(write=False)
    ratings: dict[str, BotRating] = {}
    for r, i in enumerate(rank):
        se = math.sqrt(max(cov[r, r], 0.0))
        nxt = rank[r + 1] if r + 1 < n else None
        los = None
        if nxt is not None and group_of[nxt] == group_of[i]:
            los = _los(elo[i] - elo[nxt], cov[r, r] + cov[r + 1, r + 1] - 2 * cov[r, r + 1])
        ratings[names[i]] = BotRating(names[i], float(elo[i]), se, Z95 * se, int(counts[i]),
                                      st.bounds[i], los, notes[i])
    centre = tuple(tuple(names[i] for i in (comp if m is None else st.groups[c][m]))
                   for c, (comp, m) in enumerate(zip(st.comps, st.main, strict=True)))
    return EloFit(tuple(names[i] for i in rank), ratings, cov, games,
                  tuple(tuple(names[i] for i in comp) for comp in st.comps), anchored,
                  tuple(tuple(names[i] for i in g) for parts in order for g in parts),
                  centre)


def _fit_components(wins: np.ndarray, st: Structure
                    ) -> tuple[np.ndarray, np.ndarray, list[list[np.ndarray]]]:
    """Theta, the pseudo-inverse of the negative Hessian (block per group) and the groups
    in ranking order, component by component (see the module doc)."""
    n = len(wins)
    theta, cinv = np.zeros(n), np.zeros((n, n))
    placement = np.zeros(n)
    for comp in st.comps:
        sub = wins[np.ix_(comp, comp)]
        if any(st.bounds[i] for i in comp):
            placement[comp] = _newton(sub + _PRIOR_WINS * ((sub + sub.T) > 0))
    order = order_groups(st, placement)
    for c, (comp, main, parts) in enumerate(zip(st.comps, st.main, order, strict=True)):
        for g in parts:
            theta[g] = placement[g].mean()
            if len(g) > 1:
                sub = wins[np.ix_(g, g)]
                theta[g] += _newton(sub)
                cinv[np.ix_(g, g)] = np.linalg.pinv(_neg_hessian(sub, theta[g]))
        ref = comp if main is None else st.groups[c][main]
        at = 0 if main is None else next(k for k, g in enumerate(parts) if g is ref)
        _keep_order(theta, parts, at)
        theta[comp] -= theta[ref].mean()
    return theta, cinv, order


def _keep_order(theta: np.ndarray, parts: list[np.ndarray], at: int) -> None:
    """Move the groups other than ``parts[at]`` (the groups in ranking order) just enough
    that no value contradicts the order: every group's lowest Elo at least the highest of
    the groups below it. A bound stays a bound when moved away from the reference."""
    for k in range(at - 1, -1, -1):
        below = max(theta[g].max() for g in parts[k + 1:])
        theta[parts[k]] += max(0.0, below - theta[parts[k]].min())
    for k in range(at + 1, len(parts)):
        above = min(theta[g].min() for g in parts[:k])
        theta[parts[k]] -= max(0.0, theta[parts[k]].max() - above)


def bootstrap_elo(games: Sequence[GameResult], n: int = 200, seed: int = 0,
                  clusters: Sequence[Hashable] | None = None) -> dict[str, float]:
    """Bootstrap standard errors of the mean-centred Elos: refit ``n`` resamples of whole
    clusters (``clusters`` as in :func:`fit_elo`; default every game its own), drawn with
    replacement, seeded. Resamples that miss a bot are skipped, since centring on a
    different pool would shift everyone; the others count even when they need the half-win
    prior, so these errors are finite whenever two resamples are usable."""
    names, players, _ = _index_games(games)
    cluster = _cluster_index(clusters, len(players))
    members = [np.flatnonzero(cluster == c) for c in range(int(cluster.max()) + 1)]
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n):
        sample = [games[g] for c in rng.integers(0, len(members), len(members))
                  for g in members[c]]
        fit = fit_elo(sample)
        if len(fit.names) == len(names):
            draws.append([fit.ratings[name].elo for name in names])
    if len(draws) < 2:
        raise RatingError(f"need two resamples that contain every bot; {len(draws)} of {n} do")
    se = np.std(np.array(draws), axis=0, ddof=1)
    return {name: float(s) for name, s in zip(names, se, strict=True)}


# --------------------------------------------------------------------------- internals


def _index_games(games: Sequence[GameResult]
                 ) -> tuple[list[str], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Bot names in order of first appearance, and per game the tuple of its bots'
    indices and the tuple of their places (equal tuples shared: a run of a hundred
    thousand games has few distinct ones)."""
    index: dict[str, int] = {}
    players: list[tuple[int, ...]] = []
    places: list[tuple[int, ...]] = []
    held: dict[tuple[int, ...], tuple[int, ...]] = {}
    for g, game in enumerate(games):
        if isinstance(game, Mapping):
            labels, ranks = [str(bot) for bot in game], list(game.values())
            if not all(isinstance(r, int) and not isinstance(r, bool) and r >= 1
                       for r in ranks):
                raise RatingError(f"game {g} has a place that is not a positive integer: "
                                  f"{ranks}")
        else:
            labels, ranks = [str(bot) for bot in game], list(range(1, len(game) + 1))
        if len(labels) < 2:
            raise RatingError(f"game {g} has {len(labels)} player(s); need at least 2")
        if len(set(labels)) < len(labels):
            raise RatingError(f"game {g} lists a bot twice: {labels}")
        bots = tuple([index.setdefault(b, len(index)) for b in labels])
        players.append(held.setdefault(bots, bots))
        places.append(held.setdefault(tuple(ranks), tuple(ranks)))
    if not players:
        raise RatingError("no games to rate")
    return list(index), players, places


def _cluster_index(clusters: Sequence[Hashable] | None, games: int) -> np.ndarray:
    """Each game's cluster as 0, 1, ... in order of first appearance."""
    if clusters is None:
        return np.arange(games, dtype=np.int32)
    if len(clusters) != games:
        raise RatingError(f"{len(clusters)} cluster labels for {games} games")
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(c, len(index)) for c in clusters), dtype=np.int32,
                       count=games)


def _pairs(players: list[tuple[int, ...]], places: list[tuple[int, ...]]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of bots in every game as (game index, first, second, tie) arrays:
    ``first`` finished ahead of ``second``, or shared its place with it (``tie``). Indices
    as int32 and ties as bools, made a column (a pair of seats) at a time: a hundred
    thousand games of four make 600,000 pairs."""
    sizes = np.fromiter(map(len, players), dtype=np.int32, count=len(players))
    parts = []
    for n in np.unique(sizes).tolist():  # the games of one table size at once, as arrays
        games = np.flatnonzero(sizes == n).astype(np.int32)
        if len(games) == len(players):
            bots = np.array(players, dtype=np.int32)
            rank = np.array(places, dtype=np.int32)
        else:
            bots = np.array([players[g] for g in games.tolist()], dtype=np.int32)
            rank = np.array([places[g] for g in games.tolist()], dtype=np.int32)
        seat_pairs = list(zip(*np.triu_indices(n, 1), strict=True))
        first = np.empty((len(games), len(seat_pairs)), dtype=np.int32)
        second = np.empty_like(first)
        tie = np.empty(first.shape, dtype=bool)
        for k, (i, j) in enumerate(seat_pairs):
            behind = rank[:, i] > rank[:, j]  # put the bot ahead first
            first[:, k] = np.where(behind, bots[:, j], bots[:, i])
            second[:, k] = np.where(behind, bots[:, i], bots[:, j])
            tie[:, k] = rank[:, i] == rank[:, j]
        parts.append((np.repeat(games, len(seat_pairs)), first.ravel(), second.ravel(),
                      tie.ravel()))
        del bots, rank
    if len(parts) == 1:  # one table size: already game by game
        return parts[0]
    gid, first, second, tie = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    order = np.argsort(gid, kind="stable")  # game by game, as the games were given
    return gid[order], first[order], second[order], tie[order]


def _chunks(total: int) -> Iterator[slice]:
    """Slices of ``range(total)``, PAIR_CHUNK long: the per-pair arrays made from them
    stay small however many games there are."""
    for start in range(0, total, PAIR_CHUNK):
        yield slice(start, min(start + PAIR_CHUNK, total))


def _notes(names: list[str], comps: list[np.ndarray], bounds: list[Bound | None],
           comp_of: np.ndarray) -> list[str | None]:
    main = [names[i] for i in comps[0]]
    listed = ", ".join(main[:_NOTE_NAMES]) + (", ..." if len(main) > _NOTE_NAMES else "")
    notes: list[str | None] = []
    for i in range(len(names)):
        parts = []
        if comp_of[i] > 0:
            parts.append(f"not connected to the main component ({listed}); "
                         "centred on its own component's mean")
        if bounds[i] is not None:
            parts.append(BOUND_NOTE[bounds[i]])
        notes.append("; ".join(parts) or None)
    return notes


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free logistic


def _loglik(wins: np.ndarray, theta: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    return float(-(wins * np.logaddexp(0.0, -diff)).sum())


def _gradient(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    p = _sigmoid(theta[:, None] - theta[None, :])  # p[i, j]: i ahead of j
    return (wins * p.T).sum(axis=1) - (wins.T * p).sum(axis=1)


def _neg_hessian(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    p = _sigmoid(theta[:, None] - theta[None, :])
    weight = (wins + wins.T) * p * p.T
    return np.diag(weight.sum(axis=1)) - weight


def _newton(wins: np.ndarray) -> np.ndarray:
    """Mean-zero maximum-likelihood theta for a win-count matrix whose "ahead of" graph is
    strongly connected (so the maximum exists and is unique up to a shift)."""
    theta = np.zeros(len(wins))
    ll = _loglik(wins, theta)
    for _ in range(_MAX_NEWTON):
        step = np.linalg.pinv(_neg_hessian(wins, theta)) @ _gradient(wins, theta)
        if np.abs(step).max() < _STEP_TOL:
            return theta - theta.mean()
        # Halve overshooting steps; the slack lets near-optimal steps pass despite rounding.
        t = 1.0
        while (new := _loglik(wins, theta + t * step)) < ll - _LL_SLACK * (1.0 + abs(ll)):
            t /= 2
        theta, ll = theta + t * step, new
    raise ArithmeticError("Newton's method did not converge")  # concave: not expected


def _los(diff: float, var: float) -> float:
    if var <= 0.0:  # no spread: certain whenever the gap is not zero
        return 0.5 + 0.5 * math.copysign(1.0, diff) if diff else 0.5
    return NormalDist().cdf(diff / math.sqrt(var))
