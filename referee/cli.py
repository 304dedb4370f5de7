"""The ``referee`` command line.

Exit codes (also in the README):
  0  success (``check``: the bot complies)
  1  ``check``: the bot started but does not comply; ``verify``: a game does not check out,
     or games of the schedule are missing
  2  bad usage: an unknown option, a bad value, a missing bot file, an unusable --out; a
     journal with a bad line (other than a torn last one)
  3  a bot could not be started (not a program, it exited, or it never said hello)
  4  the run cannot go on: the run directory cannot be written (a full disk), or an
     internal error of the referee (details in the run directory's error.log)
  130  interrupted (Ctrl-C); 143  terminated (SIGTERM): the journal holds every game
     that finished

``sprt`` has its own: 0 H1 accepted, 1 H0 accepted, 2 inconclusive at --max-games,
3 a bot could not be started, 4 as above, 5 bad usage, 130/143 interrupted; nothing else.
Text that comes from a bot (names, its output, errors about it) is printed inert
(``leaderboards.inert``): no markup, no escape sequence reaches the terminal.
"""

from __future__ import annotations

import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live
from typer import rich_utils

from leaderboards import (
    ReportError,
    build_report,
    merge_settings,
    rich_table,
    write_reports,
)
from leaderboards.bracket_rank import rank_by_bracket
from leaderboards.sprt import Sprt
from referee.bracket import Tables, bracket_to_dict
from referee.budget import Budget, parse_budget
from referee.ciopts import EventOpt, MaxTimeOpt, ResumeOpt
from referee.clusterconnect import Cluster, ClusterError, connect
from referee.config import (
    ConfigError,
    RunConfig,
    parse_duration,
)
from referee.console import console, say
from referee.deals import SecretError
from referee.entrants import (
    FieldOptions,
    ShareError,
)
from referee.exits import (
    EXIT_BOT_START,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NONCOMPLIANT,
    EXIT_OK,
    EXIT_SPRT_INCONCLUSIVE,
    EXIT_SPRT_USAGE,
    EXIT_TERMINATED,
    EXIT_USAGE,
    Terminated,
    terminate,
    was_terminated,
)
from referee.gameopts import (
    GameOpt,
    ParamOpt,
    RulesOpt,
    describe_games,
    params_text,
    records_metric,
    resolve_game,
)
from referee.games import DEFAULT_GAME
from referee.inprocess import load_local_bots
from referee.jobsummary import SUMMARY_FILE, sprt_summary, write_summary
from referee.journal import GAMES_FILE, JournalError, StorageError, read_results
from referee.league.cli import app as league_app
from referee.limitopts import (
    CoresOpt,
    CpuOpt,
    DiskOpt,
    FilesOpt,
    LogCapOpt,
    MemoryOpt,
    ProcsOpt,
    RunAsOpt,
)
from referee.playrun import (
    deals_note,
    guarded,
    play,
    print_fault_summary,
    run_settings,
    varying_settings,
)
from referee.process import (
    BotFileError,
    BotNotRunnable,
    describe_isolation,
    resolve_bots,
)
from referee.progress import SprtProgress, print_standings, run_report
from referee.rundir import (
    RunFileError,
    read_config,
)
from referee.runner import BotStartError
from referee.runsetup import check_out, check_run_as, default_out, make_config, make_limits
from referee.samerun import holds_run, same_run
from referee.sandbox import SandboxError, resolve
from referee.show.html import REPLAY_FILE, replay_after_run
from referee.sprt import SPRT_FILE, SprtMatch, load_test, play_sprt, test_params
from referee.tournament import load_config, make_format

try:  # typer vendors click since 0.22
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - an older typer, on click
    from click import ClickException

