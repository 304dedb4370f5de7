"""The game API: what a game package provides to the generic harness.

Each game is a package ``referee/games/<game>/`` importing only ``evaluator`` and the
standard library; it exposes ``GAME_PARAMS`` and ``load(params) -> Game``, and is named
in the registry (``referee.games``). The referee uses a Game's engine, wire codecs,
replay, check turns and replay steps; the bot-side SDK its ``decode_view``,
``parse_local_action``, ``encode_action`` and ``decode_notice`` (docs/adding-a-game.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol


class IllegalAction(Exception):
    """The engine refused an action; its state is unchanged."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Outcome:
    """Per seat: ``places`` (1 = best; equal results share a place: (1, 1, 3)) and
    optionally ``scores``, the game's own score (chips won, golf points); ``units`` is how
    many of the game's ``Metric.per`` the game held (hands, rounds)."""

    places: tuple[int, ...]
    scores: tuple[float, ...] | None = None
    units: int = 1


@dataclass(frozen=True)
class Metric:
    """A game's own measure of a bot, shown beside its Elo: over the bot's games, the sum
    of ``score * scale`` divided by the sum of ``units`` (``Outcome``), e.g. Turkish
    poker's chips won per hand in antes (``scale`` = 1 / ante, per "hand") or golf's
    points per round (lower is better).

    >>> m = Metric("chips won", "antes", "hand", scale=1 / 2)
    >>> m.value(scores=[50.0, -10.0], units=[100, 100])
    0.1
    """

    name: str
    unit: str
    per: str
    scale: float = 1.0
    higher_is_better: bool = True

    def value(self, scores: Sequence[float], units: Sequence[int]) -> float:
        """The metric over games with these scores and units."""
        return sum(scores) * self.scale / sum(units)


@dataclass(frozen=True)
class Param:
    """One game parameter: its name, default, type and allowed values."""

    name: str
    default: Any
    kind: type
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""


def _allowed(p: Param) -> str:
    if p.choices is not None:
        return "one of " + ", ".join(str(c) for c in p.choices)
    lo = "" if p.minimum is None else f" >= {p.minimum:g}"
    hi = "" if p.maximum is None else f" <= {p.maximum:g}"
    sep = " and" if lo and hi else ""
    return f"{'an integer' if p.kind is int else 'a ' + p.kind.__name__}{lo}{sep}{hi}"


def _typed(p: Param, given: Any) -> Any:
    """``given`` as a value of ``p.kind``: text is converted, a typed value (from a
    journal) must already be one (an int stands for a float); None if it cannot be."""
    if isinstance(given, str):
        try:
            return p.kind(given.strip())
        except ValueError:
            return None
    if p.kind is float and type(given) is int:
        return float(given)
    return given if type(given) is p.kind else None


def resolve_params(schema: Sequence[Param], given: Mapping[str, Any]) -> dict[str, Any]:
    """Text values from the command line (or typed ones, from a journal) -> typed params
    with defaults; ValueError with one line naming the parameter and the allowed values
    for anything unknown, of another type or out of range.

    >>> schema = (Param("target", 150, int, minimum=1),)
    >>> resolve_params(schema, {}), resolve_params(schema, {"target": "60"})
    ({'target': 150}, {'target': 60})
    >>> resolve_params(schema, {"target": "0"})
    Traceback (most recent call last):
    ...
    ValueError: parameter target: '0' is not allowed: expected an integer >= 1
    """
    by_name = {p.name: p for p in schema}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        known = ", ".join(by_name) or "none"
        raise ValueError(f"unknown parameter {unknown[0]!r}: this game's parameters: {known}")
    out: dict[str, Any] = {}
    for p in schema:
        if p.name not in given:
            out[p.name] = p.default
            continue
        text = given[p.name]
        value = _typed(p, text)
        if (value is None or (p.choices is not None and value not in p.choices)
                or (p.minimum is not None and value < p.minimum)
                or (p.maximum is not None and value > p.maximum)):
            raise ValueError(
                f"parameter {p.name}: {text!r} is not allowed: expected {_allowed(p)}")
        out[p.name] = value
    return out


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

    def seat_view(self, seat: int) -> SeatView:
        raise NotImplementedError

    def piles(self) -> tuple[Pile, ...]:
        return ()

    def step(self, event: int) -> Step:
        step = Step(event, self.actor, "; ".join(self.texts),
                    tuple(self.seat_view(s) for s in range(self.players)), self.piles(),
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


class Engine(Protocol):
    """One game in progress; pure: no I/O, no clock.

    ``events`` is the transcript (each event has ``to_dict()``); ``active`` says per seat
    whether it is still in the game (not forfeited, nor out by the rules); ``fault`` is
    called only for the seat to act, ``forfeit`` only for a seat still in. ``notices``
    says what each seat is told of ``events[since:]``: (seat, wire payload) pairs, which
    the harness hands to each seat in order with its next message."""

    players: int
    current_seat: int | None
    is_over: bool
    events: list[Any]
    active: Sequence[bool]

    def view(self, seat: int) -> dict[str, Any]: ...
    def apply(self, seat: int, action: Any) -> None: ...
    def fault(self, seat: int, label: str) -> None: ...
    def forfeit(self, seat: int, label: str) -> None: ...
    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]: ...
    def outcome(self) -> Outcome: ...


class Game(Protocol):
    """A game with its parameters resolved."""

    name: str
    params: dict[str, Any]
    seats: range
    metric: Metric | None  # None for a game with places only

    def new_game(self, players: int, seed: int) -> Engine: ...
    def parse_action(self, payload: Any) -> Any: ...
    def parse_local_action(self, value: Any) -> Any: ...
    def replay(self, players: int, seed: int,
               events: Sequence[dict[str, Any]]) -> Outcome: ...
    def check_turns(self) -> list[tuple[dict[str, Any], Any, Any]]: ...
    def rules_text(self) -> str: ...
    # ``referee check``: why ``action`` (parsed) is illegal where ``view`` is; None: legal.
    def judge(self, view: dict[str, Any], action: Any) -> str | None: ...
    # ``referee verify``: (seat, label) of every fault and forfeit in a transcript, in order.
    def faults(self, events: Sequence[dict[str, Any]]) -> list[tuple[int, str]]: ...
    # The bot side (the SDK): the view as a bot's ``act`` gets it, an action back on the
    # wire, and a notice as a bot's ``on_notice`` hook gets it.
    def decode_view(self, payload: dict[str, Any], time_left_ms: int | None) -> Any: ...
    def encode_action(self, action: Any) -> Any: ...
    def decode_notice(self, payload: dict[str, Any]) -> Any: ...
    # ``referee show`` and replay.html: the table after each thing that happened in a
    # transcript (``Step``); ValueError for events that are not this game's.
    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]: ...
    # Optional, for ``referee play``: ``describe(view) -> str``, a seat's wire view as
    # text for the person playing it, with the actions they may type (what
    # ``parse_local_action`` reads); without it the harness prints ``describe_view``.
    # Likewise ``describe_notice(notice) -> str``, one line a notice (default: its JSON).


def describe_view(view: Mapping[str, Any]) -> str:
    """A view as text for a person, when its game has no ``describe``: one line a field.

    >>> print(describe_view({"hand": [50], "history": []}))
    hand: [50]
    history: []
    """
    return "\n".join(f"{key}: {json.dumps(value)}" for key, value in view.items())
