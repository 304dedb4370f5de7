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
from itertools import combinations


def seatings(n_bots: int, players: int, games: int) -> Iterator[tuple[int, ...]]:
    """Bot index per seat, for each of ``games`` games."""
    subsets = list(combinations(range(n_bots), players))
    for g in range(games):
        subset = subsets[(g // players) % len(subsets)]
        shift = g % players
        yield tuple(subset[(i + shift) % players] for i in range(players))


def game_seed(run_seed: int, game: int) -> int:
    """The seed of game ``game`` of a run: independent of everything but the two."""
    return random.Random(f"{run_seed}/game/{game}").getrandbits(63)


def seat_seed(game_seed_: int, seat: int) -> int:
    """The seed a seat's bot is given for one game."""
    return random.Random(f"{game_seed_}/seat/{seat}").getrandbits(63)
