"""The six-card golf rules engine: a pure, deterministic state machine (no I/O, no clock).

The rules it plays are in ``rules.py`` (printed by ``referee rules six-card-golf``). Every
state change is an event (``events.py``); ``events`` is the game's transcript.

The deal (part of the replay format, never change it silently). Round ``k`` (from 1)
draws from its own generator, ``random.Random(f"six-card-golf/{seed}/{k}")`` (CPython's
MT19937 seeded from the SHA-512 of that text), so round k's deal is a function of (seed,
k) alone, whatever happened in earlier rounds. A shuffle of ``m`` cards takes
``w = getrandbits(32 * (m - 1))`` and, for ``i`` in ``0..m-2``, swaps positions ``i`` and
``i + (w_i * (m - i) >> 32)`` where ``w_i`` is bits ``32 i .. 32 i + 31`` of ``w``. The
round first shuffles ``GOLF_PACK`` (ascending ids); the j-th seat in play order (the
dealer's left first, seats out of the game skipped) gets the cards at ``6 j .. 6 j + 5``
in ``POSITIONS`` order, the next card starts the discard pile, and the rest is the stock,
its top the first. A reshuffle shuffles the discard pile but its top card (bottom card
first) with the same round generator; the last card of the result is the new stock's
top. Duplicate deals: the same seed with the bots rotated deals every seat the same
cards in every round (as long as the same seats are in the game); reshuffled stocks also
depend on the play, so they differ once play differs.

Decisions where RULES.md is silent (documented in the rules text and tested):

- The stock is reshuffled at the end of the turn that took its last card, so it is never
  empty when a turn starts.
- The turn cap: the round ends when every seat has had ``turn_cap`` turns and no one has
  gone out. Once someone has gone out, each other seat has its last turn even if that is
  its ``turn_cap + 1``-th.
- A fault (``fault``) ends the round at once: the faulting seat scores ``FAULT_POINTS``
  (60, the most any grid can score), everyone else the grid as it lies, face-down cards
  turned up. A held card goes onto the discard pile.
- A forfeit ends the round the same way (the seat scores ``FAULT_POINTS``); the seat is
  out of the game and finishes below every seat that did not forfeit, the later leaver
  higher, seats that left at one decision sharing a place (RULES.md; the ``forfeit``
  event's ``place`` is the number of seats in just before it left). The game goes on
  while two or more seats are in.
- The game ends after the round in which a seat still in reaches ``target``, after round
  ``round_cap``, or when fewer than two seats are in. Places: by total, lowest first,
  equal totals sharing a place (1, 1, 3).

>>> g = SixCardGolf(2, seed=7)
>>> g.current_seat, g.dealer, g.phase, len(g.stock), g.discard
(1, 0, 'take', 95, [17])
>>> g.apply(1, Take("stock")); g.apply(1, Place(2)); g.current_seat, g.frozen
(0, [False, True])
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from evaluator.cards import Card, CardError, parse_card
from evaluator.golf import BOTTOM, GOLF_PACK, GRID_SIZE, MAX_GRID_POINTS, POSITIONS, TOP_ROW
from evaluator.golf import grid_points as _grid_points
from referee.games.api import IllegalAction, Outcome, places_with_forfeits
from referee.games.six_card_golf.actions import PILE, STOCK, Action, Discard, Place, Take
from referee.games.six_card_golf.events import (
    Dealt,
    Discarded,
    Event,
    Faulted,
    Forfeited,
    GameOver,
    Placed,
    Reshuffled,
    RoundEnded,
    Took,
    WentOut,
)
from referee.games.six_card_golf.views import build_view

PLAYERS = range(2, 9)
FAULT_POINTS = MAX_GRID_POINTS
TAKE, PLACE = "take", "place"
_FACE_UP_AT_DEAL = tuple(i in TOP_ROW for i in range(GRID_SIZE))


class UsageError(ValueError):
    """The program driving the engine (not a player) asked for something impossible."""


class NotYourTurn(IllegalAction):
    """A decision from a seat whose turn it is not."""


class WrongPhase(IllegalAction):
    """A take when a card is held, or a place/discard before taking."""


class FrozenTopRow(IllegalAction):
    """A top-row placement after one of the seat's bottom cards was replaced."""


class MustReplace(IllegalAction):
    """A discard of a card taken from the discard pile."""


