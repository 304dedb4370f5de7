"""A run's settings from the command line's words: the bots' limits (``make_limits``)
the whole ``RunConfig`` (``make_config``) and its run directory (``check_out``),
checked before anything starts."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from referee.cgroup import cpu_cap_problem, freezer_parent
from referee.config import (
    FORMATS,
    ConfigError,
    RunConfig,
    cpu_limit_s,
    memory_limit_mb,
    parse_duration,
    parse_size,
)
from referee.deals import new_run_seed, new_secret, read_secret_file
from referee.entrants import FieldOptions, check_shares, games_for_each, total_games
from referee.gameopts import params_text
from referee.games.api import Game
from referee.process import BotLimits, BotSpec, closed_to_others, resolve_bots
from referee.rounds import design_for
from referee.rundir import PSEUDO_FILE_SYSTEMS, RUN_FILES, file_system
from referee.sandbox import hosting_paths, resolve
from referee.tournament import make_format


def default_out(label: str) -> Path:
    base = Path("runs") / f"{time.strftime('%Y%m%d-%H%M%S')}-{label}"
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def make_limits(memory: str, cpu: str, procs: int, files: int, log_cap: str,
                run_as: str | None, disk: str = "64M", cores: float = 0.0,
                turns: bool = False) -> BotLimits:
    if procs < 0 or files < 0:
        raise ConfigError("--limit-procs and --limit-files must be 0 (no limit) or more")
    limits = BotLimits(memory_mb=memory_limit_mb(memory), cpu_s=cpu_limit_s(cpu),
                       procs=procs, files=files, log_bytes=parse_size(log_cap), run_as=run_as,
                       disk_mb=parse_size(disk) >> 20, cores=cores, turns=turns)
    if (why := cpu_cap_problem(cores)) is not None:
        raise ConfigError(f"--limit-cores {cores:g}: {why}")
    if turns and freezer_parent() is None:
        raise ConfigError("--cpu-turns: this machine has no writable cgroup v1 freezer "
                          "hierarchy to stop bots in")
    if limits.disk_mb < 1:
        raise ConfigError(f"--limit-disk {disk}: give at least 1M")
    if run_as is not None:
        if os.geteuid() != 0:
            raise ConfigError("--run-as needs the referee to run as root")
        try:
            limits.uid_base(False)
            limits.user_ids()
        except KeyError:
            raise ConfigError(f"--run-as: no user named {run_as!r} (for a uid of its own per "
                              "bot, write uid-range:BASE)") from None
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return limits


def check_run_as(specs: list[BotSpec], sandbox: str, limits: BotLimits) -> None:
    """ConfigError if bots run as other users without a sandbox cannot run this Python."""
    hosted = any(b.command[0] == sys.executable for b in specs)  # through the SDK
    closed = closed_to_others(hosting_paths()) if hosted else None
    if sandbox == "none" and limits.run_as is not None and closed:
        raise ConfigError(f"--run-as: other users cannot run this Python or read its "
                          f"packages ({closed} is closed to them); install it where they "
                          "can, or use --sandbox bwrap")


def make_config(bot_args: list[str], game: Game, players: int | None, games: int,
                seed: int | None, move_time: str, time_bank: str, concurrency: int,
                max_faults: int, start_timeout: str, out: Path | None,
                limits: BotLimits, sandbox: str, *, format: str = "round-robin",
                duplicate: bool = True, candidates: int = 0, baseline: str | None = None,
                in_process: bool = False, workers: int = 1,
                secret_file: Path | None = None, field: FieldOptions | None = None,
                event: str | None = None, new_run: bool = True) -> RunConfig:
    """Check the options of a run of ``game`` (``referee.gameopts.resolve_game``) and
    resolve them; ConfigError, SecretError or
    BotFileError says what is wrong. Without ``seed`` the run draws one; the deal secret
    is ``secret_file``'s, or drawn unless ``seed`` is given (``referee.deals``)."""
    specs = resolve_bots(bot_args)
    field = field or FieldOptions()
    sandbox = "none" if in_process else resolve(sandbox)[0]
    if not in_process:
        check_run_as(specs, sandbox, limits)
    if format not in FORMATS:
        raise ConfigError(f"unknown format {format!r}: use {', '.join(FORMATS)}")
    allowed = game.seats
    if format == "tables":  # the format sizes the tables; --players is the largest
        players = game.max_table if players is None else players
        if players > game.max_table:
            raise ConfigError(f"--format tables: {game.name} seats at most "
                              f"{game.max_table} per table, not {players}")
    elif format == "gauntlet":
        candidates = candidates or 1
        if not 1 <= candidates < len(specs):
            raise ConfigError("--candidates must leave at least one bot in the field")
        players = 2 if players is None else players
        names = [b.name for b in specs]
        if baseline is not None and baseline not in names[candidates:]:
            raise ConfigError(f"--baseline {baseline!r} is not a bot of the field "
                              f"({', '.join(names[candidates:])})")
        baseline = baseline or names[candidates]
    n_players = players if players is not None else min(max(len(specs), allowed[0]),
                                                         allowed[-1])
    if n_players not in allowed:
        raise ConfigError(f"{game.name} is played by {allowed[0]}-{allowed[-1]} players"
                          f"{' with ' + params_text(game.params) if game.params else ''}, "
                          f"not {n_players}")
    if len(specs) < n_players and format != "tables":
        raise ConfigError(f"{n_players} seats need at least {n_players} bots; "
                          "give a file more than once for self-play")
    games = total_games(format, len(specs), n_players, candidates, games, field.per_bot,
                        field.per_encounter)
    if games < 1 or concurrency < 1 or max_faults < 1 or workers < 1:
        raise ConfigError("--games, --concurrency, --max-faults and --workers must be at "
                          "least 1")
    if field.warm is not None and field.warm < 0:
        raise ConfigError(f"--warm-processes {field.warm}: give 0 or more")
    if workers > 1 and in_process:
        raise ConfigError("--workers plays bot processes; --in-process plays none")
    if workers > concurrency:
        raise ConfigError(f"--workers {workers} needs --concurrency {workers} or more: "
                          "the games at once are split across the workers")
    secret = (read_secret_file(secret_file) if secret_file is not None
              else new_secret() if seed is None else None)
    config = RunConfig(
        bots=tuple(specs), game=game.name, params=game.params, players=n_players, games=games,
        seed=seed if seed is not None else new_run_seed(), secret=secret,
        move_ms=parse_duration(move_time), bank_ms=parse_duration(time_bank),
        concurrency=1 if in_process else min(concurrency, games), max_faults=max_faults,
        start_timeout_ms=parse_duration(start_timeout), out=out or default_out(game.name),
        limits=limits, sandbox=sandbox, format=format, duplicate=duplicate,
        candidates=candidates if format == "gauntlet" else 0,
        baseline=baseline if format == "gauntlet" else None, in_process=in_process,
        workers=min(workers, games),  # each worker has one of the games at once, or more
        strict_start=field.strict_start, allow_same_author=field.allow_same_author,
        warm=field.warm, event=event,
        design=design_for(len(specs) - (candidates if format == "gauntlet" else 0)),
    )
    try:
        if field.per_bot or field.per_encounter:
            config = replace(config, games=games_for_each(
                lambda g: make_format(replace(config, games=g).to_dict()).stage(0, []),
                games, n_players, config.candidates, field.per_bot or field.per_encounter))
        first = make_format(config.to_dict()).stage(0, [])  # the format checks its seats
        if format != "tables":
            check_shares(first, [b.name for b in specs], format)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    check_out(config.out, new_run=new_run)
    return config


def check_out(out: Path, new_run: bool) -> None:
    """ConfigError unless a run can write into ``out`` (created if need be): not a file,
    not on a read-only or pseudo file system such as ``/proc``; for a ``new_run``, also
    unless ``out`` is free of another run's files (going on with one is ``resume``'s)."""
    fs = file_system(out)
    if fs in PSEUDO_FILE_SYSTEMS:
        raise ConfigError(f"--out {out} is on a {fs} file system, which cannot hold a run")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory")
    if new_run and any((out / name).exists() for name in RUN_FILES):
        raise ConfigError(f"--out {out} already holds a run: go on with it with "
                          f"`referee resume {out}`, or give another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".referee-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(f"{'--out ' if new_run else ''}{out} cannot be written: "
                          f"{exc.strerror or exc}") from None
