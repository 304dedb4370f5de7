"""A run from its first game to its last: the format's stages, the journal, resuming.

``Tournament`` is what every way of playing games shares: it writes ``config.json``,
opens the journal, asks the format for each stage's games, skips those already in the
journal (when resuming), and keeps the records. How the games are played is the
subclass's job: ``referee.runner.Runner`` plays them between bot processes,
``referee.inprocess.LocalRunner`` between Python functions in this process.

Resuming is exact because everything a game depends on is recorded: the format and the
run seed regenerate the same schedule, each game's deal depends only on its seed and the
run's deal secret (``secret.key``, ``referee.deals``), and the bundled bots are
deterministic given the per-game seed they are sent.
"""

from __future__ import annotations

import gc
import json
import platform
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import metadata
from itertools import islice
from pathlib import Path
from typing import Any

from referee.bracket import Tables
from referee.config import ConfigError, RunConfig
from referee.deals import SecretError, private_run_dir, store_secret
from referee.entrants import author_classes
from referee.games import Game, load_game
from referee.journal import (
    SCHEMA_VERSION,
    Journal,
    JournalRecords,
    check_journal,
    game_of,
    transcript_line,
)
from referee.league.recorded import RecordedSchedule
from referee.rundir import (
    CONFIG_FILE,
    RunFileError,
    brief,
    check_tree,
    read_json,
    write_text,
)
from referee.schedule import Format, Gauntlet, RoundRobin, ScheduledGame, swapped_pairs
from referee.seal import SealError, check_seal, seal

ProgressFn = Callable[[Any, dict[str, Any]], None]


class FixedSchedule:
    """A format of one stage whose games are given."""

    name = "fixed"

    def __init__(self, games: Iterable[ScheduledGame]):
        self._games = games

    def stage(self, number: int, records: Sequence[Mapping[str, Any]]
              ) -> Iterable[ScheduledGame] | None:
        return self._games if number == 0 else None


def make_format(config: Mapping[str, Any]) -> Format:
    """The schedule a run's configuration asks for (``RunConfig.to_dict()``, as recorded in
    ``config.json``): ``--format``, or the seat-swapped pairs of ``referee sprt``."""
    kind = config.get("format", "round-robin")
    n, seed, games = len(config["bots"]), int(config["seed"]), config["games"]
    duplicate = config.get("duplicate", False)
    apart = author_classes(config["bots"], kind, config.get("candidates", 0),
                           config.get("allow_same_author", False))
    design = config.get("design", "cycle")  # a run recorded before designs: its cycles
    if kind == "round-robin":
        return RoundRobin(n, config["players"], games, seed, duplicate, apart, design)
    if kind == "gauntlet":
        return Gauntlet(config["candidates"], n, config["players"], games, seed, duplicate,
                        apart, design)
    if kind == "tables":
        game = load_game(*game_of(config))
        return Tables(n, [b["name"] for b in config["bots"]], game.seats, games, seed,
                      duplicate, max_table=config.get("players") or game.max_table)
    if kind == "sprt":
        return FixedSchedule(islice(swapped_pairs(seed), games - games % 2))
    if kind == "league":  # its journal is its schedule (``referee.league.recorded``)
        return RecordedSchedule([b["name"] for b in config["bots"]])
    raise ConfigError(f"unknown format {kind!r}: use round-robin, gauntlet or tables")


