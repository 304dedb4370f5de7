"""Playing a configured run in the terminal: its first lines, the live board, Ctrl-C
and SIGTERM, the ways it can end early as exit codes, and what is written after the
games (leaderboards, bracket, summary.md, the replay page)."""

from __future__ import annotations

import json
import signal
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from leaderboards import (
    ReportError,
    merge_settings,
    rich_table,
    write_reports,
)
from leaderboards.bracket_rank import rank_by_bracket
from leaderboards.report import Report
from referee.bracket import Tables, bracket_to_dict, render_bracket
from referee.budget import Budget
from referee.clusterconnect import Cluster
from referee.clusterwatch import ClusterLost
from referee.config import (
    RunConfig,
)
from referee.console import console, say
from referee.entrants import (
    share_line,
)
from referee.exits import (
    EXIT_BOT_START,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_TIME_BUDGET,
    EXIT_USAGE,
    Terminated,
    terminate,
)
from referee.gameopts import (
    params_text,
)
from referee.inprocess import LocalBot, LocalRunner
from referee.jobsummary import run_summary, write_summary
from referee.journal import JournalError, read_results
from referee.process import (
    describe_isolation,
)
from referee.progress import LiveBoard, print_standings, run_report
from referee.rundir import (
    CONFIG_FILE,
    RunFileError,
    storage_error,
    write_text,
)
from referee.runner import BotStartError, Runner
from referee.show.html import REPLAY_FILE, RUN_END_GAMES, replay_after_run, replay_pending
from referee.summary import bot_faults
from referee.summary import render as render_faults
from referee.tournament import Tournament
from referee.workers import WorkerPool


def guarded(config: RunConfig, body: Callable[[], int]) -> int:
    """Run ``body`` and turn the ways a run can end early into exit codes, each with one
    line on stderr."""
    try:
        return body()
    except BotStartError as exc:
        say(str(exc), "error: ")
        return EXIT_BOT_START
    except JournalError as exc:  # resume: a journal line in the middle is not a record
        say(f"{exc}; mend or remove that line, then resume again", "error: ")
        return EXIT_USAGE
    except RunFileError as exc:  # a link or a FIFO where the run writes (rundir.open_in)
        say(str(exc), "error: ")
        return EXIT_USAGE
    except ClusterLost as exc:
        say(f"{exc}; the finished games are in {config.out}: once a scheduler and workers are "
            f"there, go on with: referee resume {config.out} --cluster {exc.address}", "error: ")
        return EXIT_INTERNAL
    except KeyboardInterrupt as exc:
        say(f"interrupted: the finished games are in {config.out}")
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
    except Exception as exc:  # the one place that turns a failure into exit code 4
        storage = storage_error(exc, config.out)
        if storage is not None:
            then = (f"the journal is whole; once the run directory can be written again, go "
                    f"on with: referee resume {config.out}"
                    if (config.out / CONFIG_FILE).is_file() else
                    "no game was played; start the run again once it can be written")
            say(f"{storage}; {then}", "error: ")
            return EXIT_INTERNAL
        log = config.out / "error.log"
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            write_text(log, traceback.format_exc())
            where = f"traceback in {log}"
        except OSError as log_exc:
            where = f"no traceback: {log} cannot be written: {log_exc.strerror}"
        say(f"{type(exc).__name__}: {exc} ({where})", "internal error: ")
        return EXIT_INTERNAL


@contextmanager
def interrupts(tournament: Tournament, caught: list[int]) -> Iterator[None]:
    """The first Ctrl-C or SIGTERM stops the run cleanly (games in progress are
    abandoned, the journal keeps every finished one); a second one stops it at once.
    The signals caught are appended to ``caught``."""

    def handler(signum: int, frame: Any) -> None:
        if tournament.interrupted:
            if signum == signal.SIGTERM:
                terminate()
            raise KeyboardInterrupt
        caught.append(signum)
        tournament.interrupt()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, was in previous.items():
            signal.signal(sig, was)