# The exit code of ``sprt``'s verdict, once it is printed: ``run_app`` lets only a verdict
# end ``sprt`` with 0, 1 or 2 (a usage error found by the option parser is 5).
_sprt_verdict: int | None = None
_sprt_mode = False  # an SPRT is played (``sprt``, or ``resume`` of an SPRT run)

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Referee and bot-competition harness for card games.")
app.add_typer(league_app, name="league")


def fail(code: int, message: str) -> typer.Exit:
    say(message, "error: ")
    return typer.Exit(code)


SeedOpt = Annotated[int | None, typer.Option(
    help="Run seed (default: 64 random bits, recorded). Without --secret-file the deals "
         "then follow from it alone: for research, not for competitions.")]
SecretFileOpt = Annotated[Path | None, typer.Option(
    help="A file whose bytes (32 or more) key the deals, e.g. from head -c 32 /dev/urandom "
         "(default: 32 random bytes, unless --seed is given). With --seed it makes a "
         "competition reproducible; keep it private.")]
MoveTimeOpt = Annotated[str, typer.Option(help="Time per decision, e.g. 200ms, 1s.")]
TimeBankOpt = Annotated[str, typer.Option(
    help="Extra time per game, drawn when a decision exceeds --move-time.")]
ConcurrencyOpt = Annotated[int, typer.Option(
    help="Games played at once (each with its own bot processes).")]
MaxFaultsOpt = Annotated[int, typer.Option(
    help="Consecutive faults after which a bot forfeits the game.")]
StartTimeoutOpt = Annotated[str, typer.Option(help="Time a bot has to start and say hello.")]
OutOpt = Annotated[Path | None, typer.Option(
    help="Run directory (default: a new one under runs/); one that already holds a run "
         "is refused: `referee resume` goes on with it.")]
SandboxOpt = Annotated[str, typer.Option(
    help="auto (bwrap; none only where bubblewrap is missing or this kernel cannot run it, "
         "said at the start; a failed or slow trial of it stops instead), bwrap "
         "(bubblewrap: each bot sees only its files, no network, no other process) or none "
         "(trusted bots).")]
TurnsOpt = Annotated[bool, typer.Option(
    "--cpu-turns", help="Only the bots asked to act run (one at a time with --concurrency "
                        "1); every other bot process that has said hello is frozen "
                        "(cgroup v1 freezer) until its turn: bots cannot feel each other's "
                        "CPU use (SECURITY.md, Collusion).")]
ClusterOpt = Annotated[str | None, typer.Option(
    help="Play the games on a Dask cluster: its scheduler's address (tcp://HOST:8786), or "
         "local:N for N workers on this machine; --concurrency is then the games at once on "
         "each worker. Needs the cluster extra (docs/cluster.md).")]
ClusterWaitOpt = Annotated[str, typer.Option(
    help="How long --cluster waits for a Dask worker when it has none, e.g. 10m (0: for "
         "ever).")]
ClusterInsecureOpt = Annotated[bool, typer.Option(
    help="Allow an unencrypted --cluster address (tcp://) for sandboxed bots: anyone who "
         "reaches the scheduler can run code on the workers (docs/cluster.md).")]


