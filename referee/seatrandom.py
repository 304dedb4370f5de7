"""Each in-process seat's own random generators, as a bot process has them.

A bot process seeds Python's ``random`` (and numpy's global generator, if it is loaded)
from its bot seed at every game start (``referee.sdk.seed_everything``) and then has
them to itself. In-process bots share one interpreter, so each seat of a game gets
generators of its own instead, seeded once with its bot seed (made on the seat's first
draw: a bot that draws nothing costs nothing), and the module-level functions of
``random`` and ``numpy.random`` (``random.choice``, ``np.random.randint``, ``seed``,
``getstate``, ...) draw from the generators of the seat being called. A run in-process
therefore plays the same games as with bot processes, for the same seed and secret,
without copying any generator's state per decision.

``install()`` replaces those module functions with dispatchers, once per process; out
of a seat's call they use the modules' own generators, as before. A bot module that
bound one of them (``from random import choice``) before ``install()`` keeps the shared
generator: the in-process runner installs before it loads any bot file.

>>> import random
>>> install()
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

T = TypeVar("T")


class _Generators:
    """One seat's generators, each made on its first use (and its seed read then: a
    seed can cost an HMAC, ``referee.deals``)."""

    __slots__ = ("_seeds", "_seat", "_python", "_numpy")

    def __init__(self, seeds: Sequence[int], seat: int) -> None:
        self._seeds, self._seat = seeds, seat
        self._python: random.Random | None = None
        self._numpy: Any = None

    def python(self) -> random.Random:
        if self._python is None:  # == random.seed(seed)
            self._python = random.Random(self._seeds[self._seat])
        return self._python

    def numpy(self) -> Any:
        if self._numpy is None:  # == np.random.seed(seed % 2**32), as the SDK seeds it
            seed = self._seeds[self._seat] % 2**32
            self._numpy = sys.modules["numpy"].random.RandomState(seed)
        return self._numpy


_current: _Generators | None = None  # the seat being called, if any
_installed: set[str] = set()


def _dispatcher(default: Callable[..., Any], name: str,
                pick: Callable[[_Generators], Any]) -> Callable[..., Any]:
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        seat = _current
        if seat is None:
            return default(*args, **kwargs)
        return getattr(pick(seat), name)(*args, **kwargs)
    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.__doc__ = default.__doc__
    return dispatch


def install() -> None:
    """Make ``random``'s and (if loaded) ``numpy.random``'s module functions draw from
    the generators of the seat being called. Idempotent."""
    if "random" not in _installed:
        for name in dir(random):
            fn = getattr(random, name)
            if getattr(fn, "__self__", None) is random._inst:  # type: ignore[attr-defined]
                setattr(random, name, _dispatcher(fn, name, _Generators.python))
        _installed.add("random")
    np = sys.modules.get("numpy")
    if np is not None and "numpy" not in _installed:
        shared = np.random.mtrand._rand
        for name in dir(np.random):
            fn = getattr(np.random, name)
            if getattr(fn, "__self__", None) is shared or name == "seed":
                setattr(np.random, name, _dispatcher(fn, name, _Generators.numpy))
        _installed.add("numpy")


class SeatRandom:
    """The generators of each seat of one game, seeded with its bot seed (``seeds``
    is read only for a seat that draws)."""

    def __init__(self, seeds: Sequence[int]) -> None:
        install()
        self._seats = [_Generators(seeds, seat) for seat in range(len(seeds))]

    def call(self, seat: int, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` with ``seat``'s generators behind the module functions."""
        global _current
        _current = self._seats[seat]
        try:
            return fn(*args)
        finally:
            _current = None
