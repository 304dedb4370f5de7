"""Scripted check turns of Polish Poker: positions a bot most easily gets wrong.

``referee check`` sends each view and judges the answer (``judge``): opening, answering,
after four flushes, after a five below aces, and a position where only a call is legal.

>>> [(v["seat"], ok, bad) for v, ok, bad in check_turns("polacco")][1]
(1, {'kind': 'call'}, {'kind': 'raise', 'declaration': 0})
"""

from __future__ import annotations

from typing import Any

from evaluator import parse_card, parse_cards, parse_declaration
from referee.games.polish_poker.wire import Action, Call, Raise, View

# Per ruleset: (seat, players, hand, community, history, a legal answer, an illegal one).
_TURNS: dict[str, tuple[tuple[int, int, str, str | None, list[tuple[int, str]], str, str],
                        ...]] = {
    "official": (
        (0, 2, "Ah", "9c", [], "pair A", "call"),
        (1, 2, "Kd", "9c", [(0, "pair 9")], "pair K", "high 9"),
        (2, 4, "Ts", "Jk", [(0, "flush s"), (1, "flush d"), (2, "flush h"), (3, "flush c")],
         "call", "flush s"),
        (0, 4, "Jd", "Jk", [(1, "three J"), (2, "four J"), (3, "five T")], "five J", "five 9"),
    ),
    "polacco": (
        (0, 3, "7h", None, [], "pair 2", "call"),
        (1, 3, "2c", None, [(0, "straight-flush s A")], "call", "pair 2"),
    ),
}


def _view(ruleset: str, seat: int, players: int, hand: str, community: str | None,
          history: list[tuple[int, str]], cap: int = 5) -> View:
    counts = tuple(len(parse_cards(hand)) if s == seat else 1 for s in range(players))
    return View(ruleset, seat, players, 1, cap, parse_cards(hand),
                parse_card(community) if community else None, counts, (True,) * players,
                history[0][0] if history else seat,
                tuple((s, parse_declaration(d, ruleset)) for s, d in history))


def _wire(value: str, ruleset: str) -> dict[str, Any]:
    if value == "call":
        return Action.to_wire(Call())
    return Action.to_wire(Raise(parse_declaration(value, ruleset)))


def check_turns(ruleset: str) -> list[tuple[dict[str, Any], Any, Any]]:
    """(view, a legal action payload, an illegal one) for each scripted turn."""
    return [(_view(ruleset, seat, players, hand, community, history).to_wire(),
             _wire(ok, ruleset), _wire(bad, ruleset))
            for seat, players, hand, community, history, ok, bad in _TURNS[ruleset]]


def judge(view: dict[str, Any], action: Raise | Call) -> str | None:
    """Why ``action`` is illegal in the position ``view`` shows; None if it is legal."""
    v = View.from_wire(view)
    if isinstance(action, Raise):
        return None if v.is_raise(action.declaration) else \
            f"{action.declaration} is not a raise here"
    return None if v.can_call else "a call when there is nothing to call"
