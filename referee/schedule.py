"""Which bots sit where in each game, and each game's deal seed.

A schedule is a list of :class:`ScheduledGame`. Three formats make them (the tables
format lives in :mod:`referee.bracket`); each is a :class:`Format` whose ``stage(number,
records)`` is a pure function of its arguments:

- :class:`RoundRobin`: tables of ``players`` seats among all the bots, balanced so that
  every pair of bots meets equally often and every bot sits in every seat equally often.
- :class:`Gauntlet`: each candidate bot against the same tables of field bots, on the
  same deals.

Duplicate deals: a *group* replays one deal seed with the seats rotated (all seat orders
for tables of 2 or 3), so every bot of the table gets every seat's cards equally often
and the luck of the deal cancels out within the group. A run's requested number of games is
rounded up to whole groups; statistics use complete groups only
(``leaderboards.complete_groups``).

>>> games = RoundRobin(n_bots=3, players=2, games=5, seed=1).stage(0, [])
>>> len(games)  # 5 rounded up to whole groups of 2
6
>>> first, second = games[0], games[1]
>>> (first.group, second.group, first.seed == second.seed, second.seating == first.seating[::-1])
(0, 0, True, True)
>>> RoundRobin(3, 2, 5, seed=1).stage(1, games) is None
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, islice, permutations
from typing import Any, Protocol

import numpy as np

Record = Mapping[str, Any]
Block = tuple[int, ...]

# Tables this small replay their deal in every seat order, not only the rotations: at a
# 3-seat table a rotation keeps who plays after whom, all six orders do not.
ALL_ORDERS_UP_TO = 3
# The local search for a difference family: candidate families tried (smallest first)
# and steps spent on each before the next. Enough to find one for every table of 3 to
# 8 seats among up to 40 bots (a second or two at worst, once per process).
DESIGN_CANDIDATES = 8
DESIGN_STEPS = 10_000
# All the subsets are used (when they fit in the budget, or when no smaller design is
# found) up to this many tables: ordering them for balance costs time quadratic in it.
MAX_ALL_SUBSETS = 2_000
# Tables in a row that ``keep_apart`` may skip before it calls a field impossible to seat.
APART_SKIPS = 10_000
# Runs recorded before deal secrets (no ``deals`` in config.json) journalled each game's
# 63-bit draw whole; today's seed is that draw shifted right by this much (53 bits).
LEGACY_SEED_SHIFT = 10


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a run.

    ``index`` is the game's stable position in the run's schedule (0.., across stages);
    ``seating`` the bot index at each seat; ``seed`` the deal seed, shared by every game
    of a duplicate group; ``group`` the group's id (unique in the run) and ``group_size``
    its number of games (1 without duplicate deals); ``stage`` and ``table`` place the
    game in a tables tournament (0 and None elsewhere).
    """

    index: int
    seating: tuple[int, ...]
    seed: int
    group: int
    group_size: int
    stage: int = 0
    table: int | None = None


class Format(Protocol):
    """A tournament format: the games of each stage, given the results of the earlier ones."""

    name: str

    def stage(self, number: int, records: Sequence[Record]) -> list[ScheduledGame] | None:
        """The games of stage ``number`` (0, 1, ...), given the journal records of all games
        of the earlier stages; None when the tournament is over. Pure: same inputs, same
        output."""
        ...


# --------------------------------------------------------------------------- groups


