"""Reports on stderr whether the evaluator's kernels came from numba's cache (loaded)
or were compiled in this process, and whether it can write to the compiled kernels the
referee gave its sandbox; then plays like caller.py."""

import os
import sys

import numpy as np

from evaluator import declarations, exists_many, kernels

exists_many("official", [0], np.zeros((1, 25), dtype=np.uint8))
stats = kernels.exists_many.stats
print(f"kernels: hits={sum(stats.cache_hits.values())} "
      f"misses={sum(stats.cache_misses.values())}", file=sys.stderr)
given = os.environ.get("REFEREE_KERNELS")
if given:
    try:
        with open(os.path.join(given, "planted.py"), "w") as f:
            f.write("x")
        print("planting: written", file=sys.stderr)
    except OSError:
        print("planting: refused", file=sys.stderr)


def act(view):
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
