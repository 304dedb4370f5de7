"""Which bot process plays each game: never one that has already seen the game's deal.

Bot processes live across many games, and every round ends with every hand revealed. In
duplicate deals a group replays one deal with the seats rotated, so a process that played
game 1 of a group would know every seat's cards when it met that deal again in game 2.
So a runner keeps, for each bot, a pool of processes and seats in each game, among those
not busy in another game, the first (in order of creation) that has not played the
game's deal. When every free process of the bot has seen it, a new one is started
(lazily: the table waits for its hello, the other tables play on), up to ``concurrency +
group_size - 1`` processes, which is always enough when a deal is played by one group:
at most ``concurrency - 1`` are busy elsewhere and ``group_size - 1`` have seen it. Past
that bound (a gauntlet replays one deal in every candidate's group) the least recently
used of them is ended and replaced by a new process with a label of its own (its own
logs, and under a sandbox its own scratch directory), never restarted under the same one.

The first ``concurrency`` processes of each bot are those the runner starts and waits
for before the first game (``slots``), generation 0 of their slots; a later one is made
for slot ``first_slot + n % concurrency``, generation ``n // concurrency`` (``n`` counting
the bot's processes of this runner), so (slot, generation) is unique across the workers of
a run, since each worker numbers from its own first slot. The runner labels them
``<bot>.<slot>`` and ``<bot>.<slot>.<generation>``.

>>> from types import SimpleNamespace as NS
>>> class Fake:
...     def __init__(self, spec, slot, generation=0):
...         self.spec, self.number = spec, (slot, generation)
...     def stop(self, grace_s=0.0): pass
>>> a = NS(name="a")
>>> pool = BotPool([[Fake(a, 0)]], Fake, first_slot=0)
>>> game = NS(seating=(0,), seed=7, group_size=2)
>>> [i.number for i in pool.seat(game)]
[(0, 0)]
>>> [i.number for i in pool.seat(game)]  # (0, 0) has seen seed 7, and is busy besides
[(0, 1)]
>>> pool.release(pool.instances)
>>> [i.number for i in pool.seat(NS(seating=(0,), seed=8, group_size=2))]
[(0, 0)]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Generic, Protocol, TypeVar

# Deals a process is known to have played, newest kept. The games of one deal are
# consecutive in every schedule, so far fewer would do; the bound only keeps a long
# run's memory flat.
SEEN_KEPT = 1024


class Instance(Protocol):
    spec: Any

    def stop(self, grace_s: float = 0.0) -> None: ...


I = TypeVar("I", bound=Instance)  # noqa: E741


@dataclass(eq=False)
class _Member(Generic[I]):
    instance: I
    busy: bool = False
    used: int = 0  # when it was last seated (a counter)
    seen: OrderedDict[int, None] = field(default_factory=OrderedDict)  # deal seeds


class BotPool(Generic[I]):
    """The processes of each bot of a runner; see the module."""

    def __init__(self, slots: Sequence[Sequence[I]], make: Callable[[Any, int, int], I],
                 first_slot: int):
        """``slots``: one instance per bot (in the run's bot order) for each game slot;
        ``make(spec, slot, generation)`` a new instance, its process started (the
        caller's business: it may know the bot cannot start)."""
        self._make, self._first, self._slots = make, first_slot, len(slots)
        self._specs = [instance.spec for instance in slots[0]]
        self._members: list[list[_Member[I]]] = [
            [_Member(slot[b]) for slot in slots] for b in range(len(slots[0]))]
        self._created = [len(slots)] * len(self._members)  # per bot, labels used so far
        self._clock = count(1)

    @property
    def instances(self) -> list[I]:
        """Every instance in the pool (live or not), slot instances first."""
        return [m.instance for members in self._members for m in members]

    def seat(self, game: Any) -> list[I]:
        """The instances, one per seat of ``game`` (its ``seating``, ``seed`` and
        ``group_size``), now busy until ``release``."""
        return [self._pick(bot, game.seed, self._slots + game.group_size - 1)
                for bot in game.seating]

    def release(self, instances: Iterable[I]) -> None:
        """Their game is over: they may be seated again."""
        done = {id(i) for i in instances}
        for members in self._members:
            for m in members:
                if id(m.instance) in done:
                    m.busy = False

    def _pick(self, bot: int, seed: int, most: int) -> I:
        members = self._members[bot]
        free = [m for m in members if not m.busy]
        member = next((m for m in free if seed not in m.seen), None)
        if member is None:
            if len(members) >= most and free:
                retired = min(free, key=lambda m: m.used)
                retired.instance.stop()
                members.remove(retired)
            member = self._new(bot)
        member.busy, member.used = True, next(self._clock)
        member.seen[seed] = None
        if len(member.seen) > SEEN_KEPT:
            member.seen.popitem(last=False)
        return member.instance

    def _new(self, bot: int) -> _Member[I]:
        n = self._created[bot]
        self._created[bot] += 1
        instance = self._make(self._specs[bot], self._first + n % self._slots, n // self._slots)
        member = _Member(instance)
        self._members[bot].append(member)
        return member
