"""How far a run has got, on a terminal or off one.

On a terminal, :class:`LiveBoard` shows a progress bar (games done/total, games per
second, time left, time elapsed) and under it the leaderboard so far. Off a terminal (CI,
``nohup``, output to a file or a pipe) nothing redraws: :class:`ProgressLines` prints a
plain line instead, at most every ``REFEREE_PROGRESS_SECONDS`` seconds (default
``PROGRESS_EVERY_S``) and at each tenth of the games planned, and once at the last game::

    progress 120/400 games (30%), 41.2 games/s, ETA 7s, faults 2, leader caller (score 61.3%)

The time left (:class:`Eta`) comes from the games' own durations and the games played at
once, counting the games in progress as half done; until enough games have finished to
say (one per game at once, up to three) it is ``-``, never a guess from the first seconds
(bot start-up, a first wave of games that all end together).

``referee sprt`` adds ``LLR +1.02 [-2.94, +2.94]``. The leader is the bot with the best
mean score so far (the share of opponents finished ahead of, as the leaderboard's
``score %``), kept game by game, so a line costs no fit. A stopped run prints the
leaderboard of the games journalled (:func:`print_standings`) before its resume hint.
Bot names are data: every line goes out inert (``leaderboards.inert``).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from leaderboards import Report, ReportError, build_report, inert, rich_table
from referee.journal import JournalError, read_results

PROGRESS_EVERY_S = 10.0  # off a terminal: a line at most this often (seconds) ...
PROGRESS_SHARES = 10  # ... and one at each tenth of the games planned
PROGRESS_ENV = "REFEREE_PROGRESS_SECONDS"
LIVE_REFIT_S = 1.0  # the live table is refitted at most this often
LIVE_REFIT_SHARE = 10  # ... and waits at least ten times as long as its last fit took


def progress_every_s() -> float:
    """The seconds between two progress lines: ``REFEREE_PROGRESS_SECONDS`` if it is set
    to a positive number, else ``PROGRESS_EVERY_S``."""
    try:
        value = float(os.environ.get(PROGRESS_ENV, ""))
    except ValueError:
        return PROGRESS_EVERY_S
    return value if math.isfinite(value) and value > 0 else PROGRESS_EVERY_S


def duration(seconds: float) -> str:
    """``7s``, ``4m05s``, ``2h03m``.

    >>> duration(7.4), duration(245), duration(7380)
    ('7s', '4m05s', '2h03m')
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Tally:
    """Faults and each bot's mean score over the games seen, one record at a time."""

    def __init__(self) -> None:
        self.faults = 0
        self._points: dict[str, float] = {}
        self._games: dict[str, int] = {}

    def add(self, record: Mapping[str, Any]) -> None:
        self.faults += len(record.get("faults") or ())
        seats, places = record.get("seats") or [], record.get("places") or []
        n = len(seats)
        for bot, place in zip(seats, places, strict=False):
            self._points[bot] = self._points.get(bot, 0.0) + (n - place) / max(n - 1, 1)
            self._games[bot] = self._games.get(bot, 0) + 1

    def leader(self) -> str:
        """``NAME (score 61.3%)`` of the best mean score, or ``-`` before any game."""
        if not self._games:
            return "-"
        best = max(self._games, key=lambda b: self._points[b] / self._games[b])
        return f"{best} (score {100 * self._points[best] / self._games[best]:.1f}%)"


ETA_MIN_GAMES = 3  # finished games (at most one per game at once) before an ETA is shown


