"""``referee league``: make a league, register authors and bots, serve it, export it.

Exit codes: 0 done; 1 a bot refused (its check failed, output printed); 2 bad input or a
directory that is not (or already is) a league; 4 the league's files could not be
written. ``serve`` ends with 0 when stopped (SIGINT, SIGTERM, or ``--once-games``).
"""

from __future__ import annotations

import json
import shutil
import signal
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from leaderboards import inert
from referee.config import ConfigError, parse_duration
from referee.deals import new_run_seed, new_secret, private_run_dir, store_secret
from referee.gameopts import GameOpt, ParamOpt, RulesOpt, resolve_game
from referee.games import DEFAULT_GAME
from referee.league import db
from referee.league.play import RUNNER_GAMES
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
from referee.process import BotFileError
from referee.runsetup import make_limits
from referee.sandbox import SandboxError, resolve

EXIT_REFUSED, EXIT_USAGE, EXIT_STORAGE = 1, 2, 4

app = typer.Typer(help="A league: bots submitted at any time, games played continuously, "
                       "a live leaderboard (preview: docs/league.md).",
                  no_args_is_help=True)
DirArg = Annotated[Path, typer.Argument(help="The league directory.")]


def _fail(code: int, message: str) -> typer.Exit:
    typer.echo(f"error: {inert.terminal(message)}", err=True)
    return typer.Exit(code)


def _open(league: Path):  # noqa: ANN202 - sqlite3.Connection
    try:
        return db.connect(league)
    except db.LeagueError as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None


@app.command()
def init(
    league: DirArg,
    game: GameOpt = DEFAULT_GAME,
    param: ParamOpt = None,
    rules: RulesOpt = None,
    players: Annotated[int | None, typer.Option(
        help="Table size (default: the game's smallest).")] = None,
    move_time: Annotated[str, typer.Option(help="Time allowed per move.")] = "1s",
    time_bank: Annotated[str, typer.Option(help="Extra time per bot per game.")] = "5s",
    max_faults: Annotated[int, typer.Option(help="Faults before a bot forfeits.")] = 3,
    start_timeout: Annotated[str, typer.Option(help="Time to start and say hello.")] = "30s",
    sandbox: Annotated[str, typer.Option(help="auto, bwrap or none (as `run`).")] = "auto",
    name: Annotated[str | None, typer.Option(help="The league's title.")] = None,
    limit_memory: MemoryOpt = "2G",
    limit_cpu: CpuOpt = "0",
    limit_procs: ProcsOpt = 0,
    limit_files: FilesOpt = 256,
    log_cap: LogCapOpt = "1M",
    run_as: RunAsOpt = None,
    limit_disk: DiskOpt = "64M",
    limit_cores: CoresOpt = 0.0,
) -> None:
    """Make a league directory: its database, run directory and deal secret. The limits
    are `run`'s, for every check and game of the league."""
    if league.exists() and any(league.iterdir()):
        raise _fail(EXIT_USAGE, f"{league} exists and is not empty: give a new directory")
    try:
        kind = resolve_game(game, param, rules)
        seats = kind.seats[0] if players is None else players
        if seats not in kind.seats:
            raise ConfigError(f"{kind.name} is played by {kind.seats[0]}-{kind.seats[-1]} "
                              f"players, not {seats}")
        if max_faults < 1:
            raise ConfigError("--max-faults must be at least 1")
        confined = resolve(sandbox)[0]
        limits = make_limits(limit_memory, limit_cpu, limit_procs, limit_files, log_cap,
                             run_as, limit_disk, limit_cores)
        settings = {
            "name": name or league.name, "game": kind.name, "params": kind.params,
            "players": seats, "move_ms": parse_duration(move_time),
            "bank_ms": parse_duration(time_bank), "max_faults": max_faults,
            "start_timeout_ms": parse_duration(start_timeout), "sandbox": confined,
            "limits": asdict(limits), "seed": new_run_seed()}
    except (ConfigError, SandboxError) as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None
    try:
        league.mkdir(parents=True, exist_ok=True)
        private_run_dir(league / db.RUN_DIR)
        store_secret(league / db.RUN_DIR, new_secret())
        (league / db.BOTS_DIR).mkdir()
        con = db.connect(league, create=True)
        db.put_settings(con, settings)
        con.close()
    except OSError as exc:
        raise _fail(EXIT_STORAGE, f"cannot make {league}: {exc.strerror or exc}") from None
    typer.echo(f"league {league}: {kind.name}, {seats} players a table, sandbox {confined}")


