"""A large field's tables, a round at a time (``referee.rounds``), and the runs that
use them: schedule-level, no processes.

- 200 entrants at tables of 4 with ``--games-per-bot 8``: 100 tables drawn from the
  rounds (no balanced design built), every bot 8 games, 2 in every seat, no pair twice.
- Balance over a long run: games per bot within 1 at every round's end and 2 at every
  prefix; pairs within 2 of each other (within 1 while no pair need meet twice).
- Deterministic from the seed; one author's bots kept apart.
- A run recorded before designs (no ``design`` in config.json) keeps its cycles.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, islice

import numpy as np

from referee.entrants import games_for_each, share_line, total_games
from referee.rounds import LARGE_FIELD, design_for, round_tables
from referee.schedule import RoundRobin, _ordered_cycle
from referee.tournament import make_format


def meetings(tables: list[tuple[int, ...]], n: int) -> np.ndarray:
    """How often each pair of ``0..n-1`` shares a table (off the diagonal, flattened)."""
    met = np.zeros((n, n), dtype=np.int64)
    for table in tables:
        for a, b in combinations(table, 2):
            met[a, b] += 1
            met[b, a] += 1
    return met[~np.eye(n, dtype=bool)]


def test_200_entrants_8_games_each_draw_only_the_tables_they_play() -> None:
    n, players, each, seed = 200, 4, 8, 11
    assert design_for(n) == "rounds"
    built = _ordered_cycle.cache_info().misses
    games = total_games("round-robin", n, players, 0, 0, each, None)
    games = games_for_each(lambda g: RoundRobin(n, players, g, seed, design="rounds")
                           .stage(0, []), games, players, 0, each)
    schedule = RoundRobin(n, players, games, seed, design="rounds").stage(0, [])
    assert _ordered_cycle.cache_info().misses == built  # no balanced design was built
    # The work: 100 tables of 4 games, the first 100 the rounds give (two rounds).
    assert games == len(schedule) == 400
    tables = [g.seating for g in schedule if g.index % players == 0]
    assert tables == list(islice(round_tables(range(n), players, seed, "round-robin"), 100))
    assert share_line(schedule, n, 0) == "games per bot: 8 each"
    seats = Counter((bot, seat) for g in schedule for seat, bot in enumerate(g.seating))
    assert set(seats.values()) == {2} and len(seats) == n * players
    assert meetings(tables, n).max() == 1  # 6 opponents each, none met twice


def test_rounds_stay_balanced_over_a_long_run() -> None:
    for n, k in ((41, 3), (45, 4), (64, 4)):
        per_round = n // k
        tables = list(islice(round_tables(range(n), k, 5, "t"), 50 * per_round))
        played = np.zeros(n, dtype=np.int64)
        for number, table in enumerate(tables, 1):
            played[list(table)] += 1
            assert played.max() - played.min() <= (1 if number % per_round == 0 else 2)
        met = meetings(tables, n)
        assert met.max() - met.min() <= 2, (n, k)
        early = meetings(tables[:5 * per_round], n)  # 5 rounds: nobody need meet twice
        assert early.max() <= 1, (n, k)


def test_rounds_are_the_seeds_and_keep_authors_apart() -> None:
    first = list(islice(round_tables(range(50), 4, 1, "t"), 36))
    assert first == list(islice(round_tables(range(50), 4, 1, "t"), 36))
    assert first != list(islice(round_tables(range(50), 4, 2, "t"), 36))
    authors = [b // 2 for b in range(60)]  # bots 2a and 2a+1 have one author
    rr = RoundRobin(60, 4, 240, seed=3, apart=authors, design="rounds")
    games = rr.stage(0, [])
    assert all(len({authors[b] for b in g.seating}) == 4 for g in games)
    assert min(Counter(b for g in games for b in g.seating)[b] for b in range(60)) >= 12


def test_a_run_recorded_before_designs_keeps_its_cycles() -> None:
    n = LARGE_FIELD + 2
    config = {"format": "round-robin", "bots": [{"name": f"b{i}"} for i in range(n)],
              "seed": "9", "games": 200, "players": 3, "duplicate": True}
    old = make_format(config).stage(0, [])
    assert old == RoundRobin(n, 3, 200, 9, design="cycle").stage(0, [])
    assert old != make_format({**config, "design": "rounds"}).stage(0, [])
