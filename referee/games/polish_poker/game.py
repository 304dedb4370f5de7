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
from evaluator.declarations import from_id, is_raise
from referee.games import api
from referee.games.api import CheckTurn, Param, Step, resolve_params
from referee.games.polish_poker import check, human
from referee.games.polish_poker.adapter import PolishEngine
from referee.games.polish_poker.engine import (
    FORFEIT_PREFIX,
    PLAYER_RANGE,
    RESOLUTION_REASONS,
    PolishPoker,
)
from referee.games.polish_poker.replay import difference, drive
from referee.games.polish_poker.rulebook import summary
from referee.games.polish_poker.steps import polish_steps
from referee.games.polish_poker.wire import Action, Call, Raise, RoundResult, View, parse_action

NAME = "polish-poker"
GAME_PARAMS: tuple[Param, ...] = (
    Param("ruleset", "official", str, choices=("official", "polacco"),
          help="official (seed 000, 2-6 players) or polacco (seed 004, 3-8 players)"),
)
# Official rules 8.4: the tables of a tournament seat at most 6 (polacco's too: the
# tables format is the official rules').
TABLES_MAX = 6


class PolishPokerGame(api.Game):
    """Polish Poker with one ruleset (``official`` or ``polacco``); places only."""

    name = NAME
    kernels = ("evaluator.warm:declarations",)
    contract_params = ({"ruleset": "official"}, {"ruleset": "polacco"})

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.ruleset: str = params["ruleset"]
        lo, hi = PLAYER_RANGE[self.ruleset]
        self.seats = range(lo, hi + 1)

    @property
    def max_table(self) -> int:
        return min(TABLES_MAX, self.seats[-1])

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

    def judge_view(self, view: dict[str, Any], action: Raise | Call) -> str | None:
        """A call needs a declaration to call; a declaration must raise the round's."""
        earlier = [from_id(d, self.ruleset) for _, d in view["history"]]
        if isinstance(action, Call):
            return None if earlier else "a call when there is nothing to call"
        if is_raise(action.declaration, earlier, self.ruleset):
            return None
        return f"{action.declaration} does not raise {earlier[-1]}"

    def decode_view(self, payload: dict[str, Any], time_left_ms: int | None) -> View:
        return View.from_wire(payload, time_left_ms)

    def decode_notice(self, payload: dict[str, Any]) -> RoundResult:
        return RoundResult.from_wire(payload, self.ruleset)

    def drive(self, engine: PolishEngine, event: dict[str, Any]) -> bool:  # type: ignore[override]
        return drive(engine.game, event)

    def explain(self, ours: dict[str, Any], theirs: dict[str, Any]) -> str:
        return difference(ours, theirs) or super().explain(ours, theirs)

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

    def check_turns(self) -> list[CheckTurn]:
        return check.check_turns(self.ruleset)

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
