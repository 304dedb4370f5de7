"""``replay.html``: one self-contained page that replays the games of a run.

The page carries a compact index of the games (numbers, bots, places, faults) and, per
game, a ``<script id="g-N">`` element that its script reads only when the game is opened.
For a game whose package has ``steps.js`` (``_GameScripts``), that element holds the
transcript's events as journalled (``select.PackedGame``), and the page builds the steps
(``referee.games.api.Step``) from them with that script, inlined once: writing such a game
costs no more than copying its transcript. For any other game it holds the steps, built
here, as JSON compressed with gzip and written in base64, which the page decodes
(``DecompressionStream``). The file is written as the games are read, one at a time, so a
run of any size is written in bounded memory; the viewer's script comes right after the
first game's data, so the page shows that game while the browser is still reading the
rest. The script and its style are ``referee/show/assets/replay.{js,css}``, inlined: no
network, works from ``file://``.
"""

from __future__ import annotations

import base64
import gc
import gzip
import html
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import IO, Any

from leaderboards.html import REPLAY_PAGE as REPLAY_FILE
from leaderboards.wholefile import replacing
from referee.games import GameError, package
from referee.games.api import Card, Pile, SeatView, Step
from referee.journal import STORAGE_ERRNOS, StorageError
from referee.rundir import RunFileError, read_config
from referee.show.select import (
    GameReplay,
    GameSummary,
    PackedGame,
    ShowError,
    game_numbers,
    page_games,
    summaries,
)

# A run's end writes the replays of at most this many games: the bound is the page's
# size (a larger page is slow to open: ~2 KB a Polish Poker game, ~28 KB a 100-hand
# Turkish one), no longer the time to write it. It spends at most INLINE_S on them, else a
# process of its own writes them after the command has returned (a Turkish or golf game
# takes ~0.2 ms, its steps built by the page; a Polish Poker game ~2 ms, its steps built
# here: benchmarks/bench_replay.py). Half a second: the rest of the end (standings,
# pages, summary) takes ~0.4 s, and the end may wait 1 s in all.
RUN_END_GAMES = 10_000
INLINE_S = 0.5
LOG_FILE = "replay.log"
STEPS_SCRIPT = "steps.js"  # a game's steps in the page, in its package (``_GameScripts``)


PageGame = GameReplay | PackedGame  # a game as the page takes it: its steps, or its transcript


class OutOfTime(Exception):
    """A page not written by its deadline (``write_replay``): nothing was written."""


def write_replay(run_dir: Path, games: list[int], out: Path,
                 budget_s: float | None = None,
                 shown: Callable[[PageGame], PageGame] | None = None) -> Path:
    """Write the replay page of ``games`` (game numbers of the run in ``run_dir``) to
    ``out``, whole or not at all (what was there stays); returns ``out``. ``shown``: each
    game as the page is to show it (a league's public page withholds fault details, which
    quote a bot's stderr). ShowError: no
    journal, no game, a game not in the journal or not shown, an ``out`` that cannot be
    written (no such folder, a directory); StorageError: a full disk and the like;
    OutOfTime: building the page takes more than ``budget_s`` of CPU (not a loaded
    machine's wait), as spent or as foreseen from the games built so far."""
    if not games:
        raise ShowError(f"no game of {run_dir} to write into a replay")
    wanted = set(games)
    index = sorted((s for s in summaries(run_dir) if s.game in wanted), key=lambda s: s.game)
    missing = wanted - {s.game for s in index}
    if missing:
        raise ShowError(f"game {min(missing)} is not in the journal of {run_dir}")
    try:
        scripts = _GameScripts()
        with replacing(out, 0o644) as f, _no_cycles():  # as the leaderboard's pages
            games_read = page_games(run_dir, wanted, scripts.builds)
            _write_page(f, run_dir, index, scripts,
                        _within(games_read if shown is None else map(shown, games_read),
                                len(index), budget_s))
    except OSError as exc:  # a full disk is the run directory's trouble, else the path's
        error = StorageError if exc.errno in STORAGE_ERRNOS else ShowError
        raise error(f"cannot write {out}: {exc.strerror or exc}") from None
    return out


