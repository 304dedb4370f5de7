"""One game drawn in the terminal with rich: whole (every step, the table printed where
its cards changed) or one step at a time (``page``).

Every text is a ``rich.text.Text``: a bot's name is data (``leaderboards.inert``), never
markup, and the game's texts are its own vocabulary with seats written ``<N>``, which are
replaced by the names. With ``seat`` set, a card that seat did not see is ``??``.
"""

from __future__ import annotations

import os
import re
import termios
import tty
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from leaderboards import inert
from referee.games.api import Card, Step
from referee.show.select import GameReplay

_SEAT = re.compile(r"<(\d+)>")
HIDDEN = "??"
KEYS_HELP = "Enter/space: next · b: back · q: quit"


def seat_name(replay: GameReplay, seat: int) -> Text:
    """``alice (seat 2)``, the name inert."""
    return Text.assemble(inert.terminal(replay.names[seat]), f" (seat {seat})")


def words(replay: GameReplay, text: str) -> Text:
    """A game's text with each ``<N>`` replaced by the seat's bot name."""
    out = Text()
    last = 0
    for m in _SEAT.finditer(text):
        out.append(inert.terminal(text[last:m.start()]))
        seat = int(m.group(1))
        out.append(seat_name(replay, seat) if seat < len(replay.names) else Text(m.group()))
        last = m.end()
    out.append(inert.terminal(text[last:]))
    return out


def card(c: Card, seat: int | None) -> Text:
    """A card as ``seat`` saw it (None: every card, private ones plain, public ones bold,
    those nobody at the table knew dim)."""
    if not c.seen(seat):
        return Text(HIDDEN, style="dim")
    style = "bold" if c.seen_by is None else "dim" if c.seen_by == () else ""
    return Text(inert.visible(c.code), style=style)


def cards(rows: Sequence[Sequence[Card]], seat: int | None) -> Text:
    """Rows of cards: cards apart by a space, rows by `` / ``; ``-`` for none."""
    parts = [Text(" ").join(card(c, seat) for c in row) for row in rows if row]
    return Text(" / ").join(parts) if parts else Text("-", style="dim")


def table_lines(replay: GameReplay, step: Step, seat: int | None) -> list[Text]:
    """Each seat's cards, status and info, then each pile."""
    lines = []
    for s, view in enumerate(step.seats):
        facts = ", ".join(x for x in (view.status, view.info) if x)
        lines.append(Text.assemble(seat_name(replay, s), ": ", cards(view.rows, seat),
                                   _facts(replay, facts)))
    for pile in step.piles:
        shown = Text.assemble(": ", cards((pile.cards,), seat)) if pile.cards else ""
        lines.append(Text.assemble(Text(pile.label, style="italic"), shown,
                                   _facts(replay, pile.info)))
    return lines


def _facts(replay: GameReplay, facts: str) -> Text:
    return Text.assemble("  (", words(replay, facts), ")", style="dim") if facts else Text()


def header(replay: GameReplay, seat: int | None) -> list[Text]:
    """The game, its bots with their places (and scores), and whose view this is."""
    params = ", ".join(f"{k}={v}" for k, v in replay.params.items())
    lines = [Text.assemble((f"game {replay.game}", "bold"), f" · {replay.game_type}",
                           f" ({params})" if params else "",
                           f" · {len(replay.names)} players · {len(replay.steps)} steps")]
    for s in range(len(replay.names)):
        score = "" if replay.scores is None else f", score {replay.scores[s]:g}"
        lines.append(Text.assemble("  ", seat_name(replay, s),
                                   f": place {replay.places[s]}{score}"))
    lines.append(Text("view: every card (bold: face up to all, dim: seen by nobody at "
                      "the table)" if seat is None else
                      f"view: what seat {seat} saw ({HIDDEN}: a card it did not see)",
                      style="dim"))
    return lines


def step_lines(replay: GameReplay, index: int) -> list[Text]:
    """The step's line (with the decision's time), its result and its faults."""
    step, ms = replay.steps[index], replay.times_ms[index]
    line = Text.assemble((f"[{index + 1}] ", "dim"), words(replay, step.text))
    if ms is not None:
        line.append(f"  {ms:.1f} ms", style="cyan")
    lines = [line]
    if step.result:
        lines.append(Text.assemble(("  => ", "bold"), words(replay, step.result)))
    for f in replay.faults:
        if f["step"] == index:
            lines.append(Text.assemble(("  fault ", "red"), (f["label"], "bold red"), ": ",
                                       inert.terminal(str(f.get("detail", ""))),
                                       (f"  (log: {f['log']})" if f.get("log") else "",
                                        "dim")))
    return lines


def print_whole(replay: GameReplay, console: Console, seat: int | None) -> None:
    """Every step, one after the other; the table (cards, piles) after the steps that
    changed the cards the viewer sees."""
    for line in header(replay, seat):
        console.print(line, soft_wrap=True)
    shown: list[str] = []
    for i, step in enumerate(replay.steps):
        console.print()
        for line in step_lines(replay, i):
            console.print(line, soft_wrap=True)
        seen = [cards(v.rows, seat).plain for v in step.seats]
        seen += [cards((p.cards,), seat).plain for p in step.piles]
        if seen != shown:
            for line in table_lines(replay, step, seat):
                console.print(Text.assemble("    ", line), soft_wrap=True)
            shown = seen


def step_panel(replay: GameReplay, index: int, seat: int | None) -> Panel:
    """The whole table at one step: seats, piles, the round's history, what happened."""
    step = replay.steps[index]
    parts: list[Any] = [*header(replay, seat), Text()]
    parts += table_lines(replay, step, seat)
    if step.history:
        parts.append(Text("history:", style="italic"))
        parts += [Text.assemble("  ", words(replay, h)) for h in step.history]
    parts.append(Text())
    parts += step_lines(replay, index)
    return Panel(Group(*parts), title=f"step {index + 1} of {len(replay.steps)}",
                 subtitle=KEYS_HELP, title_align="left")


@contextmanager
def keys(fd: int) -> Iterator[Callable[[], str]]:
    """While it lasts, terminal ``fd`` gives each key at once (no Enter, no echo); it
    yields a function that reads one: "next", "back" or "quit" (end of input and Ctrl-C
    quit; other keys are read again). The terminal is set back as it was at the end."""
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)  # not TCSAFLUSH: keys typed already count

    def read() -> str:
        while True:
            key = os.read(fd, 8)
            if key in (b"", b"q", b"Q", b"\x03", b"\x04"):
                return "quit"
            if key in (b"\r", b"\n", b" ", b"n"):
                return "next"
            if key in (b"b", b"B"):
                return "back"

    try:
        yield read
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def page(replay: GameReplay, console: Console, seat: int | None,
         key: Callable[[], str]) -> None:
    """One step at a time, moving as ``key`` says, until "quit" or past the last step."""
    index = 0
    while 0 <= index < len(replay.steps):
        console.clear()
        console.print(step_panel(replay, index, seat))
        move = key()
        if move == "quit":
            return
        index = max(0, index - 1) if move == "back" else index + 1
