"""The command-line options a CI job uses, shared by ``run``, ``sprt`` and ``resume``:
a time budget (``referee.budget``), start-or-go-on (``referee.samerun``), and the event's
name that titles the pages and reports."""

from __future__ import annotations

from typing import Annotated

import typer

MaxTimeOpt = Annotated[str | None, typer.Option(
    help="Time budget, e.g. 20m or 1.5h: stop cleanly when it runs out (the run directory "
         "can be resumed; run exits 124, sprt 2 inconclusive).")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="With --out DIR: go on with the run DIR holds if it is this very "
                     "configuration, start it if DIR holds none, refuse if another.")]
EventOpt = Annotated[str | None, typer.Option(
    help="The event's name: it titles the leaderboard, the replay page and summary.md.")]
