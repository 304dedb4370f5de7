"""Turkish poker as the harness sees it: the ``Game`` of ``referee.games.api``."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from importlib.resources import files
from typing import Any

from referee.games import api
from referee.games.api import CheckTurn, Metric, Step, resolve_params
from referee.games.turkish_poker import human
from referee.games.turkish_poker.engine import DRAW, Action, TurkishPoker
from referee.games.turkish_poker.events import wire_cards
from referee.games.turkish_poker.params import GAME_PARAMS
from referee.games.turkish_poker.steps import turkish_steps
from referee.games.turkish_poker.wire import action_payload, parse_action

NAME = "turkish-poker"


class TurkishPokerGame(api.Game):
    """Turkish poker with its parameters (limit, hands, stack, rake, rake_cap) resolved."""

    name = NAME
    seats = range(2, 6)
    # Chips won per hand, in antes (the ante is 1 chip), as the ACPC reports mbb/hand.
    metric = Metric("chips won", "antes", "hand")
    units = "hands"
    kernels = ("evaluator.warm:turkish",)
    contract_params = ({"hands": "3", "stack": "40"},
                       {"hands": "2", "limit": "fixed-limit", "rake": "0.05", "rake_cap": "3"})

    def __init__(self, params: dict[str, Any]):
        super().__init__(resolve_params(GAME_PARAMS, params))

    def new_game(self, players: int, seed: int) -> TurkishPoker:
        if players not in self.seats:
            raise ValueError(f"{NAME} seats 2-5 players, not {players}")
        return TurkishPoker(players, seed, **self.params)

    def parse_action(self, payload: Any) -> Action:
        return parse_action(payload)

    def parse_local_action(self, value: Any) -> Action:
        """What a Python bot's ``act`` returned: the same plain map as on the wire, or
        the text a person types (``human.action_from_text``)."""
        if isinstance(value, str):
            value = human.action_from_text(value)
        return value if isinstance(value, Action) else parse_action(value)

    def describe(self, view: dict[str, Any]) -> str:
        return human.describe(view)

    def judge_view(self, view: dict[str, Any], action: Action) -> str | None:
        return human.judge(view, action_payload(action))

    def encode_action(self, action: Action) -> dict[str, Any]:
        return action_payload(action)

    def drive(self, engine: TurkishPoker, event: dict[str, Any]) -> bool:  # type: ignore[override]
        kind = event.get("type")
        if kind == "action" and not event["forced"]:
            amount = event["amount"] if event["kind"] in ("open", "raise") else 0
            engine.apply(event["seat"], Action(event["kind"], amount))
        elif kind == "drew":
            engine.apply(event["seat"], Action("draw", cards=tuple(
                wire_cards(event["discarded"]))))
        elif kind == "fault":
            engine.fault(event["seat"], event["label"])
        elif kind == "forfeit":
            engine.forfeit(event["seat"], event["label"])
        else:
            return False
        return True

    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
        return turkish_steps(players, events)

    def check_turns(self) -> list[CheckTurn]:
        """Opening without kings, raising past the limit, and drawing a card not in the
        hand, at the first deals that have these positions."""
        turns: list[CheckTurn] = []
        seed = 0
        while len(turns) < 3:
            engine = self.new_game(2, seed)
            seed += 1
            seat = engine.current_seat
            assert seat is not None
            legal = {a["kind"]: a for a in engine.legal(seat)}
            if not turns and "open" not in legal:
                turns.append(CheckTurn(engine, {"kind": "pass"}, {"kind": "open", "amount": 1}))
            elif len(turns) == 1 and "open" in legal:
                top = legal["open"]["max"]
                turns.append(CheckTurn(engine, {"kind": "open", "amount": 1},
                                       {"kind": "open", "amount": top + 1}))
            elif len(turns) == 2 and "open" in legal:
                engine.apply(seat, Action("open", 1))
                engine.apply(engine.current_seat, Action("call"))
                drawer = engine.current_seat
                assert engine.phase == DRAW and drawer is not None
                stranger = next(c for c in range(52) if c not in engine.cards[drawer])
                turns.append(CheckTurn(copy.deepcopy(engine), action_payload(
                    Action("draw", cards=tuple(engine.cards[drawer][:1]))),
                    action_payload(Action("draw", cards=(stranger,)))))
        return turns

    def rules_text(self) -> str:
        return files("referee.games.turkish_poker").joinpath("rules.md").read_text("utf-8")


__all__ = ["NAME", "TurkishPokerGame"]
