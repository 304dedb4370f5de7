"""The ``referee`` command line.

Exit codes (also in the README):
  0  success (``check``: the bot complies)
  1  ``check``: the bot started but does not comply; ``verify``: a game does not check out
  2  bad usage: an unknown option, a bad value, a missing bot file
  3  a bot could not be started (it exited or never said hello)
  4  internal error of the referee (details in the run directory's error.log)
  130  interrupted (Ctrl-C); the journal holds every game that finished

``sprt`` has its own: 0 H1 accepted, 1 H0 accepted, 2 inconclusive at --max-games,
3 a bot could not be started, 4 internal error, 5 bad usage, 130 interrupted.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import evaluator
from leaderboards import ReportError, build_report, merge_settings, rich_table, write_reports
from leaderboards.sprt import Sprt
from referee.config import ConfigError, RunConfig, parse_duration, parse_size
from referee.games import game_rules
from referee.journal import GAMES_FILE, JournalError, read_games
from referee.process import BotFileError, BotLimits, resolve_bots
from referee.runner import BotStartError, Runner
from referee.sandbox import Sandbox, SandboxError
from referee.sprt import SprtMatch, play_sprt

EXIT_OK, EXIT_NONCOMPLIANT, EXIT_USAGE, EXIT_BOT_START, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130
EXIT_SPRT_INCONCLUSIVE, EXIT_SPRT_USAGE = 2, 5
# ``sprt`` exits 2 for "inconclusive"; a usage error found by the option parser (also 2)
# is turned into EXIT_SPRT_USAGE by ``main`` unless the test actually ran.
_sprt_verdict_given = False

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Referee and bot-competition harness for Polish Poker.")
console = Console()
if not console.is_terminal:  # logs and CI: wide enough for the leaderboard's ten columns
    console.width = 140
err_console = Console(stderr=True)


def fail(code: int, message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def default_out(rules: str) -> Path:
    base = Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{rules}"
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


RulesOpt = Annotated[str, typer.Option(help="Ruleset: official or polacco.")]
SeedOpt = Annotated[int | None, typer.Option(help="Run seed (default: random, recorded).")]
MoveTimeOpt = Annotated[str, typer.Option(help="Time per decision, e.g. 200ms, 1s.")]
TimeBankOpt = Annotated[str, typer.Option(
    help="Extra time per game, drawn when a decision exceeds --move-time.")]
ConcurrencyOpt = Annotated[int, typer.Option(
    help="Games played at once (each with its own bot processes).")]
MaxFaultsOpt = Annotated[int, typer.Option(
    help="Consecutive faults after which a bot forfeits the game.")]
StartTimeoutOpt = Annotated[str, typer.Option(help="Time a bot has to start and say hello.")]
OutOpt = Annotated[Path | None, typer.Option(
    help="Run directory (default: a new one under runs/).")]
MemoryOpt = Annotated[str, typer.Option(
    help="Address space per bot process, e.g. 2G (0: no limit).")]
CpuOpt = Annotated[str, typer.Option(
    help="CPU time per bot process over its life, e.g. 10m (0: no limit).")]
ProcsOpt = Annotated[int, typer.Option(
    help="RLIMIT_NPROC for bot processes (per user; not applied to root; 0: no limit).")]
FilesOpt = Annotated[int, typer.Option(help="Open files per bot process (0: no limit).")]
RunAsOpt = Annotated[str | None, typer.Option(
    help="Run bots as this user (the referee must be root), e.g. nobody; with "
         "--limit-procs this is what stops a fork bomb.")]
SandboxOpt = Annotated[str, typer.Option(
    help="none (trusted bots) or bwrap (bubblewrap: no network, read-only system, one "
         "writable directory per bot).")]
LogCapOpt = Annotated[str, typer.Option(
    help="Bytes of each bot process's stdout and of its stderr kept in logs/, e.g. 1M.")]


def make_limits(memory: str, cpu: str, procs: int, files: int, log_cap: str,
                run_as: str | None) -> BotLimits:
    if procs < 0 or files < 0:
        raise ConfigError("--limit-procs and --limit-files must be 0 (no limit) or more")
    limits = BotLimits(memory_mb=parse_size(memory) >> 20, cpu_s=parse_duration(cpu) // 1000,
                       procs=procs, files=files, log_bytes=parse_size(log_cap), run_as=run_as)
    if run_as is not None:
        if os.geteuid() != 0:
            raise ConfigError("--run-as needs the referee to run as root")
        try:
            limits.user_ids()
        except KeyError:
            raise ConfigError(f"--run-as: no user named {run_as!r}") from None
    return limits


def make_config(bot_args: list[str], rules: str, players: int | None, games: int,
                seed: int | None, move_time: str, time_bank: str, concurrency: int,
                max_faults: int, start_timeout: str, out: Path | None,
                limits: BotLimits, sandbox: str) -> RunConfig:
    """Check the options of a run and resolve them; ConfigError or BotFileError says what
    is wrong."""
    specs = resolve_bots(bot_args)
    Sandbox(sandbox).check()
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
    return RunConfig(
        bots=tuple(specs), rules=rules, players=n_players, games=games,
        seed=seed if seed is not None else secrets.randbits(32),
        move_ms=parse_duration(move_time), bank_ms=parse_duration(time_bank),
        concurrency=min(concurrency, games), max_faults=max_faults,
        start_timeout_ms=parse_duration(start_timeout), out=out or default_out(rules),
        limits=limits, sandbox=sandbox,
    )


@app.command()
def run(
    bots: Annotated[list[str], typer.Option(
        "--bots", help="Bot files (.py, or any executable), as FILE or NAME=FILE; "
                       "list them after one --bots.")],
    more_bots: Annotated[list[str] | None, typer.Argument(hidden=True)] = None,
    rules: RulesOpt = "official",
    players: Annotated[int | None, typer.Option(
        help="Table size (default: the number of bots, if the ruleset allows it).")] = None,
    games: Annotated[int, typer.Option(help="Number of games.")] = 100,
    seed: SeedOpt = None,
    move_time: MoveTimeOpt = "1s",
    time_bank: TimeBankOpt = "5s",
    concurrency: ConcurrencyOpt = 1,
    max_faults: MaxFaultsOpt = 3,
    start_timeout: StartTimeoutOpt = "30s",
    out: OutOpt = None,
    limit_memory: MemoryOpt = "2G",
    limit_cpu: CpuOpt = "0",
    limit_procs: ProcsOpt = 0,
    limit_files: FilesOpt = 256,
    log_cap: LogCapOpt = "1M",
    sandbox: SandboxOpt = "none",
    run_as: RunAsOpt = None,
) -> None:
    """Play games between bot processes and print the standings."""
    try:
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as)
        config = make_config(list(bots) + list(more_bots or []), rules, players, games, seed,
                             move_time, time_bank, concurrency, max_faults, start_timeout, out,
                             limits, sandbox)
    except (ConfigError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(play(config))


def guarded(config: RunConfig, body: Callable[[], int]) -> int:
    """Run ``body`` and turn the ways a run can end early into exit codes."""
    try:
        return body()
    except BotStartError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        return EXIT_BOT_START
    except KeyboardInterrupt:
        err_console.print(f"interrupted: the finished games are in {config.out}",
                          highlight=False)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the one place that turns a bug into exit code 4
        log = config.out / "error.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(traceback.format_exc())
        err_console.print(f"[bold red]internal error:[/] {type(exc).__name__}: {exc} "
                          f"(traceback in {log})", highlight=False, soft_wrap=True)
        return EXIT_INTERNAL


def run_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a run's leaderboard describes, from its resolved configuration (``config.json``
    holds the same dict)."""
    return {key: config[key] for key in SETTINGS_KEYS if key in config}