class Eta:
    """Time left in a run of ``total`` games, ``parallel`` played at once, from the
    durations (``duration_s``) of the games finished since this session started.

    >>> eta = Eta(total=10, parallel=2)
    >>> eta.left(done=1) is None  # one game says nothing yet
    True
    >>> for _ in range(2): eta.add({"duration_s": 4.0})
    >>> eta.left(done=2)  # 8 left: 2 in progress, half done; 7 games' work, 2 at once
    14.0
    >>> eta.left(done=9)  # the last one: half of a game
    2.0
    """

    def __init__(self, total: int | None, parallel: int = 1) -> None:
        self.total, self.parallel = total, max(1, parallel)
        self.games, self.seconds = 0, 0.0

    def add(self, record: Mapping[str, Any]) -> None:
        duration_s = record.get("duration_s")
        if isinstance(duration_s, int | float) and duration_s >= 0:
            self.games += 1
            self.seconds += float(duration_s)

    def left(self, done: int) -> float | None:
        """Seconds left, or None until it means something (or with no total)."""
        if not self.total or self.games < min(self.parallel, ETA_MIN_GAMES):
            return None
        left = max(0, self.total - done)
        if left == 0:
            return 0.0
        mean, at_once = self.seconds / self.games, min(self.parallel, left)
        return max((left - at_once / 2) * mean / at_once, mean / 2)


class ProgressLines:
    """The plain progress line of a run off a terminal: ``update`` after every game; it
    prints (through ``emit``) when a line is due."""

    def __init__(self, total: int | None, done: int, emit: Callable[[str], None],
                 every_s: float | None = None, clock: Callable[[], float] = time.monotonic,
                 eta: Eta | None = None):
        self.total, self.first, self.emit, self.clock = total, done, emit, clock
        self.eta = eta or Eta(total)
        self.every_s = progress_every_s() if every_s is None else every_s
        self.started = self._last = clock()
        self._share = self._shares(done)

    def _shares(self, done: int) -> int:
        return done * PROGRESS_SHARES // self.total if self.total else 0

    def update(self, done: int, faults: int, leader: str, extra: str = "") -> None:
        share = self._shares(done)
        now = self.clock()
        if now - self._last >= self.every_s or share > self._share or done == self.total:
            self._last, self._share = now, share
            self.emit(self.line(done, faults, leader, extra))

    def line(self, done: int, faults: int, leader: str, extra: str = "") -> str:
        elapsed = self.clock() - self.started
        rate = (done - self.first) / elapsed if elapsed > 0 else 0.0
        seconds = self.eta.left(done)
        eta = "-" if seconds is None else duration(seconds)
        of = (f"{done}/{self.total} games ({100 * done // self.total}%)" if self.total
              else f"{done} games")
        return (f"progress {of}, {rate:.1f} games/s, ETA {eta}, faults {faults}, "
                f"leader {leader}{', ' + extra if extra else ''}")


class EtaColumn(ProgressColumn):
    """The time left, from :class:`Eta` (the task's ``eta`` field: seconds or None)."""

    def render(self, task: Task) -> Text:
        seconds = task.fields.get("eta")
        return Text("-" if seconds is None else duration(seconds))


class RateColumn(ProgressColumn):
    """Games per second, over rich's recent samples."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("- games/s" if speed is None else f"{speed:.1f} games/s")


def progress_bar(console: Console) -> Progress:
    """The bar a run shows on a terminal: done/total, rate, time elapsed, time left."""
    return Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("ETA"),
                    EtaColumn(), console=console, transient=True)


class LiveBoard:
    """The progress of a run: on a terminal the bar and the leaderboard so far, else
    :class:`ProgressLines`. The leaderboard is refitted in a thread of its own, at most
    once a second, so that the runner's loop (and with it the bots' clocks) never waits
    for a fit. ``report`` makes the run's leaderboard from journal records."""

    def __init__(self, console: Console, total: int | None,
                 report: Callable[[list[dict[str, Any]]], Report],
                 emit: Callable[[str], None], resumed: Path | None = None,
                 parallel: int = 1):
        """``resumed``: the run directory of a run that goes on (its journalled games
        count as done, and its faults as faults so far); ``parallel``: the games played
        at once (for the time left)."""
        self.console, self.report = console, report
        self.tally, done = journalled(resumed)
        self.progress = progress_bar(console)
        self.task = self.progress.add_task("games", total=total, completed=done, eta=None)
        self.eta = Eta(total, parallel)
        self.live = Live(Group(self.progress), console=console, refresh_per_second=4,
                         transient=True)
        self.on = console.is_terminal
        self.lines = ProgressLines(total, done, emit, eta=self.eta)
        self._fitting = False
        self._next_fit = 0.0

    def on_game(self, tournament: Any, record: dict[str, Any]) -> None:
        """The runner's progress callback (``Tournament.progress``)."""
        self.tally.add(record)
        self.eta.add(record)
        if not self.on:
            self.lines.update(tournament.played, self.tally.faults, self.tally.leader())
            return
        self.progress.update(self.task, completed=tournament.played,
                             eta=self.eta.left(tournament.played))
        if not self._fitting and time.monotonic() > self._next_fit:
            self._fitting = True
            threading.Thread(target=self._refit, args=(tournament.config.out,),
                             daemon=True).start()

    def _refit(self, run_dir: Path) -> None:
        """Fit the journal as it is now (the runner keeps no records in memory; a line
        being written is a torn last line, left out)."""
        started = time.monotonic()
        try:
            records = read_results(run_dir)
            self.live.update(Group(self.progress,
                                   rich_table(self.report(records), self.console.width)))
        except ReportError:
            pass  # no complete duplicate group yet
        finally:
            # The fit shares the interpreter with the runner's loop: as the journal grows
            # and fits take longer, fit less often, so they never take over.
            took = time.monotonic() - started
            self._next_fit = time.monotonic() + max(LIVE_REFIT_S, LIVE_REFIT_SHARE * took)
            self._fitting = False

    def __enter__(self) -> LiveBoard:
        if self.on:
            self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.on:
            self.live.stop()


