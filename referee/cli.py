"""The ``referee`` command line.

Exit codes (also in the README):
  0  success (``check``: the bot complies)
  1  ``check``: the bot started but does not comply; ``verify``: a game does not check out
  2  bad usage: an unknown option, a bad value, a missing bot file
  3  a bot could not be started (it exited or never said hello)
  4  internal error of the referee (details in the run directory's error.log)
  130  interrupted (Ctrl-C); the journal holds every game that finished
"""

from __future__ import annotations

import secrets
import sys
import time
import traceback
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

import evaluator
from leaderboards import Standing, standings, write_json
from referee.config import ConfigError, RunConfig, parse_duration
from referee.games import game_rules
from referee.process import BotFileError, resolve_bots
from referee.runner import BotStartError, Runner

EXIT_OK, EXIT_NONCOMPLIANT, EXIT_USAGE, EXIT_BOT_START, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Referee and bot-competition harness for Polish Poker.")
console = Console()
err_console = Console(stderr=True)


def fail(code: int, message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def standings_table(rows: list[Standing], title: str) -> RichTable:
    t = RichTable(title=title, title_justify="left")
    for col in ("#", "bot", "games", "wins", "mean place", "score %", "faults"):
        t.add_column(col, justify="left" if col == "bot" else "right")
    for i, r in enumerate(rows, 1):
        faults = ", ".join(f"{k} {v}" for k, v in r.faults.items()) or "-"
        t.add_row(str(i), r.bot, str(r.games), str(r.wins), f"{r.mean_place:.2f}",
                  f"{100 * r.score:.1f}", faults)
    return t


def default_out(rules: str) -> Path:
    base = Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{rules}"
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


@app.command()
def run(
    bots: Annotated[list[str], typer.Option(
        "--bots", help="Bot files (.py, or any executable), as FILE or NAME=FILE; "
                       "list them after one --bots.")],
    more_bots: Annotated[list[str] | None, typer.Argument(hidden=True)] = None,
    rules: Annotated[str, typer.Option(help="Ruleset: official or polacco.")] = "official",
    players: Annotated[int | None, typer.Option(
        help="Table size (default: the number of bots, if the ruleset allows it).")] = None,
    games: Annotated[int, typer.Option(help="Number of games.")] = 100,
    seed: Annotated[int | None, typer.Option(help="Run seed (default: random, recorded).")] = None,
    move_time: Annotated[str, typer.Option(help="Time per decision, e.g. 200ms, 1s.")] = "1s",
    time_bank: Annotated[str, typer.Option(
        help="Extra time per game, drawn when a decision exceeds --move-time.")] = "5s",
    concurrency: Annotated[int, typer.Option(
        help="Games played at once (each with its own bot processes).")] = 1,
    max_faults: Annotated[int, typer.Option(
        help="Consecutive faults after which a bot forfeits the game.")] = 3,
    start_timeout: Annotated[str, typer.Option(
        help="Time a bot has to start and say hello.")] = "30s",
    out: Annotated[Path | None, typer.Option(
        help="Run directory (default: a new one under runs/).")] = None,
) -> None:
    """Play games between bot processes and print the standings."""
    try:
        specs = resolve_bots(list(bots) + list(more_bots or []))
        if rules not in evaluator.RULESETS:
            raise ConfigError(f"unknown ruleset {rules!r}: use official or polacco")
        allowed = game_rules("polish-poker", rules).player_range()
        n_players = players if players is not None else min(max(len(specs), allowed[0]),
                                                             allowed[-1])
        if n_players not in allowed:
            raise ConfigError(f"{rules} is played by {allowed[0]}-{allowed[-1]} players, "
                              f"not {n_players}")
        if len(specs) < n_players:
            raise ConfigError(f"{n_players} seats need at least {n_players} bots; "
                              "give a file more than once for self-play")
        if games < 1 or concurrency < 1 or max_faults < 1:
            raise ConfigError("--games, --concurrency and --max-faults must be at least 1")
        config = RunConfig(
            bots=tuple(specs), rules=rules, players=n_players, games=games,
            seed=seed if seed is not None else secrets.randbits(32),
            move_ms=parse_duration(move_time), bank_ms=parse_duration(time_bank),
            concurrency=min(concurrency, games), max_faults=max_faults,
            start_timeout_ms=parse_duration(start_timeout), out=out or default_out(rules),
        )
    except (ConfigError, BotFileError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(play(config))


def play(config: RunConfig) -> int:
    names = [b.name for b in config.bots]
    settings = {"game": config.game, "rules": config.rules, "players": config.players,
                "move_ms": config.move_ms, "bank_ms": config.bank_ms, "seed": config.seed}
    title = (f"{config.rules}, {config.players} players, move {config.move_ms} ms "
             f"+ bank {config.bank_ms} ms, seed {config.seed}")
    console.print(f"run directory {config.out}  ({title})", highlight=False)
    progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True)
    task = progress.add_task("games", total=config.games)
    live = Live(Group(progress), console=console, refresh_per_second=4, transient=True)
    live_on = console.is_terminal

    def on_game(runner: Runner, _record: dict) -> None:
        progress.update(task, completed=len(runner.results))
        if live_on:
            live.update(Group(progress, standings_table(standings(runner.results, names),
                                                        "standings so far")))

    runner = Runner(config, progress=on_game)
    try:
        if live_on:
            live.start()
        try:
            runner.run()
        finally:
            if live_on:
                live.stop()
    except BotStartError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        return EXIT_BOT_START
    except KeyboardInterrupt:
        err_console.print(f"interrupted: {len(runner.results)} finished games are in "
                          f"{config.out}", highlight=False)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the one place that turns a bug into exit code 4
        log = config.out / "error.log"
        log.write_text(traceback.format_exc())
        err_console.print(f"[bold red]internal error:[/] {type(exc).__name__}: {exc} "
                          f"(traceback in {log})", highlight=False, soft_wrap=True)
        return EXIT_INTERNAL
    rows = standings(runner.results, names)
    counters = {"bots": {n: vars(c) for n, c in runner.counters.items()},
                "hub": runner.hub.counters.as_dict()}
    write_json(config.out / "leaderboard.json", rows, settings, counters)
    console.print(standings_table(rows, f"standings: {title}"))
    console.print(f"journal: {config.out / 'games.jsonl'}", highlight=False)
    return EXIT_OK


@app.command()
def check(
    bot: Annotated[str, typer.Argument(help="Bot file (.py or executable).")],
    move_time: Annotated[str, typer.Option(help="Time allowed per scripted turn.")] = "2s",
    start_timeout: Annotated[str, typer.Option(help="Time to start and say hello.")] = "30s",
) -> None:
    """Start a bot, do the handshake and a few scripted turns, and say whether it complies."""
    from referee.check import run_check

    try:
        spec = resolve_bots([bot])[0]
        move_ms, start_ms = parse_duration(move_time), parse_duration(start_timeout)
    except (ConfigError, BotFileError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(run_check(spec, move_ms, start_ms, console))


@app.command()
def verify(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holding games.jsonl).")],
) -> None:
    """Re-check every journalled game against its transcript with the engine."""
    from referee.verify import verify_run

    if not run_dir.is_dir():
        raise fail(EXIT_USAGE, f"no run directory {run_dir}")
    try:
        report = verify_run(run_dir)
    except ValueError as exc:
        raise fail(EXIT_NONCOMPLIANT, str(exc)) from None
    console.print(f"ok: {report.games} games ({report.rounds} rounds, {report.faults} faults) "
                  f"in {run_dir} agree with their transcripts", highlight=False)


@app.command("rules")
def rules_cmd(
    ruleset: Annotated[str, typer.Argument(help="official or polacco")] = "official",
) -> None:
    """Print a ruleset's whole declaration ladder, weakest first, with wire ids."""
    if ruleset not in evaluator.RULESETS:
        raise fail(EXIT_USAGE, f"unknown ruleset {ruleset!r}: use official or polacco")
    ladder = evaluator.declarations(ruleset)
    console.print(f"{ruleset}: {len(ladder)} declarations, weakest first (id  declaration)",
                  highlight=False)
    for d in ladder:
        console.print(f"{d.id:>4}  {d}", highlight=False)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
