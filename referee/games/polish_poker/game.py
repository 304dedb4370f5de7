"""Polish Poker as the harness sees it (``referee.games.api.Game``): one ruleset's
engine behind the Engine protocol, its wire codecs, replay, steps, check turns and rules
text.

>>> game = load({"ruleset": "polacco"})
>>> game.name, game.params, game.seats
('polish-poker', {'ruleset': 'polacco'}, range(3, 9))
>>> g = game.new_game(3, seed=11)
>>> g.apply(0, game.parse_action({"kind": "raise", "declaration": 0}))
>>> g.apply(1, game.parse_local_action("call"))
>>> [(seat, n["loser"], n["reason"]) for seat, n in g.notices(0)]
[(0, 0, 'bluff'), (1, 0, 'bluff'), (2, 0, 'bluff')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator import declarations
from referee.games.api import Outcome, Param, Step, resolve_params
from referee.games.polish_poker import check, human
from referee.games.polish_poker.engine import (
    FORFEIT_PREFIX,
    PLAYER_RANGE,
    RESOLUTION_REASONS,
    PolishPoker,
)
from referee.games.polish_poker.events import Dealt, Eliminated, Revealed, RoundLost
from referee.games.polish_poker.replay import ReplayMismatch, replay
from referee.games.polish_poker.rulebook import summary
from referee.games.polish_poker.steps import polish_steps
from referee.games.polish_poker.wire import Action, Call, Raise, RoundResult, View, parse_action

NAME = "polish-poker"
GAME_PARAMS: tuple[Param, ...] = (
    Param("ruleset", "official", str, choices=("official", "polacco"),
          help="official (seed 000, 2-6 players) or polacco (seed 004, 3-8 players)"),
)


class PolishEngine:
    """A ``PolishPoker`` game behind ``api.Engine`` (whose ``apply`` takes the seat
    first and whose views are wire maps)."""

    __slots__ = ("game", "events", "players")

    def __init__(self, game: PolishPoker) -> None:
        self.game = game
        self.events = game._events  # the live transcript, not a copy per read
        self.players = game.players

    @property
    def current_seat(self) -> int | None:
        return self.game.current_seat

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def active(self) -> tuple[bool, ...]:
        return self.game.active

    def view(self, seat: int) -> dict[str, Any]:
        return self.game.view(seat).to_wire()

    def apply(self, seat: int, action: Raise | Call) -> None:
        self.game.apply(action, seat)

    def fault(self, seat: int, label: str) -> None:
        self.game.fault(seat, label)

    def forfeit(self, seat: int, label: str) -> None:
        self.game.forfeit(seat, label)

    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]:
        """One round result per round that ended in ``events[since:]``, to every seat
        that held cards in it: all hands are revealed."""
        return [(seat, result) for result in round_results(self.events, since)
                for seat, hand in enumerate(result["hands"]) if hand]

    def outcome(self) -> Outcome:
        order = self.game.finishing_order
        places = [0] * self.players
        for place, seat in enumerate(order, 1):
            places[seat] = place
        return Outcome(tuple(places), None, self.game.round)


def round_results(events: Sequence[Any], start: int) -> list[dict[str, Any]]:
    """One result per round that ended in ``events[start:]`` (lost by a call, a fault or
    a forfeit), with every hand of that round revealed (SPEC.md, "round result")."""
    if start >= len(events):
        return []
    first = start
    while first > 0 and not isinstance(events[first], Dealt):
        first -= 1
    out: list[dict[str, Any]] = []
    dealt: Dealt | None = None
    revealed: Revealed | None = None
    lost: RoundLost | None = None
    for i in range(first, len(events)):
        e = events[i]
        if i < start and not isinstance(e, Dealt | Revealed):
            continue
        if isinstance(e, Dealt):
            dealt, revealed, lost = e, None, None
        elif isinstance(e, Revealed):
            revealed = e
        elif isinstance(e, RoundLost):
            lost = e
            out.append(_result(dealt, revealed, e.seat, e.reason, False))
        elif isinstance(e, Eliminated) and lost is not None and lost.seat == e.seat:
            out[-1]["eliminated"] = True
        elif isinstance(e, Eliminated):
            out.append(_result(dealt, None, e.seat, e.reason, True))
    return out


def _result(dealt: Dealt | None, revealed: Revealed | None, loser: int, reason: str,
            eliminated: bool) -> dict[str, Any]:
    assert dealt is not None, "events of a round start with its deal"
    return RoundResult(
        round=dealt.round, hands=dealt.hands, community=dealt.community,
        declaration=revealed.declaration if revealed else None,
        exists=revealed.exists if revealed else None, loser=loser, reason=reason,
        eliminated=eliminated,
    ).to_wire()


class PolishPokerGame:
    """Polish Poker with one ruleset (``official`` or ``polacco``); places only."""

    name = NAME
    metric = None

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.ruleset: str = params["ruleset"]
        lo, hi = PLAYER_RANGE[self.ruleset]
        self.seats = range(lo, hi + 1)

    def new_game(self, players: int, seed: int) -> PolishEngine:
        return PolishEngine(PolishPoker(self.ruleset, players, seed))

    def parse_action(self, payload: Any) -> Raise | Call:
        """An action off the wire; ValueError says what is wrong with it."""
        return Action.from_wire(payload, self.ruleset)

    def parse_local_action(self, value: Any) -> Raise | Call:
        """What a Python bot's ``act`` returned: ``"call"``, a declaration (text, id or
        object), or Raise/Call."""
        return parse_action(value, self.ruleset)

    def encode_action(self, action: Raise | Call) -> dict[str, Any]:
        return Action.to_wire(action)

    def describe(self, view: dict[str, Any]) -> str:
        return human.describe(view)

    def describe_notice(self, notice: dict[str, Any]) -> str:
        return human.describe_notice(notice, self.ruleset)

    def decode_view(self, payload: dict[str, Any], time_left_ms: int | None) -> View:
        return View.from_wire(payload, time_left_ms)

    def decode_notice(self, payload: dict[str, Any]) -> RoundResult:
        return RoundResult.from_wire(payload, self.ruleset)

    def replay(self, players: int, seed: int, events: Sequence[dict[str, Any]]) -> Outcome:
        """Re-play a transcript on a fresh engine; ValueError at the first difference."""
        try:
            game = replay(self.ruleset, players, seed, events)
        except ReplayMismatch as exc:
            raise ValueError(str(exc)) from None
        if [e.to_dict() for e in game.events] != list(events):
            raise ValueError("the replay does not reproduce the transcript's events exactly")
        if not game.is_over:
            raise ValueError("the transcript ends before the game does")
        return PolishEngine(game).outcome()

    def faults(self, events: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
        """A fault is a round lost for a reason other than a call's; a forfeit an
        elimination with reason ``forfeit:<label>``."""
        out = []
        for d in events:
            if d["type"] == "round_lost" and d["reason"] not in RESOLUTION_REASONS:
                out.append((d["seat"], d["reason"]))
            elif d["type"] == "eliminated" and d["reason"].startswith(FORFEIT_PREFIX):
                out.append((d["seat"], d["reason"].removeprefix(FORFEIT_PREFIX)))
        return out

    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
        return polish_steps(self.ruleset, players, events)

    def check_turns(self) -> list[tuple[dict[str, Any], Any, Any]]:
        return check.check_turns(self.ruleset)

    def judge(self, view: dict[str, Any], action: Raise | Call) -> str | None:
        return check.judge(view, action)

    def rules_text(self) -> str:
        """The ruleset's summary (rules/<ruleset>.md), then its declaration ladder."""
        ladder = declarations(self.ruleset)
        rows = "\n".join(f"{d.id:>4}  {d}" for d in ladder)
        return (f"# Polish Poker, ruleset {self.ruleset}\n\n{summary(self.ruleset)}\n\n"
                f"{self.ruleset}: {len(ladder)} declarations, weakest first "
                f"(id  declaration)\n\n```\n{rows}\n```\n")


def load(params: Mapping[str, Any]) -> PolishPokerGame:
    """The game with ``params`` resolved against ``GAME_PARAMS``; ValueError names a
    bad one."""
    return PolishPokerGame(resolve_params(GAME_PARAMS, params))


def legacy_params(rules: str) -> dict[str, Any]:
    """What a schema-1 journal's ``rules`` field stood for."""
    return {"ruleset": rules}