def table_seatings(bots: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The seatings of one duplicate group of a table: every seat order for 2 or 3 bots,
    the rotations for more. Each bot takes every seat equally often.

    >>> table_seatings((4, 7))
    ((4, 7), (7, 4))
    >>> table_seatings((1, 2, 3, 4))
    ((1, 2, 3, 4), (2, 3, 4, 1), (3, 4, 1, 2), (4, 1, 2, 3))
    """
    k = len(bots)
    if k <= ALL_ORDERS_UP_TO:
        return tuple(permutations(bots))
    return tuple(tuple(bots[(seat + shift) % k] for seat in range(k)) for shift in range(k))


def group_units(seatings: tuple[tuple[int, ...], ...],
                duplicate: bool) -> list[tuple[tuple[int, ...], ...]]:
    """The groups one table's seatings make: one group of them all on one deal, or (no
    duplicate deals) one group per game."""
    return [seatings] if duplicate else [(s,) for s in seatings]


def games_from_groups(groups: Iterable[tuple[tuple[tuple[int, ...], ...], int | None]],
                      run_seed: int, *, share: int = 1, first_index: int = 0,
                      first_group: int = 0, stage: int = 0) -> list[ScheduledGame]:
    """Number the games of ``groups`` (each its seatings and its table) in order.

    Group ``g`` is dealt ``game_seed(run_seed, g // share)``: ``share`` consecutive groups
    play the same deal (the gauntlet's candidates), otherwise every group its own.
    """
    games: list[ScheduledGame] = []
    for group, (seatings, table) in enumerate(groups, first_group):
        seed = game_seed(run_seed, group // share)
        for seating in seatings:
            games.append(ScheduledGame(first_index + len(games), seating, seed, group,
                                       len(seatings), stage, table))
    return games


# --------------------------------------------------------------------------- designs


def table_cycle(n: int, k: int, all_subsets: bool = False) -> tuple[Block, ...]:
    """One cycle of tables of ``k`` among points ``0..n-1``, ordered for balance.

    Over the whole cycle every pair of points shares a table equally often and every
    point has equally many tables. The family is all the k-subsets when ``all_subsets``
    and they are at most MAX_ALL_SUBSETS, otherwise the smallest one found of:

    - all the k-subsets (always balanced; the fallback, and the answer for k = 1, 2,
      n - 1, n and wherever nothing smaller exists);
    - a cyclic design: base blocks developed mod n whose differences cover every nonzero
      residue equally often (n = 7, k = 3 gives the Fano plane's 7 tables);
    - a 1-rotational design: base blocks developed mod n - 1 plus a fixed point
      (n = 8, k = 4 gives 14 tables, not 70).

    Base blocks come from a small deterministic local search (smallest families first,
    a bounded number of steps each). When none is found and there are more than
    MAX_ALL_SUBSETS k-subsets this is a ValueError.

    The order keeps every point's number of tables within one of every other point's at
    every prefix where a bounded search finds such an order, else within two, three, ...
    For k = 2 it is the circle method: rounds in which every point plays at most once.

    >>> from collections import Counter
    >>> cycle = table_cycle(7, 3)  # the Fano plane: every pair of points once
    >>> len(cycle), set(Counter(p for t in cycle for p in combinations(t, 2)).values())
    (7, {1})
    """
    if not 1 <= k <= n:
        raise ValueError(f"tables of {k} cannot be made from {n} bots")
    return _ordered_cycle(n, k, all_subsets)


@cache
def _ordered_cycle(n: int, k: int, all_subsets: bool) -> tuple[Block, ...]:
    if k == 2:
        return _circle_method(n)
    if all_subsets and math.comb(n, k) <= MAX_ALL_SUBSETS:
        blocks = list(combinations(range(n), k))
    else:
        blocks = _smallest_design(n, k)
    return _balanced_order(blocks, n)


def _circle_method(n: int) -> tuple[Block, ...]:
    """All pairs in rounds: point n-1 (or a bye, for odd n) stays, the others rotate."""
    m = n + n % 2
    ring = list(range(m))
    pairs: list[Block] = []
    for _ in range(m - 1):
        for i in range(m // 2):
            a, b = ring[i], ring[m - 1 - i]
            if max(a, b) < n:  # point n is the bye of an odd field
                pairs.append((min(a, b), max(a, b)))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return tuple(pairs)


def _smallest_design(n: int, k: int) -> list[Block]:
    total = math.comb(n, k)
    for _, kind, modulus, bases, with_inf, lam in _design_candidates(n, k)[:DESIGN_CANDIDATES]:
        rng = random.Random(f"design/{n}/{k}/{kind}/{lam}")
        found = _difference_family(modulus, k, bases, with_inf, lam, rng)
        if found is not None:
            return [tuple(sorted((x + t) % modulus for x in base))
                    + ((modulus,) if i < with_inf else ())
                    for i, base in enumerate(found) for t in range(modulus)]
    if total > MAX_ALL_SUBSETS:
        raise ValueError(f"no balanced schedule of {k}-seat tables among {n} bots was found "
                         f"and all {total} tables are too many; use fewer bots, another "
                         "table size, or the tables format")
    return list(combinations(range(n), k))


def _design_candidates(n: int, k: int) -> list[tuple[int, str, int, int, int, int]]:
    """(tables, kind, modulus, base blocks, base blocks holding the fixed point, lambda)
    for each cyclic and 1-rotational family with fewer tables than all the k-subsets,
    smallest first. Their sizes follow from counting differences: a base block of k
    points gives k(k-1) of them, and the n-1 (cyclic) or n-2 (1-rotational) nonzero
    residues must each be covered lambda times."""
    if k < 3 or k >= n - 1:
        return []
    total = math.comb(n, k)
    found = []
    g = math.gcd(k * (k - 1), n - 1)
    for j in range(1, total):
        bases = j * (n - 1) // g
        if n * bases >= total:
            break
        found.append((n * bases, "cyclic", n, bases, 0, j * k * (k - 1) // g))
    for j in range(1, total):
        with_inf = j * k // math.gcd(k, n)
        bases = with_inf * n // k
        if (n - 1) * bases >= total:
            break
        found.append(((n - 1) * bases, "1-rotational", n - 1, bases, with_inf,
                      with_inf * (k - 1)))
    return sorted(found)


def _difference_family(modulus: int, k: int, bases: int, with_inf: int, lam: int,
                       rng: random.Random) -> list[list[int]] | None:
    """Base blocks mod ``modulus`` (the first ``with_inf`` of them with k-1 residues and
    the fixed point) covering every nonzero difference exactly ``lam`` times, by
    min-conflicts local search; None when DESIGN_STEPS steps do not find them."""
    sizes = [k - 1 if i < with_inf else k for i in range(bases)]
    blocks = [[0, *rng.sample(range(1, modulus), s - 1)] for s in sizes]
    count = [0] * modulus
    for block in blocks:
        for x, y in permutations(block, 2):
            count[(x - y) % modulus] += 1
    count[0] = lam
    # Every block keeps residue 0 (a translate is the same orbit); the others move.
    slots = [(i, j) for i, s in enumerate(sizes) for j in range(1, s)]

    def cost(y: int, others: list[int]) -> int:
        """About how much adding residue y to a block of ``others`` raises the squared
        excess of the counts (exactly, unless two of its new differences coincide)."""
        total = 0
        for z in others:
            d1, d2 = (y - z) % modulus, (z - y) % modulus
            if d1 == d2:
                total += 4 * (count[d1] - lam) + 4
            else:
                total += 2 * (count[d1] + count[d2] - 2 * lam) + 2
        return total

    for _ in range(DESIGN_STEPS):
        if all(c == lam for c in count):
            return blocks
        if not slots:
            return None
        i, j = rng.choice(slots)
        block = blocks[i]
        x = block[j]
        others = [z for z in block if z != x]
        for z in others:
            count[(x - z) % modulus] -= 1
            count[(z - x) % modulus] -= 1
        free = [y for y in range(1, modulus) if y not in others]
        costs = [cost(y, others) for y in free]
        best = min(costs)
        y = rng.choice([y for y, c in zip(free, costs, strict=True) if c == best])
        for z in others:
            count[(y - z) % modulus] += 1
            count[(z - y) % modulus] += 1
        block[j] = y
    return blocks if all(c == lam for c in count) else None


def _balanced_order(blocks: Sequence[Block], n: int) -> tuple[Block, ...]:
    """The blocks ordered so that the points' counts stay close at every prefix: the
    tightest slack (1, 2, 3) a bounded depth-first search reaches, else greedily."""
    table = np.array(blocks, dtype=np.int64)
    limit = 2 * len(blocks) + 100
    for slack in (1, 2, 3):
        order = _order_within(table, n, slack, limit)
        if order is not None:
            return tuple(blocks[i] for i in order)
    order = _order_within(table, n, None, None)
    assert order is not None  # without a slack every block is a candidate
    return tuple(blocks[i] for i in order)


def _order_within(table: np.ndarray, n: int, slack: int | None,
                  limit: int | None) -> list[int] | None:
    """Depth-first: the next block is the one whose points have played least (fewest
    tables at its busiest point, then in all), among those that keep max - min of the
    counts within ``slack``; None past ``limit`` steps."""
    counts = np.zeros(n, dtype=np.int64)
    used = np.zeros(len(table), dtype=bool)
    order: list[int] = []

    def candidates() -> list[int]:
        per_point = counts[table]
        busiest, played = per_point.max(axis=1), per_point.sum(axis=1)
        ok = ~used
        if slack is not None:
            low = counts.min()
            lifts = (per_point == low).sum(axis=1) == (counts == low).sum()
            ok &= np.maximum(counts.max(), busiest + 1) - (low + lifts) <= slack
        idx = np.flatnonzero(ok)
        best_first = idx[np.lexsort((idx, played[idx], busiest[idx]))]
        return best_first[::-1].tolist()  # popped from the end

    stack = [candidates()]
    steps = 0
    while len(order) < len(table):
        steps += 1
        if limit is not None and steps > limit:
            return None
        if not stack[-1]:
            stack.pop()
            if not order:
                return None
            back = order.pop()
            used[back] = False
            counts[table[back]] -= 1
            continue
        nxt = stack[-1].pop()
        used[nxt] = True
        counts[table[nxt]] += 1
        order.append(nxt)
        stack.append(candidates())
    return order


def cycles(points: Sequence[int], k: int, all_subsets: bool, seed: int,
           tag: str) -> Iterator[Block]:
    """Tables of ``k`` among ``points``, one :func:`table_cycle` after another, each cycle
    with the points relabelled by a fresh permutation drawn from ``seed``: balanced at
    the end of every cycle, and different tables from one cycle to the next where the
    design is not all the subsets."""
    cycle = table_cycle(len(points), k, all_subsets)
    number = 0
    while True:
        labels = list(points)
        random.Random(f"{seed}/{tag}/cycle/{number}").shuffle(labels)
        for block in cycle:
            yield tuple(labels[p] for p in block)
        number += 1


def keep_apart(tables: Iterator[Block], apart: Sequence[int] | None,
               points: Sequence[int], k: int) -> Iterator[Block]:
    """The tables of ``tables`` that seat no two bots of one class (``apart[bot]``: bots of
    one author share a class, ``referee.entrants``); all of them when ``apart`` is None.
    ValueError when ``points`` have fewer than ``k`` classes, or too many tables in a row
    must be skipped. What is skipped costs those bots games; the pairs that may meet still
    meet as evenly as the design seats them."""
    if apart is None:
        yield from tables
        return
    if len({apart[p] for p in points}) < k:
        raise ValueError(f"tables of {k} cannot keep the bots of one author apart: there "
                         "are fewer authors than seats (--allow-same-author lets them meet)")
    skipped = 0
    for table in tables:
        if len({apart[b] for b in table}) == len(table):
            skipped = 0
            yield table
        else:
            skipped += 1
            if skipped > APART_SKIPS:
                raise ValueError(f"no table of {k} keeps the bots of one author apart often "
                                 "enough (--allow-same-author lets them meet)")


# --------------------------------------------------------------------------- formats


def _check_table(n_bots: int, players: int, games: int) -> None:
    if players < 2:
        raise ValueError(f"a table needs at least 2 players, not {players}")
    if n_bots < players:
        raise ValueError(f"{n_bots} bots cannot fill a table of {players}")
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")


class RoundRobin:
    """Every bot against every other, at tables of ``players`` seats, in one stage.

    The tables of each cycle come from :func:`table_cycle`: all the ``players``-subsets
    of the bots when they fit in the budget (C(n_bots, players) tables of
    ``len(table_seatings)`` games each, at most ``games``), otherwise the smallest
    balanced design found. Each table is one duplicate group (or, with
    ``duplicate=False``, the same seatings each on its own deal). ``games`` is rounded
    up to whole groups, so every group is complete; ``self.games`` is the result.
    Balance (pairs, seats, games per bot) is exact at the end of every cycle; the order
    keeps the bots' numbers of tables close at every prefix; later cycles relabel the
    bots afresh and have fresh deals.

    >>> rr = RoundRobin(n_bots=7, players=3, games=40, seed=5)
    >>> rr.games, len({frozenset(g.seating) for g in rr.stage(0, [])})  # the Fano plane
    (42, 7)
    """

    name = "round-robin"

    def __init__(self, n_bots: int, players: int, games: int, seed: int,
                 duplicate: bool = True, apart: Sequence[int] | None = None) -> None:
        """``apart``: bots of one class never share a table (``keep_apart``)."""
        _check_table(n_bots, players, games)
        self.n_bots, self.players, self.seed, self.duplicate = n_bots, players, seed, duplicate
        per_table = len(table_seatings(range(players)))
        all_subsets = math.comb(n_bots, players) * per_table <= games
        tables = keep_apart(cycles(range(n_bots), players, all_subsets, seed, "round-robin"),
                            apart, range(n_bots), players)
        unit = per_table if duplicate else 1
        groups = (group for bots in tables
                  for group in group_units(table_seatings(bots), duplicate))
        self._games = games_from_groups(
            ((group, None) for group in islice(groups, -(-games // unit))), seed)
        self.games = len(self._games)

    def stage(self, number: int, records: Sequence[Record]) -> list[ScheduledGame] | None:
        return _single_stage(number, self._games)


class Gauntlet:
    """Candidates (bots ``0..candidates-1``) each against the field (the others).

    Every table is one candidate and ``players - 1`` field bots; the field's tables come
    from :func:`table_cycle` over the field (so field pairs and seats are balanced), and
    every candidate plays every one of them on the same deal seeds, so candidates are
    compared on the same cards. The candidates' groups for one field table are
    consecutive. ``games`` (all candidates together) is rounded up to whole groups for
    every candidate; ``self.games`` is the result. With ``duplicate=False`` each game of
    a candidate has its own deal, and the matching game of every other candidate the
    same one.

    >>> games = Gauntlet(candidates=2, n_bots=5, players=3, games=24, seed=3).stage(0, [])
    >>> first, second = games[0], games[6]  # the first game of each candidate's first group
    >>> first.seating, second.seating, first.seed == second.seed, (first.group, second.group)
    ((0, 4, 3), (1, 4, 3), True, (0, 1))
    """

    name = "gauntlet"

    def __init__(self, candidates: int, n_bots: int, players: int, games: int, seed: int,
                 duplicate: bool = True, apart: Sequence[int] | None = None) -> None:
        """``apart``: field bots of one class never share a table (``keep_apart``; a
        candidate of a field bot's class is refused earlier, ``referee.entrants``)."""
        _check_table(n_bots, players, games)
        if not 1 <= candidates < n_bots - players + 2:
            raise ValueError(f"{candidates} candidates among {n_bots} bots leave too small "
                             f"a field for tables of {players}")
        self.candidates, self.n_bots, self.players = candidates, n_bots, players
        self.seed, self.duplicate = seed, duplicate
        field = range(candidates, n_bots)
        per_table = len(table_seatings(range(players)))
        all_subsets = math.comb(len(field), players - 1) * per_table * candidates <= games
        tables = keep_apart(cycles(field, players - 1, all_subsets, seed, "gauntlet"), apart,
                            field, players - 1)
        unit = (per_table if duplicate else 1) * candidates
        groups = islice(self._groups(tables), -(-games // unit) * candidates)
        self._games = games_from_groups(((group, None) for group in groups), seed,
                                        share=candidates)
        self.games = len(self._games)

    def _groups(self, tables: Iterator[Block]) -> Iterator[tuple[tuple[int, ...], ...]]:
        for field_bots in tables:
            units = [group_units(table_seatings((c, *field_bots)), self.duplicate)
                     for c in range(self.candidates)]
            for same_deal in zip(*units, strict=True):
                yield from same_deal

    def stage(self, number: int, records: Sequence[Record]) -> list[ScheduledGame] | None:
        return _single_stage(number, self._games)


def _single_stage(number: int, games: list[ScheduledGame]) -> list[ScheduledGame] | None:
    if number < 0:
        raise ValueError(f"no stage {number}")
    return list(games) if number == 0 else None


# --------------------------------------------------------------------------- runner, verify, sprt


def swapped_pairs(run_seed: int) -> Iterator[ScheduledGame]:
    """Heads-up games in pairs, without end: bots 0 and 1 play the same deal seed twice,
    seats swapped, so the luck of the cards cancels out within the pair (a group).

    >>> pairs = swapped_pairs(1)
    >>> first, second, third = next(pairs), next(pairs), next(pairs)
    >>> (first.seating, second.seating, first.seed == second.seed != third.seed)
    ((0, 1), (1, 0), True)
    >>> (first.group, second.group, third.group, first.group_size)
    (0, 0, 1, 2)
    """
    pair = 0
    while True:
        yield from games_from_groups([(table_seatings((0, 1)), None)], run_seed,
                                     first_index=2 * pair, first_group=pair)
        pair += 1


def game_seed(run_seed: int, game: int) -> int:
    """The seed of game (or duplicate group) ``game`` of a run: independent of everything
    but the two, and below 2^53 so that JavaScript reads it exactly. (It is the top 53
    bits of the 63-bit draw that runs before deal secrets journalled whole: see
    LEGACY_SEED_SHIFT.) A run's deal secret, if it has one, turns it into the engine's
    seed, and into each bot's (``referee.deals``)."""
    return random.Random(f"{run_seed}/game/{game}").getrandbits(63) >> LEGACY_SEED_SHIFT
