"""A six-card golf transcript as replay steps (``api.Step``): each round's deal, each
take, place or discard, each fault or forfeit, the end of the game.

Visibility follows the rules (SPEC.md): a grid's top row is dealt face up, its other
cards face down, known to nobody (``seen_by=()``) until placed over or until the round
ends, when every card is turned up. A card taken from the stock is seen by its taker
alone until it is placed or discarded; one taken from the discard pile is public. Going
out, a reshuffle and the end of the round are in the step of the move that caused them.

>>> from referee.games.six_card_golf.engine import SixCardGolf
>>> from referee.games.six_card_golf.actions import Take, Discard
>>> g = SixCardGolf(2, seed=3)
>>> g.apply(1, Take("stock"))
>>> steps = golf_steps(2, [e.to_dict() for e in g.events])
>>> steps[1].text, steps[1].piles[2].label, steps[1].piles[2].cards[0].seen_by
('<1> takes a card from the stock', 'drawn', (1,))
>>> steps[0].seats[0].rows[0][0].seen_by, steps[0].seats[0].rows[1][0].seen_by
(None, ())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.golf import POSITIONS, TOP_ROW
from referee.games.api import (
    Card,
    Pile,
    SeatView,
    Step,
    TableSteps,
    group_steps,
    next_active,
)

# Events caused by the move before them, in its step.
_FOLLOWING = frozenset({"went_out", "reshuffled", "round_ended"})
_KINDS = _FOLLOWING | {"dealt", "took", "placed", "discarded", "fault", "forfeit",
                       "game_over"}
_WHY = {"out": "{out} went out", "cap": "the turn cap was reached",
        "fault": "{charged} faulted", "forfeit": "{charged} forfeited"}


def _cards(n: int) -> str:
    return f"{n} card{'s' * (n != 1)}"


class _Table(TableSteps):
    def __init__(self, players: int) -> None:
        super().__init__(players)
        self.grids: list[list[str]] = [[] for _ in range(players)]
        self.up: list[list[bool]] = [[] for _ in range(players)]
        self.active = [True] * players
        self.places: dict[int, int] = {}
        self.totals = [0] * players
        self.points: list[int | None] | None = None  # of the round, once it ended
        self.discard: list[str] = []
        self.stock = 0
        self.drawn: tuple[int, str, str] | None = None  # seat, card, source
        self.to_act: int | None = None
        self.out: int | None = None
        self.charged: int | None = None

    def apply(self, e: dict[str, Any]) -> None:
        kind = e["type"]
        if kind not in _KINDS:
            raise ValueError(f"unknown event type {kind!r}")
        getattr(self, "_" + kind)(e)
        if kind in ("took", "placed", "discarded"):
            self.history.append(self.texts[-1])

    def _dealt(self, e: dict[str, Any]) -> None:
        self.grids = [list(map(str, g)) for g in e["grids"]]
        self.up = [[i in TOP_ROW for i in range(len(g))] for g in self.grids]
        self.discard, self.stock = [str(e["discard"])], int(e["stock"])
        self.drawn = self.points = self.out = self.charged = None
        self.to_act, self.history = e["starter"], []
        self.texts.append(f"round {e['round']} dealt by <{e['dealer']}>; "
                          f"<{e['starter']}> starts")

    def _took(self, e: dict[str, Any]) -> None:
        seat, card, source = e["seat"], str(e["card"]), e["from"]
        self.actor, self.drawn = seat, (seat, card, source)
        if source == "stock":
            self.stock -= 1
            self.texts.append(f"<{seat}> takes a card from the stock")
        else:
            self.discard.pop()
            self.texts.append(f"<{seat}> takes {_face(card)} from the discard pile")

    def _placed(self, e: dict[str, Any]) -> None:
        seat, at = e["seat"], POSITIONS.index(e["at"])
        self.actor, self.drawn = seat, None
        self.grids[seat][at], self.up[seat][at] = str(e["card"]), True
        self.discard.append(str(e["replaced"]))
        self.texts.append(f"<{seat}> places {_face(e['card'])} at {e['at']}, discarding "
                          f"{_face(e['replaced'])}")
        self.to_act = next_active(self.active, seat)

    def _discarded(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        self.actor, self.drawn = seat, None
        self.discard.append(str(e["card"]))
        self.texts.append(f"<{seat}> discards {_face(e['card'])}")
        self.to_act = next_active(self.active, seat)

    def _went_out(self, e: dict[str, Any]) -> None:
        self.out = e["seat"]
        self.texts.append(f"<{e['seat']}> goes out: every other player has one more turn")

    def _reshuffled(self, e: dict[str, Any]) -> None:
        self.stock, self.discard = int(e["stock"]), self.discard[-1:]
        self.texts.append(f"the discard pile is shuffled into a new stock of {e['stock']} "
                          "cards")

    def _fault(self, e: dict[str, Any]) -> None:
        self.actor = self.charged = e["seat"]
        self.texts.append(f"<{e['seat']}> faults: {e['label']}")

    def _forfeit(self, e: dict[str, Any]) -> None:
        seat = self.actor = self.charged = e["seat"]
        self.active[seat], self.places[seat] = False, e["place"]
        self.texts.append(f"<{seat}> forfeits: {e['label']}")
        self.results.append(f"<{seat}> is out of the game")

    def _round_ended(self, e: dict[str, Any]) -> None:
        if self.drawn is not None:  # the card held goes onto the discard pile
            self.discard.append(self.drawn[1])
        self.drawn, self.to_act = None, None
        self.grids = [list(map(str, g)) for g in e["grids"]]
        self.up = [[True] * len(g) for g in self.grids]
        self.points, self.totals = list(e["points"]), list(e["totals"])
        why = _WHY.get(e["reason"], e["reason"]).format(out=f"<{self.out}>",
                                                         charged=f"<{self.charged}>")
        scored = ", ".join(f"<{s}> {p}" for s, p in enumerate(self.points) if p is not None)
        self.results.insert(0, f"round {e['round']} ends ({why}): {scored}")

    def _game_over(self, e: dict[str, Any]) -> None:
        self.texts.append("game over")
        order = sorted(range(self.players), key=lambda s: (e["places"][s], s))
        self.results.append("places: " + ", ".join(
            f"<{s}> {e['places'][s]} ({e['totals'][s]} points)" for s in order))

    def piles(self) -> tuple[Pile, ...]:
        key = ("piles", tuple(self.discard[-1:]), len(self.discard), self.stock, self.drawn)
        return self.once(key, self._piles, *key[1:])

    def _piles(self, top: tuple[str, ...], discards: int, stock: int,
               drawn: tuple[int, str, str] | None) -> tuple[Pile, ...]:
        piles = [self.once(("discard", top, discards), _discard_pile, self.row(top), discards),
                 self.once(("stock", stock), _stock_pile, stock)]
        if drawn is not None:
            piles.append(self.once(("drawn", *drawn), self._drawn_pile, *drawn))
        return tuple(piles)

    def _drawn_pile(self, seat: int, card: str, source: str) -> Pile:
        seen = (seat,) if source == "stock" else None
        return Pile("drawn", (self.card(card, seen),), f"held by <{seat}>")

    def seat_view(self, seat: int) -> SeatView:
        points = None if self.points is None else self.points[seat]
        status = ("out" if not self.active[seat] else "to act" if seat == self.to_act
                  else "went out" if seat == self.out else "")
        key = (seat, tuple(self.grids[seat]), tuple(self.up[seat]), points, self.totals[seat],
               status, self.places[seat] if status == "out" else None)
        return self.once(key, self._view, *key[1:])

    def _view(self, grid: tuple[str, ...], up: tuple[bool, ...], points: int | None,
              total: int, status: str, place: int | None) -> SeatView:
        rows = tuple([self.once(("pair", grid[i:i + 2], up[i:i + 2]), self._pair,
                                grid[i:i + 2], up[i:i + 2])
                      for i in range(0, len(grid), 2)]) or ((),)
        info = ("" if points is None else f"round {points} points, ") + f"total {total}"
        return (SeatView(rows, "out", f"place {place}, {info}") if status == "out"
                else SeatView(rows, status, info))


    def _pair(self, codes: tuple[str, ...], up: tuple[bool, ...]) -> tuple[Card, ...]:
        """A row of a grid: its cards face up to all, or known to nobody."""
        return tuple([self.card(c, None if u else ()) for c, u in zip(codes, up, strict=True)])


def _discard_pile(top: tuple[Card, ...], discards: int) -> Pile:
    return Pile("discard", top, _cards(discards))


def _stock_pile(stock: int) -> Pile:
    return Pile("stock", (), _cards(stock))


_SUITS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


def _face(code: Any) -> str:
    """A card in a step's text as the page draws it (``3s`` -> ``3♠``, ``Th`` -> ``10♥``),
    so the text names the card the table shows; anything else as it is."""
    code = str(code)
    if len(code) != 2 or code[1] not in _SUITS:
        return code
    return ("10" if code[0] == "T" else code[0]) + _SUITS[code[1]]


def golf_steps(players: int, events: Sequence[dict[str, Any]]) -> list[Step]:
    """The steps of a transcript; ValueError for one that is not six-card golf's."""
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "dealt":
        raise ValueError("a six-card golf transcript starts with a deal")
    try:
        return group_steps(events, lambda i: events[i]["type"] not in _FOLLOWING,
                           _Table(players))
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"not a six-card golf transcript ({type(exc).__name__}: "
                         f"{exc})") from None
