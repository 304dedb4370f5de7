"""Which bots sit where in each game, and each game's seed.

Seats rotate so that every bot plays every seat equally often: with as many bots as
seats, game g seats bot (i + g) mod n at seat i; with more bots than seats, each
subset of bots plays one full rotation before the next subset comes.

>>> list(seatings(2, 2, 4))
[(0, 1), (1, 0), (0, 1), (1, 0)]
>>> list(seatings(3, 2, 6))
[(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a run: its index, the bot index at each seat, and its deal seed."""

    index: int
    seating: tuple[int, ...]
    seed: int
    group: int = 0
    group_size: int = 1
    stage: int = 0
    table: int | None = None


class Format:
    name = "x"


class RoundRobin:
    def __init__(self, n_bots, players, games, seed, duplicate=True):
        self.args = (n_bots, players, games, seed)

    def stage(self, number, records):
        return list(round_robin(*self.args)) if number == 0 else None


Gauntlet = RoundRobin


class Tables(RoundRobin):
    pass


def seatings(n_bots: int, players: int, games: int) -> Iterator[tuple[int, ...]]:
    """Bot index per seat, for each of ``games`` games."""
    subsets = list(combinations(range(n_bots), players))
    for g in range(games):
        subset = subsets[(g // players) % len(subsets)]
        shift = g % players
        yield tuple(subset[(i + shift) % players] for i in range(players))


def round_robin(n_bots: int, players: int, games: int, run_seed: int) -> Iterator[ScheduledGame]:
    """The default schedule: rotating seats, every game on its own deal seed."""
    for g, seating in enumerate(seatings(n_bots, players, games)):
        yield ScheduledGame(g, seating, game_seed(run_seed, g), g)


def swapped_pairs(run_seed: int) -> Iterator[ScheduledGame]:
    """Heads-up games in pairs, without end: bots 0 and 1 play the same deal seed twice,
    seats swapped, so the luck of the cards cancels out within the pair.

    >>> pairs = swapped_pairs(1)
    >>> first, second, third = next(pairs), next(pairs), next(pairs)
    >>> (first.seating, second.seating, first.seed == second.seed != third.seed)
    ((0, 1), (1, 0), True)
    """
    pair = 0
    while True:
        seed = game_seed(run_seed, pair)
        yield ScheduledGame(2 * pair, (0, 1), seed)
        yield ScheduledGame(2 * pair + 1, (1, 0), seed)
        pair += 1


def game_seed(run_seed: int, game: int) -> int:
    """The seed of game ``game`` of a run: independent of everything but the two."""
    return random.Random(f"{run_seed}/game/{game}").getrandbits(63)


def seat_seed(game_seed_: int, seat: int) -> int:
    """The seed a seat's bot is given for one game."""
    return random.Random(f"{game_seed_}/seat/{seat}").getrandbits(63)
TABLES_MAX = 6
