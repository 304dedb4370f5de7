"""What the web app shows, read from the league: a snapshot of its games and report
(rebuilt only when the games or bots change), and each game's replay page (built on
request by the replay viewer, ``referee.show.html``, and cached).

A replay shows every seat's cards. With duplicate deals one deal is played in several
seat orders (a duplicate group): a replay is served only once its whole group is
recorded (``leaderboards.report.complete_groups``), so no game's cards are shown while
another seat order of its deal may still be in play. A replay is public: its faults are
shown without their details (a crash's quotes the bot's stderr, which is its author's to
read: on their own page).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from leaderboards.report import Report, complete_groups
from referee.league import db
from referee.league.play import current_report
from referee.show.html import PageGame, write_replay

REPLAY_DIR = "web/replays"  # in the league directory: the replay pages built so far
WITHHELD = "detail on its author's page"  # in place of a fault's detail, in a replay


@dataclass(frozen=True)
class Snapshot:
    """The league as of ``games`` recorded games."""

    games: int
    report: Report | None
    bots: tuple[db.BotRow, ...]
    records: tuple[dict[str, Any], ...]  # by game number
    whole: frozenset[int]  # game numbers whose duplicate group is all recorded

    def bot(self, label: str) -> db.BotRow | None:
        return next((b for b in self.bots if b.label == label), None)

    def record(self, game: int) -> dict[str, Any] | None:
        return next((r for r in self.records if r["game"] == game), None)

    def games_of(self, label: str) -> list[dict[str, Any]]:
        return [r for r in self.records if label in r["seats"]]

    def faults_of(self, label: str) -> list[dict[str, Any]]:
        """The bot's faults, newest first, each with its ``game``."""
        return [{"game": r["game"], **f} for r in reversed(self.records)
                for f in r["faults"] if f.get("bot") == label]


class Snapshots:
    """The latest snapshot, rebuilt when the number of games or the bots change."""

    def __init__(self, league: Path):
        self.league = league
        self._lock = threading.Lock()
        self._cached: Snapshot | None = None

    def get(self) -> Snapshot:
        with self._lock:
            con = db.connect(self.league)
            try:
                games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                bots = tuple(db.bots(con))
                cached = self._cached
                if cached is None or cached.games != games or cached.bots != bots:
                    records = tuple(db.game_records(con))
                    cached = self._cached = Snapshot(
                        len(records), current_report(con), bots, records,
                        frozenset(r["game"] for r in complete_groups(records)))
                return cached
            finally:
                con.close()

    def rating_history(self, bot_id: int) -> list[db.RatingPoint]:
        con = db.connect(self.league)
        try:
            return db.rating_history(con, bot_id)
        finally:
            con.close()


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
        if game not in snapshot.whole:
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
