"""Finished games waiting to be journalled, done a step at a time while the bots think.

Journalling a game (its events as the journal takes them, its transcript line packed,
both lines written, the progress callback) costs a few hundred µs, the referee's work
on several replies: done at once, at concurrency 1, it would hold back the next game's
first request. The runner queues that work here as a generator of short steps and takes
one step whenever nothing waits to be read (``Runner.play``), so it overlaps the bots'
thinking. Games are journalled in the order they finished; at most ``most`` wait (a
loop that is never idle journals the oldest whole), and ``flush`` journals them all
when the runner's games are over, ended or interrupted.

>>> done = []
>>> def steps(game):
...     yield
...     done.append(game)
>>> backlog = Backlog(most=1)
>>> backlog.add(steps(0)); backlog.add(steps(1)); done  # over ``most``: game 0 is done
[0]
>>> backlog.step(); backlog.step(); done, len(backlog)
([0, 1], 0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator


class Backlog:
    """Queued journalling, each game's a generator that yields between its steps."""

    def __init__(self, most: int):
        self.most = most
        self._queue: deque[Iterator[None]] = deque()

    def __len__(self) -> int:
        return len(self._queue)

    def add(self, steps: Iterator[None]) -> None:
        """Queue a game's steps; past ``most`` waiting, journal the oldest whole."""
        self._queue.append(steps)
        while len(self._queue) > self.most:
            oldest = len(self._queue)
            while len(self._queue) == oldest:
                self.step()

    def step(self) -> None:
        """Take the oldest game's next step. If a step fails (the journal cannot be
        written), nothing more is journalled: the queue is dropped and the error raised."""
        try:
            next(self._queue[0])
        except StopIteration:
            self._queue.popleft()
        except BaseException:
            self._queue.clear()
            raise

    def flush(self) -> None:
        """Journal every game still waiting."""
        while self._queue:
            self.step()