@app.command("add-author")
def add_author(league: DirArg,
               name: Annotated[str, typer.Argument(help="The author's name.")]) -> None:
    """Register an author; prints the author's token (shown once: only its hash is kept)."""
    con = _open(league)
    try:
        typer.echo(db.add_author(con, name))
    except db.LeagueError as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None
    finally:
        con.close()


@app.command("admin-token")
def admin_token(league: DirArg) -> None:
    """Issue the league's admin token (it sees every bot's logs and faults on the web);
    prints it once (only its hash is kept). A new one replaces the old, whose sessions end."""
    from referee.league.access import issue_admin_token

    con = _open(league)
    try:
        typer.echo(issue_admin_token(con))
    finally:
        con.close()


@app.command("add-bot")
def add_bot(
    league: DirArg,
    file: Annotated[Path, typer.Argument(
        help="The bot: a file (.py or executable), or a zipped folder (.zip).")],
    token: Annotated[str, typer.Option(help="The author's token (`add-author`).")],
    name: Annotated[str | None, typer.Option(
        help="The bot's name (default: the file's name without .py or .zip).")] = None,
    entry: Annotated[str | None, typer.Option(
        help="A zipped folder's entry file, at its top (default: bot.py).")] = None,
) -> None:
    """Submit a bot (a new version if the author has one of this name): `referee check`
    runs it in the league's sandbox first; a bot that fails is refused with its output."""
    from referee.league.botzip import MAX_ZIP_BYTES
    from referee.league.submit import Refused, submit

    con = _open(league)
    try:
        if not file.is_file():
            raise db.LeagueError(f"bot file not found: {file}")
        try:
            with file.open("rb") as f:  # no more than the largest upload, plus one byte
                data = f.read(MAX_ZIP_BYTES + 1)
        except OSError as exc:
            raise db.LeagueError(f"cannot read {file}: {exc.strerror or exc}") from None
        row = submit(con, league, db.author_of(con, token), file.name, data, name, entry)
    except (db.LeagueError, BotFileError) as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None
    except OSError as exc:
        raise _fail(EXIT_STORAGE, f"cannot store the bot in {league}: "
                                  f"{exc.strerror or exc}") from None
    except Refused as exc:
        typer.echo(exc.output, nl=False)
        raise _fail(EXIT_REFUSED, f"{file} is refused: it failed `referee check` "
                                  "(above)") from None
    finally:
        con.close()
    typer.echo(f"added {row.label}: in the pool")


