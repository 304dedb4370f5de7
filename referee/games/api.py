"""The game API: what a game package provides to the generic harness.

Each game is a package ``referee/games/<game>/`` with a module-level ``GAME_PARAMS``
(its parameter schema) and ``load(params) -> Game``. Generic code reaches a game only
through these protocols and value types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class IllegalAction(Exception):
    """The engine refused an action; the message says why."""


@dataclass(frozen=True)
class Outcome:
    """The result of one game: a place per seat (1 = best; equal results share a place)
    and, where the game has one, its own score per seat (chips won, golf points)."""

    places: tuple[int, ...]
    scores: tuple[float, ...] | None = None


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


def resolve_params(schema: Sequence[Param], given: Mapping[str, str]) -> dict[str, Any]:
    """Text values from the command line -> typed params with defaults; ValueError with one
    line naming the parameter and the allowed values for anything unknown or out of range."""
    known = {p.name: p for p in schema}
    for name in given:
        if name not in known:
            allowed = ", ".join(known) or "none"
            raise ValueError(f"unknown parameter {name!r}: expected one of {allowed}")
    out: dict[str, Any] = {}
    for p in schema:
        if p.name not in given:
            out[p.name] = p.default
            continue
        text = given[p.name]
        try:
            value = p.kind(text)
        except (TypeError, ValueError):
            raise ValueError(
                f"parameter {p.name!r}: {text!r} is not a {p.kind.__name__}") from None
        if p.choices is not None and value not in p.choices:
            allowed = ", ".join(str(c) for c in p.choices)
            raise ValueError(f"parameter {p.name!r}: {text!r} is not one of {allowed}")
        if p.minimum is not None and value < p.minimum:
            raise ValueError(f"parameter {p.name!r}: {text!r} is below the minimum {p.minimum}")
        if p.maximum is not None and value > p.maximum:
            raise ValueError(f"parameter {p.name!r}: {text!r} is above the maximum {p.maximum}")
        out[p.name] = value
    return out


class Engine(Protocol):
    """One game in progress; pure: no I/O, no clock."""

    players: int
    current_seat: int | None
    is_over: bool
    events: list[Any]

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

    def new_game(self, players: int, seed: int) -> Engine: ...
    def parse_action(self, payload: Any) -> Any: ...
    def parse_local_action(self, value: Any) -> Any: ...
    def replay(self, players: int, seed: int, events: Sequence[dict[str, Any]]) -> Outcome: ...
    def check_turns(self) -> list[tuple[dict[str, Any], Any, Any]]: ...
    def rules_text(self) -> str: ...