class Tournament:
    """Plays a run's format to the end (or until stopped), journalling every game."""

    def __init__(self, config: RunConfig, progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Callable[[str], None] | None = None):
        """``schedule`` replaces the configured format by a fixed list of games.
        ``resume`` continues the run in ``config.out``: the games in its journal are not
        played again (a torn last journal line is dropped, through ``warn``)."""
        self.config = config
        self.rules: Game = load_game(config.game, config.params)
        self.deals = config.deals
        self.format: Format = FixedSchedule(schedule) if schedule is not None \
            else make_format(config.to_dict())
        self.progress = progress
        self.resume = resume
        self.warn = warn
        self.stopping = False      # start no more games; finish those in progress
        self.interrupted = False   # start no more games; abandon those in progress
        self.abandoned: list[int] = []  # games left unfinished by an interrupt
        self.played = 0  # games in the journal, earlier sessions' too
        # The games an earlier session journalled (resume). Nothing else is kept per
        # game: the journal on disk is the record, so a run of any length stays small.
        self._done: set[int] = set()
        self._journal: Journal | None = None

    def stop(self) -> None:
        """Start no more games; the run ends when those in progress are over."""
        self.stopping = True

    def interrupt(self) -> None:
        """Start no more games and abandon those in progress (``referee resume`` plays
        them again); the journal keeps every game that finished."""
        self.stopping = self.interrupted = True

    def run(self) -> None:
        """Play every game not yet journalled (the journal holds the results)."""
        out = self.config.out
        try:  # whatever happens, ``close`` ends what ``open`` started
            private_run_dir(out)
            if self.resume:
                self._done = check_journal(out, self.warn)
                self.played = len(self._done)
            else:
                self.write_config()
            self._journal = Journal(out)
            self.open()
            # What is alive now (modules, the bots' and the journal's state) lives as long
            # as the run: keep the collector from scanning it again and again, so its pauses
            # stay short however long the run (a pause would be charged to a bot's clock).
            gc.freeze()
            stage = 0
            while not self.stopping:
                # Later stages are made from the results of earlier ones, read back from
                # the journal when (and only if) the format looks at them.
                games = self.format.stage(stage, JournalRecords(out) if stage else [])
                if games is None:
                    break
                self.play(g for g in games if g.index not in self._done)
                stage += 1
        finally:
            if self._journal is not None:
                self._journal.close()
            self.close()

    def journal_game(self, record: dict[str, Any], events: list[dict[str, Any]],
                     decisions: list[list[Any]]) -> None:
        """Append a finished game to the journal, then tell the progress callback."""
        self.journal_encoded(record, transcript_line(record, events, decisions))

    def journal_encoded(self, record: dict[str, Any], transcript: bytes) -> None:
        """``journal_game``, with the transcript's line already made where the game
        was played."""
        self.journal_batch([(record, transcript)])

    def journal_batch(self, games: list[tuple[dict[str, Any], bytes]]) -> None:
        """``journal_encoded`` for a batch of games (``referee.cluster``), written at once."""
        assert self._journal is not None
        self._journal.append_batch(games)
        for record, _ in games:
            self.played += 1
            if self.progress:
                self.progress(self, record)

    def write_config(self) -> None:
        """Write the deal secret (if any), then ``config.json``, which says there is one."""
        out = self.config.out
        if self.config.secret is not None:
            store_secret(out, self.config.secret)
        versions = {"python": platform.python_version()}
        for pkg in ("card-bot-referee", "numba", "numpy", "pyzmq", "msgpack"):
            try:
                versions[pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                versions[pkg] = None
        config = self.config.to_dict()
        doc = {"schema_version": SCHEMA_VERSION, "config": config,
               "versions": versions, "argv": sys.argv,
               "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        try:
            doc["seal"] = seal(config, self.config.secret)
        except (OSError, SealError) as exc:  # no key where one can be kept: the run goes on
            if self.warn:
                self.warn(f"warning: config.json is not sealed ({exc}): `referee resume` "
                          "will need --trust")
        write_text(out / CONFIG_FILE, json.dumps(doc, indent=2) + "\n")

    # What a subclass provides.

    def open(self) -> None:
        """Get ready to play (start bots)."""

    def play(self, games: Iterator[ScheduledGame]) -> None:
        """Play ``games`` (in any order, any number at once), calling ``journal_game``
        for each that finishes, until they are exhausted or ``stopping`` is set."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what ``open`` took."""


def load_config(run_dir: Path, trust: bool = False) -> RunConfig:
    """The configuration a run directory was started with (for ``referee resume``),
    if it bears this host's seal (``referee.seal``: SealError if not). With ``trust``
    (the host vouches for it) it is taken without, and sealed anew."""
    run_dir = Path(run_dir)
    path = run_dir / CONFIG_FILE
    try:
        check_tree(run_dir)
        doc = read_json(run_dir, CONFIG_FILE)
    except FileNotFoundError:
        raise ConfigError(f"{run_dir} is not a run directory (no {CONFIG_FILE})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except RunFileError as exc:
        raise ConfigError(str(exc)) from None
    try:
        config = RunConfig.from_dict(doc["config"], run_dir)
    except (ConfigError, SecretError):
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: not a run configuration ({brief(str(exc), 300)})"
                          ) from None
    if trust:
        write_text(path, json.dumps({**doc, "seal": seal(doc["config"], config.secret)},
                                    indent=2) + "\n")
    else:
        check_seal(doc, config.secret, path)
    return config
