"""The run journal: the single source of truth of a run.

A run directory holds ``games.jsonl`` (one JSON object per finished game, appended
as the game ends: ``referee.backlog``) and ``transcripts.jsonl`` (one JSON object per
game with its full event stream, written just before the game's line). JOURNAL.md
documents both formats.
"""

from __future__ import annotations

import base64
import json
import os
import re
import zlib
from collections.abc import Collection, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack

from leaderboards.report import VOLATILE_FIELDS
from referee.games import LEGACY_GAME, legacy_params
from referee.results import Memo, Result, compact
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
# Of a transcript: 3 adds ``seats``, ``decisions`` and ``faults``; 4 names every game's
# fault events alike; 5 stores ``events`` and ``decisions`` packed (``packed``: base64 of
# zlib of msgpack), read back by ``decode_transcript`` as schema 4 has them (JOURNAL.md).
TRANSCRIPT_SCHEMA_VERSION = 5
PLAIN_SCHEMA_VERSION = 4  # the same with plain ``events`` and ``decisions``
TAIL_BLOCK = 1 << 16  # bytes read at a time when looking for a torn last line
PACKED_LEVEL = 1  # zlib's: level 6 saves another 8 % of the bytes for 3 times the CPU


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
        # Each file's size, kept up to date here rather than asked of the system per
        # game: where a failed append cuts the files back to (the only writer of the run).
        self._sizes = [os.fstat(fd).st_size for fd in self._fds]

    def append(self, record: dict[str, Any], events: list[dict[str, Any]],
               decisions: list[list[Any]]) -> None:
        """Append the game's transcript, then its line. If either write fails, both
        files are cut back to where they were (the game is played again on resume) and
        StorageError says which file failed."""
        self.append_encoded(record, transcript_line(record, events, decisions))

    def append_encoded(self, record: dict[str, Any], transcript: bytes) -> None:
        """``append``, with the transcript's line already made (``transcript_line``)."""
        self.append_batch([(record, transcript)])

    def append_batch(self, games: Sequence[tuple[dict[str, Any], bytes]]) -> None:
        """``append_encoded`` for several games at once: one write per file (a cluster's
        batch), all of them whole or none."""
        lines = [b"".join(t for _, t in games), b"".join(_line(r) for r, _ in games)]
        sizes = self._sizes
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
        self._sizes = [size + len(data) for size, data in zip(sizes, lines, strict=True)]

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []


def transcript_line(record: dict[str, Any], events: list[dict[str, Any]],
                    decisions: list[list[Any]]) -> bytes:
    """The line of ``transcripts.jsonl`` for a game's record, events and decisions
    (``[seat, event, ms]`` each, ``referee.match.Match.decisions``): schema 5, its events
    and decisions packed; schema 4, as they are, for events msgpack cannot hold (an integer
    beyond 64 bits). Events are JSON values with text keys (``to_dict``)."""
    steps = transcript_steps(record, events, decisions)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def transcript_steps(record: dict[str, Any], events: list[dict[str, Any]],
                     decisions: list[list[Any]]) -> Generator[None, None, bytes]:
    """``transcript_line``'s work in steps of a few tens of µs, with a yield between
    them; returns the line (``referee.backlog``)."""
    head = {"schema_version": TRANSCRIPT_SCHEMA_VERSION, "game": record["game"],
            "seed": record["seed"], "game_type": record["game_type"],
            "params": record["params"], "players": record["players"],
            "seats": record["seats"], "faults": record["faults"]}
    try:
        packed = msgpack.packb([events, decisions], use_bin_type=True)
    except (TypeError, ValueError, OverflowError):
        return _line({**head, "schema_version": PLAIN_SCHEMA_VERSION, "decisions": decisions,
                      "events": events})
    yield
    text = base64.b64encode(zlib.compress(packed, PACKED_LEVEL)).decode("ascii")
    yield
    return _line({**head, "packed": text})


def decode_transcript(doc: dict[str, Any]) -> dict[str, Any]:
    """A transcript as every reader sees it, whatever its schema: with ``events`` (and,
    from schema 3 on, ``decisions``) as lists of plain JSON values. The one place that
    knows how schema 5 packs them; JournalError for a packed field that does not unpack.

    >>> line = transcript_line({"game": 0, "seed": 1, "game_type": "g", "params": {},
    ...                         "players": 2, "seats": ["a", "b"], "faults": []},
    ...                        [{"type": "x", "n": [1, None]}], [[0, 0, 1.5]])
    >>> t = decode_transcript(json.loads(line))
    >>> t["events"], t["decisions"], "packed" in t
    ([{'type': 'x', 'n': [1, None]}], [[0, 0, 1.5]], False)
    """
    packed = doc.get("packed")
    if packed is None:
        return doc
    try:
        events, decisions = msgpack.unpackb(zlib.decompress(base64.b64decode(packed)),
                                            raw=False, strict_map_key=False)
    except (TypeError, ValueError, zlib.error, msgpack.UnpackException) as exc:
        raise JournalError(f"game {doc.get('game')}: its packed transcript does not "
                           f"unpack ({exc})") from None
    out = {k: v for k, v in doc.items() if k != "packed"}
    out["decisions"], out["events"] = decisions, events
    return out