@app.command()
def serve(
    league: DirArg,
    host: Annotated[str, typer.Option(help="Address the web app listens on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Its port.")] = 8000,
    workers: Annotated[int, typer.Option(
        help="Tables played at once (in this process).")] = 1,
    once_games: Annotated[int, typer.Option(
        help="Start no new game group once this many games are recorded; the groups "
             "scheduled finish, then the server stops (0: run until stopped); for "
             "tests.")] = 0,
    refit_every: Annotated[str, typer.Option(
        help="Refit the ratings at most this often while games come in.")] = "5s",
    runner_games: Annotated[int, typer.Option(
        help="Games one runner schedules before a fresh one takes over (its bots' log "
             "files start anew).")] = RUNNER_GAMES,
    cluster: Annotated[str | None, typer.Option(
        help="Play the games on a Dask cluster, as `run --cluster`: its scheduler's "
             "address, or local:N; --workers is then the games at once on each worker "
             "(docs/cluster.md).")] = None,
    cluster_wait: Annotated[str, typer.Option(
        help="As `run --cluster-wait`.")] = "10m",
    cluster_insecure: Annotated[bool, typer.Option(
        help="As `run --cluster-insecure`.")] = False,
) -> None:
    """Play the league's games continuously and serve its live leaderboard."""
    import uvicorn
    from threadpoolctl import threadpool_limits

    from referee.league.play import League, PlayOptions
    from referee.league.web import create_app

    # The refits' linear algebra on one thread: BLAS threads spin-waiting on the cores
    # the bots play on slow both (measured: a 200-bot fit 20 times slower).
    threadpool_limits(limits=1)
    _open(league).close()
    if workers < 1 or once_games < 0 or runner_games < 1:
        raise _fail(EXIT_USAGE, "--workers and --runner-games must be at least 1, "
                                "--once-games at least 0")
    try:
        refit_s = parse_duration(refit_every) / 1000
        if refit_s <= 0:
            raise ConfigError("it must be more than 0")
    except ConfigError as exc:
        raise _fail(EXIT_USAGE, f"--refit-every: {exc}") from None
    try:
        web = create_app(league)
        loop = League(league, PlayOptions(workers=workers, once_games=once_games,
                                          refit_s=refit_s, runner_games=runner_games),
                      warn=lambda m: typer.echo(inert.terminal(m), err=True))
    except db.LeagueError as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None
    if cluster is not None:
        loop.cluster = _join(league, cluster, cluster_wait, cluster_insecure)
    server = uvicorn.Server(uvicorn.Config(web, host=host, port=port,
                                           log_level="warning", lifespan="off"))

    def play() -> None:
        try:
            loop.run()
        finally:
            server.should_exit = True  # the web app goes with the games

    # uvicorn handles SIGINT/SIGTERM, then raises the signal again to the handler it
    # found: this one, which lets the batch in play finish instead of dying mid-game.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: loop.stop())
    thread = threading.Thread(target=play, name="league-play")
    thread.start()
    try:
        server.run()
    finally:
        loop.stop()
        thread.join()
        if loop.cluster is not None:
            loop.cluster.close()
    if loop.error is not None:
        raise _fail(EXIT_STORAGE, f"the league stopped: {loop.error}")
    typer.echo(f"stopped after {loop.played} games")


def _join(league: Path, address: str, wait: str, insecure: bool):  # noqa: ANN202 - Cluster
    """The Dask cluster of ``--cluster``, connected once it has a worker; exit 2 if it
    cannot be used."""
    from referee.clusterconnect import ClusterError, connect

    con = _open(league)
    try:
        trusted = db.get_settings(con)["sandbox"] == "none"
    finally:
        con.close()
    try:
        return connect(address, parse_duration(wait) / 1000, insecure, trusted=trusted,
                       note=lambda m: typer.echo(inert.terminal(m), err=True))
    except (ClusterError, ConfigError) as exc:
        raise _fail(EXIT_USAGE, str(exc)) from None


@app.command()
def export(league: DirArg,
           out: Annotated[Path, typer.Argument(help="A new run directory.")]) -> None:
    """Write a run directory of the league's games so far (`referee verify`, `rate`,
    `show` read it) with its leaderboard."""
    from leaderboards import ReportError, build_report, write_reports
    from referee.journal import read_games, repair_journal
    from referee.league.play import reconcile, report_settings

    con = _open(league)
    try:
        reconcile(con, league, repair=False)  # a server may be writing the journal
        settings = db.get_settings(con)
    finally:
        con.close()
    if out.exists():
        raise _fail(EXIT_USAGE, f"{out} exists: give a new directory")
    run = league / db.RUN_DIR
    try:
        if not (run / "config.json").is_file():
            raise _fail(EXIT_USAGE, f"{league} has played no game yet: nothing to export")
        private_run_dir(out)
        # Games before transcripts: each game line copied has its transcript before it.
        for name in ("config.json", "secret.key", "games.jsonl", "transcripts.jsonl"):
            shutil.copy2(run / name, out / name)
        repair_journal(out)
    except OSError as exc:
        raise _fail(EXIT_STORAGE, f"cannot write {out}: {exc.strerror or exc}") from None
    records = read_games(out)
    if records:
        try:
            write_reports(build_report(records, report_settings(settings)), out, records)
        except ReportError as exc:  # e.g. no duplicate group whole yet: the journal stays
            typer.echo(f"no leaderboard: {exc}", err=True)
        except OSError as exc:
            raise _fail(EXIT_STORAGE, f"cannot write the leaderboard into {out}: "
                                      f"{exc.strerror or exc}") from None
    typer.echo(json.dumps({"exported": str(out), "games": len(records)}))