SETTINGS_KEYS = ("game", "rules", "players", "move_ms", "bank_ms", "max_faults", "seed")
LIVE_REFIT_S = 1.0  # the live table is refitted at most this often


def play(config: RunConfig) -> int:
    names = [b.name for b in config.bots]
    settings = merge_settings([run_settings(config.to_dict())])  # as `rate` sees it
    console.print(f"run directory {config.out}  ({config.rules}, {config.players} players, "
                  f"{config.games} games, move {config.move_ms} ms + bank {config.bank_ms} ms, "
                  f"seed {config.seed})", highlight=False)
    progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True)
    task = progress.add_task("games", total=config.games)
    live = Live(Group(progress), console=console, refresh_per_second=4, transient=True)
    live_on = console.is_terminal
    last_fit = [0.0]

    def on_game(runner: Runner, _record: dict) -> None:
        progress.update(task, completed=len(runner.results))
        if live_on and time.monotonic() - last_fit[0] > LIVE_REFIT_S:
            last_fit[0] = time.monotonic()
            report = build_report(runner.results, settings, bots=names)
            live.update(Group(progress, rich_table(report)))

    runner = Runner(config, progress=on_game)

    def body() -> int:
        with live if live_on else nullcontext():
            runner.run()
        return EXIT_OK

    code = guarded(config, body)
    counters = {"bots": {n: vars(c) for n, c in runner.counters.items()},
                "hub": runner.hub.counters.as_dict()}
    (config.out / "counters.json").write_text(json.dumps(counters, indent=2) + "\n")
    if code != EXIT_OK or not runner.results:
        return code
    report = build_report(runner.results, settings, bots=names)
    write_reports(report, config.out)
    console.print(rich_table(report))
    console.print(f"journal {config.out / 'games.jsonl'}; leaderboard {config.out}/"
                  "leaderboard.{json,csv,md,html}", highlight=False)
    return EXIT_OK


