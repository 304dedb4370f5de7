"""The tables format (official rules 8.4: seven or more entrants) and its bracket.

The entrants are split into tables that play independently; the best 1 or 2 of each
table go on, to a final table of 4 where possible (or to another stage of tables while
they are too many for one). The final table's standings are the finishing order.

- Tables: as few as hold everyone at ``max_table`` (the game's largest table, or a
  smaller one the run asks for) each, sizes as equal as possible (never below the
  game's minimum), the entrants dealt to them
  in an order shuffled from the seed, in turn (table 0, 1, ..., 0, 1, ...). Later
  stages deal the advancers the same way, the tables' winners first, so that winners
  are spread over the tables. (With ``max_table`` 7 or 8, 7 or 8 entrants make one
  table: the final.)
- Each table plays ``games_per_table`` games among its own bots: duplicate groups, that
  number rounded up to whole groups of that table's size (so a 5-seat table may play
  fewer games than a 6-seat one; standings are means).
- Standings: score = mean over games of (n - place) / (n - 1) (1 for a win, 0 for last;
  seats sharing a place score the same, a shared first place is a win each),
  counted over complete duplicate groups only; ties broken by more wins, then by
  head-to-head (among the bots tied on both, the games in which each finished ahead of
  each of the others), then by a lot drawn from the seed.
- Advancement: the same number (1 or 2) from every table of a stage, chosen for the
  fewest stages and then a final table closest to ``final_size``: 2 tables send 2 each
  (a final of 4), 3 tables 1 each (3, nearer 4 than 6), 4 to 6 tables 1 each; more
  tables than that need another stage of tables.

>>> names = [f"bot{i}" for i in range(9)]
>>> t = Tables(9, names, range(2, 7), games_per_table=10, seed=1, max_table=6)
>>> [(plan.sizes, plan.advance) for plan in t.plan]
[((5, 4), 2), ((4,), 0)]
>>> [(g.stage, g.table, g.group_size) for g in t.stage(0, [])[:2]]
[(0, 0, 5), (0, 0, 5)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, zip_longest
from typing import Any

from leaderboards import complete_groups
from referee.schedule import (
    Record,
    ScheduledGame,
    games_from_groups,
    group_units,
    table_seatings,
)

MIN_ENTRANTS = 7
SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class StagePlan:
    """One stage of a tables tournament: players per table, and how many of each table
    advance (0 at the final table)."""

    sizes: tuple[int, ...]
    advance: int

    @property
    def final(self) -> bool:
        return self.advance == 0


@dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line in its table's standings (``place`` 1 is the table's best);
    ``lot``: its place against a bot level with it on score, wins and head-to-head was
    drawn by the seeded lot (a finished table only)."""

    place: int
    bot: str
    games: int
    score: float
    wins: int
    lot: bool = False


@dataclass(frozen=True, slots=True)
class BracketTable:
    """A table of a stage. ``bots`` (seat order of the first game) and ``standings`` are
    empty while the stage before is still being played; ``advanced`` is empty until the
    table's series is over, and at the final table."""

    table: int
    size: int
    bots: tuple[str, ...]
    games: int
    played: int
    standings: tuple[Standing, ...]
    advanced: tuple[str, ...]

    @property
    def finished(self) -> bool:
        return bool(self.bots) and self.played == self.games


@dataclass(frozen=True, slots=True)
class BracketStage:
    stage: int
    advance: int
    tables: tuple[BracketTable, ...]

    @property
    def final(self) -> bool:
        return self.advance == 0


@dataclass(frozen=True, slots=True)
class Bracket:
    """The state of a tables tournament: every stage's tables; the champion and the
    finalists' order once the final table is over."""

    entrants: tuple[str, ...]
    stages: tuple[BracketStage, ...]

    @property
    def order(self) -> tuple[str, ...]:
        final = self.stages[-1].tables[0]
        return tuple(s.bot for s in final.standings) if final.finished else ()

    @property
    def champion(self) -> str | None:
        return self.order[0] if self.order else None


@dataclass(frozen=True, slots=True)
class _TableState:
    bots: tuple[int, ...]
    games: tuple[ScheduledGame, ...]
    played: int
    ranking: tuple[tuple[int, int, Fraction, int, bool], ...]  # bot, games, score, wins, lot

    @property
    def finished(self) -> bool:
        return self.played == len(self.games)


