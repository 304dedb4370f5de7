"""``python -m referee.kernelwarm module:function ...``: call each function named (a
game's ``Game.kernels``), which compiles its kernels into numba's cache. Run by
``referee.kernelcache`` in a sandbox laid out as the bots' are, with nothing of any bot.

>>> main(["gc:collect", "evaluator.warm:turkish"])
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence


def main(names: Sequence[str]) -> None:
    for name in names:
        module, _, function = name.partition(":")
        getattr(importlib.import_module(module), function)()


if __name__ == "__main__":
    main(sys.argv[1:])
