"""``--max-time DURATION``: a CI job's time budget for ``run`` and ``sprt``.

When the budget runs out, the run stops as a first Ctrl-C stops it: no new game starts,
the games in progress are abandoned (they are not in the journal, so ``referee resume``
plays them again), and every finished game stays journalled. The clock is SIGALRM, so
the stop happens in the main thread, where the run's own signal handling runs.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from referee.config import ConfigError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600}


@dataclass
class Budget:
    """``seconds``: the budget (None: no budget); ``expired`` once it ran out."""

    seconds: float | None = None
    expired: bool = field(default=False, init=False)

    @property
    def option(self) -> str:
        return f"--max-time {self.seconds:g}s"

    @contextmanager
    def running(self, stop: Callable[[], None]) -> Iterator[None]:
        """Call ``stop()`` once, in the main thread, when the budget runs out while in
        this block."""
        if self.seconds is None:
            yield
            return

        def ring(signum: int, frame: object) -> None:
            if not self.expired:
                self.expired = True
                stop()

        previous = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def parse_budget(text: str | None) -> Budget:
    """``--max-time``'s value (``90s``, ``20m``, ``1.5h``) as a Budget; ConfigError if it
    is not a positive duration with its unit.

    >>> parse_budget("20m").seconds, parse_budget(None).seconds
    (1200.0, None)
    """
    if text is None:
        return Budget()
    m = _DURATION.match(text)
    if not m or float(m.group(1)) <= 0:
        raise ConfigError(f"--max-time {text!r}: give a positive duration with its unit, "
                          "e.g. 90s, 20m or 1.5h")
    return Budget(float(m.group(1)) * _UNIT_S[m.group(2)])
