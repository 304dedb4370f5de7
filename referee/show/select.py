"""The games of a run directory as replays: summaries to list and filter them, and each
picked game's steps (``Game.steps``) with its bots' names, decision times and faults.

Names come from a transcript's ``seats`` (schema 3) or else from the game's line of
``games.jsonl``; times only from schema 3 transcripts (JOURNAL.md). A game played again
after a resume has two transcripts: the later one is the game's.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from leaderboards.inert import brief
from referee.games import GameError, load_game
from referee.games.api import Step
from referee.journal import (
    GAME_PREFIX,
    GAMES_FILE,
    TRANSCRIPTS_FILE,
    JournalError,
    decode_transcript,
    game_of,
    read_lines,
)
from referee.rundir import MAX_LINE_BYTES, RunFileError, load_json, open_read


class ShowError(Exception):
    """A run directory, game or filter that cannot be shown (one line that says why)."""


@dataclass(frozen=True)
class GameSummary:
    """One line of ``games.jsonl``: what lists and filters need."""

    game: int
    names: tuple[str, ...]  # per seat
    places: tuple[int, ...]
    faults: tuple[str, ...]  # labels, in order
    duration_s: float


@dataclass(frozen=True)
class GameShown:
    """What a replay page shows of a game beside its steps."""

    game: int
    game_type: str
    params: dict[str, Any]
    names: tuple[str, ...]  # per seat
    places: tuple[int, ...]
    scores: tuple[float, ...] | None


@dataclass(frozen=True)
class GameReplay(GameShown):
    """One game, ready to draw."""

    steps: tuple[Step, ...]
    times_ms: tuple[float | None, ...]  # per step: the actor's decision time, if any
    faults: tuple[dict[str, Any], ...]  # as journalled, plus "step": the step it is in


def _records(run_dir: Path) -> Iterator[dict[str, Any]]:
    path = Path(run_dir) / GAMES_FILE
    if not os.path.lexists(path):  # a link or a FIFO there is refused when read
        raise ShowError(f"{run_dir} has no journal ({GAMES_FILE}): not a run directory")
    try:
        yield from read_lines(path)
    except RunFileError as exc:  # a journal error, a symbolic link...
        raise ShowError(str(exc)) from None


def _summary(rec: dict[str, Any], run_dir: Path) -> GameSummary:
    try:
        return GameSummary(int(rec["game"]), tuple(map(str, rec["seats"])),
                           tuple(int(p) for p in rec["places"]),
                           tuple(str(f["label"]) for f in rec["faults"]),
                           float(rec.get("duration_s") or 0.0))
    except (KeyError, TypeError, ValueError) as exc:
        raise ShowError(f"{run_dir / GAMES_FILE}: game {brief(repr(rec.get('game')))} is not a "
                        f"record (bad {brief(str(exc))})") from None


def game_numbers(run_dir: Path) -> list[int]:
    """Every journalled game's number, in order (without a summary of each: a long run's
    end only counts them)."""
    return sorted(int(rec["game"]) for rec in _records(run_dir))


def summaries(run_dir: Path) -> list[GameSummary]:
    """Every journalled game, by game number."""
    return sorted((_summary(rec, run_dir) for rec in _records(run_dir)),
                  key=lambda s: s.game)


def pick(summaries: Sequence[GameSummary], game: int | None = None, bot: str | None = None,
         lost: bool = False, fault: str | None = None) -> list[GameSummary]:
    """The games that match: game number ``game``; else those ``bot`` played (and, with
    ``lost``, did not win outright: a place below 1), with a fault labelled ``fault``.
    No filter: every game. ShowError if none does.

    >>> s = [GameSummary(0, ("a", "b"), (1, 2), (), 1.0),
    ...      GameSummary(1, ("b", "a"), (1, 2), ("timeout",), 1.0)]
    >>> [g.game for g in pick(s, bot="a", lost=True)], [g.game for g in pick(s, fault="timeout")]
    ([1], [1])
    >>> pick(s, game=7)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ShowError: no game 7 in this run (its games: 0 to 1)
    """
    if game is not None:
        if bot is not None or lost or fault is not None:
            raise ShowError("pick a game by its number or by filters, not both")
        found = [s for s in summaries if s.game == game]
        if not found:
            span = f"0 to {summaries[-1].game}" if summaries else "none"
            raise ShowError(f"no game {game} in this run (its games: {span})")
        return found
    if lost and bot is None:
        raise ShowError("--lost needs --bot NAME: whose lost games?")
    found = list(summaries)
    if bot is not None:
        found = [s for s in found if bot in s.names]
        if lost:
            found = [s for s in found if any(n == bot and p > 1
                                             for n, p in zip(s.names, s.places, strict=False))]
    if fault is not None:
        found = [s for s in found if fault in s.faults]
    if not found:
        what = " ".join(x for x in (f"--bot {bot!r}" if bot is not None else "",
                                    "--lost" if lost else "",
                                    f"--fault {fault!r}" if fault is not None else "") if x)
        raise ShowError(f"no game of this run matches {what}" if what else "this run has no games")
    return found


def _transcript_offsets(path: Path, games: Collection[int]) -> tuple[dict[int, int], str]:
    """Where the last transcript of each of ``games`` starts in ``path``, and what was
    wrong with the first line that is not a transcript ("" if none: a game whose
    transcript is missing may be in it)."""
    offsets: dict[int, int] = {}
    bad = ""
    offset = 0
    cap = MAX_LINE_BYTES[TRANSCRIPTS_FILE]
    with _open(path) as f:
        for i, line in enumerate(iter(lambda: f.readline(cap + 1), b""), 1):
            if len(line) > cap:
                raise ShowError(f"{path}:{i}: a line longer than a transcript can be ({cap} "
                                "bytes)")
            m = GAME_PREFIX.match(line)
            try:
                game = int(m.group(1)) if m else load_json(line, f"{path}:{i}", cap).get("game")
            except (RunFileError, AttributeError) as exc:
                game = None  # a torn last line or a bad one: reported if it is read
                bad = bad or (str(exc) if isinstance(exc, RunFileError) else
                              f"{path}:{i}: not a transcript")
            if game in games:
                offsets[game] = offset
            offset += len(line)
    return offsets, bad


# The transcripts whose ``packed`` the page unpacks itself (assets/replay.js): schema 5's
# packing (JOURNAL.md); another schema's game is given to the page built.
PAGE_SCHEMA = 5


@dataclass(frozen=True)
class PackedGame(GameShown):
    """One game for a page that builds its steps itself (``page_games``): the
    transcript's events and decisions as journalled (``packed``: schema 5, base64 of
    zlib of msgpack ``[events, decisions]``)."""

    players: int
    faults: tuple[dict[str, Any], ...]  # as journalled, each with its "event"
    packed: str


def replays(run_dir: Path, games: Collection[int]) -> Iterator[GameReplay]:
    """The replays of ``games``, by game number, one transcript read at a time."""
    for rec, transcript in _transcripts(run_dir, games):
        yield _replay(rec, _decoded(transcript))


def page_games(run_dir: Path, games: Collection[int], builds: Callable[[str], bool]
               ) -> Iterator[GameReplay | PackedGame]:
    """``replays``, but a game whose type the page ``builds`` the steps of, journalled
    packed with each fault's event, is a ``PackedGame``: its transcript is not unpacked."""
    for rec, transcript in _transcripts(run_dir, games):
        packed = transcript.get("packed")
        faults = transcript.get("faults", rec["faults"])
        if (transcript.get("schema_version") == PAGE_SCHEMA and isinstance(packed, str)
                and isinstance(faults, list)
                and all(isinstance(f, dict) and "event" in f for f in faults)
                and builds(str(transcript.get("game_type")))):
            yield _packed(rec, transcript, packed, faults)
        else:
            yield _replay(rec, _decoded(transcript))


