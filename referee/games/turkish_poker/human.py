"""A Turkish poker seat for a person (``referee play``): the view as text, and the
actions as they are typed (``fold``, ``pass``, ``call``, ``open 2``, ``raise 6``,
``draw Ah 9c``) read into the wire's maps (whose cards are integers)."""

from __future__ import annotations

from typing import Any

from evaluator.cards import CardError, parse_card
from evaluator.turkish import card_text

FIELD = {"open": "amount", "raise": "to"}  # the kinds typed with a number


def action_from_text(text: str) -> dict[str, Any]:
    """The wire map of a typed action; ValueError if it is not one.

    >>> action_from_text("raise 6"), action_from_text("draw Ah 9c")
    ({'kind': 'raise', 'to': 6}, {'kind': 'draw', 'cards': [50, 28]})
    """
    words = text.split()
    kind = words[0].lower() if words else ""
    if kind in ("fold", "pass", "call") and len(words) == 1:
        return {"kind": kind}
    if kind in FIELD and len(words) == 2 and words[1].isdigit():
        return {"kind": kind, FIELD[kind]: int(words[1])}
    if kind == "draw":
        try:
            return {"kind": "draw", "cards": [parse_card(w).id for w in words[1:]]}
        except CardError as exc:
            raise ValueError(f"{exc}: a card is typed as e.g. Ah, Td or 9c") from None
    raise ValueError(f"unknown action {text!r}: expected fold, pass, call, open N, raise N "
                     "or draw CARD ... (e.g. `draw Ah 9c`; `draw` alone keeps all five)")


def _texts(cards: list[int]) -> str:
    return " ".join(card_text(c) if 0 <= c < 52 else str(c) for c in cards)


def _legal(entry: dict[str, Any]) -> str:
    kind = entry["kind"]
    if kind in FIELD:
        span = entry["min"] if entry["min"] == entry["max"] else f"{entry['min']}..{entry['max']}"
        return f"{kind} {span}"
    if kind == "call":
        return f"call ({entry['amount']})"
    return f"draw up to {entry['max']} cards" if kind == "draw" else kind


def _event(e: dict[str, Any]) -> str:
    if e["kind"] == "antes":
        return f"deal {e['deal']}: seats {', '.join(map(str, e['seats']))} ante"
    if e["kind"] == "draw":
        return f"seat {e['seat']} draws {e['count']}"
    amount = f" {e['amount']}" if e["kind"] in ("open", "call", "raise") else ""
    return f"seat {e['seat']} {e['kind']}s{amount}" + (" (all in)" if e.get("all_in") else "")


def judge(view: dict[str, Any], wire: dict[str, Any]) -> str | None:
    """Why the action ``wire`` is not allowed where ``view`` is (its ``legal`` entries and
    cards), or None."""
    kind = wire["kind"]
    entry = next((e for e in view["legal"] if e["kind"] == kind), None)
    if entry is None:
        return f"{kind} is not allowed now: you may {' | '.join(map(_legal, view['legal']))}"
    if kind in FIELD and not entry["min"] <= wire[FIELD[kind]] <= entry["max"]:
        return f"{kind} {wire[FIELD[kind]]} is outside {entry['min']}..{entry['max']}"
    if kind == "draw":
        cards = wire["cards"]
        if len(set(cards)) != len(cards) or not set(cards) <= set(view["cards"]):
            return f"draw {_texts(cards)}: not distinct cards of your hand"
    return None


def describe(view: dict[str, Any]) -> str:
    """The view (this package's SPEC.md) as lines, ending with what may be typed."""
    seats = range(view["players"])
    lines = [f"hand {view['hand'] + 1} of {view['hands']} ({view['limit']}, {view['deck']} "
             f"cards), {view['phase']}: you are seat {view['seat']}; dealer {view['dealer']}",
             f"your cards: {_texts(view['cards'])}",
             "seats: " + "; ".join(f"{s}: {view['status'][s]}, stack {view['stacks'][s]}, "
                                   f"bet {view['bets'][s]}" for s in seats),
             f"pot {view['pot']}, to call {view['to_call']}; chips won so far: "
             + ", ".join(map(str, view["scores"]))]
    lines += [f"  {_event(e)}" for e in view["history"]]
    lines.append("you may: " + " | ".join(_legal(e) for e in view["legal"]))
    return "\n".join(lines)