class SprtProgress:
    """``play_sprt``'s ``on_update``: on a terminal, ``status`` of the match, the rate and
    the time to ``max_games`` (the most it can take) in ``live``; off one,
    :class:`ProgressLines` with the LLR and its bounds."""

    def __init__(self, console: Console, live: Live, max_games: int,
                 status: Callable[[Any], str], emit: Callable[[str], None],
                 resumed: Path | None = None):
        self.console, self.live, self.status = console, live, status
        self.tally, done = journalled(resumed)
        self.lines = ProgressLines(max_games, done, emit)

    def __call__(self, match: Any, record: dict[str, Any]) -> None:
        self.tally.add(record)
        if self.console.is_terminal:
            elapsed = self.lines.clock() - self.lines.started
            rate = (match.games - self.lines.first) / elapsed if elapsed > 0 else 0.0
            left = (self.lines.total or 0) - match.games
            eta = f", at most {duration(left / rate)} left" if rate > 0 else ""
            self.live.update(Text(f"{self.status(match)}  {rate:.1f} games/s{eta}"))
            return
        lo, hi = match.test.bounds
        self.lines.update(match.games, self.tally.faults, self.tally.leader(),
                          f"LLR {match.test.llr:+.2f} [{lo:+.2f}, {hi:+.2f}]")


def journalled(run_dir: Path | None) -> tuple[Tally, int]:
    """The tally and the number of the games in a run directory's journal (none for a
    new run, or a journal that cannot be read)."""
    tally = Tally()
    try:
        records = read_results(run_dir) if run_dir is not None else []
    except JournalError:  # the run itself says what is wrong with its journal, and stops
        records = []
    for record in records:
        tally.add(record)
    return tally, len(records)


def run_report(settings: Mapping[str, Any], names: Sequence[str],
               anchor: tuple[str, float] | None = None, mixed: Sequence[str] = (),
               metric: Any = None) -> Callable[[list[dict[str, Any]]], Report]:
    """The leaderboard of a run's records, as ``referee rate`` would make it."""
    def report(records: list[dict[str, Any]]) -> Report:
        return build_report(records, settings, anchor=anchor, bots=names,
                            allow_mixed=tuple(mixed), metric=metric)
    return report


def print_standings(console: Console, records: list[dict[str, Any]],
                    report: Callable[[list[dict[str, Any]]], Report]) -> None:
    """The leaderboard of the games journalled so far (a stopped run), or why there is
    none yet."""
    if not records:
        console.print("standings so far: no game finished", markup=False, highlight=False)
        return
    try:
        table = rich_table(report(records), console.width)
    except ReportError as exc:
        console.print(f"standings so far: none ({inert.terminal(str(exc))})", markup=False,
                      highlight=False)
        return
    console.print(f"standings so far ({len(records)} games in the journal):", markup=False,
                  highlight=False)
    console.print(table)