class GameAlreadyOver(IllegalAction):
    """Any decision once the game is over."""


def shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates as the module docstring defines it (part of the replay format)."""
    m = len(cards)
    if m < 2:
        return
    w = rng.getrandbits(32 * (m - 1))
    for i in range(m - 1):
        j = i + ((((w >> (32 * i)) & 0xFFFFFFFF) * (m - i)) >> 32)
        cards[i], cards[j] = cards[j], cards[i]


def _card_ids(cards: str | Iterable[str | int | Card]) -> list[int]:
    """Card ids from cards, or from a text of cards separated by spaces (repeats allowed:
    the golf pack holds every card twice)."""
    try:
        return [parse_card(c).id for c in (cards.split() if isinstance(cards, str) else cards)]
    except CardError as exc:
        raise UsageError(str(exc)) from None


class SixCardGolf:
    """One game. Read-only state for views and tests: ``grids`` and ``face_up`` per seat
    (six each in ``POSITIONS`` order; empty for seats out of the game), ``shown`` per seat
    (the grid as everyone sees it: None where face down), ``frozen`` per seat, ``stock``
    and ``discard`` (lists of card ids, top card last), ``drawn`` and ``drawn_from`` (the
    card the seat to act holds), ``turns`` this round per seat, ``out_seat``, ``totals``,
    ``history`` (points per seat of each finished round)."""

    def __init__(self, players: int, seed: int, *, target: int = 150, turn_cap: int = 40,
                 round_cap: int = 100) -> None:
        if players not in PLAYERS:
            raise UsageError(f"six-card golf is for 2 to 8 players, not {players}")
        self.players = players
        self.seed = seed
        self.target, self.turn_cap, self.round_cap = target, turn_cap, round_cap
        self.active = [True] * players
        self.totals = [0] * players
        self.history: list[tuple[int | None, ...]] = []
        self.events: list[Event] = []
        self.is_over = False
        self.round = 0
        self._places: list[int | None] = [None] * players
        self._decisions = 0  # apply and fault calls: the forfeits at one decision share
        self._left: list[tuple[int, int]] = []  # (seat, decisions before) per forfeit
        self._deal(dealer=0)

    # ------------------------------------------------------------------ the deal

    def _next_active(self, seat: int) -> int:
        s = (seat + 1) % self.players
        while not self.active[s]:
            s = (s + 1) % self.players
        return s

    def _play_order(self, first: int) -> list[int]:
        return [s for i in range(self.players)
                if self.active[s := (first + i) % self.players]]

    def _deal(self, dealer: int) -> None:
        self.round += 1
        self.dealer = dealer
        self.starter = self._next_active(dealer)
        self._rng = random.Random(f"six-card-golf/{self.seed}/{self.round}")
        pack = list(GOLF_PACK)
        shuffle(pack, self._rng)
        self.grids: list[list[int]] = [[] for _ in range(self.players)]
        at = 0
        for s in self._play_order(self.starter):
            self.grids[s] = pack[at:at + GRID_SIZE]
            at += GRID_SIZE
        self.discard = [pack[at]]
        self.stock = pack[:at:-1]
        self._start_round()
        self.events.append(Dealt(self.round, dealer, self.starter,
                                 tuple(tuple(g) for g in self.grids), self.discard[0],
                                 len(self.stock)))

    def _start_round(self) -> None:
        self.face_up = [list(_FACE_UP_AT_DEAL) if g else [] for g in self.grids]
        self.shown: list[list[int | None]] = [
            [c if up else None for c, up in zip(g, _FACE_UP_AT_DEAL, strict=False)]
            for g in self.grids]
        self.frozen = [False] * self.players
        self.turns = [0] * self.players
        self.out_seat: int | None = None
        self._last_turns_left = 0
        self.current_seat: int | None = self.starter
        self.phase = TAKE
        self.drawn: int | None = None
        self.drawn_from: str | None = None

    def set_deal(self, grids: Sequence[str | Sequence[str | int | Card]],
                 discard: str | Sequence[str | int | Card],
                 stock_top: str | Sequence[str | int | Card] = ()) -> None:
        """Replace this round's cards (for tests and scripted turns): ``grids`` one per
        seat (six cards in ``POSITIONS`` order, as cards or a text such as
        ``"Kh 9c 5d Qs 2c 7h"``; empty for seats out), ``discard`` bottom
        card first, and a stock of ``stock_top`` (top card first) over the rest of the
        pack in ascending id order. Only before the round's first decision; the round's
        ``Dealt`` event is replaced, so a game with a set deal cannot be replayed from its
        seed."""
        if self.is_over or self.drawn is not None or any(self.turns):
            raise UsageError("set_deal: only before the round's first decision")
        new = [_card_ids(g) for g in grids]
        if len(new) != self.players or any(
                len(g) != (GRID_SIZE if self.active[s] else 0) for s, g in enumerate(new)):
            raise UsageError("set_deal: six cards for each seat in the game, none for others")
        new_discard, top = _card_ids(discard), _card_ids(stock_top)
        rest = Counter(GOLF_PACK)
        rest.subtract([*(c for g in new for c in g), *new_discard, *top])
        if min(rest.values()) < 0:
            raise UsageError("set_deal: more copies of a card than the golf pack holds")
        new_stock = [*top, *sorted(rest.elements())][::-1]
        if not new_discard or not new_stock:
            raise UsageError("set_deal: the stock and the discard pile need a card each")
        self.grids, self.stock, self.discard = new, new_stock, new_discard
        self._start_round()
        self.events[-1] = Dealt(self.round, self.dealer, self.starter,
                                tuple(tuple(g) for g in new), new_discard[-1], len(new_stock))

    # ------------------------------------------------------------------ decisions

    def legal_actions(self) -> list[Action]:
        """The actions the seat to act may take now (empty once the game is over)."""
        seat = self.current_seat
        if seat is None:
            return []
        if self.phase == TAKE:
            return [Take(STOCK), Take(PILE)]
        first = len(TOP_ROW) if self.frozen[seat] else 0
        out: list[Action] = [Place(p) for p in range(first, GRID_SIZE)]
        if self.drawn_from == STOCK:
            out.append(Discard())
        return out

    def apply(self, seat: int, action: Action) -> None:
        """One decision of ``seat``; IllegalAction (state unchanged) if the rules forbid it."""
        self._decide(seat, action)
        self._decisions += 1

    def _decide(self, seat: int, action: Action) -> None:
        if not isinstance(action, Take | Place | Discard):
            raise UsageError(f"not a six-card golf action: {action!r}")
        if self.current_seat is None:
            raise GameAlreadyOver("the game is over")
        if seat != self.current_seat:
            raise NotYourTurn(f"it is seat {self.current_seat}'s turn, not seat {seat}'s")
        if self.phase == TAKE:
            if not isinstance(action, Take):
                raise WrongPhase("take a card first, from the stock or the discard pile")
            self._take(seat, action.source)
        elif isinstance(action, Place):
            self._place(seat, action.position)
        elif isinstance(action, Discard):
            if self.drawn_from != STOCK:
                raise MustReplace("a card taken from the discard pile must replace a card")
            self.discard.append(self.drawn)  # type: ignore[arg-type]
            self.events.append(Discarded(self.round, seat, self.drawn))  # type: ignore[arg-type]
            self._end_turn(seat, went_out=False)
        else:
            raise WrongPhase("you hold a card already: place it (or discard a stock card)")

    def _take(self, seat: int, source: str) -> None:
        pile = self.stock if source == STOCK else self.discard
        card = pile.pop()
        self.drawn, self.drawn_from, self.phase = card, source, PLACE
        self.events.append(Took(self.round, seat, source, card))

    def _place(self, seat: int, position: int) -> None:
        if position in TOP_ROW and self.frozen[seat]:
            raise FrozenTopRow(f"{POSITIONS[position]}: the top row is frozen once a bottom "
                               "card has been replaced")
        grid, up = self.grids[seat], self.face_up[seat]
        card, replaced = self.drawn, grid[position]
        grid[position] = card  # type: ignore[call-overload]
        self.shown[seat][position] = card
        up[position] = True
        if position in BOTTOM:
            self.frozen[seat] = True
        self.discard.append(replaced)
        self.events.append(Placed(self.round, seat, position, card, replaced))  # type: ignore[arg-type]
        went_out = self.out_seat is None and all(up)
        if went_out:
            self.out_seat = seat
            self._last_turns_left = sum(self.active) - 1
            self.events.append(WentOut(self.round, seat))
        self._end_turn(seat, went_out)

    def _end_turn(self, seat: int, went_out: bool) -> None:
        self.turns[seat] += 1
        self.drawn = self.drawn_from = None
        self.phase = TAKE
        if self.out_seat is not None and not went_out:
            self._last_turns_left -= 1
            if self._last_turns_left == 0:
                self._end_round("out", None)
                return
        nxt = self._next_active(seat)
        if self.out_seat is None and self.turns[nxt] >= self.turn_cap:
            self._end_round("cap", None)
            return
        if not self.stock:
            self.stock = self.discard[:-1]
            self.discard = self.discard[-1:]
            shuffle(self.stock, self._rng)
            self.events.append(Reshuffled(self.round, len(self.stock)))
        self.current_seat = nxt

    # ------------------------------------------------------------------ faults

    def _check_seat(self, what: str, seat: int, label: str) -> None:
        if self.is_over:
            raise UsageError(f"{what}: the game is over")
        if not (isinstance(seat, int) and 0 <= seat < self.players and self.active[seat]):
            raise UsageError(f"{what}: seat {seat!r} is not in the game")
        if not (isinstance(label, str) and label):
            raise UsageError(f"{what}: the label must be a non-empty string, got {label!r}")

    def fault(self, seat: int, label: str) -> None:
        """The seat to act faulted: the round ends, the seat scores ``FAULT_POINTS``."""
        self._check_seat("fault", seat, label)
        if seat != self.current_seat:
            raise UsageError(f"fault: seat {seat} is not the seat to act")
        self.events.append(Faulted(self.round, seat, label, FAULT_POINTS))
        self._decisions += 1
        self._end_round("fault", seat)

    def forfeit(self, seat: int, label: str) -> None:
        """The seat leaves the game at once: the round ends (it scores ``FAULT_POINTS``),
        and it finishes below every seat still in."""
        self._check_seat("forfeit", seat, label)
        place = sum(self.active)
        self._left.append((seat, self._decisions))
        self.active[seat] = False
        self.events.append(Forfeited(self.round, seat, label, FAULT_POINTS, place))
        self._end_round("forfeit", seat)

    # ------------------------------------------------------------------ round and game end

    def _end_round(self, reason: str, charged: int | None) -> None:
        if self.drawn is not None:
            self.discard.append(self.drawn)
            self.drawn = self.drawn_from = None
        points: list[int | None] = [None] * self.players
        for s, grid in enumerate(self.grids):
            if grid:
                points[s] = FAULT_POINTS if s == charged else _grid_points(grid)
                self.totals[s] += points[s]  # type: ignore[operator]
        self.history.append(tuple(points))
        self.current_seat = None
        self.events.append(RoundEnded(self.round, reason, tuple(tuple(g) for g in self.grids),
                                      tuple(points), tuple(self.totals)))
        seats_in = [s for s in range(self.players) if self.active[s]]
        if (len(seats_in) < 2 or self.round >= self.round_cap
                or any(self.totals[s] >= self.target for s in seats_in)):
            self._game_over(seats_in)
        else:
            self._deal(self._next_active(self.dealer))

    def _game_over(self, seats_in: list[int]) -> None:
        stayed = {s: 1 + sum(self.totals[t] < self.totals[s] for t in seats_in)
                  for s in seats_in}
        self._places = list(places_with_forfeits(stayed, self._left, self.players))
        self.is_over = True
        self.events.append(GameOver(self.places, tuple(self.totals)))

    @property
    def places(self) -> tuple[int, ...]:
        if not self.is_over:
            raise UsageError("places: the game is not over")
        assert None not in self._places, "every seat has a place once the game is over"
        return tuple(self._places)  # type: ignore[arg-type]

    def outcome(self) -> Outcome:
        """Places (1 = best, equal totals share), the total points per seat (lower is
        better) and the rounds played (``units``)."""
        return Outcome(self.places, tuple(float(t) for t in self.totals), self.round)

    # ------------------------------------------------------------------ what seats see

    def view(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, as a plain map (the game's SPEC.md)."""
        if not (isinstance(seat, int) and 0 <= seat < self.players):
            raise UsageError(f"view: no seat {seat!r} at a table of {self.players}")
        return build_view(self, seat)

    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]:
        """What each seat is told about ``events[since:]``, event by event, seat by seat."""
        return [(s, e.notice(s)) for e in self.events[since:] for s in range(self.players)]