def replay_after_run(run_dir: Path, warn: Callable[[str], None],
                     note: Callable[[str], None]) -> Path | None:
    """``replay.html`` of every game in ``run_dir``, at the end of a run, once the
    standings are out. When building it takes more than ``INLINE_S``, it is given up and
    a process of its own writes it (``referee show RUN_DIR --html``, its output in
    ``replay.log``) and the run ends at once; a line to ``note`` says so, and None. A
    failure (a full disk) is one line to ``warn`` and None: the journal is whole and the
    run's result stands. A run of more than ``RUN_END_GAMES`` games gets a line to
    ``note`` saying which command writes its page instead."""
    try:
        games = game_numbers(run_dir)
        if not games:  # stopped before its first game ended: nothing to replay
            return None
        if len(games) > RUN_END_GAMES:
            note(f"replays: a run of over {RUN_END_GAMES:,} games writes none at its end; "
                 f"`referee show {run_dir} --html` writes them ({len(games):,} games)")
            return None
        try:
            return write_replay(run_dir, games, run_dir / REPLAY_FILE, INLINE_S)
        except OutOfTime:
            pid = _write_in_background(run_dir)
            note(f"replays: {len(games):,} games take over {INLINE_S} s to write; process "
                 f"{pid} writes {run_dir / REPLAY_FILE} now (its output in "
                 f"{run_dir / LOG_FILE})")
            return None
    except (ShowError, StorageError, OSError) as exc:
        warn(f"{exc}; the journal is whole: `referee show {run_dir} --html` writes the "
             "replay again")
        return None


def replay_pending(run_dir: Path) -> bool:
    """Whether a process of its own is writing ``run_dir``'s replay (its log was just
    started, and no page is there yet)."""
    return (run_dir / LOG_FILE).is_file() and not (run_dir / REPLAY_FILE).is_file()