@app.command()
def rate(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories to rate together.")],
    out: Annotated[Path | None, typer.Option(
        help="Where to write the leaderboard files (default: the run directory when there "
             "is one, else a new runs/merged-* directory).")] = None,
    anchor: Annotated[str | None, typer.Option(
        help="Fix one bot's Elo, as NAME=ELO (default: centred on the pool mean).")] = None,
    allow_mixed: Annotated[bool, typer.Option(
        help="Rate runs with different rules, table sizes or time policies together.")]
    = False,
) -> None:
    """Recompute the leaderboard from run journals, merging runs."""
    try:
        anchor_at = parse_anchor(anchor) if anchor else None
        records: list[dict[str, Any]] = []
        per_run = []
        for run_dir in run_dirs:
            if not (run_dir / GAMES_FILE).is_file():
                raise ConfigError(f"{run_dir} is not a run directory (no {GAMES_FILE})")
            records += read_games(run_dir, warn=lambda m: err_console.print(m, highlight=False))
            cfg = run_dir / "config.json"
            per_run.append(run_settings(json.loads(cfg.read_text())["config"])
                           if cfg.is_file() else {})
        settings = merge_settings(per_run, allow_mixed=allow_mixed)
        report = build_report(records, settings, anchor=anchor_at, allow_mixed=allow_mixed)
    except (ConfigError, JournalError, ReportError, ValueError, KeyError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    target = out or (run_dirs[0] if len(run_dirs) == 1 else default_out("merged"))
    paths = write_reports(report, target)
    console.print(rich_table(report))
    console.print("wrote " + ", ".join(str(p) for p in paths), highlight=False)


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME=ELO`` -> (name, elo)."""
    name, sep, value = text.rpartition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(value)
    except ValueError:
        raise ConfigError(f"bad --anchor {text!r}: write it as NAME=ELO, e.g. caller=0") from None


@app.command()
def sprt(
    candidate: Annotated[str, typer.Option(help="The new bot (FILE or NAME=FILE).")],
    baseline: Annotated[str, typer.Option(help="The bot to beat (FILE or NAME=FILE).")],
    elo0: Annotated[float, typer.Option(help="H0: the candidate is this much better.")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: the candidate is this much better.")] = 10.0,
    alpha: Annotated[float, typer.Option(help="False-positive rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="False-negative rate.")] = 0.05,
    max_games: Annotated[int, typer.Option(help="Give up (inconclusive) after this many.")]
    = 20_000,
    rules: RulesOpt = "official",
    seed: SeedOpt = None,
    move_time: MoveTimeOpt = "1s",
    time_bank: TimeBankOpt = "5s",
    concurrency: ConcurrencyOpt = 1,
    max_faults: MaxFaultsOpt = 3,
    start_timeout: StartTimeoutOpt = "30s",
    out: OutOpt = None,
    limit_memory: MemoryOpt = "2G",
    limit_cpu: CpuOpt = "0",
    limit_procs: ProcsOpt = 0,
    limit_files: FilesOpt = 256,
    log_cap: LogCapOpt = "1M",
    sandbox: SandboxOpt = "none",
    run_as: RunAsOpt = None,
) -> None:
    """Is the candidate better than the baseline? Heads-up games in seat-swapped pairs on
    the same deals until the SPRT decides.

    Exit codes: 0 H1 accepted (better by at least --elo1), 1 H0 accepted, 2 inconclusive
    at --max-games, 3 a bot could not start, 4 internal error, 5 bad usage, 130
    interrupted.
    """
    global _sprt_verdict_given
    try:
        if max_games < 2:
            raise ConfigError("--max-games must be at least 2 (one pair)")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ConfigError("--alpha and --beta must be between 0 and 0.5")
        if elo0 >= elo1:
            raise ConfigError("--elo0 must be below --elo1")
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as)
        config = make_config([candidate, baseline], rules, 2, max_games, seed, move_time,
                             time_bank, concurrency, max_faults, start_timeout, out, limits,
                             sandbox)
    except (ConfigError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_SPRT_USAGE, str(exc)) from None
    cand = config.bots[0].name
    console.print(f"SPRT {cand} vs {config.bots[1].name}: H0 elo {elo0:+g}, H1 elo {elo1:+g}, "
                  f"alpha {alpha}, beta {beta}; {rules} heads-up, seat-swapped pairs, "
                  f"seed {config.seed}; run directory {config.out}", highlight=False)
    live = Live(console=console, refresh_per_second=4, transient=True)
    live_on = console.is_terminal

    def status_line(m: SprtMatch) -> str:
        est, (lo, hi) = m.test.elo(), m.test.bounds
        o = m.outcomes
        return (f"LLR {m.test.llr:+.2f} [{lo:+.2f}, {hi:+.2f}]  pairs {m.test.pairs} "
                f"(W {o['W']} D {o['D']} L {o['L']})  games {m.games}  "
                f"Elo {est.elo:+.1f} [{est.low:+.1f}, {est.high:+.1f}]")

    def on_update(m: SprtMatch) -> None:
        if live_on:
            live.update(status_line(m))

    result: list[SprtMatch] = []

    def body() -> int:
        if live_on:
            live.start()
        try:
            result.append(play_sprt(config, Sprt(elo0, elo1, alpha, beta), max_games,
                                    on_update))
        finally:
            if live_on:
                live.stop()
        return EXIT_OK

    code = guarded(config, body)
    if code != EXIT_OK:
        raise typer.Exit(code)
    match = result[0]
    console.print(status_line(match), highlight=False)
    verdict = match.test.status
    _sprt_verdict_given = True
    if verdict == "H1":
        console.print(f"H1 accepted: {cand} is better by at least {elo1:g} Elo")
        raise typer.Exit(EXIT_OK)
    if verdict == "H0":
        console.print(f"H0 accepted: {cand} is not better by {elo1:g} Elo")
        raise typer.Exit(EXIT_NONCOMPLIANT)
    console.print(f"inconclusive after {match.games} games (--max-games {max_games})")
    raise typer.Exit(EXIT_SPRT_INCONCLUSIVE)


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
    except SystemExit as exc:
        if exc.code == EXIT_USAGE and sys.argv[1:2] == ["sprt"] and not _sprt_verdict_given:
            sys.exit(EXIT_SPRT_USAGE)
        raise
