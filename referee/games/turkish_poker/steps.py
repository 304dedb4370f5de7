"""A Turkish poker transcript as replay steps (``api.Step``): each deal, each betting
decision and draw, each fault or forfeit, the end of each hand and of the game.

Each seat's five cards are seen by that seat alone (its draws too: the others know only
how many it drew) until a showdown shows them; a folded hand is never shown. What a
decision causes at once (a return of an uncalled bet, the showdown, the pots, the end
of the hand) is in its step; a new hand or a new deal after everyone passed is a step
of its own.

>>> from referee.games.turkish_poker.engine import Action, TurkishPoker
>>> g = TurkishPoker(2, seed=1, hands=1)
>>> g.apply(g.current_seat, Action("fold"))
>>> steps = turkish_steps(2, [e.to_dict() for e in g.events])
>>> [s.text for s in steps]
['hand 1 (dealer <1>): deal 1, antes 1 from <0>, <1> (24-card deck)', '<0> folds', 'game over']
>>> steps[1].result
'<1> wins the pot of 2; hand 1 ends (folds): <0> -1, <1> +1'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.games.api import Pile, SeatView, Step, TableSteps, group_steps

# Events that a decision (or the event before them) causes at once, in its step.
_FOLLOWING = frozenset({"dealt", "returned", "shown", "pot", "hand_ended"})
_DECISIONS = frozenset({"action", "drew", "fault"})


def _leads(events: Sequence[dict[str, Any]], i: int) -> bool:
    kind = events[i]["type"]
    if kind == "antes":  # the first deal of a hand is in the hand's step
        return events[i - 1]["type"] != "hand_started"
    if kind == "drew":  # a reshuffle is the first event of the draw that needs it
        return events[i - 1]["type"] != "reshuffled"
    if kind == "action" and events[i].get("forced"):  # the fold of a fault or forfeit
        return events[i - 1]["type"] not in ("fault", "forfeit")
    return kind not in _FOLLOWING


class _Table(TableSteps):
    def __init__(self, players: int, events: Sequence[dict[str, Any]]) -> None:
        super().__init__(players)
        self.events = events
        self.to_act: int | None = None  # in the step being made: whose decision is next
        self.hands: list[tuple[str, ...]] = [()] * players
        self.shown = [False] * players
        self.stacks = [0] * players
        self.bets = [0] * players
        self.pot = 0
        self.folded = [False] * players
        self.out = [False] * players
        self.hand = 0
        self.drawing = False

    def apply(self, e: dict[str, Any]) -> None:
        handler = _HANDLERS.get(e["type"])
        if handler is None:
            raise ValueError(f"unknown event type {e['type']!r}")
        handler(self, e)

    def _hand_started(self, e: dict[str, Any]) -> None:
        self.hand = e["hand"]
        self.stacks = [int(x) for x in e["stacks"]]
        self.folded = [s not in e["seats"] for s in range(self.players)]
        self.hands = [()] * self.players
        self.shown = [False] * self.players
        self.pot, self.history = 0, []
        self.texts.append(f"hand {self.hand + 1} (dealer <{e['dealer']}>)")

    def _antes(self, e: dict[str, Any]) -> None:
        for s in e["seats"]:
            self.stacks[s] -= e["amount"]
            self.pot += e["amount"]
        self.bets = [0] * self.players
        self.drawing = False
        self.hands = [()] * self.players
        seats = ", ".join(f"<{s}>" for s in e["seats"])
        deal = f"deal {e['deal']}, antes {e['amount']} from {seats} ({e['deck']}-card deck)"
        if self.texts:  # the hand's first deal
            self.texts[-1] += f": {deal}"
        else:
            self.texts.append(f"no one opened: {deal}")
        self.history.append(f"deal {e['deal']}")

    def _dealt(self, e: dict[str, Any]) -> None:
        self.hands[e["seat"]] = tuple(map(str, e["cards"]))

    def _action(self, e: dict[str, Any]) -> None:
        seat, kind, amount = e["seat"], e["kind"], int(e.get("amount", 0))
        if kind in ("open", "raise"):
            added = amount - self.bets[seat]
            self.bets[seat] = amount
        elif kind == "call":
            added = amount
            self.bets[seat] += amount
        else:
            added = 0
        self.stacks[seat] -= added
        self.pot += added
        if kind == "fold":
            self.folded[seat] = True
        if e.get("forced"):
            text = f"<{seat}>'s hand is folded"
        else:
            self.actor = seat
            words = {"fold": "folds", "pass": "passes", "open": f"opens for {amount}",
                     "call": f"calls {amount}", "raise": f"raises to {amount}"}
            text = f"<{seat}> {words.get(kind, kind)}"
        if e.get("all_in"):
            text += " (all in)"
        self.texts.append(text)
        self.history.append(text)

    def _drew(self, e: dict[str, Any]) -> None:
        seat = self.actor = e["seat"]
        if not self.drawing:  # the first round's bets are in the pot now
            self.drawing, self.bets = True, [0] * self.players
        self.hands[seat] = (*[c for c in self.hands[seat] if c not in e["discarded"]],
                            *map(str, e["received"]))
        n = len(e["discarded"])
        self.texts.append(f"<{seat}> draws {n} card{'s' * (n != 1)}" if n else
                          f"<{seat}> stands pat")
        self.history.append(self.texts[-1])

    def _reshuffled(self, e: dict[str, Any]) -> None:
        self.texts.append(f"the discards are shuffled into a new stock of {e['cards']} cards")

    def _returned(self, e: dict[str, Any]) -> None:
        seat, amount = e["seat"], int(e["amount"])
        self.stacks[seat] += amount
        self.bets[seat] -= amount
        self.pot -= amount
        self.results.append(f"{amount} uncalled chips go back to <{seat}>")

    def _shown(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        self.hands[seat], self.shown[seat] = tuple(map(str, e["cards"])), True
        self.results.append(f"<{seat}> shows {e['category']}")

    def _pot(self, e: dict[str, Any]) -> None:
        for s, share in zip(e["winners"], e["shares"], strict=True):
            self.stacks[s] += share
        self.pot -= e["amount"]
        which = "the pot" if e["index"] == 0 else f"side pot {e['index']}"
        rake = f" (rake {e['rake']})" if e["rake"] else ""
        winners = e["winners"]
        if len(winners) == 1:
            self.results.append(f"<{winners[0]}> wins {which} of {e['amount']}{rake}")
        else:
            split = ", ".join(f"<{s}> {x}" for s, x in zip(winners, e["shares"], strict=True))
            self.results.append(f"{which} of {e['amount']}{rake} is split: {split}")

    def _hand_ended(self, e: dict[str, Any]) -> None:
        self.bets, self.pot = [0] * self.players, 0
        net = ", ".join(f"<{s}> {n:+d}" for s, n in enumerate(e["net"])
                        if not self.out[s] or n)
        self.results.append(f"hand {e['hand'] + 1} ends ({e['reason']}): {net}")

    def _fault(self, e: dict[str, Any]) -> None:
        self.actor = e["seat"]
        self.texts.append(f"<{e['seat']}> faults: {e['label']}")

    def _forfeit(self, e: dict[str, Any]) -> None:
        self.actor, self.out[e["seat"]] = e["seat"], True
        self.texts.append(f"<{e['seat']}> forfeits: {e['label']} (sits out the rest of "
                          "the game)")

    def _game_over(self, e: dict[str, Any]) -> None:
        self.texts.append("game over")
        order = sorted(range(self.players), key=lambda s: (e["places"][s], s))
        self.results.append("places: " + ", ".join(
            f"<{s}> {e['places'][s]} ({e['scores'][s]:+d} chips)" for s in order))

    def step(self, event: int) -> Step:
        self.to_act = _to_act(self.events, event)
        return super().step(event)

    def piles(self) -> tuple[Pile, ...]:
        pot = self.pot
        return self.once(("pot", pot), _pot_pile, pot)

    def seat_view(self, seat: int) -> SeatView:
        status = ("out" if self.out[seat] else "folded" if self.folded[seat]
                  else "all-in" if self.stacks[seat] == 0 and self.pot else
                  "to act" if seat == self.to_act else "")
        key = (seat, self.hands[seat], self.shown[seat], self.stacks[seat], self.bets[seat],
               status)
        return self.once(key, self._view, *key)

    def _view(self, seat: int, hand: tuple[str, ...], shown: bool, stack: int, bet: int,
              status: str) -> SeatView:
        info = f"stack {stack}" + (f", bet {bet}" if bet else "")
        return SeatView((self.row(hand, None if shown else (seat,)),), status, info)


def _pot_pile(pot: int) -> tuple[Pile, ...]:
    return (Pile("pot", (), f"{pot} chips"),)


_HANDLERS = {
    "hand_started": _Table._hand_started, "antes": _Table._antes, "dealt": _Table._dealt,
    "action": _Table._action, "drew": _Table._drew, "reshuffled": _Table._reshuffled,
    "returned": _Table._returned, "shown": _Table._shown, "pot": _Table._pot,
    "hand_ended": _Table._hand_ended, "fault": _Table._fault, "forfeit": _Table._forfeit,
    "game_over": _Table._game_over,
}


def _to_act(events: Sequence[dict[str, Any]], last: int) -> int | None:
    """The seat whose decision the step after the one ending at event ``last`` is (None:
    no step after it, or a forfeit first); a seat with a status ("folded") keeps it."""
    if last + 1 >= len(events):
        return None
    first = events[last + 1]
    if first["type"] == "reshuffled":  # the first event of the draw that needs it
        first = events[last + 2]
    return first["seat"] if first["type"] in _DECISIONS else None


def turkish_steps(players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
    """The steps of a transcript; ValueError for one that is not Turkish poker's."""
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "hand_started":
        raise ValueError("a Turkish poker transcript starts with a hand")
    try:
        return group_steps(events, lambda i: _leads(events, i), _Table(players, events))
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"not a Turkish poker transcript ({type(exc).__name__}: "
                         f"{exc})") from None
