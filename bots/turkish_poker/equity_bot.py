"""Bets by its winning chance, estimated by Monte Carlo with the numba ranking.

Each decision deals the unseen cards at random to the opponents still in (an opponent who
opened gets only hands of kings or better), lets its own hand draw by the table in
``common`` before the draw, ranks every sampled hand with ``rank_keys`` and counts how
often its hand beats them all. Then: raise with a strong edge, call when the chance beats
the pot odds, otherwise pass or fold. Deterministic given the game seed (its generator is
drawn from the seeded ``random``).
"""

import random

import numpy as np

from bots.turkish_poker.common import (
    LOW_RANK_BY_DECK,
    bet,
    check_or_call,
    check_or_fold,
    discards,
    hand_ids,
    legal,
)
from evaluator.cards import parse_card
from evaluator.turkish import OPENING_KEY, deck_for
from evaluator.turkish_kernels import rank_keys

SAMPLES = 400
RAISE_ABOVE = 0.7
MARGIN = 0.03


def equity(view, rng, samples=SAMPLES):
    """The chance that this seat's hand (after its table draw, before the draw) beats
    every opponent still in."""
    deck = view["deck"]
    low = LOW_RANK_BY_DECK[deck]
    mine = hand_ids(view)
    seat = view["seat"]
    rivals = [s for s, st in enumerate(view["status"]) if s != seat and st in ("in", "all-in")]
    full_deck = deck_for({24: 2, 28: 3, 32: 4, 36: 5}[deck])
    unseen = np.array([c for c in full_deck if c not in mine], dtype=np.int8)
    drawn = [parse_card(c).id for c in discards(view)] if view["phase"] != "final-round" \
        and view["phase"] != "draw" else []
    kept = [c for c in mine if c not in drawn]
    need = 5 * len(rivals) + len(drawn)
    order = rng.random((samples, len(unseen))).argsort(axis=1)[:, :need]
    dealt = unseen[order]
    theirs = dealt[:, :5 * len(rivals)].reshape(samples * len(rivals), 5)
    their_keys = rank_keys(theirs, low).reshape(samples, len(rivals))
    own = np.empty((samples, 5), dtype=np.int8)
    own[:, :len(kept)] = kept
    own[:, len(kept):] = dealt[:, 5 * len(rivals):]
    own_keys = rank_keys(own, low)
    weight = np.ones(samples, dtype=bool)
    if view["opener"] in rivals:
        weight &= their_keys[:, rivals.index(view["opener"])] >= OPENING_KEY
    if not weight.any():
        return 0.0
    wins = (own_keys[:, None] > their_keys).all(axis=1)
    return float(wins[weight].mean())


def act(view):
    if view["phase"] == "draw":
        return {"kind": "draw", "cards": discards(view)}
    rng = np.random.default_rng(random.getrandbits(64))
    chance = equity(view, rng)
    pot, to_call = view["pot"], view["to_call"]
    current = max(view["bets"]) if view["bets"] else 0
    if view["phase"] == "opening":
        if legal(view, "open") and chance > 0.5:
            return bet(view, max(1, int(pot * chance)))
        return {"kind": "pass"}
    if chance > RAISE_ABOVE:
        return bet(view, current + to_call + int(pot * chance))
    if to_call == 0:
        return {"kind": "pass"}
    if chance > to_call / (pot + to_call) + MARGIN:
        return check_or_call(view)
    return check_or_fold(view)
