"""Estimates by Monte Carlo how likely declarations are, given what it can see.

It deals the unseen cards at random to the other players many times (their card
counts are public), checks every relevant declaration on every sampled pool with the
batch evaluator, and then: calls when the last declaration is unlikely (below
CALL_BELOW), otherwise raises to the legal declaration most likely to be true.
Deterministic given the game seed (its generator is drawn from the seeded ``random``).
"""

import random

import numpy as np

from evaluator import deck_cards, exists_many

SAMPLES = 600
CALL_BELOW = 0.5


def sample_pools(view, n, rng):
    """n pools: own hand + community + random cards for every other active seat."""
    cards = deck_cards(view.ruleset)
    known = set(view.hand) | ({view.community} if view.community else set())
    unseen = np.array([j for j, c in enumerate(cards) if c not in known])
    hidden = sum(c for s, c in enumerate(view.counts) if view.active[s] and s != view.seat)
    pools = np.zeros((n, len(cards)), dtype=np.uint8)
    pools[:, [j for j, c in enumerate(cards) if c in known]] = 1
    picks = np.argsort(rng.random((n, len(unseen))), axis=1)[:, :hidden]
    np.put_along_axis(pools, unseen[picks], 1, axis=1)
    return pools


def act(view):
    rng = np.random.default_rng(random.getrandbits(64))
    raises = view.legal_raises()
    candidates = ([view.last] if view.can_call else []) + list(raises)
    if not raises:
        return "call"
    p = exists_many(view.ruleset, [d.id for d in candidates],
                    sample_pools(view, SAMPLES, rng)).mean(axis=0)
    if view.can_call and p[0] < CALL_BELOW:
        return "call"
    offset = 1 if view.can_call else 0
    return raises[int(np.argmax(p[offset:]))]


# Compile (or load from the cache) the batch kernel before the first game's clock runs.
exists_many("official", [0], np.zeros((1, 25), dtype=np.uint8))
