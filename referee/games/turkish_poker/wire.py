"""Turkish poker actions on the wire: plain maps <-> ``Action`` values.

>>> parse_action({"kind": "raise", "to": 12})
Action(kind='raise', amount=12, cards=())
>>> parse_action({"kind": "draw", "cards": [50, 28]}).cards
(50, 28)
>>> action_payload(Action("open", 3))
{'kind': 'open', 'amount': 3}
"""

from __future__ import annotations

from typing import Any

from referee.games.turkish_poker.engine import MAX_DRAW, Action

KINDS = ("fold", "pass", "open", "call", "raise", "draw")
# The field that carries each kind's number, if any.
AMOUNT_FIELD = {"open": "amount", "raise": "to"}


def _whole(payload: dict[Any, Any], name: str) -> int:
    value = payload.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{payload.get('kind')} needs a whole number {name!r}, got {value!r}")
    if not 0 <= value < 2**31:
        raise ValueError(f"{name!r} {value} is out of range")
    return value


def parse_action(payload: Any) -> Action:
    """A wire payload -> Action; ValueError says what is wrong with it."""
    if not isinstance(payload, dict):
        raise ValueError(f"an action is a map with a 'kind', not {type(payload).__name__}")
    kind = payload.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown action kind {kind!r}: expected one of {', '.join(KINDS)}")
    allowed = {"kind", AMOUNT_FIELD.get(kind), "cards" if kind == "draw" else None}
    extra = sorted(str(k) for k in payload if k not in allowed)
    if extra:
        raise ValueError(f"{kind} takes no field {', '.join(extra)}")
    if kind in AMOUNT_FIELD:
        return Action(kind, _whole(payload, AMOUNT_FIELD[kind]))
    if kind == "draw":
        cards = payload.get("cards")
        if not isinstance(cards, list) or len(cards) > MAX_DRAW:
            raise ValueError(f"draw needs 'cards': a list of at most {MAX_DRAW} cards")
        for card in cards:
            if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
                raise ValueError(f"a card is an integer 0..51 (protocol/SPEC.md section 2), "
                                 f"not {card!r}")
        return Action(kind, cards=tuple(cards))
    return Action(kind)


def action_payload(action: Action) -> dict[str, Any]:
    """The wire form of an Action (the inverse of ``parse_action``)."""
    if action.kind in AMOUNT_FIELD:
        return {"kind": action.kind, AMOUNT_FIELD[action.kind]: action.amount}
    if action.kind == "draw":
        return {"kind": "draw", "cards": list(action.cards)}
    return {"kind": action.kind}