def _write_in_background(run_dir: Path) -> int:
    """Start ``referee show RUN_DIR --html`` in a session of its own, not waited for (the
    run's command has nothing more to do); its pid."""
    with open(run_dir / LOG_FILE, "w", encoding="utf-8") as log:
        child = subprocess.Popen(
            [sys.executable, "-c", "from referee.cli import main; main()", "show",
             str(run_dir), "--html"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True, close_fds=True)
    return child.pid


def _within(games: Iterator[PageGame], total: int,
            budget_s: float | None) -> Iterator[PageGame]:
    """``games`` (``total`` of them), or OutOfTime before the next one once the CPU spent,
    plus what the rest would take at the pace of the games after the first (which pays
    for imports and caches), exceeds ``budget_s``."""
    started = time.process_time()
    warm = 0.0  # CPU spent on the first game
    for done, game in enumerate(games):
        spent = time.process_time() - started
        warm = spent if done == 1 else warm
        pace = (spent - warm) / (done - 1) if done > 2 else 0.0
        if budget_s is not None and spent + pace * (total - done) >= budget_s:
            raise OutOfTime
        yield game


@contextmanager
def _no_cycles() -> Iterator[None]:
    """The cyclic collector off while games are turned into steps: that makes many small
    objects and no cycles, which the collector would only walk, again and again (a third
    of the time of a long game's replay)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_page(f: IO[str], run_dir: Path, index: list[GameSummary], scripts: _GameScripts,
                games: Iterable[PageGame]) -> None:
    """The page: frame, index, each game's data as it comes (after the script of its
    game's steps, the first time), the viewer's script after the first game the list
    shows (so that game is on screen before the rest is read)."""
    event = _event(run_dir)
    title = f"{event}: replays" if event else f"Replays of {run_dir.resolve().name}"
    f.write(f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>\n{_asset('replay.css')}</style>\n"
            f'</head>\n<body>\n<div id="app"></div>\n'
            f'<script type="application/json" id="replay-index">'
            f"{_script_json(_index(title, index))}</script>\n")
    first, script = index[0].game, f"<script>\n{_asset('replay.js')}</script>\n"
    for replay in games:
        if isinstance(replay, PackedGame):
            f.write(scripts.first_of(replay.game_type))
            f.write(f'<script type="application/json" id="g-{replay.game}">'
                    f"{_script_json(_packed_doc(replay))}</script>\n")
        else:
            f.write(f'<script type="application/gzip-base64" id="g-{replay.game}">'
                    f"{game_blob(replay)}</script>\n")
        if replay.game == first:
            f.write(script)
            script = ""
    f.write(f"{script}</body>\n</html>\n")


class _GameScripts:
    """The games whose steps the page builds itself (their package has ``steps.js``,
    which registers the game's steps, written for ``assets/steps.js``) and the script
    that brings them into the page, once each."""

    def __init__(self) -> None:
        self._scripts: dict[str, str | None] = {}
        self._written: set[str] = set()

    def builds(self, game_type: str) -> bool:
        """Whether the page builds the steps of ``game_type`` (from its events)."""
        if game_type not in self._scripts:
            self._scripts[game_type] = _steps_script(game_type)
        return self._scripts[game_type] is not None

    def first_of(self, game_type: str) -> str:
        """The ``<script>`` of ``game_type``'s steps (the shared library before the first
        game's), or "" if it is already in the page."""
        if game_type in self._written or not self.builds(game_type):
            return ""
        library = "" if self._written else _asset("steps.js")
        self._written.add(game_type)
        return f"<script>\n{library}{self._scripts[game_type]}</script>\n"


def _steps_script(game_type: str) -> str | None:
    """The ``steps.js`` of ``game_type``'s package, if it has one."""
    try:
        module = package(game_type)
    except GameError:
        return None
    if not hasattr(module, "__path__"):  # a game that is a module has no scripts
        return None
    script = files(module.__name__) / STEPS_SCRIPT
    if not script.is_file():
        return None
    text = script.read_text(encoding="utf-8")
    if "</script" in text.lower():
        raise ShowError(f"{game_type}'s {STEPS_SCRIPT} says </script>: it cannot be inlined")
    return text


def _packed_doc(g: PackedGame) -> dict[str, Any]:
    """A game whose steps the page builds: what it shows beside them, its transcript's
    events and decisions as journalled (``packed``)."""
    return {"game": g.game, "game_type": g.game_type, "params": g.params,
            "names": list(g.names), "places": list(g.places),
            "scores": None if g.scores is None else list(g.scores), "players": g.players,
            "faults": list(g.faults), "packed": g.packed}


def _index(title: str, index: list[GameSummary]) -> dict[str, Any]:
    """The game list: bot names once, then per game [number, bot per seat (an index into
    the names), places, fault labels, seconds]."""
    bots: dict[str, int] = {}
    rows = [[s.game, [bots.setdefault(n, len(bots)) for n in s.names], list(s.places),
             list(s.faults), round(s.duration_s, 3)] for s in index]
    return {"title": title, "bots": list(bots), "games": rows}


def game_blob(replay: GameReplay) -> str:
    """One game for the page: its JSON (``_game_json``), gzip, base64. Level 5, not 6:
    gzip takes 45 % less time on a long game's steps for a blob 6-11 % larger."""
    data = _game_json(replay)
    return base64.b64encode(gzip.compress(data.encode(), compresslevel=5, mtime=0)).decode()


# What ``json.dumps(x, separators=(",", ":"), ensure_ascii=False)`` writes, its encoder
# made once: the steps are written from pieces that are each encoded once.
_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _game_json(r: GameReplay) -> str:
    """``{"game": ..., "steps": [...]}``: the steps, the bulk, written by ``_steps_json``
    into the JSON of the rest (``steps`` is its last key)."""
    head = _json({"game": r.game, "game_type": r.game_type, "params": r.params,
                  "names": list(r.names), "places": list(r.places),
                  "scores": None if r.scores is None else list(r.scores),
                  "times": [None if t is None else round(t, 1) for t in r.times_ms],
                  "faults": list(r.faults)})
    return f'{head[:-1]},"steps":{_steps_json(r.steps)}}}'


def _steps_json(steps: Iterable[Step]) -> str:
    """The JSON of the steps, each as ``[event, actor, text, seats, piles, history,
    result]``, smaller than ``Step.to_dict`` (the page reads this form only). A seat or
    the piles as in the step before are written ``0``, and the history as ``[n, *new]``:
    the step before's first ``n`` lines, then these (a round's history grows a line a
    step); the page fills them in from the step before. A game's steps share the views,
    rows and piles that did not change (``TableSteps.once``): each is encoded once, found
    by identity; equal JSON is an equal value (they hold strings and integers only)."""
    out: list[str] = []
    seats_before: list[str] = []
    piles_before: str | None = None
    history_before: tuple[str, ...] = ()
    made: dict[int, tuple[Any, str]] = {}  # id(view, row or pile): (it, its JSON)
    for s in steps:
        seats = [_once(v, _seat_json, made) for v in s.seats]
        piles = f"[{','.join([_once(p, _pile_json, made) for p in s.piles])}]"
        history = s.history
        kept = len(history_before) if history[:len(history_before)] == history_before else 0
        written = [str(kept), *map(_json, history[kept:])]
        shown = ["0" if k < len(seats_before) and v == seats_before[k] else v
                 for k, v in enumerate(seats)]
        out.append(f"[{_scalar(s.event)},{_scalar(s.actor)},{_scalar(s.text)},"
                   f"[{','.join(shown)}],{'0' if piles == piles_before else piles},"
                   f"[{','.join(written)}],{_scalar(s.result)}]")
        seats_before, piles_before, history_before = seats, piles, history
    return f"[{','.join(out)}]"


def _scalar(value: Any) -> str:
    """``_json(value)``, at once for what a step's fields mostly hold (the encoder that
    ``_json`` calls, without its set-up for each call)."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    return _json(value)


_string = json.encoder.encode_basestring  # what ``_json`` writes a str with


def _once(value: Any, convert: Callable[[Any, dict[int, tuple[Any, str]]], str],
          made: dict[int, tuple[Any, str]]) -> str:
    """``convert(value, made)``, made once for a value that several steps share."""
    got = made.get(id(value))
    if got is None:
        got = made[id(value)] = (value, convert(value, made))  # kept: its id stays its own
    return got[1]


def _seat_json(v: SeatView, made: dict[int, tuple[Any, str]]) -> str:
    return f"[[{','.join([_once(row, _row_json, made) for row in v.rows])}]," \
           f"{_scalar(v.status)},{_scalar(v.info)}]"


def _pile_json(p: Pile, made: dict[int, tuple[Any, str]]) -> str:
    return f"[{_scalar(p.label)},{_row_json(p.cards, made)},{_scalar(p.info)}]"


def _row_json(row: tuple[Card, ...], made: dict[int, tuple[Any, str]]) -> str:
    return f"[{','.join([_once(c, _card_json, made) for c in row])}]"


def _card_json(c: Card, made: dict[int, tuple[Any, str]]) -> str:
    """``"Ah"`` for a card face up to all, else ``["Ah",[seats that know it]]``."""
    return _scalar(c.code) if c.seen_by is None else _json([c.code, list(c.seen_by)])


def _script_json(doc: Any) -> str:
    """JSON that cannot end its ``<script>`` element early (``</script>`` in a bot name)."""
    return (json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _event(run_dir: Path) -> str | None:
    """The run's ``--event`` name (``config.json``), if it has one."""
    try:
        event = read_config(run_dir).get("event")
    except (OSError, RunFileError):  # a page is still made of a run with a bad config.json
        return None
    return event if isinstance(event, str) and event else None


def _asset(name: str) -> str:
    return (files("referee.show") / "assets" / name).read_text(encoding="utf-8")