def untimed(transcript: dict[str, Any]) -> dict[str, Any]:
    """A transcript without what differs between two plays of its game: the decisions'
    times (a resumed or re-run run has the same transcripts but for these).

    >>> untimed({"game": 0, "decisions": [[1, 2, 3.5]]})
    {'game': 0, 'decisions': [[1, 2]]}
    """
    if "decisions" not in transcript:
        return transcript
    return {**transcript, "decisions": [d[:2] for d in transcript["decisions"]]}


# json.dumps(doc, separators=(",", ":")) builds this encoder anew on every call.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def _line(doc: dict[str, Any]) -> bytes:
    return (_COMPACT.encode(doc) + "\n").encode()


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
            size = f.seek(0, os.SEEK_END)
            keep = _after_last_newline(f, size)
            if keep < size:
                f.truncate(keep)
                if warn:
                    warn(f"{path}: dropped a torn last line ({size - keep} bytes)")


def _after_last_newline(f: Any, size: int) -> int:
    """Where the file ``f`` of ``size`` bytes would end if cut after its last newline (0
    without one): read backwards a block at a time, so a journal of any size costs a
    block of memory, not the file."""
    end = size
    while end > 0:
        start = max(0, end - TAIL_BLOCK)
        f.seek(start)
        at = f.read(end - start).rfind(b"\n")
        if at >= 0:
            return start + at + 1
        end = start
    return 0


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


def read_results(run_dir: Path, warn: Any = None) -> list[Result]:
    """The game records without their timing (``VOLATILE_FIELDS``), compact (read-only
    mappings that share equal values: ``referee.results``): what leaderboards need, in
    about a sixth of the memory of ``read_games``."""
    memo = Memo()
    return [compact({k: v for k, v in rec.items() if k not in VOLATILE_FIELDS}, memo)
            for rec in read_lines(Path(run_dir) / GAMES_FILE, warn)]


class JournalRecords(Sequence[Result]):
    """A run's game results (``read_results``) as a sequence, read on first use only."""

    def __init__(self, run_dir: Path):
        self._run_dir = run_dir
        self._records: list[Result] | None = None

    def _all(self) -> list[Result]:
        if self._records is None:
            self._records = read_results(self._run_dir)
        return self._records

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._all()[index]

    def __iter__(self) -> Iterator[Result]:
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
    """Every game's transcript (decoded), by game; a game's later one wins."""
    return {t["game"]: t for t in iter_transcripts(run_dir, warn)}


def iter_transcripts(run_dir: Path, warn: Any = None) -> Iterator[dict[str, Any]]:
    """The transcripts of ``transcripts.jsonl`` in file order, decoded, one at a time."""
    return (decode_transcript(t) for t in read_lines(Path(run_dir) / TRANSCRIPTS_FILE, warn))


def games_with_transcripts(run_dir: Path, warn: Any = None
                           ) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Each line of ``games.jsonl`` with its game's transcript (decoded; None: it has
    none), one game at a time: only where each transcript starts is held."""
    path = Path(run_dir) / TRANSCRIPTS_FILE
    offsets = transcript_offsets(path)
    cap = MAX_LINE_BYTES[TRANSCRIPTS_FILE]
    with open_read(path.parent, path) if offsets else open(os.devnull, "rb") as f:
        for rec in read_lines(Path(run_dir) / GAMES_FILE, warn):
            at = offsets.get(rec.get("game"))  # type: ignore[arg-type]
            if at is None:
                yield rec, None
                continue
            f.seek(at)
            where = f"{path}: the transcript of game {rec.get('game')}"
            try:
                doc = load_json(f.readline(cap + 1), where, cap, "a journal record")
            except RunFileError as exc:
                raise JournalError(str(exc)) from None
            if not isinstance(doc, dict):
                raise JournalError(f"{where} is not a record (not an object)")
            yield rec, decode_transcript(doc)


# How a transcript's line starts (``transcript_line``): its game found without parsing it.
GAME_PREFIX = re.compile(rb'\{"schema_version":\d+,"game":(\d+),')


def transcript_offsets(path: Path, games: Collection[int] | None = None) -> dict[int, int]:
    """Where the last transcript of each game (of ``games``, or all) starts in ``path``
    (a game played again after a kill has a later one, which supersedes it)."""
    offsets: dict[int, int] = {}
    try:
        f = open_read(path.parent, path)
    except FileNotFoundError:
        return offsets
    offset = 0
    with f:
        for number, line in enumerate(f, 1):
            m = GAME_PREFIX.match(line)
            try:
                game = (int(m.group(1)) if m else
                        load_json(line, f"{path}:{number}", what="a record").get("game"))
            except RunFileError:
                if line.endswith(b"\n"):  # a whole line that is not a record
                    raise
                game = None  # a torn last line: its game is played again
            except AttributeError:
                game = None  # not an object: reported if it is read
            if isinstance(game, int) and (games is None or game in games):
                offsets[game] = offset
            offset += len(line)
    return offsets
