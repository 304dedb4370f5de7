"""The run journal: the single source of truth of a run.

A run directory holds ``games.jsonl`` (one JSON object per finished game, appended
and flushed as the game ends) and ``transcripts.jsonl`` (one JSON object per game with
its full event stream, written just before the game's line). JOURNAL.md documents
both formats.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from leaderboards.report import VOLATILE_FIELDS
from referee.games import LEGACY_GAME, legacy_params
from referee.rundir import (  # noqa: F401 - GAMES_FILE ... StorageError: the journal's names
    GAMES_FILE,
    MAX_LINE_BYTES,
    STORAGE_ERRNOS,
    TRANSCRIPTS_FILE,
    RunFileError,
    StorageError,
    load_json,
    open_in,
    open_read,
)

SCHEMA_VERSION = 2  # 1: before games were packages (``rules``, not ``game_type``/``params``)
# Of a transcript: 3 adds ``seats``, ``decisions`` and ``faults`` (JOURNAL.md).
TRANSCRIPT_SCHEMA_VERSION = 3


class JournalError(RunFileError):
    """A journal line that is not a valid record (other than a torn last line)."""


class Journal:
    """Appends finished games to a run directory, each game whole or not at all."""

    def __init__(self, run_dir: Path):
        run_dir.mkdir(parents=True, exist_ok=True)
        self._paths = (run_dir / TRANSCRIPTS_FILE, run_dir / GAMES_FILE)
        self._fds: list[int] = []
        try:
            for path in self._paths:
                self._fds.append(open_in(run_dir, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                         0o644))
        except (OSError, RunFileError):
            self.close()
            raise

    def append(self, record: dict[str, Any], events: list[dict[str, Any]],
               decisions: list[list[Any]]) -> None:
        """Append the game's transcript, then its line. If either write fails, both
        files are cut back to where they were (the game is played again on resume) and
        StorageError says which file failed."""
        self.append_encoded(record, transcript_line(record, events, decisions))

    def append_encoded(self, record: dict[str, Any], transcript: bytes) -> None:
        """``append``, with the transcript's line already made (``transcript_line``)."""
        lines = [transcript, _line(record)]
        sizes = [os.fstat(fd).st_size for fd in self._fds]
        for path, fd, data in zip(self._paths, self._fds, lines, strict=True):
            try:
                while data:
                    data = data[os.write(fd, data):]
            except OSError as exc:
                for fd_, size in zip(self._fds, sizes, strict=True):
                    try:
                        os.ftruncate(fd_, size)
                    except OSError:
                        pass  # a line that stays torn is cut off by ``repair_journal``
                raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []


def transcript_line(record: dict[str, Any], events: list[dict[str, Any]],
                    decisions: list[list[Any]]) -> bytes:
    """The line of ``transcripts.jsonl`` for a game's record, events and decisions
    (``[seat, event, ms]`` each, ``referee.match.Match.decisions``)."""
    return _line({"schema_version": TRANSCRIPT_SCHEMA_VERSION, "game": record["game"],
                  "seed": record["seed"], "game_type": record["game_type"],
                  "params": record["params"], "players": record["players"],
                  "seats": record["seats"], "decisions": decisions,
                  "faults": record["faults"], "events": events})


def untimed(transcript: dict[str, Any]) -> dict[str, Any]:
    """A transcript without what differs between two plays of its game: the decisions'
    times (a resumed or re-run run has the same transcripts but for these).

    >>> untimed({"game": 0, "decisions": [[1, 2, 3.5]]})
    {'game': 0, 'decisions': [[1, 2]]}
    """
    if "decisions" not in transcript:
        return transcript
    return {**transcript, "decisions": [d[:2] for d in transcript["decisions"]]}


def _line(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, separators=(",", ":")) + "\n").encode()


def repair_journal(run_dir: Path, warn: Any = None) -> None:
    """Before appending to a run's journal again: cut a torn last line (a run killed
    mid-write) off each file, with a message through ``warn``, so that the next line
    starts on a line of its own. A transcript whose game line never made it stays; the
    game is played again and its new transcript supersedes it."""
    for name in (GAMES_FILE, TRANSCRIPTS_FILE):
        path = Path(run_dir) / name
        try:
            fd = open_in(Path(run_dir), path, os.O_RDWR)
        except FileNotFoundError:
            continue
        with os.fdopen(fd, "rb+") as f:
            data = f.read()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                f.truncate(keep)
                if warn:
                    warn(f"{path}: dropped a torn last line ({len(data) - keep} bytes)")


