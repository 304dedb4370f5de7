"""A Polish Poker transcript as replay steps (``api.Step``): the deal of each round, each
declaration or call, each fault or forfeit, and the end of the game.

A call and what it causes at once (the reveal, the lost round, an elimination) is one
step, as is ``five A`` with the call it is deemed to draw. Each seat's hand is seen by
that seat alone until its round ends: then every hand of the round is face up, as the
round result tells every seat (SPEC.md, "round result").

>>> from referee.games.polish_poker.engine import PolishPoker
>>> g = PolishPoker("polacco", 3, seed=11)
>>> _ = g.apply("pair 2"), g.apply("call")
>>> steps = polish_steps("polacco", 3, [e.to_dict() for e in g.events])
>>> [s.text for s in steps[:3]]
['round 1 dealt (cap 5 cards); <0> opens', '<0> declares pair 2', '<1> calls']
>>> steps[2].result
'<0> loses the round: bluff (pair 2 is not there)'
>>> steps[1].seats[0].rows[0][0].seen_by, steps[2].seats[0].rows[0][0].seen_by
((0,), None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator import CARD_TEXT
from referee.games.api import (
    Pile,
    SeatView,
    Step,
    TableSteps,
    group_steps,
    next_active,
)
from referee.games.polish_poker.engine import FORFEIT_PREFIX, RESOLUTION_REASONS
from referee.games.polish_poker.events import (
    Called,
    Dealt,
    Declared,
    Eliminated,
    Event,
    GameOver,
    Revealed,
    RoundLost,
    event_from_dict,
)


def _leads(e: Event) -> bool:
    """Whether ``e`` starts a step (else it is caused by the step's first event)."""
    if isinstance(e, Called):
        return not e.automatic
    if isinstance(e, RoundLost):
        return e.reason not in RESOLUTION_REASONS
    if isinstance(e, Eliminated):
        return e.reason.startswith(FORFEIT_PREFIX)
    return not isinstance(e, Revealed)


class _Table(TableSteps):
    """What the transcript has shown so far, and the step being put together."""

    def __init__(self, players: int) -> None:
        super().__init__(players)
        self.active = [True] * players
        self.places: dict[int, int] = {}
        self.hands: tuple[tuple[str, ...], ...] = ((),) * players
        self.community: str | None = None
        self.revealed = False
        self.to_act: int | None = None
        self.declaration: str | None = None
        self.declarer: int | None = None

    def apply(self, e: Event) -> None:
        """Take in one event: the table's state, and the step's texts."""
        if isinstance(e, Dealt):
            self.hands = tuple(tuple(CARD_TEXT[c.id] for c in h) for h in e.hands)
            self.community = None if e.community is None else CARD_TEXT[e.community.id]
            self.revealed, self.history = False, []
            self.declaration = self.declarer = None
            self.to_act = e.opener
            self.texts.append(f"round {e.round} dealt (cap {e.cap} cards); <{e.opener}> opens")
        elif isinstance(e, Declared):
            self.actor, self.declarer = e.seat, e.seat
            self.declaration = str(e.declaration)
            self.texts.append(f"<{e.seat}> declares {e.declaration}")
            self.history.append(self.texts[-1])
            self.to_act = next_active(self.active, e.seat)
        elif isinstance(e, Called):
            self.to_act = None
            if e.automatic:
                self.texts.append(f"<{e.seat}> is deemed to call")
            else:
                self.actor = e.seat
                self.texts.append(f"<{e.seat}> calls")
            self.history.append(self.texts[-1])
        elif isinstance(e, Revealed):
            self.revealed = True
        elif isinstance(e, RoundLost):
            self.to_act, self.revealed = None, True
            self.results.append(f"<{e.seat}> loses the round: {self._why(e.reason)}")
            if e.reason not in RESOLUTION_REASONS:
                self.actor = e.seat
                self.texts.append(f"<{e.seat}> faults: {e.reason}")
        elif isinstance(e, Eliminated):
            self.active[e.seat] = False
            self.places[e.seat] = e.place
            if e.reason.startswith(FORFEIT_PREFIX):
                self.to_act, self.revealed, self.actor = None, True, e.seat
                label = e.reason.removeprefix(FORFEIT_PREFIX)
                self.texts.append(f"<{e.seat}> forfeits: {label}")
                self.results.append(f"<{e.seat}> forfeits ({label}) and is out, "
                                    f"place {e.place}")
            else:
                self.results.append(f"<{e.seat}> is out: over the card cap, place {e.place}")
        elif isinstance(e, GameOver):
            self.to_act = None
            self.texts.append("game over")
            order = ", ".join(f"<{s}>" for s in e.order[1:])
            self.results.append(f"<{e.order[0]}> wins the game" +
                                (f"; then {order}" if order else ""))

    def _why(self, reason: str) -> str:
        if reason == "bluff":
            return f"bluff ({self.declaration} is not there)"
        if reason == "wrong-call":
            return f"wrong call ({self.declaration} is there)"
        return reason

    def piles(self) -> tuple[Pile, ...]:
        community = self.community
        return () if community is None else self.once(
            ("community", community), lambda: (Pile("community", (self.card(community),)),))

    def seat_view(self, seat: int) -> SeatView:
        key = (seat, self.hands[seat], self.revealed, self.places.get(seat),
               seat == self.to_act)
        return self.once(key, self._view, *key)

    def _view(self, seat: int, codes: tuple[str, ...], revealed: bool, place: int | None,
              to_act: bool) -> SeatView:
        hand = self.row(codes, None if revealed else (seat,))
        if place is not None:  # out of the game
            return SeatView((hand,), "out", f"place {place}")
        n = len(hand)
        return SeatView((hand,), "to act" if to_act else "", f"{n} card{'s' * (n != 1)}")


def polish_steps(ruleset: str, players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
    """The steps of a transcript of ``ruleset``; ValueError (EventFormatError) for an
    event that is not one, or a transcript that does not start with a deal."""
    parsed = [event_from_dict(d, ruleset) for d in events]
    if not parsed or not isinstance(parsed[0], Dealt):
        raise ValueError("a Polish Poker transcript starts with a deal")
    if any(len(e.hands) != players for e in parsed if isinstance(e, Dealt)):
        raise ValueError(f"a deal whose hands are not for {players} seats")
    return group_steps(parsed, lambda i: _leads(parsed[i]), _Table(players))
