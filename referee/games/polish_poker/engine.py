"""The Polish Poker rules engine, rulesets ``official`` and ``polacco``.

The rules it plays are written in ``rules/official.md`` and ``rules/polacco.md`` of this package.

A pure, deterministic state machine: no I/O, no clock. Every state change is an event,
and ``events`` is the game's transcript; ``replay`` rebuilds a game from it.

The deal is ``deal.py``'s (part of the replay format); its docstring says how.

Decisions where the rulebook is silent (documented here and tested):

- ``counts`` of an eliminated seat is 0, as in ``Dealt``.
- A fault (``fault``) is a lost round like any other: penalty card or elimination, and
  the usual opener rule (in ``polacco`` the faulting seat opens next if still in).
- A forfeit (``forfeit``) ends the round at once as a played round lost by the
  forfeiting seat (the rulebook): nobody else is charged, and the next round (next round
  number, so a new draw) is opened as after any lost round: in ``official`` the next
  active seat after this round's opener, in ``polacco`` the next active seat after the
  forfeiting one. The transcript shows it as the seat's ``Eliminated`` event with reason
  ``forfeit:<label>`` (no ``RoundLost`` event).
- Only ``five A`` is called automatically (``official``): after ``five X`` for a lower X
  the next seat may raise to a higher five or call, like after any declaration.
- An eliminated seat's place is the number of players in just before it went out.
- After the game ends, ``hand``, ``community`` and ``history`` keep the final round's
  state; ``current_seat`` is None.

>>> g = PolishPoker("official", 2, seed=7)
>>> g.current_seat, g.cap, g.counts
(0, 5, (1, 1))
>>> [str(g.hand(0)[0]), str(g.hand(1)[0]), str(g.community)]
['As', 'Td', 'Jc']
>>> [e.to_dict()["type"] for e in g.apply("pair 9") + g.apply("call")][:3]
['declared', 'called', 'revealed']
>>> g.round, g.opener
(2, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator import (
    Card,
    CardError,
    Declaration,
    DeclarationError,
    deck_cards,
    exists_bits,
    legal_raises,
    parse_card,
    parse_cards,
    pool_bits,
    raise_error,
)
from referee.games.api import places_with_forfeits
from referee.games.polish_poker.deal import POLACCO_CAP, _Dealer, official_cap, slot_size
from referee.games.polish_poker.errors import (
    EngineError,
    EventFormatError,
    GameAlreadyOver,
    IllegalAction,
    NotARaise,
    NothingToCall,
    NotYourTurn,
    PlayerCountError,
    UsageError,
    WrongDeclaration,
)
from referee.games.polish_poker.events import (
    Called,
    Dealt,
    Declared,
    Eliminated,
    Event,
    GameOver,
    Revealed,
    RoundLost,
    _called,
    _dealt,
    _declared,
    _revealed,
    _round_lost,
    event_from_dict,
)
from referee.games.polish_poker.wire import Call, Raise, View
from referee.games.polish_poker.wire import parse_action as parse_wire_action

__all__ = [
    "PLAYER_RANGE", "Action", "Call", "Called", "Dealt", "Declared", "Eliminated",
    "EngineError", "Event", "EventFormatError", "GameAlreadyOver", "GameOver",
    "IllegalAction", "NotARaise", "NotYourTurn", "NothingToCall", "PlayerCountError",
    "PolishPoker", "Raise", "Revealed", "RoundLost", "UsageError",
    "WrongDeclaration", "event_from_dict", "parse_action", "slot_size",
]
PLAYER_RANGE: dict[str, tuple[int, int]] = {"official": (2, 6), "polacco": (3, 8)}
# Round-loss reasons the engine itself gives; a fault label may not reuse them.
RESOLUTION_REASONS = ("bluff", "wrong-call")
FORFEIT_PREFIX = "forfeit:"
_ACE = 14


# --------------------------------------------------------------------------- actions


# The action classes are the wire's own (frozen dataclasses ``Raise(declaration)`` and
# ``Call()``), so that what the protocol decodes is what the engine applies: one vocabulary.
Action = Raise | Call


def parse_action(value: Any, ruleset: str) -> Action:
    """An action from ``"call"``, a declaration (text, id or Declaration), or Raise/Call.

    >>> parse_action(" Call ", "official"), parse_action("pair a", "official")
    (Call(), Raise(declaration=Declaration('pair A', 'official')))
    """
    try:
        return parse_wire_action(value, ruleset)
    except DeclarationError as exc:
        raise WrongDeclaration(str(exc)) from None


class PolishPoker:
    """One game of Polish Poker, from the first deal to the finishing order."""

    def __init__(self, ruleset: str, players: int, seed: int) -> None:
        deck = deck_cards(ruleset)  # raises RulesetError for an unknown ruleset
        lo, hi = PLAYER_RANGE[ruleset]
        if not isinstance(players, int) or isinstance(players, bool):
            raise PlayerCountError(f"players must be an integer, got {players!r}")
        if not lo <= players <= hi:
            raise PlayerCountError(
                f"{ruleset} is played by {lo} to {hi} players, not {players}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an integer, got {seed!r}")
        self.ruleset = ruleset
        self.players = players
        self.seed = seed
        self._deck = deck
        self._dealer = _Dealer(ruleset, players, seed)
        # counts and active are kept as tuples, replaced on change: views and Dealt
        # events hand them out as they are, many times per change.
        self._counts = (1,) * players
        self._active = (True,) * players
        self._in = players  # number of active seats
        # _next_seat[s]: the next active seat after s (looked up twice a round, changed
        # only when a seat goes out)
        self._next_seat = self._seat_order()
        self._cap = self._cap_now()
        self._eliminated: list[int] = []  # seats in order of elimination
        self._decisions = 0  # apply and fault calls: the forfeits at one decision share
        self._left: list[tuple[int, int]] = []  # (seat, decisions before) per forfeit
        self._events: list[Event] = []
        self._round = 0
        self._opener = 0
        self._hands: tuple[tuple[Card, ...], ...] = ((),) * players
        self._community: Card | None = None
        self._history: tuple[tuple[int, Declaration], ...] = ()
        self._current: int | None = None
        self._deal()

    # -------------------------------------------------------------- read-only state

    @property
    def round(self) -> int:
        return self._round

    @property
    def opener(self) -> int:
        return self._opener

    @property
    def cap(self) -> int:
        """The card cap in force now (official: by the players still in)."""
        return self._cap

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards each seat holds this round (and is dealt next round); 0 for seats out."""
        return self._counts

    @property
    def active(self) -> tuple[bool, ...]:
        return self._active

    @property
    def active_seats(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if self._active[s])

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards dealt to ``seat`` this round (empty if it was out)."""
        return self._hands[self._check_seat(seat)]

    @property
    def community(self) -> Card | None:
        return self._community

    @property
    def history(self) -> tuple[tuple[int, Declaration], ...]:
        """This round's declarations as (seat, declaration), oldest first."""
        return self._history

    @property
    def current_seat(self) -> int | None:
        return self._current

    @property
    def is_over(self) -> bool:
        return self._current is None

    @property
    def finishing_order(self) -> tuple[int, ...]:
        """Seats best first: the seats still in, then those eliminated by their cards
        (the later higher), then those that forfeited (the later leaver higher: RULES.md,
        "Edge cases, decided"). Before the end only the seats already out (its tail)."""
        gone = {seat for seat, _ in self._left}
        tail = (*(s for s in reversed(self._eliminated) if s not in gone),
                *(s for s, _ in reversed(self._left)))
        return (*self.active_seats, *tail) if self.is_over else tail

    @property
    def places(self) -> tuple[int, ...]:
        """Place per seat: by ``finishing_order``, except that seats that forfeited at the
        same decision share a place (before the end, the seats still in share the first)."""
        gone = {seat for seat, _ in self._left}
        stayed = dict.fromkeys(self.active_seats, 1)  # at the end, the winner alone
        for s in reversed(self._eliminated):
            if s not in gone:
                stayed[s] = len(stayed) + 1
        return places_with_forfeits(stayed, self._left, self.players)

    @property
    def events(self) -> list[Event]:
        """Every event since the start (a copy): the game's transcript.

        Code that polls for new events should use ``event_count`` and ``events_since``,
        which do not copy the whole transcript each time.
        """
        return list(self._events)

    @property
    def event_count(self) -> int:
        """``len(events)``, without the copy."""
        return len(self._events)

    def events_since(self, start: int) -> list[Event]:
        """``events[start:]``, without copying the events before ``start``."""
        return self._events[start:]

    def legal_declarations(self) -> tuple[Declaration, ...]:
        """Every declaration that is a legal raise now, weakest first."""
        if self.is_over:
            return ()
        return legal_raises([d for _, d in self._history], self.ruleset)

    @property
    def can_call(self) -> bool:
        return not self.is_over and bool(self._history)

    def view(self, seat: int, time_left_ms: int | None = None) -> View:
        """What ``seat`` may see now: its own hand, never another's (``time_left_ms``
        is passed through for bots played in-process)."""
        if type(seat) is not int or not 0 <= seat < self.players:
            self._check_seat(seat)  # raises, unless an int subclass such as an IntEnum
        return View.build(self.ruleset, seat, self.players, self._round, self._cap,
                          self._hands[seat], self._community, self._counts, self._active,
                          self._opener, self._history, time_left_ms)

    # ---------------------------------------------------------------- state changes

    def apply(self, action: Any, seat: int | None = None) -> list[Event]:
        """Play ``action`` for the seat to act; return the new events.

        Raises an IllegalAction subclass, leaving the state unchanged, when the rules
        forbid it. ``seat``, if given, must be the seat to act.
        """
        start = len(self._events)
        self.play(action, seat)
        return self._events[start:]

    def play(self, action: Any, seat: int | None = None) -> None:
        """``apply`` without the list of the new events (the harness reads ``events``)."""
        actor = self._current
        if actor is None:
            raise GameAlreadyOver("the game is over; no more actions")
        if seat is not None and seat != actor:
            raise NotYourTurn(f"seat {seat} acted but seat {actor} is to act")
        # The two forms bots give most, a Declaration of this ruleset and "call", skip
        # parse_action (which would wrap them in a Raise or Call first).
        if type(action) is Declaration and action.ruleset == self.ruleset:
            decl: Declaration | None = action
        elif type(action) is str and action == "call":
            decl = None
        else:
            act = parse_action(action, self.ruleset)
            decl = None if isinstance(act, Call) else act.declaration
        if decl is None:
            if not self._history:
                raise NothingToCall(f"seat {actor} opens the round and must declare")
            self._decisions += 1
            self._events.append(_called(self._round, actor, False))
            self._resolve(actor)
            return
        if self._history:
            why = raise_error(decl, [d for _, d in self._history], self.ruleset)
            if why is not None:
                raise NotARaise(why)
        self._decisions += 1
        self._history += ((actor, decl),)
        self._events.append(_declared(self._round, actor, decl))
        nxt = self._next_seat[actor]
        if decl.category == "five" and decl.ranks[0] == _ACE:
            # Five aces (official only has fives): the next player is deemed to call at
            # once. A lower five can still be raised, so it is answered like any other.
            self._events.append(_called(self._round, nxt, True))
            self._resolve(nxt)
        else:
            self._current = nxt

    def fault(self, seat: int, label: str) -> list[Event]:
        """``seat`` loses the round because of fault ``label`` (e.g. "timeout")."""
        if self._current is None:
            raise GameAlreadyOver("the game is over; no fault can be charged")
        self._check_active(seat)
        if not isinstance(label, str) or not label or label in RESOLUTION_REASONS:
            raise UsageError(f"a fault label is a non-empty text other than "
                             f"{' or '.join(RESOLUTION_REASONS)}, got {label!r}")
        start = len(self._events)
        self._decisions += 1
        self._lose(seat, label)
        return self._events[start:]

    def forfeit(self, seat: int, label: str) -> list[Event]:
        """``seat`` is eliminated at once, below everyone still in; the round ends as a
        round lost by ``seat`` (the next opener follows the ruleset's rule)."""
        if self._current is None:
            raise GameAlreadyOver("the game is over; no one can forfeit")
        self._check_active(seat)
        if not isinstance(label, str) or not label:
            raise UsageError(f"a forfeit label is a non-empty text, got {label!r}")
        start = len(self._events)
        self._left.append((seat, self._decisions))
        self._eliminate(seat, FORFEIT_PREFIX + label)
        self._next_round(seat)
        return self._events[start:]

    def set_hands(
        self,
        hands: Sequence[Any] | Mapping[int, Any],
        community: Any = None,
    ) -> None:
        """Replace this round's deal with exact hands (for tests and scripted rounds).

        Allowed only before the round's first declaration. ``hands`` is one cards-like
        value per seat (empty for seats out) or a mapping seat -> cards for the active
        seats. The round's ``Dealt`` event is replaced. Later rounds' deals are not
        affected (each round's draw depends on the seed and the round alone).
        """
        if self._current is None:
            raise UsageError("set_hands: the game is over")
        if self._history:
            raise UsageError("set_hands: only before the round's first declaration")
        if isinstance(hands, Mapping):
            unknown = sorted(set(hands) - set(self.active_seats))
            if unknown:
                raise UsageError(f"set_hands: seats {unknown} are not in the game")
            per_seat: list[Any] = [hands.get(s, ()) for s in range(self.players)]
        else:
            per_seat = list(hands)
            if len(per_seat) != self.players:
                raise UsageError(f"set_hands: {len(per_seat)} hands for {self.players} seats")
        try:
            parsed = [tuple(sorted(parse_cards(h), key=lambda c: c.id)) for h in per_seat]
            comm = None if community is None else parse_card(community)
        except CardError as exc:
            raise UsageError(f"set_hands: {exc}") from None
        for s, h in enumerate(parsed):
            if len(h) != self._counts[s]:
                raise UsageError(f"set_hands: seat {s} holds {self._counts[s]} cards, "
                                 f"got {len(h)}")
        if (comm is None) != (self.ruleset == "polacco"):
            need = "needs" if self.ruleset == "official" else "has no"
            raise UsageError(f"set_hands: {self.ruleset} {need} community card")
        every = [c for h in parsed for c in h] + ([comm] if comm is not None else [])
        deck = set(self._deck)
        for c in every:
            if c not in deck:
                raise UsageError(f"set_hands: card {c} is not in the {self.ruleset} deck")
        if len(set(every)) != len(every):
            dup = next(c for c in every if every.count(c) > 1)
            raise UsageError(f"set_hands: card {dup} is dealt twice")
        self._hands = tuple(parsed)
        self._community = comm
        self._events[-1] = self._dealt_event()

    # ------------------------------------------------------------------- internals

    def _check_seat(self, seat: int) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise UsageError(f"no seat {seat!r}: seats are 0..{self.players - 1}")
        return seat

    def _check_active(self, seat: int) -> None:
        if not self._active[self._check_seat(seat)]:
            raise UsageError(f"seat {seat} is no longer in the game")

    def _seat_order(self) -> list[int]:
        """For each seat, the next active seat after it, wrapping (the seat itself need
        not be active). At least one seat must be active."""
        n = self.players
        after = []
        for seat in range(n):
            s = (seat + 1) % n
            while not self._active[s]:
                s = (s + 1) % n
            after.append(s)
        return after

    def _cap_now(self) -> int:
        if self.ruleset == "official":
            return official_cap(self._in)
        return POLACCO_CAP[self.players]

    def _dealt_event(self) -> Dealt:
        return _dealt(self._round, self._opener, self._cap, self._counts, self._hands,
                      self._community)

    def _deal(self) -> None:
        self._round += 1
        self._hands, self._community = self._dealer.next_round(self._counts)
        self._history = ()
        self._current = self._opener
        self._events.append(self._dealt_event())

    def _resolve(self, caller: int) -> None:
        declarer, decl = self._history[-1]
        pool = self._hands if self._community is None else [*self._hands, (self._community,)]
        found = exists_bits(decl, pool_bits(pool))
        self._events.append(_revealed(self._round, decl, found))
        if found:
            self._lose(caller, "wrong-call")
        else:
            self._lose(declarer, "bluff")

    def _lose(self, seat: int, reason: str) -> None:
        """End the round with ``seat`` as loser, then deal the next round or finish."""
        self._events.append(_round_lost(self._round, seat, reason))
        # The cap in force when the round was lost, i.e. with the players in now.
        if self._counts[seat] >= self._cap:
            self._eliminate(seat, "cards")
        else:
            counts = list(self._counts)
            counts[seat] += 1
            self._counts = tuple(counts)
        self._next_round(seat)

    def _next_round(self, loser: int) -> None:
        """After a round lost by ``loser`` (by a call, a fault or a forfeit; it may be out
        now): end the game, or deal the next round to the next opener."""
        if self._in < 2:
            self._finish()
            return
        if self.ruleset == "official":
            self._opener = self._next_seat[self._opener]
        else:
            self._opener = loser if self._active[loser] else self._next_seat[loser]
        self._deal()

    def _eliminate(self, seat: int, reason: str) -> None:
        place = self._in
        self._in -= 1
        self._cap = self._cap_now()
        self._active = tuple([a and s != seat for s, a in enumerate(self._active)])
        if self._in:
            self._next_seat = self._seat_order()
        self._counts = tuple([0 if s == seat else c for s, c in enumerate(self._counts)])
        self._eliminated.append(seat)
        self._events.append(Eliminated(self._round, seat, place, reason))

    def _finish(self) -> None:
        self._current = None
        self._events.append(GameOver(self.finishing_order))
