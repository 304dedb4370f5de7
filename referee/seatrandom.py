"""Each in-process seat's own random generators, as a bot process has them.

A bot process seeds Python's ``random`` (and numpy's global generator, if it is loaded)
from its bot seed at every game start (``referee.sdk.seed_everything``) and then has
them to itself. In-process bots share one interpreter: ``SeatRandom`` gives each seat the
state its process would have, swapped in around each call to the seat's code, so a run
in-process plays the same games as with bot processes, for the same seed and secret.

>>> import random
>>> r = SeatRandom([7, 8])
>>> a = r.call(0, lambda: random.random()); b = r.call(1, lambda: random.random())
>>> random.seed(7); a == random.random(), b != a
(True, True)
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from referee.sdk import seed_everything

T = TypeVar("T")


def _capture() -> tuple[Any, Any]:
    np = sys.modules.get("numpy")
    return random.getstate(), np.random.get_state() if np is not None else None


class SeatRandom:
    """The generators' states of each seat of one game, seeded with its bot seed."""

    def __init__(self, seeds: Sequence[int]) -> None:
        self._states = []
        for seed in seeds:
            seed_everything(seed)
            self._states.append(_capture())

    def call(self, seat: int, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` with ``seat``'s generators in place (kept, however it ends)."""
        py, nps = self._states[seat]
        random.setstate(py)
        if nps is not None:  # (numpy loaded only later is not seeded, as in a process)
            sys.modules["numpy"].random.set_state(nps)
        try:
            return fn(*args)
        finally:
            self._states[seat] = _capture()