def varying_settings(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The settings whose records may differ within one run: a ``tables`` tournament has
    tables of several sizes."""
    return ("players",) if config.get("format") == "tables" else ()


def run_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a run's leaderboard describes, from its resolved configuration (``config.json``
    holds the same dict); what varies within the run, its records say."""
    varying = varying_settings(config)
    return {key: config[key] for key in SETTINGS_KEYS if key in config and key not in varying}


SETTINGS_KEYS = ("game", "params", "players", "move_ms", "bank_ms", "max_faults", "seed",
                 "event")


def deals_note(config: RunConfig) -> str:
    """How the deals are made, for the line a run starts with."""
    return ("secret deals" if config.secret is not None else
            "deals from the seed alone: for research, not competitions (SECURITY.md)")


def planned_games(tournament: Tournament) -> int | None:
    """How many games the run will have, when its format knows in advance."""
    if isinstance(tournament.format, Tables):
        return tournament.format.games  # who plays later depends on results; not how many
    games = tournament.format.stage(0, [])
    return len(games) if isinstance(games, list) else None


def play(config: RunConfig, local: list[LocalBot] | None = None, resume: bool = False,
         cluster: Cluster | None = None, budget: Budget | None = None) -> int:
    """Play (or, with ``resume``, go on with) the run of ``config``; returns the exit
    code. ``local``: the bots, when they are played in-process; ``cluster``: the Dask
    cluster that plays them (``referee.cluster``)."""
    def warn(message: str) -> None:
        say(message)

    made: list[Tournament] = []

    def make() -> int:
        if cluster is not None:
            from referee.cluster import ClusterPool  # dask: imported for a cluster run only

            made.append(ClusterPool(config, cluster, resume=resume, warn=warn))
            return EXIT_OK
        made.append(LocalRunner(config, local, resume=resume, warn=warn)
                    if local is not None else
                    WorkerPool(config, resume=resume, warn=warn) if config.workers > 1
                    else Runner(config, resume=resume, warn=warn))
        return EXIT_OK

    code = guarded(config, make)
    if code != EXIT_OK:
        return code
    runner = made[0]
    total = planned_games(runner)
    duplicate = "duplicate deals" if config.duplicate else "no duplicate deals"
    say(f"{'resuming' if resume else 'run directory'} {config.out}  ({config.game} "
        f"{params_text(config.params)}, "
        f"{config.format}, {total or config.games} games"
        f"{f' ({config.games} per table)' if config.format == 'tables' else ''}, {duplicate}, "
        f"move {config.move_ms} ms + bank {config.bank_ms} ms, seed {config.seed}, "
        f"{deals_note(config)}"
        f"{', in-process' if local is not None else ''}"
        f"{f', {config.workers} workers' if config.workers > 1 else ''}"
        f"{f', cluster {cluster.address}' if cluster is not None else ''})", to=console)
    first = runner.format.stage(0, [])
    if isinstance(first, list) and config.format != "tables":
        say(share_line(first, len(config.bots), config.candidates), to=console)
    if local is None:
        say(describe_isolation(config.sandbox, config.limits), to=console)
    board = LiveBoard(console, total, run_report(
        merge_settings([run_settings(config.to_dict())]), [b.name for b in config.bots],
        (config.baseline, 0.0) if config.baseline else None,
        varying_settings(config.to_dict()), runner.rules.metric),
        lambda s: say(s, to=console), config.out if resume else None, config.concurrency)
    runner.progress = board.on_game
    caught: list[int] = []

    budget = budget or Budget()

    def body() -> int:
        with board, interrupts(runner, caught), budget.running(runner.interrupt):
            runner.run()
        return EXIT_OK

    code = guarded(config, body)
    if code in (EXIT_OK, EXIT_BOT_START, EXIT_INTERRUPTED, EXIT_TERMINATED):
        # Not after a failed write: the run directory is what failed.
        code = guarded(config, lambda: wrap_up(config, runner, board, code, caught, budget))
    return code


def wrap_up(config: RunConfig, runner: Tournament, board: LiveBoard, code: int,
            signals: list[int], budget: Budget) -> int:
    """After the games: the counters, then the resume hint (stopped) or the leaderboard
    and bracket (finished), ``summary.md``, and last the replay page; the exit code."""
    counters = getattr(runner, "counters_report", None)  # pools of bot processes have them
    if counters is not None:
        write_text(config.out / "counters.json", json.dumps(counters(), indent=2) + "\n")
    if runner.interrupted or code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        so_far = read_results(config.out)
        print_standings(console, so_far, board.report)
        print_fault_summary(so_far, config.out)
        abandoned = (f", {len(runner.abandoned)} in progress were abandoned"
                     if runner.abandoned else "")
        why = f"{budget.option} ran out" if budget.expired else "interrupted"
        write_summary(config.out, run_summary(partial_report(board, so_far), so_far,
                                              planned_games(runner), config.out, config.event,
                                              why))
        say(f"{why}: {runner.played} games are in the journal{abandoned}; go on with: "
            f"referee resume {config.out}")
        if budget.expired and not signals:
            return EXIT_TIME_BUDGET
        terminated = code == EXIT_TERMINATED or signal.SIGTERM in signals[:1]
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    if code != EXIT_OK:
        return code
    records = read_results(config.out)
    if not records:
        return code
    try:
        report = board.report(records)
    except ReportError as exc:
        say(str(exc), "error: ")
        return EXIT_INTERNAL
    b = runner.format.bracket(records) if isinstance(runner.format, Tables) else None
    bracket = None if b is None else bracket_to_dict(b)
    if bracket is not None:
        write_text(config.out / "bracket.json", json.dumps(bracket, indent=2) + "\n")
        report = rank_by_bracket(report, bracket)
    # The standings first: they are what the user waits for; the replay page comes last
    # (linked from the start: it is written now, or by a process of its own just after).
    linked = len(records) <= RUN_END_GAMES
    write_reports(report, config.out, records, bracket, replays=linked)
    console.print(rich_table(report, console.width))
    if b is not None:
        text = render_bracket(b)
        write_text(config.out / "bracket.txt", text + "\n")
        for line in text.splitlines():
            say(line, to=console)
    say(f"journal {config.out / 'games.jsonl'}; leaderboard {config.out}/"
        "leaderboard.{json,csv,md,html}", to=console)
    print_fault_summary(records, config.out)
    write_summary(config.out, run_summary(report, records, planned_games(runner), config.out,
                                          config.event))
    if not linked:  # no page to write or link: let the records go before it counts the
        del records  # games, so that a long run never holds both (100,000 games: 30 and 51 MB)
    replay = replay_after_run(config.out, lambda line: say(line, "error: "),
                              lambda line: say(line, to=console))
    if replay is not None:
        say(f"replays {replay}", to=console)
    elif linked and not (config.out / REPLAY_FILE).is_file() and not replay_pending(config.out):
        write_reports(report, config.out, records, bracket)  # no page to link to after all
    return EXIT_OK


def partial_report(board: LiveBoard, records: list[dict[str, Any]]) -> Report | None:
    """The leaderboard of a stopped run's games, if they make one yet."""
    try:
        return board.report(records) if records else None
    except ReportError:
        return None


def print_fault_summary(records: list[dict[str, Any]], run_dir: Path) -> None:
    """Per bot with faults: what went wrong first and where its log is
    (``referee.summary``)."""
    for line in render_faults(bot_faults(records), run_dir):
        say(line, to=console)
