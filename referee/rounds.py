"""Tables for a large field, a round at a time: only as many as the games asked for.

A balanced design of a large field is too big to build for a run that plays a few games
per bot (200 bots at tables of 4: 49,750 tables, where 8 games each need 100), so a
field of more than LARGE_FIELD bots is seated in *rounds* instead, made on demand:

- a round seats every bot once (the ``n % k`` who have played most sit it out), so at
  the end of every round the bots' numbers of tables differ by at most one, and by at
  most one more within a round;
- its tables are chosen so that pairs meet as evenly as they can: greedily (each table
  takes the free bot that has met its members least), then improved by swapping bots
  between tables while that lowers the sum of the squared meeting counts. Until every
  bot has met every other once no pair meets twice where the search finds a way round
  it; the tests state the spread they hold;
- seats are balanced by the groups (``referee.schedule.table_seatings``), not here.

Everything is drawn from ``random.Random(f"{seed}/{tag}/rounds")``: the same arguments
give the same tables, which is what ``referee resume`` relies on.

>>> from itertools import islice
>>> tables = list(islice(round_tables(range(8), 4, seed=1, tag="t"), 4))
>>> sorted(p for t in tables[:2] for p in t)  # the first round seats all 8 once
[0, 1, 2, 3, 4, 5, 6, 7]
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np

Block = tuple[int, ...]

# Fields larger than this are seated in rounds; smaller ones by the balanced design cycle
# (``referee.schedule.table_cycle``), whose search is tuned for up to this many bots.
LARGE_FIELD = 40
# A pair of one class (``referee.entrants.author_classes``): as if it had met this often,
# so the search seats it only where nothing else is left (``keep_apart`` drops the table).
APART = 1_000
# Passes of the swap search over a round's tables (each stops early when nothing improves).
SWAP_PASSES = 4


def design_for(points: int) -> str:
    """The design a new run seats ``points`` bots with: ``rounds`` for a large field,
    else ``cycle`` (the one every run recorded before rounds existed uses)."""
    return "rounds" if points > LARGE_FIELD else "cycle"


def round_tables(points: Sequence[int], k: int, seed: int, tag: str,
                 apart: Sequence[int] | None = None) -> Iterator[Block]:
    """Tables of ``k`` among ``points``, round after round, without end; ``apart[bot]``
    (if given) is a class whose bots should not share a table."""
    if not 1 <= k <= len(points):
        raise ValueError(f"tables of {k} cannot be made from {len(points)} bots")
    n = len(points)
    rng = random.Random(f"{seed}/{tag}/rounds")
    met = np.zeros((n, n), dtype=np.int64)
    if apart is not None:
        cls = np.array([apart[p] for p in points])
        met[cls[:, None] == cls[None, :]] = APART
    np.fill_diagonal(met, 0)
    played = np.zeros(n, dtype=np.int64)
    while True:
        order = rng.sample(range(n), n)  # ties broken at random, then fewest tables first
        order.sort(key=lambda p: played[p])
        tables = _improve(_greedy(order[:n - n % k], k, met), met, rng)
        tables.sort(key=lambda t: int(played[t].sum()))  # the least played play first
        for table in tables:
            for a, b in combinations(table, 2):
                met[a, b] += 1
                met[b, a] += 1
            played[table] += 1
            yield tuple(points[p] for p in table)


def _greedy(seated: list[int], k: int, met: np.ndarray) -> list[list[int]]:
    """Tables of ``k`` from ``seated`` (in its order): each opened by the first free bot,
    then filled by the free bot that has met its members least (at most, then in all;
    the earliest in ``seated`` of equals)."""
    free = list(seated)
    tables = []
    while free:
        table = [free.pop(0)]
        while len(table) < k:
            seen = met[np.ix_(free, table)]
            table.append(free.pop(int(np.lexsort((seen.sum(axis=1), seen.max(axis=1)))[0])))
        tables.append(table)
    return tables


def _improve(tables: list[list[int]], met: np.ndarray, rng: random.Random
             ) -> list[list[int]]:
    """Swap bots between tables while a swap lowers the round's sum of squared meeting
    counts. A bot whose mates it has all met least often (the floor) is not moved for
    its own sake (the others' moves may still move it)."""
    k, size = len(tables[0]), len(tables)
    if size < 2:
        return tables
    seated = np.array([p for t in tables for p in t])
    where = np.repeat(np.arange(size), k)  # each position's table
    same = where[:, None] == where[None, :]
    cost = met[np.ix_(seated, seated)] ** 2  # by position in ``seated``
    floor = cost[~np.eye(len(seated), dtype=bool)].min()
    for _ in range(SWAP_PASSES):
        improved = False
        for t in rng.sample(range(size), size):
            for i in range(t * k, t * k + k):
                mates = same[i].copy()
                mates[i] = False
                if cost[i, mates].max() <= floor:
                    continue
                # Swapping the bots at i and j: i's bot takes j's mates and j's bot i's.
                own = (cost * same).sum(axis=1)  # each bot's cost at its table
                gain = (np.bincount(where, weights=cost[i], minlength=size)[where] - cost[i]
                        + cost[:, mates].sum(axis=1) - own[i] - own)
                gain[same[i]] = np.inf
                j = int(np.argmin(gain))
                if gain[j] < 0:
                    seated[[i, j]] = seated[[j, i]]
                    cost[[i, j]] = cost[[j, i]]
                    cost[:, [i, j]] = cost[:, [j, i]]
                    improved = True
        if not improved:
            break
    return [seated[t * k:t * k + k].tolist() for t in range(size)]
