"""Which Elo differences a set of results can estimate, and how the rest are ordered.

Two bots' Elo difference has a finite maximum-likelihood estimate exactly when each can be
reached from the other in the directed "finished ahead of" graph (a shared place links
both ways): when they lie in one strongly connected *group*. Between groups the estimate
is infinite, but the data still orders them: a group that some path of results puts ahead
of another ranks above it. This is Ordo's treatment of perfect scores and of groups that
never lose to each other (its ``-g`` groups report), and unlike BayesElo's it does not bend
the estimable differences with a prior.

Per comparison component (bots linked by having met), the *main group* is the group with
the most results among its own members (a group of two or more bots; ties: the larger,
then the first to appear). Its bots have finite Elos, with intervals, and their mean is the
component's Elo 0. Every other bot is a bound relative to it: ``"lower"`` for a group the
results put above the main group (its maximum-likelihood Elo is +infinity), ``"upper"``
for one below, ``"open"`` for one the results do not order against it. When no group has
two bots (the results are a strict order), there is no main group, and each bot's bound
says where it stands against the rest of its component.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Bound = Literal["lower", "upper", "open"]


@dataclass(frozen=True, eq=False)
class Structure:
    """``comps``: the comparison components (arrays of bot indices), largest first, then by
    first appearance. ``groups``: each component's strongly connected groups, in ranking
    order once :func:`order_groups` ran (before: by first appearance). ``main``: each
    component's main group (an index into its ``groups`` entry) or None. ``bounds``: each
    bot's flag."""

    comps: list[np.ndarray]
    groups: list[list[np.ndarray]]
    main: list[int | None]
    bounds: list[Bound | None]
    reach: np.ndarray


def closure(adj: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a boolean adjacency matrix (squaring until stable)."""
    reach = adj | np.eye(len(adj), dtype=bool)
    while True:
        step = reach.astype(float)  # a float product uses BLAS; path counts stay exact
        nxt = (step @ step) > 0
        if (nxt == reach).all():
            return reach
        reach = nxt


def structure(wins: np.ndarray) -> Structure:
    """Components, groups, main groups and bound flags of a win-count matrix
    (``wins[i, j]``: how often i finished ahead of j)."""
    beat = wins > 0
    linked = closure(beat | beat.T)
    reach = closure(beat)
    comps = _classes(linked, range(len(wins)))
    comps.sort(key=lambda c: (-len(c), c[0]))
    bounds: list[Bound | None] = [None] * len(wins)
    groups, mains = [], []
    for comp in comps:
        mutual = reach & reach.T
        parts = _classes(mutual, comp.tolist())
        main = None
        if len(parts) > 1:
            sized = [k for k, g in enumerate(parts) if len(g) > 1]
            if sized:
                main = max(sized, key=lambda k: (wins[np.ix_(parts[k], parts[k])].sum(),
                                                  len(parts[k]), -parts[k][0]))
            for k, g in enumerate(parts):
                if k == main:
                    continue
                # Against the main group if there is one, else against the rest.
                other = parts[main] if main is not None else comp[~np.isin(comp, g)]
                up, down = reach[g[0], other].any(), reach[other, g[0]].any()
                flag: Bound = "lower" if up and not down else "upper" if down and not up \
                    else "open"
                for i in g:
                    bounds[i] = flag
        groups.append(parts)
        mains.append(main)
    return Structure(comps, groups, mains, bounds, reach)


def order_groups(st: Structure, placement: np.ndarray) -> list[list[np.ndarray]]:
    """Each component's groups in ranking order: a group the results put ahead of another
    comes first; groups the results leave unordered go by ``placement`` (a provisional
    Elo per bot; a group's is its mean), highest first."""
    ordered = []
    for parts in st.groups:
        left = list(range(len(parts)))
        out = []
        while left:
            free = [k for k in left
                    if not any(st.reach[parts[o][0], parts[k][0]] for o in left if o != k)]
            k = max(free, key=lambda f: (placement[parts[f]].mean(), -parts[f][0]))
            out.append(parts[k])
            left.remove(k)
        ordered.append(out)
    return ordered


def _classes(relation: np.ndarray, members: list[int] | range) -> list[np.ndarray]:
    """The equivalence classes of ``members`` under a symmetric, transitive relation, in
    order of first appearance."""
    seen: set[int] = set()
    out = []
    for i in members:
        if i not in seen:
            cls = np.array([j for j in members if relation[i, j]])
            seen.update(cls.tolist())
            out.append(cls)
    return out
