"""What a run's schedule gives each entrant, and which entrants must sit apart.

- ``--games-per-bot`` (round robin) and ``--games-per-encounter`` (gauntlet: games each
  candidate plays with each field bot, fastchess's and cutechess's ``-games``) become the
  run's number of games (``total_games``). A table plays every seat order of its bots
  (``referee.schedule.table_seatings``), so a bot's games come in whole tables: the
  count asked for is rounded up to a multiple of a table's games (4 at tables of 4, 2
  heads-up), and the schedule rounds the run up to whole duplicate groups as ever.
- No schedule leaves an entrant without a game (``check_shares``: a one-line error), and
  the run's header says how many games each gets (``share_line``).
- Bots of one author (``author=NAME`` in the bot argument, ``referee.botargs``) never share
  a table unless the host allows it (``--allow-same-author``): ``author_classes`` gives the
  schedule (``referee.schedule``) the classes to keep apart, or says why no schedule of the
  format can.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.schedule import ScheduledGame, table_seatings

SHOWN_NAMES = 3  # names an error lists before "and N more"
MAX_STEPS = 64  # tables added, at most, so that every bot has its games


@dataclass(frozen=True)
class FieldOptions:
    """The run options of this module: games per bot or per encounter (None: --games
    says), whether a bot that cannot start ends the run, whether one author's bots may
    share a table, how many idle bot processes are kept (None: the runner's default)."""

    per_bot: int | None = None
    per_encounter: int | None = None
    strict_start: bool = False
    allow_same_author: bool = False
    warm: int | None = None


class ShareError(ValueError):
    """A schedule that cannot give what was asked; the message says what to change."""


def total_games(format: str, n_bots: int, players: int, candidates: int,
                games: int, per_bot: int | None, per_encounter: int | None) -> int:
    """The run's ``--games`` from the options that ask per bot or per encounter.

    >>> total_games("gauntlet", 13, 2, 1, 100, None, 2)  # 1 candidate, 12 opponents, 2 each
    24
    >>> total_games("round-robin", 200, 4, 0, 100, 8, None)  # 8 games for each of 200 bots
    400
    >>> total_games("round-robin", 40, 4, 0, 100, 1, None)  # 1 game: a whole table, 4
    40
    """
    if per_bot is not None and per_encounter is not None:
        raise ShareError("give --games-per-bot (round robin) or --games-per-encounter "
                         "(gauntlet), not both")
    for value, option, fmt in ((per_bot, "--games-per-bot", "round-robin"),
                               (per_encounter, "--games-per-encounter", "gauntlet")):
        if value is None:
            continue
        if format != fmt:
            raise ShareError(f"{option} is for --format {fmt}")
        if value < 1:
            raise ShareError(f"{option} must be at least 1")
    per_table = len(table_seatings(range(players)))
    if per_bot is not None:
        return -(-_whole(per_bot, per_table) * n_bots // players)
    if per_encounter is not None:
        field = n_bots - candidates
        return -(-_whole(per_encounter, per_table) * field // (players - 1)) * candidates
    return games


def games_for_each(schedule: Callable[[int], Sequence[ScheduledGame]], games: int,
                   players: int, candidates: int, each: int) -> int:
    """The fewest games from ``games`` on (one table's games at a time) whose schedule
    gives every bot (every field bot, in a gauntlet) at least ``each`` games: a balanced
    order keeps the bots' counts close at every point, not always equal."""
    step = len(table_seatings(range(players))) * max(1, candidates)
    for _ in range(MAX_STEPS):
        counts = shares(schedule(games), 0)
        if counts and min(counts[candidates:]) >= each:
            return games
        games += step
    return games


def _whole(games: int, per_table: int) -> int:
    """``games`` rounded up to whole tables."""
    return -(-games // per_table) * per_table


def shares(games: Sequence[ScheduledGame], n_bots: int) -> list[int]:
    """Games per bot (by bot number) in ``games``, for ``n_bots`` bots (0: as many as
    the games seat)."""
    count = Counter(b for g in games for b in g.seating)
    return [count[b] for b in range(n_bots or max(count, default=-1) + 1)]


def _names(names: Sequence[str]) -> str:
    more = len(names) - SHOWN_NAMES
    return ", ".join(names[:SHOWN_NAMES]) + (f" and {more} more" if more > 0 else "")


def check_shares(games: Sequence[ScheduledGame], names: Sequence[str], format: str) -> None:
    """ShareError if a bot has no game in ``games``."""
    left = [n for n, c in zip(names, shares(games, len(names)), strict=True) if c == 0]
    if left:
        option = "--games-per-encounter" if format == "gauntlet" else "--games-per-bot"
        raise ShareError(f"{len(games)} games leave {len(left)} of {len(names)} bots without "
                         f"a game ({_names(left)}): give more --games, or {option}")


def _spread(counts: Sequence[int]) -> str:
    lo, hi = min(counts), max(counts)
    return f"{lo} each" if lo == hi else f"{lo} to {hi} each"


def share_line(games: Sequence[ScheduledGame], n_bots: int, candidates: int) -> str:
    """The header's line on games per bot.

    >>> from referee.schedule import Gauntlet
    >>> share_line(Gauntlet(1, 13, 2, 24, seed=1).stage(0, []), 13, 1)
    'games per bot: candidate 24 each, field 2 each'
    """
    counts = shares(games, n_bots)
    if candidates:
        return (f"games per bot: candidate{'s' if candidates > 1 else ''} "
                f"{_spread(counts[:candidates])}, field {_spread(counts[candidates:])}")
    return f"games per bot: {_spread(counts)}"


def author_classes(bots: Sequence[Mapping[str, Any]], format: str, candidates: int,
                   allow_same_author: bool) -> list[int] | None:
    """Per bot (``config.json``'s bot entries), a class that no table may hold twice: the
    same for bots of one author, its own for a bot without one; None when nothing needs
    keeping apart. ShareError where the format cannot keep them apart.

    >>> author_classes([{"name": "a", "author": "x"}, {"name": "b", "author": "x"},
    ...                 {"name": "c"}], "round-robin", 0, False)
    [0, 0, 2]
    """
    authors = [b.get("author") for b in bots]
    shared = [a for a, n in Counter(a for a in authors if a).items() if n > 1]
    if allow_same_author or not shared:
        return None
    names = [b["name"] for b in bots]
    if format == "tables":
        raise ShareError(f"author {shared[0]!r} has several bots, and the tables format seats "
                         "its later tables by results: it cannot keep them apart "
                         "(--allow-same-author lets them meet)")
    if format == "gauntlet":
        for c in range(candidates):
            mates = [names[b] for b in range(candidates, len(bots))
                     if authors[c] and authors[b] == authors[c]]
            if mates:
                raise ShareError(f"candidate {names[c]} and field bot {mates[0]} have one "
                                 f"author ({authors[c]}), and a gauntlet seats every "
                                 "candidate with every field bot: drop one, or "
                                 "--allow-same-author")
    first = {a: authors.index(a) for a in shared}
    return [first[a] if a in first else b for b, a in enumerate(authors)]