@app.command()
def run(
    bots: Annotated[list[str], typer.Option(
        "--bots", help="Bot files (.py, or any executable), as FILE or NAME=FILE; "
                       "list them after one --bots.")],
    more_bots: Annotated[list[str] | None, typer.Argument(hidden=True)] = None,
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    players: Annotated[int | None, typer.Option(
        help="Table size (default: the number of bots, if the game seats them).")] = None,
    games: Annotated[int, typer.Option(
        help="Number of games (rounded up to whole duplicate groups); with --format tables, "
             "games per table.")] = 100,
    format: Annotated[str, typer.Option(
        "--format", help="round-robin: every bot meets every other; gauntlet: the first "
                         "--candidates bots against the field; tables: the official rules' "
                         "multi-table tournament for 7 or more bots.")] = "round-robin",
    duplicate: Annotated[bool, typer.Option(
        "--duplicate/--no-duplicate",
        help="Replay each deal with the seats rotated, so the luck of the cards cancels out; "
             "ratings use complete groups only.")] = True,
    candidates: Annotated[int, typer.Option(
        help="gauntlet: how many of the bots, listed first, are candidates.")] = 1,
    baseline: Annotated[str | None, typer.Option(
        help="gauntlet: the field bot whose Elo is 0 in the leaderboard (default: the "
             "first).")] = None,
    in_process: Annotated[bool, typer.Option(
        "--in-process",
        help="Play .py bots as functions inside the referee: no processes, no sockets, no "
             "preemptive deadlines (for research and fast tests).")] = False,
    seed: SeedOpt = None,
    secret_file: SecretFileOpt = None,
    move_time: MoveTimeOpt = "1s",
    time_bank: TimeBankOpt = "5s",
    concurrency: ConcurrencyOpt = 1,
    workers: Annotated[int, typer.Option(
        help="Referee processes that share the --concurrency games at once, each with its "
             "own bot processes (1: all in this one).")] = 1,
    max_faults: MaxFaultsOpt = 3,
    start_timeout: StartTimeoutOpt = "30s",
    out: OutOpt = None,
    limit_memory: MemoryOpt = "2G",
    limit_cpu: CpuOpt = "0",
    limit_procs: ProcsOpt = 0,
    limit_files: FilesOpt = 256,
    log_cap: LogCapOpt = "1M",
    sandbox: SandboxOpt = "auto",
    run_as: RunAsOpt = None,
    limit_disk: DiskOpt = "64M",
    limit_cores: CoresOpt = 0.0,
    cpu_turns: TurnsOpt = False,
    cluster: ClusterOpt = None,
    games_per_bot: Annotated[int | None, typer.Option(
        help="round-robin: games each bot plays (replaces --games).")] = None,
    games_per_encounter: Annotated[int | None, typer.Option(
        help="gauntlet: games each candidate plays with each field bot, as fastchess's "
             "and cutechess's -games (replaces --games).")] = None,
    strict_start: Annotated[bool, typer.Option(
        "--strict-start", help="Start every bot before the first game and end the run "
                               "(exit 3) if one cannot start, instead of forfeiting its "
                               "games.")] = False,
    allow_same_author: Annotated[bool, typer.Option(
        "--allow-same-author", help="Let bots of one author (author=NAME in the bot "
                                    "argument) share a table.")] = False,
    warm_processes: Annotated[int | None, typer.Option(
        help="Idle bot processes kept for the next games, per referee process (default: "
             "concurrency x players x the games of one deal). Fewer bound the processes "
             "and memory tighter (concurrency x players + this) at the cost of more "
             "starts.")] = None,
    cluster_wait: ClusterWaitOpt = "10m",
    cluster_insecure: ClusterInsecureOpt = False,
    max_time: MaxTimeOpt = None,
    resume_run: ResumeOpt = False,
    event: EventOpt = None,
) -> None:
    """Play games between bots and print the leaderboard. Ctrl-C stops cleanly; `referee
    resume RUN_DIR` goes on from there."""
    try:
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as, limit_disk, limit_cores, cpu_turns)
        kind = resolve_game(game, param, rules)
        budget, again = parse_budget(max_time), holds_run(out, resume_run)
        config = make_config(list(bots) + list(more_bots or []), kind, players, games, seed,
                             move_time, time_bank, concurrency, max_faults, start_timeout, out,
                             limits, sandbox, format=format, duplicate=duplicate,
                             candidates=candidates, baseline=baseline, in_process=in_process,
                             workers=workers, secret_file=secret_file, event=event,
                             new_run=not again,
                             field=FieldOptions(games_per_bot, games_per_encounter,
                                                strict_start, allow_same_author,
                                                warm_processes))
        if again:
            config = same_run(config, seed is not None, secret_file is not None)
        if cluster is not None and (in_process or workers > 1):
            raise ConfigError("--cluster plays the games on the cluster's workers: drop "
                              "--in-process and --workers")
        local = load_local_bots(config.bots) if in_process else None
        remote = join_cluster(cluster, config, cluster_wait, cluster_insecure)
    except BotNotRunnable as exc:
        raise fail(EXIT_BOT_START, str(exc)) from None
    except (ConfigError, SecretError, BotFileError, SandboxError, ShareError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(play(config, local, resume=again, cluster=remote, budget=budget))


def join_cluster(address: str | None, config: RunConfig, wait: str,
                 insecure: bool) -> Cluster | None:
    """The Dask cluster of ``--cluster`` for ``config``'s run, connected once it has a
    worker (None without it); ConfigError if it cannot be used."""
    if address is None:
        return None
    try:
        return connect(address, parse_duration(wait) / 1000, insecure,
                       trusted=config.sandbox == "none", note=say)
    except ClusterError as exc:
        raise ConfigError(str(exc)) from None


@app.command()
def resume(
    run_dir: Annotated[Path, typer.Argument(help="The run directory of an unfinished run.")],
    cluster: ClusterOpt = None,
    trust: Annotated[bool, typer.Option(
        "--trust", help="Resume a run this host did not seal (made elsewhere, or before "
                        "seals): you vouch for its bots and settings (SECURITY.md).")] = False,
    start_timeout: Annotated[str | None, typer.Option(
        help="Time a bot has to start and say hello (default: the run's); it changes no "
             "result.")] = None,
    cluster_wait: ClusterWaitOpt = "10m",
    cluster_insecure: ClusterInsecureOpt = False,
    max_time: MaxTimeOpt = None,
) -> None:
    """Go on with an interrupted run: the same schedule from its recorded configuration
    and seed, skipping the games already in its journal. An SPRT run goes on with its
    test and exits as `referee sprt` does."""
    try:
        config, budget = load_config(run_dir, trust), parse_budget(max_time)
        if start_timeout is not None:
            config = replace(config, start_timeout_ms=parse_duration(start_timeout))
        check_out(config.out, new_run=False)
        if cluster is not None and config.in_process:
            raise ConfigError("--cluster plays bot processes; this run is played in-process")
        if config.format == "sprt":  # the test goes on from its journal
            test, max_games = load_test(run_dir)
            raise typer.Exit(run_sprt(config, test, max_games, resume=True, cluster=join_cluster(
                cluster, config, cluster_wait, cluster_insecure), budget=budget))
        local = load_local_bots(config.bots) if config.in_process else None
        if local is None and config.sandbox != "none" and cluster is None:
            resolve(config.sandbox)  # the run's sandbox must still work here
        remote = join_cluster(cluster, config, cluster_wait, cluster_insecure)
    except BotNotRunnable as exc:
        raise fail(EXIT_BOT_START, str(exc)) from None
    except (ConfigError, SecretError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(play(config, local, resume=True, cluster=remote, budget=budget))


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
        per_run, varying, configs = [], [], []
        for run_dir in run_dirs:
            if not (run_dir / GAMES_FILE).is_file():
                raise ConfigError(f"{run_dir} is not a run directory (no {GAMES_FILE})")
            records += read_results(run_dir,
                                    warn=say)
            config = read_config(run_dir)
            configs.append(config)
            per_run.append(run_settings(config))
            varying.append(set(varying_settings(config)))
        settings = merge_settings(per_run, allow_mixed=allow_mixed)
        mixed = allow_mixed or tuple(set.intersection(*varying))  # what every run lets vary
        report = build_report(records, settings, anchor=anchor_at, allow_mixed=mixed,
                              metric=records_metric(records))
        bracket = run_bracket(configs, records)
        report = rank_by_bracket(report, bracket)
    except (ConfigError, JournalError, ReportError, ValueError, KeyError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    target = out or (run_dirs[0] if len(run_dirs) == 1 else default_out("merged"))
    try:
        check_out(target, new_run=False)
    except ConfigError as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    try:
        paths = write_reports(report, target, records, bracket,
                              replays=(target / REPLAY_FILE).is_file())
    except OSError as exc:
        raise fail(EXIT_INTERNAL, f"cannot write the leaderboard into {target}: "
                                  f"{exc.strerror or exc}") from None
    console.print(rich_table(report, console.width))
    say("wrote " + ", ".join(str(p) for p in paths), to=console)


def run_bracket(configs: list[dict[str, Any]], records: list[dict[str, Any]]
                ) -> dict[str, Any] | None:
    """The bracket of a single tables run (its ``config.json`` configuration), from its
    journal; None for anything else."""
    if len(configs) != 1 or configs[0].get("format") != "tables":
        return None
    tables = make_format(configs[0])
    return bracket_to_dict(tables.bracket(records)) if isinstance(tables, Tables) else None


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
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    seed: SeedOpt = None,
    secret_file: SecretFileOpt = None,
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
    sandbox: SandboxOpt = "auto",
    run_as: RunAsOpt = None,
    limit_disk: DiskOpt = "64M",
    limit_cores: CoresOpt = 0.0,
    cpu_turns: TurnsOpt = False,
    cluster: ClusterOpt = None,
    cluster_wait: ClusterWaitOpt = "10m",
    cluster_insecure: ClusterInsecureOpt = False,
    max_time: MaxTimeOpt = None,
    resume_run: ResumeOpt = False,
    event: EventOpt = None,
) -> None:
    """Is the candidate better than the baseline? Heads-up games in seat-swapped pairs on
    the same deals until the SPRT decides.

    Exit codes: 0 H1 accepted (better by at least --elo1), 1 H0 accepted, 2 inconclusive
    at --max-games or --max-time, 3 a bot could not start, 4 the run directory cannot be
    written or an internal error, 5 bad usage, 130 interrupted, 143 terminated; nothing else.
    """
    try:
        if max_games < 2:
            raise ConfigError("--max-games must be at least 2 (one pair)")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ConfigError("--alpha and --beta must be between 0 and 0.5")
        if elo0 >= elo1:
            raise ConfigError("--elo0 must be below --elo1")
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as, limit_disk, limit_cores, cpu_turns)
        kind = resolve_game(game, param, rules)
        budget, again = parse_budget(max_time), holds_run(out, resume_run)
        config = replace(make_config([candidate, baseline], kind, 2, max_games, seed,
                                     move_time, time_bank, concurrency, max_faults,
                                     start_timeout, out, limits, sandbox,
                                     secret_file=secret_file, event=event, new_run=not again),
                         format="sprt", strict_start=True)  # as play_sprt records it
        test = Sprt(elo0, elo1, alpha, beta)
        if again:
            recorded, recorded_max = load_test(config.out)
            config = same_run(config, seed is not None, secret_file is not None,
                              test_params(test, max_games),
                              test_params(recorded, recorded_max))
        remote = join_cluster(cluster, config, cluster_wait, cluster_insecure)
    except BotNotRunnable as exc:
        raise fail(EXIT_BOT_START, str(exc)) from None
    except (ConfigError, SecretError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_SPRT_USAGE, str(exc)) from None
    raise typer.Exit(run_sprt(config, test, max_games, resume=again, cluster=remote,
                              budget=budget))


def run_sprt(config: RunConfig, test: Sprt, max_games: int, resume: bool = False,
             cluster: Cluster | None = None, budget: Budget | None = None) -> int:
    """Play (or go on with) the SPRT of ``config``, on ``cluster`` if given; prints the
    verdict, returns the exit code of ``referee sprt``."""
    global _sprt_verdict, _sprt_mode
    _sprt_mode = True
    cand = config.bots[0].name
    say(f"{'resuming ' if resume else ''}SPRT {cand} vs {config.bots[1].name}: "
        f"H0 elo {test.elo0:+g}, H1 elo {test.elo1:+g}, alpha {test.alpha}, "
        f"beta {test.beta}; {config.game} {params_text(config.params)} heads-up, "
        "seat-swapped pairs, "
        f"seed {config.seed}, {deals_note(config)}; run directory {config.out}", to=console)
    live = Live(console=console, refresh_per_second=4, transient=True)
    live_on = console.is_terminal

    def status_line(m: SprtMatch) -> str:
        est, (lo, hi) = m.test.elo(), m.test.bounds
        o = m.outcomes
        return (f"LLR {m.test.llr:+.2f} [{lo:+.2f}, {hi:+.2f}]  pairs {m.test.pairs} "
                f"(W {o['W']} D {o['D']} L {o['L']})  games {m.games}  "
                f"Elo {est.elo:+.1f} [{est.low:+.1f}, {est.high:+.1f}]")

    on_update = SprtProgress(console, live, max_games, status_line,
                             lambda s: say(s, to=console), config.out if resume else None)

    result: list[SprtMatch] = []

    def body() -> int:
        if live_on:
            live.start()
        try:
            result.append(play_sprt(config, test, max_games, on_update, resume, cluster,
                                    budget))
        finally:
            if live_on:
                live.stop()
        return EXIT_OK

    code = guarded(config, body)
    so_far = read_results(config.out)
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        print_standings(console, so_far, run_report(
            merge_settings([run_settings(config.to_dict())]), [b.name for b in config.bots]))
    print_fault_summary(so_far, config.out)
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        say(f"go on with: referee resume {config.out}")
    if code != EXIT_OK:
        return code
    match = result[0]
    out_of_time = budget is not None and budget.expired and match.verdict == "inconclusive"
    why = budget.option + " ran out" if out_of_time else f"--max-games {max_games}"
    say(status_line(match), to=console)
    write_summary(config.out, sprt_summary(match.to_dict(), so_far, config.out, config.event,
                                           "" if match.verdict != "inconclusive" else why))
    say(f"result in {config.out / SPRT_FILE}, {config.out / SUMMARY_FILE}", to=console)
    if match.verdict == "H1":
        say(f"H1 accepted: {cand} is better by at least {test.elo1:g} Elo", to=console)
        code = EXIT_OK
    elif match.verdict == "H0":
        say(f"H0 accepted: {cand} is not better by {test.elo1:g} Elo", to=console)
        code = EXIT_NONCOMPLIANT
    else:
        then = f"; go on with: referee resume {config.out}" if out_of_time else ""
        say(f"inconclusive after {match.games} games ({why}){then}", to=console)
        code = EXIT_SPRT_INCONCLUSIVE
    _sprt_verdict = code  # only now: the verdict is printed
    replay_after_run(config.out, lambda line: say(line, "error: "),
                     lambda line: say(line, to=console))
    return code


@app.command()
def check(
    bot: Annotated[str, typer.Argument(help="Bot file (.py or executable).")],
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    move_time: Annotated[str, typer.Option(help="Time allowed per scripted turn.")] = "2s",
    start_timeout: Annotated[str, typer.Option(help="Time to start and say hello.")] = "30s",
    out: Annotated[Path | None, typer.Option(
        help="Where the bot's logs go (default: a new folder under runs/).")] = None,
    sandbox: SandboxOpt = "auto",
    limit_memory: MemoryOpt = "2G",
    limit_cpu: CpuOpt = "0",
    limit_procs: ProcsOpt = 0,
    limit_files: FilesOpt = 256,
    log_cap: LogCapOpt = "1M",
    run_as: RunAsOpt = None,
    limit_disk: DiskOpt = "64M",
    limit_cores: CoresOpt = 0.0,
) -> None:
    """Start a bot, held as `referee run` holds its bots, do the handshake and the
    game's scripted turns, and say whether it complies."""
    from referee.check import run_check

    try:
        kind = resolve_game(game, param, rules)
        move_ms, start_ms = parse_duration(move_time), parse_duration(start_timeout)
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as, limit_disk, limit_cores)
        confined = resolve(sandbox)[0]
        spec = resolve_bots([bot])[0]
        check_run_as([spec], confined, limits)
    except BotNotRunnable as exc:
        say(f"start and hello: {exc}", "FAIL ", to=console)
        raise typer.Exit(EXIT_BOT_START) from None
    except (ConfigError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    out = out or default_out(f"check-{spec.name.replace('/', '_')}")
    say(describe_isolation(confined, limits), to=console)
    raise typer.Exit(run_check(spec, kind, move_ms, start_ms, console, out / "logs",
                               confined, limits))


@app.command("play")
def play_cmd(
    bots: Annotated[list[str], typer.Option(
        "--bots", help="The bots at the other seats (as for run); list them after one --bots.")],
    more_bots: Annotated[list[str] | None, typer.Argument(hidden=True)] = None,
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    games: Annotated[int, typer.Option(help="Games to play.")] = 1,
    seed: SeedOpt = None,
    move_time: Annotated[str, typer.Option(help="Time per decision, yours too.")] = "10m",
    sandbox: SandboxOpt = "auto",
    out: OutOpt = None,
) -> None:
    """Take a seat yourself against bots, in this terminal: you see what that seat's bot
    would see and type its actions; the games are journalled like any run's."""
    from referee.humanseat import play_in_terminal

    try:
        kind = resolve_game(game, param, rules)
        code = play_in_terminal(list(bots) + list(more_bots or []), kind, games, seed,
                                move_time, sandbox, out)
    except BotNotRunnable as exc:
        raise fail(EXIT_BOT_START, str(exc)) from None
    except BotStartError as exc:
        raise fail(EXIT_BOT_START, str(exc)) from None
    except (ConfigError, SecretError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(code)


@app.command("try")
def try_cmd(
    bot: Annotated[str, typer.Argument(help="Bot file (.py or executable).")],
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    games: Annotated[int, typer.Option(
        help="Games against the bundled bots (rounded up to whole duplicate groups).")] = 12,
    sandbox: SandboxOpt = "auto",
    out: OutOpt = None,
) -> None:
    """Check a bot, then play a short match against the game's bundled bots: the
    leaderboard and the replay page. The first thing to run on a new bot."""
    from referee.tryout import try_bot

    try:
        code = try_bot(bot, resolve_game(game, param, rules), games, sandbox, out)
    except BotNotRunnable as exc:
        say(f"start and hello: {exc}", "FAIL ", to=console)
        raise typer.Exit(EXIT_BOT_START) from None
    except (ConfigError, BotFileError, SandboxError) as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    raise typer.Exit(code)


@app.command()
def verify(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holding games.jsonl).")],
    unfinished: Annotated[bool, typer.Option(
        "--unfinished", help="Check the games of a run that was stopped, without asking "
                             "for the rest of its schedule.")] = False,
) -> None:
    """Re-check every journalled game against its transcript with the engine, and that
    the journal holds every game of the run's schedule."""
    from referee.verify import verify_run

    if not run_dir.is_dir():
        raise fail(EXIT_USAGE, f"no run directory {run_dir}")
    try:
        report = verify_run(run_dir, complete=not unfinished)
    except (SecretError, RunFileError) as exc:  # a file that cannot be read as it is
        raise fail(EXIT_USAGE, str(exc)) from None
    except ValueError as exc:
        raise fail(EXIT_NONCOMPLIANT, str(exc)) from None
    whole = "" if unfinished else " and are all the schedule has"
    say(f"ok: {report.games} games ({report.units} {report.unit}, {report.faults} faults) in "
        f"{run_dir} agree with their transcripts{whole}", to=console)


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holding games.jsonl).")],
    game: Annotated[int | None, typer.Argument(help="The game's number (default: the "
                                                    "first that the filters match).")] = None,
    step: Annotated[bool, typer.Option("--step", help="One step at a time: Enter or space "
                                                      "next, b back, q quit.")] = False,
    seat: Annotated[int | None, typer.Option(help="Show only what this seat saw.")] = None,
    bot: Annotated[str | None, typer.Option(help="A game this bot played.")] = None,
    lost: Annotated[bool, typer.Option("--lost", help="With --bot: one it lost.")] = False,
    fault: Annotated[str | None, typer.Option(
        help="A game with a fault of this label (timeout, malformed, illegal, crash...).")]
    = None,
    html: Annotated[bool, typer.Option("--html", help="Write the run's replay.html (the "
                                                      "games picked) instead.")] = False,
    out: Annotated[Path | None, typer.Option(help="With --html: where to write it.")] = None,
) -> None:
    """Replay one game of a run in the terminal: bots, cards as dealt, every action with
    its time, each round's result and why; or write the HTML replay (--html)."""
    from referee.show.command import ShowRequest
    from referee.show.command import show as show_game
    from referee.show.select import ShowError

    try:
        show_game(ShowRequest(run_dir, game, step, seat, bot, lost, fault, html, out), console)
    except ShowError as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    except StorageError as exc:  # --html on a full disk
        raise fail(EXIT_INTERNAL, str(exc)) from None


