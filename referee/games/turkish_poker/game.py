"""Turkish poker as the harness sees it: the ``Game`` of ``referee.games.api``."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from typing import Any

from evaluator.cards import parse_card
from evaluator.turkish import card_text
from referee.games.api import IllegalAction, Metric, Outcome, Step, resolve_params
from referee.games.turkish_poker import human
from referee.games.turkish_poker.engine import DRAW, Action, TurkishPoker
from referee.games.turkish_poker.params import GAME_PARAMS
from referee.games.turkish_poker.steps import turkish_steps
from referee.games.turkish_poker.wire import action_payload, parse_action

NAME = "turkish-poker"


class TurkishPokerGame:
    """Turkish poker with its parameters (limit, hands, stack, rake, rake_cap) resolved."""

    name = NAME
    seats = range(2, 6)
    # Chips won per hand, in antes (the ante is 1 chip), as the ACPC reports mbb/hand.
    metric = Metric("chips won", "antes", "hand")

    def __init__(self, params: dict[str, Any]):
        self.params = resolve_params(GAME_PARAMS, params)

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

    def encode_action(self, action: Action) -> dict[str, Any]:
        return action_payload(action)

    def decode_view(self, payload: dict[str, Any], time_left_ms: int | None) -> dict[str, Any]:
        """A bot gets the view as the wire map (the package's SPEC.md)."""
        return payload

    def decode_notice(self, payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    def faults(self, events: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
        return [(e["seat"], e["label"]) for e in events if e.get("type") in ("fault", "forfeit")]

    def judge(self, view: dict[str, Any], action: Action) -> str | None:
        """Whether ``view["legal"]`` allows ``action`` (an amount in its range, discards
        from the seat's own cards)."""
        for entry in view["legal"]:
            if entry["kind"] != action.kind:
                continue
            if action.kind in ("open", "raise") and not \
                    entry["min"] <= action.amount <= entry["max"]:
                return f"{action.kind} {action.amount} is outside {entry['min']}..{entry['max']}"
            if action.kind == "draw":
                cards = [card_text(c) for c in action.cards]
                if len(set(cards)) != len(cards) or not set(cards) <= set(view["cards"]):
                    return f"draw {cards}: not distinct cards of the hand {view['cards']}"
            return None
        return f"{action.kind} is not among the legal actions here"

    def replay(self, players: int, seed: int, events: Sequence[dict[str, Any]]) -> Outcome:
        """Re-play the decisions, faults and forfeits in ``events`` on a fresh engine;
        ValueError naming the first event that differs from what the engine makes."""
        engine = self.new_game(players, seed)
        for i, e in enumerate(events):
            try:
                _feed(engine, e)
            except (IllegalAction, ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"event {i} ({e.get('type')!r}) cannot be re-played: {exc}") \
                    from None
        mine = [e.to_dict() for e in engine.events]
        for i, (ours, theirs) in enumerate(zip(mine, events, strict=False)):
            if ours != dict(theirs):
                raise ValueError(f"event {i} differs: the transcript has {dict(theirs)!r}, "
                                 f"the engine made {ours!r}")
        if len(mine) != len(events):
            raise ValueError(f"the transcript has {len(events)} events, the engine made "
                             f"{len(mine)}")
        return engine.outcome()

    def steps(self, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
        return turkish_steps(players, events)

    def check_turns(self) -> list[tuple[dict[str, Any], Any, Any]]:
        """Scripted (view, a legal action payload, an illegal one): opening without kings,
        raising past the limit, and drawing a card not in the hand."""
        turns: list[tuple[dict[str, Any], Any, Any]] = []
        seed = 0
        while len(turns) < 3:
            engine = self.new_game(2, seed)
            seed += 1
            seat = engine.current_seat
            assert seat is not None
            view = engine.view(seat)
            kinds = [a["kind"] for a in view["legal"]]
            if not turns and "open" not in kinds:
                turns.append((view, {"kind": "pass"}, {"kind": "open", "amount": 1}))
            elif len(turns) == 1 and "open" in kinds:
                top = view["legal"][2]["max"]
                turns.append((view, {"kind": "open", "amount": 1},
                              {"kind": "open", "amount": top + 1}))
            elif len(turns) == 2 and "open" in kinds:
                engine.apply(seat, Action("open", 1))
                engine.apply(engine.current_seat, Action("call"))
                drawer = engine.current_seat
                assert engine.phase == DRAW and drawer is not None
                view = engine.view(drawer)
                stranger = next(c for c in range(52) if c not in engine.cards[drawer])
                turns.append((view, {"kind": "draw", "cards": view["cards"][:1]},
                              action_payload(Action("draw", cards=(stranger,)))))
        return turns

    def rules_text(self) -> str:
        return files("referee.games.turkish_poker").joinpath("rules.md").read_text("utf-8")


def _feed(engine: TurkishPoker, e: dict[str, Any]) -> None:
    """Apply the input one transcript event records (if it records one)."""
    kind = e.get("type")
    if kind == "action" and not e["forced"]:
        amount = e["amount"] if e["kind"] in ("open", "raise") else 0
        engine.apply(e["seat"], Action(e["kind"], amount))
    elif kind == "drew":
        engine.apply(e["seat"], Action("draw", cards=tuple(parse_card(c).id
                                                             for c in e["discarded"])))
    elif kind == "fault":
        engine.fault(e["seat"], e["label"])
    elif kind == "forfeit":
        engine.forfeit(e["seat"], e["label"])


__all__ = ["NAME", "TurkishPokerGame"]
