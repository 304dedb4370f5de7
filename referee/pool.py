"""Which bot process plays each game: started when a table needs it, ended when no game
soon does, and never one that has already seen the game's deal.

Processes are in proportion to the games in play, not to the field: a bot has no process
until a table seats it. When a table asks for a seat, the pool takes, among that bot's
processes not busy in another game, the first (in order of creation) that has not played
the game's deal; if there is none, it makes a new one (``make``: the caller starts it,
and the table waits for its hello while the other tables play on).

Every round ends with every hand revealed, and in duplicate deals a group replays one
deal with the seats rotated: a process that played game 1 of a group would know every
seat's cards when it met that deal again in game 2. So a process is never seated for a
deal it has seen.

When a game ends its processes become idle. An idle process is kept (warm) only while
its bot is in one of the next games (``release``'s ``soon``), and at most ``warm`` idle
processes are kept in all (the least recently used are ended first). So at any moment
the bot processes number at most the seats in play (``concurrency x players``, those
starting included) plus ``warm``. An ended process is told ``bye`` (``retire``).

The ``n``-th process of a bot in this pool (from 0) is made for slot ``first_slot + n %
slots``, generation ``n // slots``, so (slot, generation) is unique across the workers of
a run, since each worker numbers from its own first slot. The runner labels them
``<bot>.<slot>`` and ``<bot>.<slot>.<generation>``.

>>> from types import SimpleNamespace as NS
>>> class Fake:
...     def __init__(self, spec, slot, generation=0):
...         self.spec, self.number, self.stopped = spec, (slot, generation), False
...     def retire(self): self.stopped = True
>>> pool = BotPool([NS(name="a")], Fake, first_slot=0, slots=2, warm=1)
>>> game = NS(seating=(0,), seed=7)
>>> [i.number for i in pool.seat(game)]
[(0, 0)]
>>> [i.number for i in pool.seat(game)]  # (0, 0) has seen seed 7, and is busy besides
[(1, 0)]
>>> pool.release(pool.instances, soon={0})  # one is kept warm, the other ended
>>> [i.number for i in pool.instances]
[(1, 0)]
>>> [i.number for i in pool.seat(NS(seating=(0,), seed=8))]
[(1, 0)]
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Generic, Protocol, TypeVar

# Deals a process is known to have played, newest kept. The games of one deal are
# consecutive in every schedule, so far fewer would do; the bound only keeps a long
# run's memory flat.
SEEN_KEPT = 1024


class Instance(Protocol):
    spec: Any

    def retire(self) -> None: ...


I = TypeVar("I", bound=Instance)  # noqa: E741
T = TypeVar("T")


@dataclass(eq=False)
class _Member(Generic[I]):
    instance: I
    bot: int
    busy: bool = False
    used: int = 0  # when it was last seated (a counter)
    seen: OrderedDict[int, None] = field(default_factory=OrderedDict)  # deal seeds


class BotPool(Generic[I]):
    """The processes of each bot of a runner; see the module."""

    def __init__(self, specs: Sequence[Any], make: Callable[[Any, int, int], I],
                 first_slot: int, slots: int, warm: int):
        """``specs``: the run's bots, in order; ``make(spec, slot, generation)`` a new
        instance (the caller decides when its process starts); ``slots``: the runner's
        games at once; ``warm``: idle processes kept at most."""
        self._make, self._first, self._slots, self._warm = make, first_slot, slots, warm
        self._specs = list(specs)
        self._members: list[_Member[I]] = []
        self._created = [0] * len(self._specs)  # per bot, labels used so far
        self._clock = count(1)

    @property
    def instances(self) -> list[I]:
        """Every instance in the pool, busy or idle."""
        return [m.instance for m in self._members]

    @property
    def busy(self) -> int:
        return sum(m.busy for m in self._members)

    def seat(self, game: Any) -> list[I]:
        """The instances, one per seat of ``game`` (its ``seating`` and ``seed``), now
        busy until ``release``."""
        return [self._pick(bot, game.seed) for bot in game.seating]

    def adopt(self, instance: I, bot: int) -> None:
        """Take in an idle instance of bot number ``bot`` made by the caller."""
        self._created[bot] += 1
        self._members.append(_Member(instance, bot))

    def release(self, instances: Iterable[I], soon: Collection[int]) -> None:
        """Their game is over: they may be seated again, if their bot is in ``soon``
        (bot numbers of the next games) and the warm pool has room; the others end."""
        done = {id(i) for i in instances}
        for m in self._members:
            if id(m.instance) in done:
                m.busy = False
        idle = sorted((m for m in self._members if not m.busy), key=lambda m: -m.used)
        ended = [m for m in idle if m.bot not in soon] + \
            [m for m in idle if m.bot in soon][self._warm:]
        for m in ended:
            m.instance.retire()
        gone = {id(m) for m in ended}
        self._members = [m for m in self._members if id(m) not in gone]

    def _pick(self, bot: int, seed: int) -> I:
        member = next((m for m in self._members
                       if m.bot == bot and not m.busy and seed not in m.seen), None)
        if member is None:
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
        member = _Member(instance, bot)
        self._members.append(member)
        return member


class Lookahead(Generic[T]):
    """The next few games of a source in view: ``soon`` tells the pool which bots to keep
    warm, and ``take`` hands out the first game that seats none of the bots busy at other
    tables (or else the first): the games of one table follow each other in a schedule,
    and played at once each would need processes of its own. ``None`` from the source
    (no game ready yet) is never held."""

    def __init__(self, source: Iterator[T | None], size: int, seating: Callable[[T], Any]):
        self._source, self._size, self._seating = source, size, seating
        self._held: deque[T] = deque()
        self._exhausted = False

    @property
    def exhausted(self) -> bool:
        """No game is held and the source has no more."""
        self._fill()
        return self._exhausted and not self._held

    def take(self, busy: Collection[int]) -> T | None:
        """The next game to play, preferring one without a bot of ``busy``; None if no
        game is ready."""
        self._fill()
        for i, game in enumerate(self._held):
            if not any(bot in busy for bot in self._seating(game)):
                del self._held[i]
                return game
        return self._held.popleft() if self._held else None

    def soon(self) -> set[int]:
        """The bot numbers of the games held."""
        self._fill()
        return {bot for game in self._held for bot in self._seating(game)}

    def _fill(self) -> None:
        while not self._exhausted and len(self._held) < self._size:
            try:
                game = next(self._source)
            except StopIteration:
                self._exhausted = True
                return
            if game is None:
                return
            self._held.append(game)
