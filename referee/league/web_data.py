"""What the web app shows, read from the league: a snapshot of its report and latest
games (served for REFRESH_S, then rebuilt if the games or bots changed), and each game's
replay page (built on
request by the replay viewer, ``referee.show.html``, and cached).

A replay shows every seat's cards. With duplicate deals one deal is played in several
seat orders (a duplicate group): a replay is served only once its whole group is
recorded (``referee.league.sumstore.whole_games``), so no game's cards are shown while
another seat order of its deal may still be in play. A replay is public: its faults are
shown without their details (a crash's quotes the bot's stderr, which is its author's to
read: on their own page).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from leaderboards.html import to_html
from leaderboards.report import Report
from leaderboards.writers import to_json
from referee.league import db
from referee.league.play import current_report
from referee.league.sumstore import whole_games
from referee.show.html import PageGame, write_replay

REPLAY_DIR = "web/replays"  # in the league directory: the replay pages built so far
WITHHELD = "detail on its author's page"  # in place of a fault's detail, in a replay
T = TypeVar("T")

API_SCHEMA_VERSION = 1  # of GET /api/leaderboard
RECENT_GAMES = 100  # the games list's length
REFRESH_S = 2.0  # how long a snapshot is served before the league is looked at again


def using_db(league: Path, what: Callable[[sqlite3.Connection], T]) -> T:
    """``what`` of a connection of its own to the league's database."""
    con = db.connect(league)
    try:
        return what(con)
    finally:
        con.close()


@dataclass(frozen=True)
class Snapshot:
    """The league as of ``games`` recorded games: its report, bots and latest games. The
    page and JSON of its report are made once (``report_html``, ``leaderboard_json``); a
    bot's games and faults are read from the database when asked (``league``)."""

    league: Path
    games: int
    report: Report | None
    bots: tuple[db.BotRow, ...]
    recent: tuple[dict[str, Any], ...]  # the latest RECENT_GAMES records, newest first
    whole: frozenset[int]  # of ``recent``, the games whose duplicate group is all recorded

    def bot(self, label: str) -> db.BotRow | None:
        return next((b for b in self.bots if b.label == label), None)

    @cached_property
    def report_html(self) -> str | None:
        return None if self.report is None else to_html(self.report)

    @cached_property
    def leaderboard_json(self) -> bytes:
        """``GET /api/leaderboard``'s answer (docs/league.md)."""
        return json.dumps({
            "schema_version": API_SCHEMA_VERSION, "games": self.games,
            "bots": [{"bot": b.label, "author": b.author, "name": b.name,
                      "version": b.version, "active": b.active} for b in self.bots],
            "leaderboard": None if self.report is None else to_json(self.report)},
            ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()

    def record(self, game: int) -> dict[str, Any] | None:
        return using_db(self.league, lambda con: db.game_record(con, game))

    def is_whole(self, games: Iterable[int]) -> set[int]:
        """Of ``games``, those whose duplicate group is all recorded."""
        return using_db(self.league, lambda con: whole_games(con, games))

    def games_of(self, bot: db.BotRow, limit: int) -> list[dict[str, Any]]:
        """The bot's latest ``limit`` games, newest first."""
        return using_db(self.league, lambda con: db.latest_records(con, limit, bot.id))

    def faults_of(self, bot: db.BotRow) -> list[dict[str, Any]]:
        """The bot's faults, newest first, each with its ``game``."""
        records = using_db(self.league, lambda con: db.records_with_faults(con, bot.id))
        return [{"game": r["game"], **f} for r in records for f in r["faults"]
                if f.get("bot") == bot.label]


class Snapshots:
    """The latest snapshot: served for REFRESH_S, then rebuilt at the next request if the
    games or the bots changed (so that clients asking at once share one report, not one
    each), or at once after ``invalidate``; a client that comes while it is rebuilt is
    served the one before."""

    def __init__(self, league: Path):
        self.league = league
        self._lock = threading.Lock()
        self._cached: Snapshot | None = None
        self._looked = 0.0  # time.monotonic() when the league was last looked at

    def invalidate(self) -> None:
        """Look at the league at the next request (a bot was added)."""
        self._looked = 0.0

    def get(self) -> Snapshot:
        cached = self._cached
        if cached is not None and time.monotonic() - self._looked < REFRESH_S:
            return cached
        if not self._lock.acquire(blocking=cached is None):
            assert cached is not None
            return cached
        try:
            return using_db(self.league, self._look)
        finally:
            self._lock.release()

    def _look(self, con: sqlite3.Connection) -> Snapshot:
        """The snapshot as the league is now: the one cached, if nothing changed."""
        self._looked = time.monotonic()
        bots = tuple(db.bots(con))
        games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        cached = self._cached
        if cached is None or cached.bots != bots or cached.games != games:
            recent = tuple(db.latest_records(con, RECENT_GAMES))
            cached = self._cached = Snapshot(
                self.league, games, current_report(con), bots, recent,
                frozenset(whole_games(con, (r["game"] for r in recent))))
        return cached

    def rating_history(self, bot_id: int) -> list[db.RatingPoint]:
        return using_db(self.league, lambda con: db.rating_history(con, bot_id))


class GameInPlay(Exception):
    """A game whose duplicate group is not all recorded: its replay would show cards of a
    deal still in play."""


class Replays:
    """Each game's replay page, built once (one at a time: each is a few ms) and kept."""

    def __init__(self, league: Path):
        self.league = league
        self._lock = threading.Lock()

    def page(self, snapshot: Snapshot, game: int) -> Path:
        """The replay page of ``game``: KeyError if it is not recorded, GameInPlay if its
        group is not whole; ShowError or StorageError if it cannot be built."""
        if snapshot.record(game) is None:
            raise KeyError(game)
        if not snapshot.is_whole([game]):
            raise GameInPlay(f"game {game} is one seat order of a deal still being played: "
                             "its replay is shown once every seat order is done")
        out = self.league / REPLAY_DIR / f"{game}.html"
        with self._lock:
            if not out.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                write_replay(self.league / db.RUN_DIR, [game], out, shown=public)
        return out


def public(replay: PageGame) -> PageGame:
    """The game as anyone may see it: each fault's detail and log path withheld (its
    steps or its transcript show the fault's event, never its detail)."""
    return replace(replay, faults=tuple(
        {**{k: v for k, v in f.items() if k not in ("detail", "log")}, "detail": WITHHELD}
        for f in replay.faults))
