"""Compile (or load from numba's cache) the kernels a game's bots run, for the argument
types they pass, so that a later process loads them from the cache instead of
compiling. A game names the functions here that it needs (``Game.kernels``, e.g.
``"evaluator.warm:declarations"``); the referee calls them once per machine in a sandbox
laid out as its bots' are (``referee.kernelcache``, ``python -m referee.kernelwarm``).
"""

from __future__ import annotations

import numpy as np

from evaluator.batch import best_many, exists_many
from evaluator.cards import RULESETS, deck_cards
from evaluator.turkish_kernels import rank_keys


def declarations() -> None:
    """Polish Poker's: whether a declaration exists in a pool, the best one of a pool."""
    for ruleset in RULESETS:
        pools = np.zeros((1, len(deck_cards(ruleset))), dtype=np.uint8)
        exists_many(ruleset, [0], pools)
        best_many(ruleset, pools)


def turkish() -> None:
    """Turkish poker's ``rank_keys``, which passes its caller's array through: compiled
    for the two integer types a bot would use, int8 and int64."""
    for dtype in (np.int8, np.int64):
        rank_keys(np.arange(5, dtype=dtype).reshape(1, 5), 2)
