"""Compile (or load from numba's cache) every kernel the evaluator's public functions
run, for the argument types they pass, so that a later process loads them from the
cache instead of compiling: ``python -m evaluator.warm``.

The referee runs this once per machine in a sandbox laid out as its bots' are
(``referee.kernelcache``). Turkish poker's ``rank_keys`` passes its caller's array
through: it is compiled for the two integer types a bot would use, int8 and int64.
"""

from __future__ import annotations

import numpy as np

from evaluator.cards import RULESETS, deck_cards
from evaluator.evaluate import best_many, exists_many
from evaluator.turkish_kernels import rank_keys


def warm() -> None:
    """Call each kernel once per argument type."""
    for ruleset in RULESETS:
        pools = np.zeros((1, len(deck_cards(ruleset))), dtype=np.uint8)
        exists_many(ruleset, [0], pools)
        best_many(ruleset, pools)
    for dtype in (np.int8, np.int64):
        rank_keys(np.arange(5, dtype=dtype).reshape(1, 5), 2)


if __name__ == "__main__":
    warm()
