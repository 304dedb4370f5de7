"""Scripted check turns of Polish Poker: positions a bot most easily gets wrong.

``referee check`` sends each position's view and judges the answer with the engine:
opening, answering, after four flushes, after a five below aces, and a position where
only a call is legal.

>>> turns = check_turns("polacco")
>>> [(t.engine.current_seat, t.legal, t.illegal) for t in turns][1]
(1, {'kind': 'call'}, {'kind': 'raise', 'declaration': 0})
"""

from __future__ import annotations

from typing import Any

from evaluator import deck_cards, parse_card, parse_cards, parse_declaration
from referee.games.api import CheckTurn
from referee.games.polish_poker.adapter import PolishEngine
from referee.games.polish_poker.engine import PolishPoker
from referee.games.polish_poker.wire import Action, Call, Raise

# Per ruleset: (players, the hand of the seat to act, community, the declarations before
# it (from seat 0, which opens round 1), a legal answer, an illegal one).
_TURNS: dict[str, tuple[tuple[int, str, str | None, tuple[str, ...], str, str], ...]] = {
    "official": (
        (2, "Ah", "9c", (), "pair A", "call"),
        (2, "Kd", "9c", ("pair 9",), "pair K", "high 9"),
        (4, "Ts", "Jk", ("flush s", "flush d", "flush h", "flush c"), "call", "flush s"),
        (4, "Jd", "Jk", ("three J", "four J", "five T"), "five J", "five 9"),
    ),
    "polacco": (
        (3, "7h", None, (), "pair 2", "call"),
        (3, "2c", None, ("straight-flush s A",), "call", "pair 2"),
    ),
}


def _position(ruleset: str, players: int, hand: str, community: str | None,
              history: tuple[str, ...]) -> PolishPoker:
    """Round 1 of a game with ``hand`` for the seat that acts after ``history``; the other
    seats hold the lowest cards of the deck not otherwise dealt."""
    game = PolishPoker(ruleset, players, seed=0)
    seat = len(history) % players
    used = {*parse_cards(hand), *([parse_card(community)] if community else [])}
    spare = iter(c for c in deck_cards(ruleset) if c not in used)
    game.set_hands([hand if s == seat else (next(spare),) for s in range(players)], community)
    for text in history:
        game.apply(parse_declaration(text, ruleset))
    return game


def _wire(value: str, ruleset: str) -> dict[str, Any]:
    if value == "call":
        return Action.to_wire(Call())
    return Action.to_wire(Raise(parse_declaration(value, ruleset)))


def check_turns(ruleset: str) -> list[CheckTurn]:
    """Each scripted position with a legal action payload and an illegal one."""
    return [CheckTurn(PolishEngine(_position(ruleset, players, hand, community, history)),
                      _wire(ok, ruleset), _wire(bad, ruleset))
            for players, hand, community, history, ok, bad in _TURNS[ruleset]]
