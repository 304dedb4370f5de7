"""``referee show RUN_DIR [GAME]``: pick a game of a run (by number or by filters) and
draw it in the terminal, whole or step by step, or write the run's ``replay.html``.

Anything wrong (no journal, no such game, a filter that matches nothing, ``--step``
without a terminal) is a ``ShowError`` with one line; the CLI prints it and exits 2.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from referee.show.html import REPLAY_FILE, write_replay
from referee.show.select import ShowError, pick, replays, summaries
from referee.show.terminal import keys, page, print_whole


@dataclass(frozen=True)
class ShowRequest:
    """What the command line asked for."""

    run_dir: Path
    game: int | None = None
    step: bool = False
    seat: int | None = None
    bot: str | None = None
    lost: bool = False
    fault: str | None = None
    html: bool = False
    out: Path | None = None


def _check(req: ShowRequest) -> None:
    if not req.run_dir.is_dir():
        raise ShowError(f"no run directory {req.run_dir}")
    if req.out is not None and not req.html:
        raise ShowError("--out PATH is where --html writes the replay; give --html too")
    if req.html and (req.step or req.seat is not None):
        raise ShowError("--html writes the replay page (which has its own seat views and "
                        "stepping); leave --step and --seat out")
    if req.step and not sys.stdin.isatty():
        raise ShowError("--step reads keys from a terminal, and stdin is not one; leave "
                        "--step out to print the whole game")
    if req.seat is not None and req.seat < 0:
        raise ShowError(f"no seat {req.seat}: seats are numbered from 0")


def show(req: ShowRequest, console: Console) -> int:
    """Carry out ``req``; ShowError for anything that cannot be shown."""
    _check(req)
    found = pick(summaries(req.run_dir), req.game, req.bot, req.lost, req.fault)
    if req.html:
        path = write_replay(req.run_dir, [g.game for g in found],
                            req.out or req.run_dir / REPLAY_FILE)
        console.print(Text(f"replay of {len(found)} game{'s' * (len(found) != 1)}: {path}"),
                      soft_wrap=True)
        return 0
    chosen = found[0]
    filtered = req.bot is not None or req.fault is not None
    if req.game is None and len(found) > 1:
        what = "match" if filtered else "in this run"
        console.print(Text(f"{len(found)} games {what}; showing game {chosen.game} "
                           "(give its number to show another)", style="dim"), soft_wrap=True)
    elif filtered:
        console.print(Text(f"1 game matches: game {chosen.game}", style="dim"))
    if req.seat is not None and req.seat >= len(chosen.names):
        raise ShowError(f"no seat {req.seat}: game {chosen.game} has seats 0 to "
                        f"{len(chosen.names) - 1}")
    replay = next(replays(req.run_dir, [chosen.game]))
    if req.step:
        with keys(sys.stdin.fileno()) as key:
            page(replay, console, req.seat, key)
    else:
        print_whole(replay, console, req.seat)
    return 0
