"""The league's loop: choose games, play them with the runner, record each one.

Each batch is one ``referee.runner.Runner`` over the league's run directory (``run/``),
with every bot version in its ``config.json`` (format ``league``: the journal is the
schedule, ``referee.league.recorded``) and the matchmaker's games as its schedule.

Nothing lost, nothing counted twice: a finished game is appended to the journal first
(the runner does that), and only then inserted into the database, keyed by its index.
A ``kill -9`` between the two leaves a game in the journal that the database lacks;
``reconcile``, run at every start, inserts it (a torn last journal line, a game that
never finished writing, is cut off first). Game indices continue after the largest
one recorded, so an abandoned game's index may be used again: it was never journalled.
"""

from __future__ import annotations

import fcntl
import os
import random
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboards.report import Report, build_report
from referee.config import RunConfig
from referee.deals import load_secret
from referee.journal import read_games, repair_journal
from referee.league import db
from referee.league.matchmaker import NotEnoughBots, next_groups, unfinished_groups
from referee.process import BotLimits, bot_spec
from referee.rundir import GAMES_FILE
from referee.runner import Runner
from referee.schedule import ScheduledGame

LOCK_FILE = "serve.lock"
IDLE_S = 1.0  # wait between looks at the pool while it is too small for a table
SETTINGS_KEYS = ("game", "params", "players", "move_ms", "bank_ms", "max_faults")


@dataclass(frozen=True)
class PlayOptions:
    workers: int = 1  # tables at once (games in play), in this process's runner
    once_games: int = 0  # stop after the batch that makes this many games (0: never)


def reconcile(con: sqlite3.Connection, league: Path, repair: bool = True) -> int:
    """Insert into the database the journalled games it lacks; how many. ``repair``
    (only by the journal's one writer, ``League``): cut a torn last line off first;
    without, it is skipped."""
    run_dir = league / db.RUN_DIR
    if not (run_dir / GAMES_FILE).is_file():
        return 0
    if repair:
        repair_journal(run_dir)
    return db.record_games(con, read_games(run_dir))


def report_settings(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: settings[k] for k in SETTINGS_KEYS}


def current_report(con: sqlite3.Connection) -> Report | None:
    """The leaderboard of every recorded game (the same Bradley-Terry fit as ``rate``;
    records of unfinished duplicate groups are left out, as there), active bots that
    have no game yet listed unrated; None before the first game."""
    records = db.game_records(con)
    if not records:
        return None
    return build_report(records, report_settings(db.get_settings(con)),
                        bots=[b.label for b in db.bots(con, active_only=True)])


def refit(con: sqlite3.Connection) -> None:
    """``current_report``'s ratings, stored in the ``ratings`` table and each bot's history."""
    report = current_report(con)
    if report is None:
        return
    db.store_ratings(con, [(r.bot, r.elo,
                            None if r.elo is None or r.ci95 is None else r.elo - r.ci95,
                            None if r.elo is None or r.ci95 is None else r.elo + r.ci95,
                            r.games) for r in report.rows],
                     report.n_games + report.n_left_out)


def run_config(con: sqlite3.Connection, league: Path, games: int, workers: int
               ) -> RunConfig:
    """A batch's configuration: every bot version, the league's settings and secret."""
    s = db.get_settings(con)
    out = league / db.RUN_DIR
    specs = tuple(bot_spec(b.label, b.path) for b in db.bots(con))
    return RunConfig(
        bots=specs, game=s["game"], params=s["params"], players=s["players"], games=games,
        seed=s["seed"], move_ms=s["move_ms"], bank_ms=s["bank_ms"],
        concurrency=min(workers, games), max_faults=s["max_faults"],
        start_timeout_ms=s["start_timeout_ms"], out=out, limits=BotLimits(**s["limits"]),
        sandbox=s["sandbox"], format="league", duplicate=True, secret=load_secret(out),
        event=s["name"])


def _lock_league(league: Path) -> int:
    """An exclusive lock on the league's games (held until closed): the journal has one
    writer. LeagueError if another process holds it."""
    fd = os.open(league / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise db.LeagueError(f"another `referee league serve` is playing {league}") from None
    return fd


class League:
    """Plays the league's games until ``stop()`` (or ``once_games`` are played)."""

    def __init__(self, league: Path, options: PlayOptions,
                 warn: Callable[[str], None] | None = None):
        self.league, self.options, self.warn = league, options, warn
        self._lock = _lock_league(league)
        self.con = db.connect(league)
        self.played = 0  # games recorded in this session
        self.rng = random.Random()
        self._stop = threading.Event()
        self.error: BaseException | None = None  # what ended the loop, if not a stop

    def stop(self) -> None:
        """Start no batch more: the batch in play finishes (so its duplicate groups are
        whole, and rated) and is recorded."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        try:
            reconcile(self.con, self.league)
            refit(self.con)
            positions = {b.label: i for i, b in enumerate(db.bots(self.con))}
            short = unfinished_groups(db.game_records(self.con), positions,
                                      db.next_game(self.con))
            if short:
                self._play(short)
            while not self._stop.is_set():
                if not self._batch():
                    self._stop.wait(IDLE_S)
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.con.close()
            os.close(self._lock)

    def _batch(self) -> bool:
        """Play one batch; False if the pool is too small for a table."""
        settings = db.get_settings(self.con)
        everyone = db.bots(self.con)
        played = db.games_played(self.con)
        active = {b.id: played.get(b.id, 0) for b in everyone if b.active}
        try:
            games = next_groups(active, [b.id for b in everyone], settings["players"],
                                self.options.workers, db.next_game(self.con),
                                settings["seed"], self.rng)
        except NotEnoughBots:
            return False
        self._play(games)
        return True

    def _play(self, games: list[ScheduledGame]) -> None:
        Runner(run_config(self.con, self.league, len(games), self.options.workers),
               progress=self._recorded, schedule=games, warn=self.warn).run()
        refit(self.con)

    def _recorded(self, runner: Runner, record: dict[str, Any]) -> None:
        """A game is in the journal: now into the database."""
        self.played += db.record_games(self.con, [record])
        if self.options.once_games and self.played >= self.options.once_games:
            self.stop()