@app.command("rules")
def rules_cmd(
    game: Annotated[str, typer.Argument(help="The game (`referee games` lists them).")]
    = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
) -> None:
    """Print a game's rules (with its parameters: Polish Poker's ruleset, ...)."""
    from rich.markdown import Markdown

    try:
        kind = resolve_game(game, param, rules)
    except ConfigError as exc:
        raise fail(EXIT_USAGE, str(exc)) from None
    # Rendered as Markdown, never as Rich markup; lines of at most 100 columns read best.
    console.print(Markdown(kind.rules_text()), width=min(console.width, 100))


@app.command("games")
def games_cmd() -> None:
    """List the games, their seat ranges, and their parameters with defaults and
    allowed values (give them to run, check, sprt and rules as --param KEY=VALUE)."""
    for line in describe_games():
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def _terminate(signum: int, frame: Any) -> None:
    terminate()


def main() -> None:
    """The ``referee`` command."""
    signal.signal(signal.SIGTERM, _terminate)  # a run replaces it with a clean stop
    sys.exit(run_app(sys.argv[1:2] == ["sprt"]))


def run_app(sprt: bool) -> int:
    """Run the command line; every way it ends is one of the documented exit codes. A
    failure of the referee itself is 4, never 0, 1 or 2, which ``sprt`` uses for its
    verdicts."""
    try:
        code = app(standalone_mode=False)
    except ClickException as exc:  # found by the option parser: bad usage
        rich_utils.rich_format_error(exc)
        return EXIT_SPRT_USAGE if sprt else exc.exit_code
    except Terminated:
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # the only one in this mode: stdout closed (EPIPE)
        if sprt or _sprt_mode:
            return EXIT_INTERNAL if _sprt_verdict is None else _sprt_verdict
        return exc.code if isinstance(exc.code, int) else EXIT_INTERNAL
    except Exception as exc:  # a failure outside a run's own handling (``guarded``)
        say(f"{type(exc).__name__}: {exc}", "internal error: ")
        return EXIT_INTERNAL
    code = EXIT_OK if code is None else int(code)
    sprt = sprt or _sprt_mode
    if code == EXIT_INTERRUPTED and was_terminated():
        return EXIT_TERMINATED
    if sprt and _sprt_verdict is None and code in (EXIT_NONCOMPLIANT, EXIT_SPRT_INCONCLUSIVE):
        return EXIT_INTERNAL  # not a verdict: nothing but a verdict may exit 1 or 2
    return code
