"""The league's loop: choose games, play them with the runner, record each one.

A ``referee.runner.Runner`` plays over the league's run directory (``run/``), with
every bot version in its ``config.json`` (format ``league``: the journal is the schedule,
``referee.league.recorded``) and the matchmaker's games, chosen as it asks for them, as
its schedule (``League``).

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboards.report import Report, ReportError
from leaderboards.sums import report_from_sums
from referee.clusterconnect import Cluster
from referee.config import RunConfig
from referee.deals import load_secret
from referee.journal import read_games, repair_journal
from referee.league import db, sumstore
from referee.league.matchmaker import BotState, Matchmaker, unfinished_groups
from referee.process import BotLimits, bot_spec
from referee.rundir import GAMES_FILE
from referee.runner import Runner
from referee.schedule import ScheduledGame

LOCK_FILE = "serve.lock"
IDLE_S = 1.0  # wait between looks at the pool while it is too small for a table
REFIT_S = 5.0  # the ratings are refitted at most this often (while games come in)
# Games one runner schedules before a fresh one takes over: its processes' log files
# (one per process started: a process never plays a deal twice) start anew.
RUNNER_GAMES = 200
SETTINGS_KEYS = ("game", "params", "players", "move_ms", "bank_ms", "max_faults")


@dataclass(frozen=True)
class PlayOptions:
    workers: int = 1  # tables at once (games in play): in this process, or per Dask worker
    once_games: int = 0  # start no group once this many games are recorded (0: never)
    refit_s: float = REFIT_S  # the ratings are refitted at most this often
    runner_games: int = RUNNER_GAMES  # games one runner schedules before a fresh one


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
    have no game yet listed unrated; None until a duplicate group is whole. Fitted from
    the sums the database keeps (``leaderboards.sums``): its cost grows with the bots and
    the tables they met at, not with the games."""
    sums, recorded = sumstore.report_sums(con)
    if not sums.records:
        return None
    return report_from_sums(sums, report_settings(db.get_settings(con)), recorded,
                            bots=[b.label for b in db.bots(con, active_only=True)])


def refit(con: sqlite3.Connection) -> Report | None:
    """``current_report``'s ratings, stored in the ``ratings`` table and each bot's
    history; the report (None if there is none yet)."""
    report = current_report(con)
    if report is None:
        return None
    db.store_ratings(con, [(r.bot, r.elo,
                            None if r.elo is None or r.ci95 is None else r.elo - r.ci95,
                            None if r.elo is None or r.ci95 is None else r.elo + r.ci95,
                            r.games) for r in report.rows],
                     report.n_games + report.n_left_out)
    return report


def bot_states(report: Report | None) -> dict[str, BotState]:
    """What the matchmaker knows of each rated bot (by label): a bound is no estimate."""
    if report is None:
        return {}
    return {r.bot: BotState(r.games, r.elo if r.bound is None else None,
                            r.se if r.bound is None else None) for r in report.rows}


