"""The Turkish poker engine: one game of ``hands`` hands between the same seats.

Pure: no I/O, no clock; every card comes from ``random.Random`` seeded by the game's seed,
the hand number and the deal number, and seat ``s``'s five cards are the ``s``-th five of
that shuffle (among the seats dealt in), so the same seed gives the same cards to the same
seat whoever sits there (duplicate deals). Every state change is an event
(``referee.games.turkish_poker.events``). The rules are RULES.md's "Turkish poker"; the
rules text of this package says what a fault and a forfeit cost.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from evaluator.turkish import card_text, category_name, deck_for, low_rank_for, may_open, rank_key
from referee.games.api import IllegalAction, Outcome, places_with_forfeits
from referee.games.turkish_poker import events as ev
from referee.games.turkish_poker.betting import (
    FIXED_CAP,
    FIXED_UNITS,
    build_pots,
    raise_bounds,
    rake_of,
    split,
)

MAX_DEALS = 10
MAX_DRAW = 4
# Phases of a hand: before the opening, the betting after it, the draw, the final round.
OPENING, FIRST_ROUND, DRAW = "opening", "first-round", "draw"
FINAL_ROUND, OVER = "final-round", "over"


@dataclass(frozen=True)
class Action:
    """A decision: ``fold``, ``pass``, ``open`` (``amount``), ``call``, ``raise`` (to
    ``amount``) or ``draw`` (``cards``: the card ids discarded)."""

    kind: str
    amount: int = 0
    cards: tuple[int, ...] = ()


def places_from(scores: Sequence[int], left: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """Place per seat: the seats that did not forfeit by score, higher first, equal scores
    sharing a place; below them the seats that forfeited, as ``places_with_forfeits``
    says (``left``: (seat, decisions before it left)).

    >>> places_from((5, -5, 5, 0), [])
    (1, 4, 1, 3)
    >>> places_from((9, -5, 0, 7), [(0, 3), (3, 3)])
    (3, 2, 1, 3)
    """
    gone = {seat for seat, _ in left}
    stayed = {s: 1 + sum(1 for t, x in enumerate(scores) if t not in gone and x > mine)
              for s, mine in enumerate(scores) if s not in gone}
    return places_with_forfeits(stayed, left, len(scores))


class TurkishPoker:
    """One game. Seats 0..players-1; ``current_seat`` decides next (None once over)."""

    def __init__(self, players: int, seed: int, *, limit: str = "no-limit", hands: int = 100,
                 stack: int = 200, rake: float = 0.0, rake_cap: int = 0,
                 stacks: Sequence[int] | None = None):
        """``stacks``: per-seat chips at the start of every hand instead of ``stack`` each.
        Not a game parameter (the rules give every seat ``stack``, so no all-in for less
        and no side pot can arise in a real game); the edge tests and the cross-check
        against PokerKit use it to reach those rules."""
        low_rank_for(players)
        self.players = players
        self.seed = seed
        self.limit = limit
        self.hands = hands
        self.stack = stack
        self.starting = tuple(stacks) if stacks is not None else (stack,) * players
        if len(self.starting) != players or min(self.starting) < 20:
            raise ValueError(f"stacks must be {players} amounts of at least 20")
        self.rake = rake
        self.rake_cap = rake_cap
        self.events: list[Any] = []
        self.out = [False] * players
        self.decisions = 0  # apply and fault calls: the forfeits at one decision share
        self.left: list[tuple[int, int]] = []  # (seat, decisions before) per forfeit
        self.net = [0] * players
        self.hand = -1
        self.is_over = False
        self.current_seat: int | None = None
        self.phase = OVER
        self.history: list[dict[str, Any]] = []
        self._start_hand()

    # ----- the flow of a hand

    def _emit(self, event: ev.Event) -> None:
        self.events.append(event)

    def _start_hand(self) -> None:
        self.hand += 1
        seated = [s for s in range(self.players) if not self.out[s]]
        if self.hand >= self.hands or len(seated) < 2:
            self._end_game()
            return
        n = self.players
        self.dealer = (self.hand + n - 1) % n
        self.stacks = [0 if self.out[s] else self.starting[s] for s in range(n)]
        self.contributed = [0] * n
        self.bets = [0] * n
        self.folded = list(self.out)
        self.cards: list[list[int]] = [[] for _ in range(n)]
        self.opener: int | None = None
        self.deal = 0
        self.history = []
        self.seated = frozenset(seated)
        self._emit(ev.HandStarted(self.hand, self.dealer, tuple(seated), tuple(self.stacks)))
        self._new_deal()

    def _order(self, first: int) -> list[int]:
        """Seats still in (not folded), clockwise from ``first``."""
        n = self.players
        return [s for s in ((first + i) % n for i in range(n)) if not self.folded[s]]

    def _new_deal(self) -> None:
        self.deal += 1
        dealt = [s for s in range(self.players) if not self.folded[s]]
        for s in dealt:
            self.stacks[s] -= 1
            self.contributed[s] += 1
        deck = list(deck_for(len(dealt)))
        self.low_rank = low_rank_for(len(dealt))
        random.Random(f"{self.seed}:{self.hand}:{self.deal}").shuffle(deck)
        self._emit(ev.Antes(self.deal, tuple(dealt), 1, len(deck)))
        self.history.append({"kind": "antes", "deal": self.deal, "seats": dealt})
        self.cards = [[] for _ in range(self.players)]
        for k, s in enumerate(dealt):
            self.cards[s] = deck[5 * k:5 * k + 5]
            self._emit(ev.Dealt(self.deal, s, tuple(card_text(c) for c in self.cards[s])))
        self.qualified = [bool(self.cards[s]) and may_open(self.cards[s], self.low_rank)
                          for s in range(self.players)]
        self.stock = deck[5 * len(dealt):]
        self.discards: list[int] = []
        self.reshuffles = 0
        self.phase = OPENING
        self.pending = self._order(self.dealer + 1)
        self.current_seat = self.pending[0]

    def _start_round(self, phase: str, first: int) -> None:
        self.phase = phase
        self.history.append({"kind": "round", "phase": phase})
        self.bets = [0] * self.players
        self.current_bet = 0
        self.last_raise = FIXED_UNITS[phase == FINAL_ROUND] if self.limit == "fixed-limit" else 1
        self.bet_count = 0
        self.to_act = {s for s in self._order(first) if self.stacks[s] > 0}
        self.may_raise = [True] * self.players
        self.current_seat = self._next_to_act(first - 1)

    def _next_to_act(self, after: int) -> int | None:
        n = self.players
        for i in range(1, n + 1):
            s = (after + i) % n
            if s in self.to_act:
                return s
        return None

    def _live(self) -> list[int]:
        return [s for s in range(self.players) if not self.folded[s]]

    def _after_fold(self) -> bool:
        """End the hand if one seat is left; True if it ended."""
        live = self._live()
        if len(live) > 1:
            return False
        if self.phase in (FIRST_ROUND, FINAL_ROUND):
            self._return_uncalled()
        self._award([(sum(self.contributed), tuple(live))], "folds")
        return True

    def _return_uncalled(self) -> None:
        top = max(self.contributed)
        seats = [s for s in range(self.players) if self.contributed[s] == top]
        if len(seats) == 1:
            second = max(c for s, c in enumerate(self.contributed) if s != seats[0])
            back = top - second
            s = seats[0]
            self.contributed[s] -= back
            self.bets[s] -= back
            self.stacks[s] += back
            self._emit(ev.Returned(s, back))

    def _round_over(self) -> None:
        self._return_uncalled()
        if self.phase == FIRST_ROUND:
            self.phase = DRAW
            self.history.append({"kind": "round", "phase": DRAW})
            self.pending = self._order(self.dealer + 1)
            self.current_seat = self.pending[0]
            return
        self._showdown()

    def _after_draw(self) -> None:
        assert self.opener is not None
        able = [s for s in self._live() if self.stacks[s] > 0]
        if len(able) < 2:
            self._showdown()
            return
        self._start_round(FINAL_ROUND, self.opener)

    def _showdown(self) -> None:
        keys = {}
        for s in self._order(self.dealer + 1):
            keys[s] = rank_key(self.cards[s], self.low_rank)
            self._emit(ev.Shown(s, tuple(card_text(c) for c in sorted(self.cards[s])),
                                category_name(keys[s])))
        self._award(self._pots(), "showdown", keys)

    def _pots(self) -> list[tuple[int, tuple[int, ...]]]:
        return build_pots(self.contributed, self.folded, [x == 0 for x in self.stacks])

    def _award(self, pots: list[tuple[int, tuple[int, ...]]], reason: str,
               keys: dict[int, int] | None = None) -> None:
        order = self._order(self.dealer + 1)
        for index, (amount, seats) in enumerate(pots):
            if keys is None:
                winners = [s for s in order if s in seats]
            else:
                best = max(keys[s] for s in seats)
                winners = [s for s in order if s in seats and keys[s] == best]
            rake = rake_of(amount, self.rake, self.rake_cap) if self.opener is not None else 0
            shares = split(amount - rake, winners)
            for s, share in zip(winners, shares, strict=True):
                self.stacks[s] += share
            self._emit(ev.PotWon(index, amount, rake, seats, tuple(winners), tuple(shares)))
        self._end_hand(reason)

    def _end_hand(self, reason: str) -> None:
        net = tuple(self.stacks[s] - self.starting[s] if s in self.seated else 0
                    for s in range(self.players))
        for s in range(self.players):
            self.net[s] += net[s]
        self._emit(ev.HandEnded(self.hand, net, reason))
        self.phase = OVER
        self.current_seat = None
        self._start_hand()

    def _end_game(self) -> None:
        self.is_over = True
        self.current_seat = None
        self.phase = OVER
        outcome = self.outcome()
        assert outcome.scores is not None
        self._emit(ev.GameOver(tuple(int(x) for x in outcome.scores), outcome.places))

    # ----- decisions

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """The legal actions of ``seat`` now, as the view gives them (empty if not its turn)."""
        if seat != self.current_seat:
            return []
        stack = self.stacks[seat]
        if self.phase == DRAW:
            return [{"kind": "fold"}, {"kind": "draw", "max": MAX_DRAW}]
        if self.phase == OPENING:
            out: list[dict[str, Any]] = [{"kind": "fold"}, {"kind": "pass"}]
            if self.qualified[seat]:
                lo, hi = self._bounds(seat)
                out.append({"kind": "open", "min": lo, "max": hi})
            return out
        to_call = self.current_bet - self.bets[seat]
        out = [{"kind": "fold"}]
        out.append({"kind": "call", "amount": min(to_call, stack)} if to_call > 0
                   else {"kind": "pass"})
        if self._may_raise(seat):
            lo, hi = self._bounds(seat)
            out.append({"kind": "raise", "min": lo, "max": hi})
        return out

    def legal_actions(self) -> list[Action]:
        """Every action the seat to act may take now: each amount of an open's or a
        raise's range, each set of at most ``MAX_DRAW`` of its cards to discard."""
        seat = self.current_seat
        if seat is None:
            return []
        out: list[Action] = []
        for entry in self.legal(seat):
            kind = entry["kind"]
            if kind in ("open", "raise"):
                out += [Action(kind, a) for a in range(entry["min"], entry["max"] + 1)]
            elif kind == "draw":
                out += [Action(kind, cards=c) for n in range(entry["max"] + 1)
                        for c in combinations(self.cards[seat], n)]
            else:
                out.append(Action(kind))
        return out

    def _may_raise(self, seat: int) -> bool:
        if not self.may_raise[seat] or self.stacks[seat] <= self.current_bet - self.bets[seat]:
            return False
        if self.limit == "fixed-limit" and self.bet_count >= FIXED_CAP:
            return False
        # Someone else still in must be able to put in more than the bet (as in PokerKit).
        return any(s != seat and not self.folded[s]
                   and self.stacks[s] + self.bets[s] > self.current_bet
                   for s in range(self.players))

    def _bounds(self, seat: int) -> tuple[int, int]:
        if self.phase == OPENING:
            current, last, own = 0, FIXED_UNITS[0] if self.limit == "fixed-limit" else 1, 0
        else:
            current, last, own = self.current_bet, self.last_raise, self.bets[seat]
        return raise_bounds(self.limit, current=current, last_raise=last, own_bet=own,
                            stack=self.stacks[seat], pot=sum(self.contributed))

    def apply(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s decision; IllegalAction (nothing changed) if it may not."""
        if self.is_over:
            raise IllegalAction("the game is over")
        if seat != self.current_seat:
            raise IllegalAction(f"it is seat {self.current_seat}'s turn, not seat {seat}'s")
        if not isinstance(action, Action):
            raise IllegalAction(f"not an action: {action!r}")
        if self.phase == DRAW:
            self._draw(seat, action)
        elif self.phase == OPENING:
            self._opening(seat, action)
        else:
            self._bet(seat, action)
        self.decisions += 1

    def _illegal(self, seat: int, action: Action) -> IllegalAction:
        kinds = ", ".join(a["kind"] for a in self.legal(seat))
        return IllegalAction(f"{action.kind} is not legal in the {self.phase}: legal are {kinds}")

    def _put(self, seat: int, amount: int) -> None:
        self.stacks[seat] -= amount
        self.bets[seat] += amount
        self.contributed[seat] += amount

    def _record(self, seat: int, kind: str, amount: int = 0, forced: bool = False) -> None:
        all_in = self.stacks[seat] == 0 and kind in ("open", "call", "raise")
        self._emit(ev.Acted(seat, kind, amount, all_in, forced))
        self.history.append({"seat": seat, "kind": kind, "amount": amount, "all_in": all_in})

    def _opening(self, seat: int, action: Action) -> None:
        if action.kind == "pass":
            self._record(seat, "pass")
            self.pending.pop(0)
            if self.pending:
                self.current_seat = self.pending[0]
            elif self.deal == MAX_DEALS:
                self._split_redeals()
            else:
                self._new_deal()
        elif action.kind == "fold":
            self._fold(seat)
        elif action.kind == "open":
            if not self.qualified[seat]:
                raise IllegalAction("open needs at least a pair of kings")
            lo, hi = self._bounds(seat)
            if not lo <= action.amount <= hi:
                raise IllegalAction(f"open {action.amount} is outside {lo}..{hi}")
            self.opener = seat
            self._start_round(FIRST_ROUND, seat)
            self._raise_to(seat, action.amount, "open")
        else:
            raise self._illegal(seat, action)

    def _split_redeals(self) -> None:
        order = self._order(self.dealer + 1)
        pot = sum(self.contributed)
        shares = split(pot, order)
        for s, share in zip(order, shares, strict=True):
            self.stacks[s] += share
        self._emit(ev.PotWon(0, pot, 0, tuple(sorted(order)), tuple(order), tuple(shares)))
        self._end_hand("redeal-cap")

    def _fold(self, seat: int, forced: bool = False) -> None:
        self.folded[seat] = True
        self.discards.extend(self.cards[seat])
        self._record(seat, "fold", forced=forced)
        if self.phase in (OPENING, DRAW):
            was_current = self.current_seat == seat
            if seat in self.pending:
                self.pending.remove(seat)
            if self._after_fold():
                return
            if not self.pending:
                if self.phase == DRAW:
                    self._after_draw()
                elif self.deal == MAX_DEALS:
                    self._split_redeals()
                else:
                    self._new_deal()
            elif was_current:
                self.current_seat = self.pending[0]
            return
        self.to_act.discard(seat)
        if self._after_fold():
            return
        if self.current_seat == seat:
            self._advance(seat)

    def _advance(self, seat: int) -> None:
        nxt = self._next_to_act(seat)
        if nxt is None:
            self._round_over()
        else:
            self.current_seat = nxt

    def _bet(self, seat: int, action: Action) -> None:
        to_call = self.current_bet - self.bets[seat]
        if action.kind == "fold":
            self._fold(seat)
            return
        if action.kind == "pass" and to_call == 0:
            self._record(seat, "pass")
        elif action.kind == "call" and to_call > 0:
            paid = min(to_call, self.stacks[seat])
            self._put(seat, paid)
            self._record(seat, "call", paid)
        elif action.kind == "raise" and self._may_raise(seat):
            lo, hi = self._bounds(seat)
            if not lo <= action.amount <= hi:
                raise IllegalAction(f"raise to {action.amount} is outside {lo}..{hi}")
            self._raise_to(seat, action.amount, "raise")
            return
        else:
            raise self._illegal(seat, action)
        self.to_act.discard(seat)
        self.may_raise[seat] = False
        self._advance(seat)

    def _raise_to(self, seat: int, to: int, kind: str) -> None:
        size = to - self.current_bet
        self._put(seat, to - self.bets[seat])
        self._record(seat, kind, to)
        full = size >= self.last_raise
        if full:
            self.last_raise = size
            self.bet_count += 1
        self.current_bet = to
        self.may_raise[seat] = False
        self.to_act.discard(seat)
        for s in self._order(seat):
            if s != seat and self.stacks[s] > 0 and self.bets[s] < to:
                self.to_act.add(s)
                if full:
                    self.may_raise[s] = True
        self._advance(seat)

    def _draw(self, seat: int, action: Action) -> None:
        if action.kind == "fold":
            self._fold(seat)
            return
        if action.kind != "draw":
            raise self._illegal(seat, action)
        hand = self.cards[seat]
        cards = action.cards
        if len(cards) > MAX_DRAW or len(set(cards)) != len(cards):
            raise IllegalAction(f"draw discards 0-{MAX_DRAW} distinct cards, not {len(cards)}")
        for c in cards:
            if c not in hand:
                raise IllegalAction(f"{card_text(c) if 0 <= c < 52 else c} is not in the hand")
        need = len(cards)
        if len(self.stock) < need:
            # The drawer's own discards are not in the new stock.
            received = self.stock
            need -= len(received)
            self.stock = self.discards
            self.discards = []
            self.reshuffles += 1
            random.Random(f"{self.seed}:{self.hand}:{self.deal}:{self.reshuffles}").shuffle(
                self.stock)
            self._emit(ev.Reshuffled(len(self.stock)))
        else:
            received = []
        received = received + self.stock[:need]
        del self.stock[:need]
        self.cards[seat] = [c for c in hand if c not in cards] + received
        self.discards.extend(cards)
        self._emit(ev.Drew(seat, tuple(card_text(c) for c in cards),
                           tuple(card_text(c) for c in received)))
        self.history.append({"seat": seat, "kind": "draw", "count": len(cards)})
        self.pending.pop(0)
        if self.pending:
            self.current_seat = self.pending[0]
        else:
            self._after_draw()

    # ----- faults and forfeits

    def fault(self, seat: int, label: str) -> None:
        """The penalty of a fault: the seat folds its hand (the game goes on)."""
        if self.is_over or seat != self.current_seat:
            raise IllegalAction(f"seat {seat} is not to act")
        self._emit(ev.Faulted(seat, label))
        self.decisions += 1
        self._fold(seat, forced=True)

    def forfeit(self, seat: int, label: str) -> None:
        """The seat folds its hand now and sits out every remaining hand."""
        if self.is_over or self.out[seat]:
            return
        self.out[seat] = True
        self.left.append((seat, self.decisions))
        self._emit(ev.Forfeited(seat, label))
        if not self.folded[seat]:
            self._fold(seat, forced=True)

    # ----- what seats see

    def notices(self, since: int) -> list[tuple[int, dict[str, Any]]]:
        out: list[tuple[int, dict[str, Any]]] = []
        for event in self.events[since:]:
            for seat in range(self.players):
                payload = event.notice(seat)
                if payload is not None:
                    out.append((seat, payload))
        return out

    @property
    def active(self) -> tuple[bool, ...]:
        """Per seat: still in the game (not forfeited)."""
        return tuple(not out for out in self.out)

    def outcome(self) -> Outcome:
        """Places (by net chips; forfeited seats below, by when they left), the net
        chips, and the hands played (``units``)."""
        scores = tuple(self.net)
        return Outcome(places_from(scores, self.left), tuple(float(x) for x in scores),
                       self.hand if self.is_over else self.hand + 1)

    def view(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, as a plain map (see the package's SPEC.md)."""
        hand_on = self.phase != OVER
        pots = self._pots() if hand_on else []
        status = ["out" if self.out[s] else "folded" if self.folded[s]
                  else "all-in" if hand_on and self.stacks[s] == 0 else "in"
                  for s in range(self.players)]
        to_call = 0
        if self.phase in (FIRST_ROUND, FINAL_ROUND):
            to_call = min(self.current_bet - self.bets[seat], self.stacks[seat])
        return {
            "game": "turkish-poker", "seat": seat, "players": self.players,
            "limit": self.limit, "hand": self.hand, "hands": self.hands,
            "deal": self.deal if hand_on else 0, "phase": self.phase, "dealer": self.dealer,
            "opener": self.opener, "deck": 4 * (15 - self.low_rank),
            "cards": list(self.cards[seat]) if hand_on else [],
            "stacks": list(self.stacks), "bets": list(self.bets) if hand_on else [],
            "status": status, "pot": sum(self.contributed) if hand_on else 0,
            "pots": [{"amount": a, "seats": list(s)} for a, s in pots],
            "to_call": to_call, "to_act": self.current_seat,
            "legal": self.legal(seat), "history": list(self.history),
            "scores": list(self.net),
        }
