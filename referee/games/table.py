"""Replay steps: the table after each thing that happened in a transcript, as ``referee
show`` and replay.html draw it (docs/adding-a-game.md, "Replay steps"). A game makes them
(``Game.steps``) from these values; ``referee.games.api`` re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Card:
    """A card on the table in a replay step. ``code`` as the game writes it ("Ah", "Jk");
    ``seen_by``: the seats that know it; None: face up to all; (): known to nobody at the
    table (the referee knows it)."""

    code: str
    seen_by: tuple[int, ...] | None = None

    def seen(self, seat: int | None) -> bool:
        """Whether ``seat`` sees this card face up (None: the all-seeing view)."""
        return seat is None or self.seen_by is None or seat in self.seen_by


@dataclass(frozen=True)
class SeatView:
    """A seat's cards as laid out (one row for a hand, three rows of two for a golf
    grid), its short ``status`` ("", "to act", "out", "folded", "all-in") and short public
    facts (``info``: "5 cards", "chips 96, bet 4")."""

    rows: tuple[tuple[Card, ...], ...]
    status: str = ""
    info: str = ""


@dataclass(frozen=True)
class Pile:
    """Cards that belong to no seat: "community", "board", "discard", "stock", "drawn";
    the top or most recent first where it matters."""

    label: str
    cards: tuple[Card, ...] = ()
    info: str = ""


@dataclass(frozen=True)
class Step:
    """The table after something happened in a game (docs/adding-a-game.md, "Replay steps"):
    ``event`` is the index of the last transcript event it shows, ``actor`` the seat that
    acted (None: a deal, a result). ``text``, ``info``, ``history`` and ``result`` hold
    public facts only, seats written ``<N>``; anything private is in a ``Card``."""

    event: int
    actor: int | None
    text: str
    seats: tuple[SeatView, ...]
    piles: tuple[Pile, ...] = ()
    history: tuple[str, ...] = ()
    result: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: tuples as lists."""
        return _plain(asdict(self))


class StepTable(Protocol):
    """A game's table as ``group_steps`` drives it: takes in events one by one and makes
    the step of those taken in since its last one."""

    def apply(self, event: Any) -> None: ...
    def step(self, event: int) -> Step: ...


class TableSteps:
    """What every game's step table shares: the texts of the step being put together
    (its ``actor``, ``texts`` and ``results``), the round's ``history``, and ``step``,
    which makes the step of the events taken in since the last one from ``seat_view``
    and ``piles`` and starts the next. A game adds its state and ``apply``."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.history: list[str] = []
        self.actor: int | None = None
        self.texts: list[str] = []
        self.results: list[str] = []
        self._made: dict[Any, Any] = {}  # key: the value made for it (``once``)

    def seat_view(self, seat: int) -> SeatView:
        raise NotImplementedError

    def once(self, key: Any, make: Callable[..., Any], *args: Any) -> Any:
        """``make(*args)``, made once per ``key`` (hashable, naming all that ``make``
        reads): steps that show the same view, pile or card share one object, so a writer
        converts it once and sees at a glance that it did not change."""
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = make(*args)
        return made

    def card(self, code: str, seen_by: tuple[int, ...] | None = None) -> Card:
        """``Card(code, seen_by)``, one object per distinct card (``once``)."""
        return self.once(("card", code, seen_by), Card, code, seen_by)

    def row(self, codes: tuple[str, ...], seen_by: tuple[int, ...] | None = None
            ) -> tuple[Card, ...]:
        """The cards ``codes`` all seen by ``seen_by``, one object per distinct row."""
        return self.once(("row", codes, seen_by), self._row, codes, seen_by)

    def _row(self, codes: tuple[str, ...], seen_by: tuple[int, ...] | None
             ) -> tuple[Card, ...]:
        return tuple([self.card(c, seen_by) for c in codes])

    def piles(self) -> tuple[Pile, ...]:
        return ()

    def step(self, event: int) -> Step:
        step = Step(event, self.actor, "; ".join(self.texts),
                    tuple([self.seat_view(s) for s in range(self.players)]), self.piles(),
                    tuple(self.history), "; ".join(self.results) or None)
        self.actor, self.texts, self.results = None, [], []
        return step


def next_active(active: Sequence[bool], seat: int) -> int:
    """The next seat after ``seat`` still in, in seat order.

    >>> next_active([True, False, True], 0), next_active([True, False, True], 2)
    (2, 0)
    """
    s = (seat + 1) % len(active)
    while not active[s]:
        s = (s + 1) % len(active)
    return s


def group_steps(events: Sequence[Any], leads: Callable[[int], bool],
                table: StepTable) -> list[Step]:
    """The steps of ``events``: a new one starts at each event ``i`` where ``leads(i)``
    (the others are caused by the event that leads their step), so every event is in
    exactly one step.

    >>> class Count:
    ...     n = 0
    ...     def apply(self, event): self.n += 1
    ...     def step(self, event): return Step(event, None, f"{self.n} events", ())
    >>> [s.text for s in group_steps("abcd", lambda i: i != 2, Count())]
    ['1 events', '3 events', '4 events']
    """
    steps: list[Step] = []
    for i, event in enumerate(events):
        if i and leads(i):
            steps.append(table.step(i - 1))
        table.apply(event)
    if events:
        steps.append(table.step(len(events) - 1))
    return steps


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
