"""Who plays whom next in a league.

The rule (docs/league.md): a table is seeded with the active bot that has the fewest
games (recorded or already scheduled in this batch), and filled with the active bots
with the fewest games after it, ties broken at random; so a new submission plays until
it has caught up with the field, and every active bot keeps playing. Each table is one
duplicate group, as in ``run``: every seat order of its bots (rotations from 4 players
up, ``referee.schedule.table_seatings``) on one deal; a group a ``kill -9`` left short
is completed first when the league starts again (``unfinished_groups``). Intervals and
uncertain pairs do not steer the choice yet.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from referee.schedule import ScheduledGame, game_seed, table_seatings


class NotEnoughBots(Exception):
    """Fewer active bots than a table's seats."""


def pick_table(games: Mapping[int, int], players: int, rng: random.Random) -> list[int]:
    """``players`` bot ids from ``games`` (active bot id -> games so far), fewest first."""
    if len(games) < players:
        raise NotEnoughBots(f"{len(games)} active bots; a table needs {players}")
    order = sorted(games, key=lambda b: (games[b], rng.random()))
    return order[:players]


def next_groups(games: Mapping[int, int], index: Sequence[int], players: int, tables: int,
                first_game: int, league_seed: int, rng: random.Random
                ) -> list[ScheduledGame]:
    """The games of ``tables`` duplicate groups, numbered from ``first_game``.
    ``games``: active bot id -> games so far; ``index``: bot id at each position of the
    run's bot list (``ScheduledGame.seating`` holds positions)."""
    counts = dict(games)
    position = {bot: i for i, bot in enumerate(index)}
    out: list[ScheduledGame] = []
    number = first_game
    for _ in range(tables):
        table = pick_table(counts, players, rng)
        seatings = table_seatings(tuple(position[b] for b in table))
        group = number
        for seating in seatings:
            out.append(ScheduledGame(number, seating, game_seed(league_seed, group), group,
                                     len(seatings)))
            number += 1
        for bot in table:
            counts[bot] += len(seatings)
    return out


def unfinished_groups(records: Sequence[Mapping[str, Any]], index: Mapping[str, int],
                      first_game: int) -> list[ScheduledGame]:
    """The games that complete the duplicate groups a stop left short (a ``kill -9``
    mid-group): each missing seat order of the group's bots on the group's deal, numbered
    from ``first_game``. ``index``: bot name -> its position in the run's bot list."""
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for rec in records:
        groups.setdefault(rec["group"], []).append(rec)
    out: list[ScheduledGame] = []
    number = first_game
    for group, recs in sorted(groups.items()):
        first = recs[0]
        if len(recs) >= first["group_size"]:
            continue
        played = {tuple(index[s] for s in r["seats"]) for r in recs}
        # Rotations of any of the group's seatings are the group's (every order, to 3).
        for seating in table_seatings(tuple(index[s] for s in first["seats"])):
            if seating not in played:
                out.append(ScheduledGame(number, seating, first["seed"], group,
                                         first["group_size"]))
                number += 1
    return out