def read_lines(path: Path, warn: Any = None) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file of a run directory (``rundir.open_read``, each
    line capped by ``rundir.load_json``). A torn last line (a run killed mid-write) is
    dropped with a warning through ``warn``; a bad line elsewhere is a JournalError that
    names the file and the line."""
    path = Path(path)
    cap = MAX_LINE_BYTES.get(path.name, MAX_LINE_BYTES[TRANSCRIPTS_FILE])
    try:
        f = open_read(path.parent, path)
    except FileNotFoundError:
        return
    with f:
        for i, line in enumerate(iter(lambda: f.readline(cap + 1), b""), 1):
            try:
                rec = load_json(line, f"{path}:{i}", cap, "a journal record")
                if not isinstance(rec, dict):
                    raise JournalError(f"{path}:{i}: not a journal record (not an object)")
            except RunFileError as exc:
                if not line.endswith(b"\n") and len(line) <= cap:  # only the last can lack it
                    if warn:
                        warn(f"{path}: dropped a torn last line ({len(line)} bytes)")
                    return
                raise JournalError(str(exc)) from None
            yield rec


def check_journal(run_dir: Path, warn: Any = None) -> set[int]:
    """Before a run's journal is appended to again: cut torn last lines off
    (``repair_journal``), check that every other line of both files is a record
    (JournalError names the first that is not), and return the games journalled."""
    repair_journal(run_dir, warn)
    for _ in read_lines(Path(run_dir) / TRANSCRIPTS_FILE):
        pass
    path = Path(run_dir) / GAMES_FILE
    done: set[int] = set()
    for i, rec in enumerate(read_lines(path), 1):
        game = rec.get("game")
        if not isinstance(game, int) or isinstance(game, bool):
            raise JournalError(f"{path}:{i}: a record without a game number")
        done.add(game)
    return done


def read_games(run_dir: Path, warn: Any = None) -> list[dict[str, Any]]:
    return list(read_lines(Path(run_dir) / GAMES_FILE, warn))


def read_results(run_dir: Path, warn: Any = None) -> list[dict[str, Any]]:
    """The game records without their timing (``VOLATILE_FIELDS``) and with their texts
    shared: what leaderboards need, in about half the memory of ``read_games``."""
    return [{key: _shared(value) for key, value in rec.items() if key not in VOLATILE_FIELDS}
            for rec in read_lines(Path(run_dir) / GAMES_FILE, warn)]


def _shared(value: Any) -> Any:
    """``value`` with its strings interned: bot names repeat in every record."""
    if isinstance(value, str):
        return sys.intern(value)
    if isinstance(value, list):
        return [_shared(v) for v in value]
    if isinstance(value, dict):
        return {k: _shared(v) for k, v in value.items()}
    return value


class JournalRecords(Sequence[dict[str, Any]]):
    """A run's game results (``read_results``) as a sequence, read on first use only."""

    def __init__(self, run_dir: Path):
        self._run_dir = run_dir
        self._records: list[dict[str, Any]] | None = None

    def _all(self) -> list[dict[str, Any]]:
        if self._records is None:
            self._records = read_results(self._run_dir)
        return self._records

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._all()[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._all())


def game_of(doc: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The game name and parameters a record, a transcript or a run's configuration
    names; one of schema 1 names only its Polish Poker ruleset (``rules``).

    >>> game_of({"game_type": "six-card-golf", "params": {"target": 60}})
    ('six-card-golf', {'target': 60})
    >>> game_of({"schema_version": 1, "game_type": "polish-poker", "rules": "polacco"})
    ('polish-poker', {'ruleset': 'polacco'})
    """
    if "params" in doc:
        name = doc.get("game_type", doc.get("game"))
        if not isinstance(name, str):
            raise JournalError(f"no game name in {sorted(doc)}")
        return name, dict(doc["params"])
    return LEGACY_GAME, legacy_params(doc["rules"])


def read_transcripts(run_dir: Path, warn: Any = None) -> dict[int, dict[str, Any]]:
    return {t["game"]: t for t in read_lines(Path(run_dir) / TRANSCRIPTS_FILE, warn)}
