"""The game API: what a game package provides to the generic harness.

Each game is a package ``referee/games/<game>/`` importing only ``evaluator`` and the
standard library; it exposes ``GAME_PARAMS`` and ``load(params) -> Game``, and is named
in the registry (``referee.games``). Its ``Game`` extends the base class here, which
gives what every game shares (the wire defaults, the replay loop, the fault events,
``judge`` by the engine); its engine follows ``Engine``. The referee uses a Game's
engine, wire codecs, replay, check turns and replay steps; the bot-side SDK its
``decode_view``, ``parse_local_action``, ``encode_action`` and ``decode_notice``
(docs/adding-a-game.md; tests/test_game_contract.py holds every game to it).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from referee.games.table import (
    Card,
    Pile,
    SeatView,
    Step,
    StepTable,
    TableSteps,
    group_steps,
    next_active,
)


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


def places_with_forfeits(stayed: Mapping[int, int], left: Sequence[tuple[int, int]],
                         players: int) -> tuple[int, ...]:
    """Every seat's place (RULES.md, "Edge cases, decided"): ``stayed`` places the seats
    that did not forfeit among themselves (1 = best); ``left`` is (seat, the decisions
    made before it left) per forfeit. A seat that forfeited places below every seat that
    did not; of those that forfeited, the later leaver higher; those that left at the same
    decision share a place.

    >>> places_with_forfeits({0: 2, 3: 1}, [(1, 5), (4, 5), (2, 9)], 5)
    (2, 4, 3, 1, 4)
    """
    places = dict(stayed)
    for seat, when in left:
        places[seat] = len(stayed) + 1 + sum(1 for _, then in left if then > when)
    return tuple(places[s] for s in range(players))


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
    if p.kind is bool:
        return "true or false"
    return f"{'an integer' if p.kind is int else 'a ' + p.kind.__name__}{lo}{sep}{hi}"


_BOOL_TEXT = {"true": True, "yes": True, "on": True, "1": True,
              "false": False, "no": False, "off": False, "0": False}


def _typed(p: Param, given: Any) -> Any:
    """``given`` as a value of ``p.kind``: text is converted (a bool from true/false,
    yes/no, on/off, 1/0: ``bool("false")`` would be True), a typed value (from a journal)
    must already be one (an int stands for a float); None if it cannot be.

    >>> flag = Param("flag", True, bool)
    >>> _typed(flag, "false"), _typed(flag, "On"), _typed(flag, "maybe"), _typed(flag, 0)
    (False, True, None, None)
    """
    if isinstance(given, str) and p.kind is bool:
        return _BOOL_TEXT.get(given.strip().lower())
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


class Engine(Protocol):
    """One game in progress; pure: no I/O, no clock.

    ``events`` is the transcript (each event has ``to_dict()``); ``active`` says per seat
    whether it is still in the game (not forfeited, nor out by the rules); ``fault`` is
    called only for the seat to act, ``forfeit`` only for a seat still in. ``notices``
    says what each seat is told of ``events[since:]``: (seat, wire payload) pairs, which
    the harness hands to each seat in order with its next message. ``legal_actions``:
    every action the seat to act may take now (as ``Game.parse_action`` makes them; a
    range of amounts as each amount), empty once the game is over; ``apply`` accepts
    exactly these and raises IllegalAction for anything else.

    Optional: ``local_view(seat, time_left_ms)``, the view as ``Game.decode_view`` makes
    it of ``view(seat)``, built without the wire map; in-process runs use it when the
    engine has one. ``event_dicts()``, ``[e.to_dict() for e in events]`` made cheaper
    (dicts the caller only reads, which equal events may share); in-process runs journal
    it when the engine has one."""

    players: int
    current_seat: int | None
    is_over: bool
    events: list[Any]
    active: Sequence[bool]

    def view(self, seat: int) -> dict[str, Any]: ...
    def legal_actions(self) -> list[Any]: ...
    def apply(self, seat: int, action: Any) -> None: ...
    def fault(self, seat: int, label: str) -> None: ...
    def forfeit(self, seat: int, label: str) -> None: ...
    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]: ...
    def outcome(self) -> Outcome: ...


def journal_events(engine: Engine) -> list[dict[str, Any]]:
    """A finished game's events as the journal takes them: the engine's
    ``event_dicts()`` where it has one."""
    event_dicts = getattr(engine, "event_dicts", None)
    return event_dicts() if event_dicts is not None else [e.to_dict() for e in engine.events]


@dataclass(frozen=True)
class CheckTurn:
    """A position ``referee check`` plays: ``engine``'s seat to act gets its view (at a
    table of ``engine.players``), ``legal`` is an action payload the engine accepts
    there and ``illegal`` one it refuses."""

    engine: Engine
    legal: Any
    illegal: Any


# The fault vocabulary of transcripts: a fault charged to the seat to act and a seat
# leaving the game, each an event ``{"type": ..., "seat": s, "label": ...}`` (with the
# game's own fields besides). Polish Poker's transcripts say these their own way: a
# fault is a lost round (``round_lost`` with the label as its reason), a forfeit an
# ``eliminated`` (its ``faults``).
FAULT_EVENT, FORFEIT_EVENT = "fault", "forfeit"


class Game:
    """A game with its parameters resolved: the base every game's class extends,
    overriding only what differs (as python-chess's variants do). A game must give
    ``name``, ``seats``, ``new_game``, ``parse_action``, ``drive``, ``check_turns``,
    ``steps`` and ``rules_text``; the rest has a default here.

    What the game declares of its own: ``metric`` (None: places only), ``max_table``
    (the largest table of ``--format tables``; default its most seats), ``kernels``
    (modules whose compiled kernels the sandbox warms for bots: ``referee.kernelcache``),
    ``units`` (what ``Outcome.units`` counts, plural: "hands", "rounds"), and
    ``contract_params``: small parameter sets (text, as on the command line) that
    tests/test_game_contract.py plays the game with, one golden transcript each;
    ``renamed_events``: event types that older transcripts wrote under another name
    (old: new), which ``read_events`` renames."""

    name: str
    seats: range
    metric: Metric | None = None
    kernels: tuple[str, ...] = ()
    units: str = "rounds"
    contract_params: tuple[dict[str, str], ...] = ({},)
    renamed_events: dict[str, str] = {}

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    @property
    def max_table(self) -> int:
        return self.seats[-1]

    def new_game(self, players: int, seed: int) -> Engine:
        raise NotImplementedError

    def parse_action(self, payload: Any) -> Any:
        """An action off the wire; ValueError says what is wrong with it."""
        raise NotImplementedError

    def parse_local_action(self, value: Any) -> Any:
        """What a Python bot's ``act`` returned (by default: the wire map)."""
        return self.parse_action(value)

    def encode_action(self, action: Any) -> Any:
        """An action on the wire (by default its ``to_wire()``)."""
        return action.to_wire()

    def decode_view(self, payload: dict[str, Any], time_left_ms: int | None) -> Any:
        """The view as a bot's ``act`` gets it (by default the wire map)."""
        return payload

    def decode_notice(self, payload: dict[str, Any]) -> Any:
        """A notice as a bot's ``on_notice`` hook gets it (by default the wire map)."""
        return payload

    def drive(self, engine: Engine, event: dict[str, Any]) -> bool:
        """Make ``engine`` do what transcript ``event`` records a seat or the harness did
        (a decision, a fault, a forfeit); False for an event the engine makes itself."""
        raise NotImplementedError

    def replay(self, players: int, seed: int,
               events: Sequence[dict[str, Any]]) -> Outcome:
        """Re-play a transcript on a fresh engine (``drive`` feeds it the inputs, and
        every event it makes must equal the transcript's); ValueError at the first
        difference (``explain`` says how two events differ)."""
        return replay_transcript(self, self.new_game(players, seed), self.read_events(events))

    def read_events(self, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """A transcript's events with the types of older transcripts renamed to today's
        (``renamed_events``)."""
        renamed = self.renamed_events
        if not renamed:
            return list(events)
        return [{**e, "type": renamed[e["type"]]} if e.get("type") in renamed else e
                for e in events]

    def explain(self, ours: dict[str, Any], theirs: dict[str, Any]) -> str:
        """How the engine's event differs from the transcript's (a game may add why)."""
        return "differs in " + ", ".join(k for k in {**ours, **theirs}
                                         if ours.get(k) != theirs.get(k))

    def faults(self, events: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
        """(seat, label) of every fault and forfeit in a transcript, in order."""
        return [(e["seat"], e["label"]) for e in self.read_events(events)
                if e.get("type") in (FAULT_EVENT, FORFEIT_EVENT)]

    def judge(self, engine: Engine, action: Any) -> str | None:
        """Why ``engine`` refuses ``action`` of its seat to act (IllegalAction's text),
        None if it accepts it: the engine's own rules, tried on a copy."""
        trial = copy.deepcopy(engine)
        assert trial.current_seat is not None, "a check turn has a seat to act"
        try:
            trial.apply(trial.current_seat, action)
        except IllegalAction as exc:
            return exc.detail
        return None

    def check_turns(self) -> list[CheckTurn]:
        """Positions a bot most easily gets wrong, for ``referee check``."""
        raise NotImplementedError

    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
        """``referee show`` and replay.html: the table after each thing that happened
        (``Step``); ValueError for events that are not this game's."""
        raise NotImplementedError

    def rules_text(self) -> str:
        raise NotImplementedError

    def describe(self, view: dict[str, Any]) -> str:
        """``referee play``: a seat's wire view as text for the person playing it, ending
        with the actions they may type (what ``parse_local_action`` reads)."""
        return describe_view(view)

    def describe_notice(self, notice: dict[str, Any]) -> str:
        """``referee play``: a notice to the seat as one line for that person."""
        return json.dumps(notice)

    def judge_view(self, view: dict[str, Any], action: Any) -> str | None:
        """``referee play``: why ``action`` (parsed) is illegal where ``view`` is, as far
        as the view tells (the person is asked again); None: legal, or not known here
        (the referee judges it)."""
        return None


def describe_view(view: Mapping[str, Any]) -> str:
    """A view as text for a person, when its game has no ``describe``: one line a field.

    >>> print(describe_view({"hand": [50], "history": []}))
    hand: [50]
    history: []
    """
    return "\n".join(f"{key}: {json.dumps(value)}" for key, value in view.items())


def replay_transcript(game: Game, engine: Engine,
                      events: Sequence[dict[str, Any]]) -> Outcome:
    """``engine`` (new) driven through ``events`` by ``game.drive``: each event it makes
    must equal the transcript's at its index, and the game must end with the transcript;
    ValueError naming the first event that differs."""
    done = 0
    while True:
        made = engine.events
        for i in range(done, len(made)):
            ours = made[i].to_dict()
            if i >= len(events):
                raise ValueError(f"event {i}: the transcript ends early; the engine made "
                                 f"{ours!r}")
            if ours != events[i]:
                raise ValueError(f"event {i} differs ({events[i].get('type')!r}, "
                                 f"{game.explain(ours, dict(events[i]))}): the transcript "
                                 f"has {dict(events[i])!r}, the engine made {ours!r}")
        done = len(made)
        if done == len(events):
            break
        event = events[done]
        try:
            driven = game.drive(engine, event)
        except (IllegalAction, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"event {done} ({event.get('type')!r}) cannot be re-played: "
                             f"{exc}") from None
        if not driven:
            raise ValueError(f"event {done} ({event.get('type')!r}): the engine makes this "
                             "event itself, but did not here")
    if not engine.is_over:
        raise ValueError(f"the transcript ends at event {len(events)} before the game does")
    return engine.outcome()


__all__ = ["Card", "CheckTurn", "Engine", "FAULT_EVENT", "FORFEIT_EVENT", "Game",
           "IllegalAction", "Metric", "Outcome", "Param", "Pile", "SeatView", "Step",
           "StepTable", "TableSteps", "describe_view", "group_steps", "next_active",
           "places_with_forfeits", "replay_transcript", "resolve_params"]