def run_config(con: sqlite3.Connection, league: Path, games: int, workers: int
               ) -> RunConfig:
    """A runner's configuration: every bot version, the league's settings and secret;
    ``games``: at most this many (its schedule says which)."""
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
    """Plays the league's games until ``stop()`` (or ``once_games`` are played).

    One runner plays on while the pool is unchanged: its schedule is a generator that
    asks the matchmaker for the next group whenever the runner wants a game, with the
    ratings of the latest refit. It ends (at a group's end) when a bot is added or
    retired, after ``runner_games`` games (a fresh runner starts its processes' labels,
    so its log files, anew), or at a stop; then a new runner takes over. The ratings are
    refitted in a thread of their own, at most every ``refit_s`` seconds while games come
    in, and once more at the end."""

    def __init__(self, league: Path, options: PlayOptions,
                 warn: Callable[[str], None] | None = None, cluster: Cluster | None = None):
        """``cluster``: play the games on that Dask cluster's workers (``--cluster``, as
        ``run``'s: ``referee.cluster``) instead of in this process."""
        self.league, self.options, self.warn, self.cluster = league, options, warn, cluster
        self._lock = _lock_league(league)
        self.con = db.connect(league)
        self.played = 0  # games recorded in this session
        self.runners = 0  # runners started in this session
        self.rng = random.Random()
        self.states: dict[str, BotState] = {}  # by label, from the latest refit
        settings = db.get_settings(self.con)
        self.matchmaker = Matchmaker(settings["players"], settings["seed"], self.rng)
        self._stop = threading.Event()
        self._fresh = threading.Event()  # games recorded since the latest refit
        self._done = threading.Event()  # the loop is over: the refitting thread ends
        self.error: BaseException | None = None  # what ended the loop, if not a stop

    def stop(self) -> None:
        """Start no group more: the games scheduled finish (so their duplicate groups
        are whole, and rated) and are recorded."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        rater = threading.Thread(target=self._rate, name="league-rate", daemon=True)
        try:
            reconcile(self.con, self.league)
            self.states = bot_states(refit(self.con))
            rater.start()
            positions = {b.label: i for i, b in enumerate(db.bots(self.con))}
            short = unfinished_groups(sumstore.unfinished_records(self.con), positions,
                                      db.next_game(self.con))
            if short:
                self._play(short)
            while not self._stop.is_set():
                if not self._play(None):
                    self._stop.wait(IDLE_S)
            self._done.set()  # the last refit is this one, of every game recorded
            rater.join()
            self.states = bot_states(refit(self.con))
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self._done.set()
            if rater.is_alive():
                rater.join()
            self.con.close()
            os.close(self._lock)

    def _play(self, fixed: list[ScheduledGame] | None) -> bool:
        """Play ``fixed``, or the matchmaker's groups until the runner ends (see the
        class); False if the pool is too small for a table."""
        everyone = db.bots(self.con)
        if fixed is None:
            if sum(b.active for b in everyone) < self.matchmaker.players:
                return False
            games: Iterable[ScheduledGame] = self._schedule(everyone)
            most = self.options.runner_games
        else:
            games, most = fixed, len(fixed)
        self.runners += 1
        config = run_config(self.con, self.league, most, self.options.workers)
        if self.cluster is None:
            Runner(config, progress=self._recorded, schedule=games, warn=self.warn).run()
        else:
            from referee.cluster import ClusterPool  # dask: imported for a cluster only

            ClusterPool(config, self.cluster, progress=self._recorded, schedule=games,
                        warn=self.warn).run()
        return True

    def _schedule(self, everyone: list[db.BotRow]) -> Iterator[ScheduledGame]:
        """The matchmaker's groups, one at a time as the runner asks for games, while
        the pool is ``everyone`` (see the class)."""
        pool = [(b.id, b.active) for b in everyone]
        position = {b.id: i for i, b in enumerate(everyone)}
        number = db.next_game(self.con)
        end = number + self.options.runner_games
        while number < end and not self._stop.is_set():
            if [(b.id, b.active) for b in db.bots(self.con)] != pool:
                return
            states = self.states  # swapped whole by the refitting thread
            active = {b.id: states.get(b.label, BotState()) for b in everyone if b.active}
            group = self.matchmaker.group(active, position, number)
            yield from group
            number += len(group)

    def _rate(self) -> None:
        """Refit every ``refit_s`` seconds while games come in, on a connection of its
        own, until the loop is over."""
        con = db.connect(self.league)
        try:
            while not self._done.wait(self.options.refit_s):
                if self._fresh.is_set():
                    self._fresh.clear()
                    try:
                        self.states = bot_states(refit(con))
                    except (ReportError, sqlite3.Error) as exc:
                        if self.warn:
                            self.warn(f"warning: the ratings were not refitted: {exc}")
        finally:
            con.close()

    def _recorded(self, runner: Runner, record: dict[str, Any]) -> None:
        """A game is in the journal: now into the database."""
        self.played += db.record_games(self.con, [record])
        self._fresh.set()
        if self.options.once_games and self.played >= self.options.once_games:
            self.stop()
