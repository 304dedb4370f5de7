"""Six-card golf as the harness sees it (``referee.games.api.Game``): parameters, new
games, the action codecs, replay, replay steps, check turns and the rules text.

>>> game = load({"target": "60"})
>>> game.name, game.params, game.seats
('six-card-golf', {'target': 60, 'turn_cap': 40, 'round_cap': 100}, range(2, 9))
>>> g = game.new_game(3, seed=11)
>>> g.apply(g.current_seat, game.parse_action({"kind": "take", "from": "stock"}))
>>> g.view(g.current_seat)["phase"]
'place'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.games import api
from referee.games.api import CheckTurn, Metric, Param, Step, resolve_params
from referee.games.six_card_golf import human
from referee.games.six_card_golf.actions import Action, parse_action, parse_local_action
from referee.games.six_card_golf.check import check_turns
from referee.games.six_card_golf.engine import PLAYERS, SixCardGolf
from referee.games.six_card_golf.replay import drive
from referee.games.six_card_golf.rules import RULES_TEXT
from referee.games.six_card_golf.steps import golf_steps

NAME = "six-card-golf"
GAME_PARAMS: tuple[Param, ...] = (
    Param("target", 150, int, minimum=1, maximum=100_000,
          help="the game ends after the round in which a total reaches this"),
    Param("turn_cap", 40, int, minimum=1, maximum=1_000,
          help="a round in which no one went out ends after this many turns each"),
    Param("round_cap", 100, int, minimum=1, maximum=10_000,
          help="a game ends after this many rounds even if no total reached target"),
)


class SixCardGolfGame(api.Game):
    """The game with its parameters resolved. Scores are total points: lower is better."""

    name = NAME
    seats = PLAYERS
    metric = Metric("points", "", "round", higher_is_better=False)
    renamed_events = {"faulted": "fault", "forfeited": "forfeit"}  # transcripts before 4
    contract_params = ({"target": "40", "turn_cap": "12"},)

    def new_game(self, players: int, seed: int) -> SixCardGolf:
        return SixCardGolf(players, seed, **self.params)

    def parse_action(self, payload: Any) -> Action:
        return parse_action(payload)

    def parse_local_action(self, value: Any) -> Action:
        return parse_local_action(value)

    def drive(self, engine: SixCardGolf, event: dict[str, Any]) -> bool:  # type: ignore[override]
        return drive(engine, event)

    def describe(self, view: dict[str, Any]) -> str:
        return human.describe(view)

    def judge_view(self, view: dict[str, Any], action: Action) -> str | None:
        """The view's ``legal`` lists every legal action."""
        wire = action.to_wire()
        return None if wire in view["legal"] else f"{wire} is not among the legal actions here"

    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
        return golf_steps(players, self.read_events(events))

    def check_turns(self) -> list[CheckTurn]:
        return check_turns()

    def rules_text(self) -> str:
        return RULES_TEXT


def load(params: Mapping[str, Any]) -> SixCardGolfGame:
    """The game with ``params`` (text from the command line, or typed values) resolved
    against ``GAME_PARAMS``; ValueError names a bad one."""
    return SixCardGolfGame(resolve_params(GAME_PARAMS, params))