def _transcripts(run_dir: Path, games: Collection[int]
                 ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """The record of each of ``games`` (what a replay takes of it) and its transcript as
    journalled, by game number, one transcript read at a time."""
    run_dir = Path(run_dir)
    wanted = set(games)
    records = {}  # only what a replay takes of each record: a large run has many
    for rec in _records(run_dir):
        if rec.get("game") in wanted:
            records[rec["game"]] = {k: rec.get(k) for k in _KEPT}
    missing = sorted(wanted - set(records))
    if missing:
        raise ShowError(f"no game {missing[0]} in {run_dir / GAMES_FILE}")
    path = run_dir / TRANSCRIPTS_FILE
    if not os.path.lexists(path):
        raise ShowError(f"{run_dir} has no {TRANSCRIPTS_FILE}")
    offsets, bad = _transcript_offsets(path, wanted)
    cap = MAX_LINE_BYTES[TRANSCRIPTS_FILE]
    with _open(path) as f:
        for game in sorted(wanted):
            if game not in offsets:
                raise ShowError(bad or f"game {game} has no transcript in {path}")
            f.seek(offsets[game])
            where = f"{path}:{game}"
            try:
                transcript = load_json(f.readline(cap + 1), where, cap)
            except RunFileError as exc:
                why = str(exc).removeprefix(f"{where}: ")
                raise ShowError(f"{path}: the transcript of game {game} is not a record "
                                f"({why})") from None
            if not isinstance(transcript, dict):
                raise ShowError(f"{path}: the transcript of game {game} is not a record")
            yield records[game], transcript


def _decoded(transcript: dict[str, Any]) -> dict[str, Any]:
    try:
        return decode_transcript(transcript)
    except JournalError as exc:
        raise ShowError(str(exc)) from None


def _open(path: Path) -> IO[bytes]:
    """``path``, a file of the run directory it is in (``rundir.open_read``)."""
    try:
        return open_read(path.parent, path)
    except (OSError, RunFileError) as exc:
        raise ShowError(f"{path}: {exc.strerror if isinstance(exc, OSError) else exc}"
                        ) from None


_KEPT = ("game", "seats", "places", "faults", "scores")


def _replay(rec: dict[str, Any], transcript: dict[str, Any]) -> GameReplay:
    game = rec["game"]
    try:
        name, params = game_of(transcript)
        rules = load_game(name, params)
        players = int(transcript["players"])
        events = transcript["events"]
        steps = tuple(rules.steps(players, events))
        names = tuple(map(str, transcript.get("seats") or rec["seats"]))
        if len(names) != players:
            raise ValueError(f"{len(names)} names for {players} seats")
        faults = tuple({**f, "step": _fault_step(f, steps, events, rules)}
                       for f in transcript.get("faults", rec["faults"]))
        scores = rec.get("scores")
        return GameReplay(
            game=game, game_type=name, params=params, names=names,
            places=tuple(rec["places"]),
            scores=None if scores is None else tuple(scores), steps=steps,
            times_ms=_times(steps, transcript.get("decisions")), faults=faults)
    except (GameError, JournalError) as exc:
        raise ShowError(f"game {game}: {brief(str(exc), 300)}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ShowError(f"game {game}: its transcript cannot be shown "
                        f"({type(exc).__name__}: {brief(str(exc))})") from None


def _packed(rec: dict[str, Any], transcript: dict[str, Any], packed: str,
            faults: list[dict[str, Any]]) -> PackedGame:
    game = rec["game"]
    try:
        name, params = game_of(transcript)
        load_game(name, params)  # a game and parameters this referee knows
        players = int(transcript["players"])
        names = tuple(map(str, transcript.get("seats") or rec["seats"]))
        if len(names) != players:
            raise ValueError(f"{len(names)} names for {players} seats")
        scores = rec.get("scores")
        return PackedGame(game=game, game_type=name, params=params, names=names,
                          places=tuple(rec["places"]),
                          scores=None if scores is None else tuple(scores), players=players,
                          faults=tuple(faults), packed=packed)
    except (GameError, JournalError) as exc:
        raise ShowError(f"game {game}: {brief(str(exc), 300)}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ShowError(f"game {game}: its transcript cannot be shown "
                        f"({type(exc).__name__}: {brief(str(exc))})") from None


def _step_of(steps: Sequence[Step], event: int) -> int:
    """The index of the step that shows ``event`` (the last step for one past the end);
    steps' events increase strictly.

    >>> _step_of([Step(1, None, "", ()), Step(4, None, "", ())], 3)
    1
    """
    return min(bisect.bisect_left(steps, event, key=lambda s: s.event), len(steps) - 1)


def _times(steps: Sequence[Step], decisions: Sequence[Sequence[Any]] | None
           ) -> tuple[float | None, ...]:
    """Per step, the time of its actor's decision (schema 3); None where there is none."""
    times: list[float | None] = [None] * len(steps)
    marks = [s.event for s in steps]
    for seat, event, ms in decisions or ():
        i = min(bisect.bisect_left(marks, event), len(steps) - 1)  # _step_of, at once
        if steps[i].actor == seat:
            times[i] = float(ms)
    return tuple(times)


def _fault_step(fault: dict[str, Any], steps: Sequence[Step],
                events: Sequence[dict[str, Any]], rules: Any) -> int:
    """The step a journalled fault is in: by its ``event``, or (schema 1, whose faults
    have a ``round`` instead) at that seat's fault event in that round."""
    if "event" in fault:
        return _step_of(steps, int(fault["event"]))
    for i, event in enumerate(events):
        if any(seat == fault["seat"] for seat, _ in rules.faults([event])):
            if event.get("round") == fault.get("round"):
                return _step_of(steps, i)
    return len(steps) - 1