def plan_stages(entrants: int, smallest: int, largest: int,
                final_size: int = 4) -> tuple[StagePlan, ...]:
    """The stages for ``entrants`` at tables of ``smallest`` to ``largest`` players (see
    the module docstring); ValueError when they cannot be seated.

    >>> [(p.sizes, p.advance) for p in plan_stages(40, 2, 6)]
    [((6, 6, 6, 6, 6, 5, 5), 1), ((4, 3), 2), ((4,), 0)]
    """
    if entrants <= largest:
        if entrants < smallest:
            raise ValueError(f"{entrants} players cannot make a table of {smallest} to "
                             f"{largest}")
        return (StagePlan((entrants,), 0),)
    count = -(-entrants // largest)
    sizes = tuple(entrants // count + (t < entrants % count) for t in range(count))
    if sizes[-1] < smallest:
        raise ValueError(f"{entrants} players cannot be split into tables of {smallest} to "
                         f"{largest}")
    options = []
    for advance in (1, 2):
        if advance >= sizes[-1]:
            continue  # a table whose players all advance decides nothing
        try:
            rest = plan_stages(count * advance, smallest, largest, final_size)
        except ValueError:
            continue
        options.append(((len(rest), abs(rest[-1].sizes[0] - final_size), advance), rest))
    if not options:
        raise ValueError(f"no final table of {smallest} to {largest} can follow tables of "
                         f"{sizes}")
    (*_, advance), rest = min(options)
    return (StagePlan(sizes, advance), *rest)


class Tables:
    """The tables format for ``n_bots`` (at least 7) entrants named ``names``, under a
    game seating ``game_seats`` (e.g. ``range(2, 7)``). See the module docstring
    for the rules; ``self.plan`` is the stages, ``self.games`` all their games.

    ``stage(number, records)`` needs the records of every game of the stage before (a
    ValueError names what is missing); records whose seats do not match the schedule
    are a ValueError too.
    """

    name = "tables"

    def __init__(self, n_bots: int, names: Sequence[str], game_seats: range,
                 games_per_table: int, seed: int, duplicate: bool = True, *,
                 max_table: int, final_size: int = 4) -> None:
        if n_bots < MIN_ENTRANTS:
            raise ValueError(f"the tables format is for {MIN_ENTRANTS} or more entrants, "
                             f"not {n_bots}; play a round robin")
        if len(names) != n_bots or len(set(names)) != n_bots:
            raise ValueError(f"need {n_bots} distinct bot names, got {list(names)}")
        if games_per_table < 1:
            raise ValueError(f"games_per_table must be at least 1, not {games_per_table}")
        smallest, largest = game_seats[0], min(max_table, game_seats[-1])
        if smallest > largest:
            raise ValueError(f"tables of at most {max_table} cannot seat the game's "
                             f"{smallest} or more players")
        self.n_bots, self.names, self.seed = n_bots, tuple(names), seed
        self.games_per_table, self.duplicate = games_per_table, duplicate
        self.plan = plan_stages(n_bots, smallest, largest, final_size)
        # The schedule's shape does not depend on who advances: each stage's first game
        # and group, and each table's number of games, follow from the plan.
        self._first: list[tuple[int, int]] = []
        self._table_games: list[list[int]] = []
        index = group = 0
        for number, plan in enumerate(self.plan):
            self._first.append((index, group))
            shape = self._stage_games(number, _deal(range(sum(plan.sizes)), plan.sizes))
            self._table_games.append([sum(g.table == t for g in shape)
                                      for t in range(len(plan.sizes))])
            index += len(shape)
            group += len({g.group for g in shape})
        self.games = index

    def stage(self, number: int, records: Sequence[Record]) -> list[ScheduledGame] | None:
        if number < 0:
            raise ValueError(f"no stage {number}")
        if number >= len(self.plan):
            return None
        previous: list[_TableState] = []
        for at, states in self._walk(records):
            if at == number:
                break
            previous = states or []
        if states is None:
            played = sum(s.played for s in previous)
            total = sum(len(s.games) for s in previous)
            raise ValueError(f"stage {number} starts when stage {number - 1} is over: "
                             f"{played} of its {total} games have results")
        return sorted((g for s in states for g in s.games), key=lambda g: g.index)

    def bracket(self, records: Sequence[Record]) -> Bracket:
        """The bracket so far (works on partial results: unfinished tables show their
        standings over complete groups, later stages their sizes only)."""
        stages = []
        for number, states in self._walk(records):
            plan = self.plan[number]
            tables = []
            for t, size in enumerate(plan.sizes):
                if states is None:
                    tables.append(BracketTable(t, size, (), self._table_games[number][t],
                                               0, (), ()))
                    continue
                state = states[t]
                rows = tuple(Standing(place, self.names[bot], games, float(score), wins,
                                      lot and state.finished)
                             for place, (bot, games, score, wins, lot)
                             in enumerate(state.ranking, 1))
                advanced = tuple(r.bot for r in rows[:plan.advance]) if state.finished else ()
                tables.append(BracketTable(t, size, tuple(self.names[b] for b in state.bots),
                                           len(state.games), state.played, rows, advanced))
            stages.append(BracketStage(number, plan.advance, tuple(tables)))
        return Bracket(self.names, tuple(stages))

    # ---------------------------------------------------------------- internals

    def _walk(self, records: Sequence[Record]
              ) -> Iterator[tuple[int, list[_TableState] | None]]:
        """Each stage in turn with its tables' states, or None once a stage depends on
        results not in ``records``."""
        by_game = {r["game"]: r for r in records}
        order: list[int] | None = self._lot(0, range(self.n_bots))
        for number, plan in enumerate(self.plan):
            if order is None:
                yield number, None
                continue
            games = self._stage_games(number, _deal(order, plan.sizes))
            states = [self._table_state(number, t, [g for g in games if g.table == t], by_game)
                      for t in range(len(plan.sizes))]
            yield number, states
            order = None
            if not plan.final and all(s.finished for s in states):
                places = {row[0]: place for s in states
                          for place, row in enumerate(s.ranking[:plan.advance])}
                order = sorted(self._lot(number + 1, places), key=places.__getitem__)

    def _lot(self, number: int, bots: Iterable[int]) -> list[int]:
        """``bots`` in an order drawn from the seed (who sits where at stage ``number``)."""
        order = sorted(bots)
        random.Random(f"{self.seed}/tables/{number}").shuffle(order)
        return order

    def _stage_games(self, number: int,
                     tables: Sequence[tuple[int, ...]]) -> list[ScheduledGame]:
        """Every table's series of groups, interleaved a group at a time."""
        series = []
        for bots in tables:
            units = group_units(table_seatings(bots), self.duplicate)
            count = -(-self.games_per_table // len(units[0]))
            series.append([units[r % len(units)] for r in range(count)])
        groups = ((unit, t) for rnd in zip_longest(*series)
                  for t, unit in enumerate(rnd) if unit is not None)
        first_index, first_group = self._first[number]
        return games_from_groups(groups, self.seed, first_index=first_index,
                                 first_group=first_group, stage=number)

    def _table_state(self, number: int, table: int, games: list[ScheduledGame],
                     by_game: Mapping[int, Record]) -> _TableState:
        results = []
        for game in games:
            rec = by_game.get(game.index)
            if rec is None:
                continue
            seats = [self.names[b] for b in game.seating]
            if rec.get("seats") != seats:
                raise ValueError(f"game {game.index}: seats {rec.get('seats')} but the "
                                 f"schedule gives {seats}")
            if not _ranking(rec.get("places", ()), len(seats)):
                raise ValueError(f"game {game.index}: places {rec.get('places')} are not "
                                 f"a ranking of {len(seats)} seats")
            results.append(rec)
        bots = games[0].seating
        ranking = _rank(bots, {r["game"]: r for r in complete_groups(results)},
                        {g.index: g.seating for g in games},
                        random.Random(f"{self.seed}/tiebreak/{number}/{table}"))
        return _TableState(bots, tuple(games), len(results), ranking)


def _ranking(places: Sequence[int], n: int) -> bool:
    """Whether ``places`` ranks ``n`` seats, equal results sharing a place: each place is
    1 plus the number of seats placed better (1, 1, 3 but not 1, 1, 2).

    >>> _ranking([1, 1, 4, 3], 4), _ranking([2, 1, 4, 2], 4), _ranking([1, 1, 2], 3)
    (True, True, False)
    """
    return (len(places) == n and all(type(p) is int for p in places)
            and all(p == 1 + sum(q < p for q in places) for p in places))


def _deal(order: Sequence[int] | range, sizes: Sequence[int]) -> list[tuple[int, ...]]:
    """Deal ``order`` to the tables in turn (sizes as equal as possible, larger first)."""
    return [tuple(order[t::len(sizes)]) for t in range(len(sizes))]


def _rank(bots: Sequence[int], records: Mapping[int, Record],
          seating: Mapping[int, tuple[int, ...]],
          lot: random.Random) -> tuple[tuple[int, int, Fraction, int, bool], ...]:
    """(bot, games, score, wins, by lot) best first, by score, wins, head-to-head, then the
    lot; ``by lot``: level with another bot on the three, so the lot placed it."""
    points = {b: Fraction(0) for b in bots}
    games = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(bots, 0)
    place_of: list[dict[int, int]] = []  # per game: bot -> place
    for index, rec in records.items():
        n = len(seating[index])
        places = dict(zip(seating[index], rec["places"], strict=True))
        place_of.append(places)
        for bot, place in places.items():
            points[bot] += Fraction(n - place, n - 1)
            games[bot] += 1
            wins[bot] += place == 1
    score = {b: points[b] / games[b] if games[b] else Fraction(0) for b in bots}
    drawn = list(bots)
    lot.shuffle(drawn)
    head_to_head = dict.fromkeys(bots, 0)
    tied: dict[tuple[Fraction, int], list[int]] = {}
    for b in bots:
        tied.setdefault((score[b], wins[b]), []).append(b)
    for group in tied.values():
        for places in place_of:
            for a, b in combinations(group, 2):
                if places[a] < places[b]:
                    head_to_head[a] += 1
                elif places[b] < places[a]:
                    head_to_head[b] += 1
    def level(b: int) -> tuple[Fraction, int, int]:
        return score[b], wins[b], head_to_head[b]

    order = sorted(bots, key=lambda b: (-score[b], -wins[b], -head_to_head[b], drawn.index(b)))
    keys = [level(b) for b in order]
    return tuple((b, games[b], score[b], wins[b], keys.count(level(b)) > 1) for b in order)


def render_bracket(b: Bracket) -> str:
    """The bracket as plain text for the terminal."""
    lines = [f"Tables tournament: {len(b.entrants)} entrants, {len(b.stages)} stages. "
             f"Champion: {b.champion or 'not decided yet'}"]
    for stage in b.stages:
        if stage.final:
            lines.append(f"Stage {stage.stage}: final table of {stage.tables[0].size}")
        else:
            lines.append(f"Stage {stage.stage}: {len(stage.tables)} tables, the best "
                         f"{stage.advance} of each advance")
        for table in stage.tables:
            if not table.bots:
                lines.append(f"  Table {table.table}: {table.size} players, waiting for "
                             f"stage {stage.stage - 1}")
                continue
            state = "" if table.finished else ", unfinished (standings over complete groups)"
            lines.append(f"  Table {table.table}: {table.played}/{table.games} games{state}")
            width = max(len(s.bot) for s in table.standings)
            for s in table.standings:
                mark = "  advances" if s.bot in table.advanced else ""
                if stage.final and table.finished and s.place == 1:
                    mark = "  champion"
                mark += "  (place drawn by lot)" if s.lot else ""
                lines.append(f"    {s.place:>2}. {s.bot:<{width}}  score {s.score:.3f}  "
                             f"wins {s.wins}/{s.games}{mark}")
    return "\n".join(lines)


def bracket_to_dict(b: Bracket) -> dict[str, Any]:
    """The bracket as JSON-able data (``bracket.json`` in the run directory)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "format": "tables",
        "entrants": list(b.entrants),
        "champion": b.champion,
        "order": list(b.order),
        "stages": [{
            "stage": stage.stage,
            "final": stage.final,
            "advance": stage.advance,
            "tables": [{
                "table": t.table,
                "size": t.size,
                "bots": list(t.bots),
                "games": t.games,
                "played": t.played,
                "finished": t.finished,
                "standings": [{"place": s.place, "bot": s.bot, "games": s.games,
                               "score": s.score, "wins": s.wins, "lot": s.lot}
                              for s in t.standings],
                "advanced": list(t.advanced),
            } for t in stage.tables],
        } for stage in b.stages],
    }
