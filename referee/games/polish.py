"""The Polish Poker rules engine, rulesets ``official`` and ``polacco`` (see RULES.md).

A pure, deterministic state machine: no I/O, no clock. Every state change is an event,
and ``events`` is the game's transcript; ``referee.replay`` rebuilds a game from it.

The deal (part of the replay format, never change it silently): for round ``k`` (from 1)
the engine builds ``list(deck_cards(ruleset))`` (ascending card ids), shuffles it with
``random.Random(f"{seed}/{k}").shuffle``, deals the active seats in ascending seat order
as many cards as each holds (a contiguous slice each), and in ``official`` turns the next
card up as the community card. The rest is out of play. Hands are kept sorted by card id.

Decisions where the rulebook is silent (documented here and tested):

- ``counts`` of an eliminated seat is 0, as in ``Dealt``.
- A fault (``fault``) is a lost round like any other: penalty card or elimination, and
  the usual opener rule (in ``polacco`` the faulting seat opens next if still in).
- A forfeit (``forfeit``) abandons the round; nobody else is charged. The next deal is a
  new round (next round number, so a new shuffle) opened by the abandoned round's opener,
  or by the next active seat after them if the opener is the one who left, in both
  rulesets: an abandoned round is not a played round, so ``official`` rotation does not
  advance.
- An eliminated seat's place is the number of players in just before it went out.
- After the game ends, ``hand``, ``community`` and ``history`` keep the final round's
  state; ``current_seat`` is None.

>>> g = PolishPoker("official", 2, seed=7)
>>> g.current_seat, g.cap, g.counts
(0, 5, (1, 1))
>>> [e.to_dict()["type"] for e in g.apply("pair 9") + g.apply("call")][:3]
['declared', 'called', 'revealed']
>>> g.round, g.opener
(2, 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from evaluator import (
    Card,
    CardError,
    Declaration,
    DeclarationError,
    deck_cards,
    exists,
    legal_raises,
    parse_card,
    parse_cards,
    parse_declaration,
    raise_error,
)
from protocol.polish import Call, Raise, View
from protocol.polish import parse_action as parse_wire_action

__all__ = [
    "PLAYER_RANGE", "Action", "Call", "Called", "Dealt", "Declared", "Eliminated",
    "EngineError", "Event", "EventFormatError", "GameAlreadyOver", "GameOver",
    "IllegalAction", "NotARaise", "NotYourTurn", "NothingToCall", "PlayerCountError",
    "PolishPoker", "Raise", "Revealed", "RoundLost", "UsageError",
    "WrongDeclaration", "event_from_dict", "parse_action",
]
PLAYER_RANGE: dict[str, tuple[int, int]] = {"official": (2, 6), "polacco": (3, 8)}
# Card caps by number of players; official counts the players still in, polacco the
# players at the start.
_OFFICIAL_CAP = {6: 3, 5: 4}
_POLACCO_CAP = {3: 5, 4: 5, 5: 4, 6: 3, 7: 3, 8: 3}
# Round-loss reasons the engine itself gives; a fault label may not reuse them.
RESOLUTION_REASONS = ("bluff", "wrong-call")
FORFEIT_PREFIX = "forfeit:"


# ---------------------------------------------------------------------------- errors


class EngineError(Exception):
    """Base of every error the engine raises."""


class PlayerCountError(EngineError, ValueError):
    """A number of players the ruleset does not allow."""


class UsageError(EngineError, ValueError):
    """The program driving the engine (not a player) asked for something impossible:
    a seat that is not in the game, a bad fault label, hands that do not fit the round."""


class EventFormatError(EngineError, ValueError):
    """A dict that is not the ``to_dict`` form of an event."""


class IllegalAction(EngineError):
    """An action the rules forbid; the engine's state is unchanged."""

    reason: ClassVar[str] = "illegal"

    def __init__(self, detail: str) -> None:
        super().__init__(f"{self.reason}: {detail}")
        self.detail = detail


class NotYourTurn(IllegalAction):
    reason = "not-your-turn"


class NothingToCall(IllegalAction):
    reason = "nothing-to-call"


class NotARaise(IllegalAction):
    reason = "not-a-raise"


class WrongDeclaration(IllegalAction):
    reason = "wrong-declaration"


class GameAlreadyOver(IllegalAction):
    """Any action after the end. (Named so, not ``GameOver``, which is the event.)"""

    reason = "game-over"


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


# ---------------------------------------------------------------------------- events


def _cards_text(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round was dealt. ``counts`` and ``hands`` per seat; 0 and () for seats out."""

    round: int
    opener: int
    cap: int
    counts: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    community: Card | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "dealt", "round": self.round, "opener": self.opener, "cap": self.cap,
            "counts": list(self.counts), "hands": [_cards_text(h) for h in self.hands],
            "community": None if self.community is None else str(self.community),
        }


@dataclass(frozen=True, slots=True)
class Declared:
    round: int
    seat: int
    declaration: Declaration

    def to_dict(self) -> dict[str, Any]:
        return {"type": "declared", "round": self.round, "seat": self.seat,
                "declaration": str(self.declaration)}


@dataclass(frozen=True, slots=True)
class Called:
    """``automatic`` when the call was deemed made (the five-aces rule)."""

    round: int
    seat: int
    automatic: bool

    def to_dict(self) -> dict[str, Any]:
        return {"type": "called", "round": self.round, "seat": self.seat,
                "automatic": self.automatic}


@dataclass(frozen=True, slots=True)
class Revealed:
    """The last declaration was checked against the pool (hands are in ``Dealt``)."""

    round: int
    declaration: Declaration
    exists: bool

    def to_dict(self) -> dict[str, Any]:
        return {"type": "revealed", "round": self.round,
                "declaration": str(self.declaration), "exists": self.exists}


@dataclass(frozen=True, slots=True)
class RoundLost:
    """``reason``: "bluff", "wrong-call", or a fault label such as "timeout"."""

    round: int
    seat: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "round_lost", "round": self.round, "seat": self.seat,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Eliminated:
    """``place`` is the final place (1-based); ``reason`` "cards" or "forfeit:<label>"."""

    round: int
    seat: int
    place: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "eliminated", "round": self.round, "seat": self.seat,
                "place": self.place, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class GameOver:
    """The finishing order, seats best first."""

    order: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "game_over", "order": list(self.order)}


Event = Dealt | Declared | Called | Revealed | RoundLost | Eliminated | GameOver


def _get(d: Mapping[str, Any], key: str, kind: type) -> Any:
    if key not in d:
        raise EventFormatError(f"{d.get('type')} event without {key!r}")
    value = d[key]
    # bool is an int subclass; an int field holding True is a format error.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise EventFormatError(
            f"{d.get('type')} event: {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _int_tuple(d: Mapping[str, Any], key: str) -> tuple[int, ...]:
    values = tuple(_get(d, key, list))
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise EventFormatError(f"{d.get('type')} event: {key!r} must be a list of integers")
    return values


def event_from_dict(d: Mapping[str, Any], ruleset: str) -> Event:
    """The event whose ``to_dict()`` is ``d`` (the inverse of ``to_dict``).

    >>> e = Declared(2, 1, parse_declaration("two-pair K 5", "polacco"))
    >>> event_from_dict(e.to_dict(), "polacco") == e
    True
    """
    if not isinstance(d, Mapping):
        raise EventFormatError(f"an event is a dict, got {type(d).__name__}")
    kind = d.get("type")
    try:
        if kind == "dealt":
            community = d.get("community")
            return Dealt(
                _get(d, "round", int), _get(d, "opener", int), _get(d, "cap", int),
                _int_tuple(d, "counts"),
                tuple(parse_cards(h) for h in _get(d, "hands", list)),
                None if community is None else parse_card(community),
            )
        if kind == "declared":
            return Declared(_get(d, "round", int), _get(d, "seat", int),
                            parse_declaration(_get(d, "declaration", str), ruleset))
        if kind == "called":
            return Called(_get(d, "round", int), _get(d, "seat", int),
                          _get(d, "automatic", bool))
        if kind == "revealed":
            return Revealed(_get(d, "round", int),
                            parse_declaration(_get(d, "declaration", str), ruleset),
                            _get(d, "exists", bool))
        if kind == "round_lost":
            return RoundLost(_get(d, "round", int), _get(d, "seat", int),
                             _get(d, "reason", str))
        if kind == "eliminated":
            return Eliminated(_get(d, "round", int), _get(d, "seat", int),
                              _get(d, "place", int), _get(d, "reason", str))
        if kind == "game_over":
            return GameOver(_int_tuple(d, "order"))
    except (CardError, DeclarationError) as exc:
        raise EventFormatError(f"{kind} event: {exc}") from None
    raise EventFormatError(f"unknown event type {kind!r}")


# ---------------------------------------------------------------------------- engine


def _official_cap(players_in: int) -> int:
    return _OFFICIAL_CAP.get(players_in, 5)


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
        self._counts = [1] * players
        self._active = [True] * players
        self._eliminated: list[int] = []  # seats in order of elimination
        self._events: list[Event] = []
        self._round = 0
        self._opener = 0
        self._hands: list[tuple[Card, ...]] = [() for _ in range(players)]
        self._community: Card | None = None
        self._history: list[tuple[int, Declaration]] = []
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
        if self.ruleset == "official":
            return _official_cap(sum(self._active))
        return _POLACCO_CAP[self.players]

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards each seat holds this round (and is dealt next round); 0 for seats out."""
        return tuple(self._counts)

    @property
    def active(self) -> tuple[bool, ...]:
        return tuple(self._active)

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
        return tuple(self._history)

    @property
    def current_seat(self) -> int | None:
        return self._current

    @property
    def is_over(self) -> bool:
        return self._current is None

    @property
    def finishing_order(self) -> tuple[int, ...]:
        """Seats best first. Before the end only the seats already out (its tail)."""
        tail = tuple(reversed(self._eliminated))
        return (*self.active_seats, *tail) if self.is_over else tail

    @property
    def events(self) -> list[Event]:
        """Every event since the start (a copy): the game's transcript."""
        return list(self._events)

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
        self._check_seat(seat)
        return View(
            ruleset=self.ruleset, seat=seat, players=self.players, round=self._round,
            cap=self.cap, hand=self._hands[seat], community=self._community,
            counts=self.counts, active=self.active, opener=self._opener,
            history=self.history, time_left_ms=time_left_ms,
        )

    # ---------------------------------------------------------------- state changes

    def apply(self, action: Any, seat: int | None = None) -> list[Event]:
        """Play ``action`` for the seat to act; return the new events.

        Raises an IllegalAction subclass, leaving the state unchanged, when the rules
        forbid it. ``seat``, if given, must be the seat to act.
        """
        if self._current is None:
            raise GameAlreadyOver("the game is over; no more actions")
        if seat is not None and seat != self._current:
            raise NotYourTurn(f"seat {seat} acted but seat {self._current} is to act")
        act = parse_action(action, self.ruleset)
        start = len(self._events)
        actor = self._current
        if isinstance(act, Call):
            if not self._history:
                raise NothingToCall(f"seat {actor} opens the round and must declare")
            self._emit(Called(self._round, actor, False))
            self._resolve(actor)
            return self._events[start:]
        decl = act.declaration
        why = raise_error(decl, [d for _, d in self._history], self.ruleset)
        if why is not None:
            raise NotARaise(why)
        self._history.append((actor, decl))
        self._emit(Declared(self._round, actor, decl))
        nxt = self._next_active(actor)
        if self.ruleset == "official" and decl.category == "five":
            # Five aces: the next player is deemed to call at once.
            self._emit(Called(self._round, nxt, True))
            self._resolve(nxt)
        else:
            self._current = nxt
        return self._events[start:]

    def fault(self, seat: int, label: str) -> list[Event]:
        """``seat`` loses the round because of fault ``label`` (e.g. "timeout")."""
        if self._current is None:
            raise GameAlreadyOver("the game is over; no fault can be charged")
        self._check_active(seat)
        if not isinstance(label, str) or not label or label in RESOLUTION_REASONS:
            raise UsageError(f"a fault label is a non-empty text other than "
                             f"{' or '.join(RESOLUTION_REASONS)}, got {label!r}")
        start = len(self._events)
        self._lose(seat, label)
        return self._events[start:]

    def forfeit(self, seat: int, label: str) -> list[Event]:
        """``seat`` is eliminated at once, below everyone still in; the round is abandoned."""
        if self._current is None:
            raise GameAlreadyOver("the game is over; no one can forfeit")
        self._check_active(seat)
        if not isinstance(label, str) or not label:
            raise UsageError(f"a forfeit label is a non-empty text, got {label!r}")
        start = len(self._events)
        self._eliminate(seat, FORFEIT_PREFIX + label)
        if sum(self._active) >= 2:
            # Abandoned round: the same opener starts the new deal (see module docs).
            if not self._active[self._opener]:
                self._opener = self._next_active(self._opener)
            self._deal()
        else:
            self._finish()
        return self._events[start:]

    def set_hands(
        self,
        hands: Sequence[Any] | Mapping[int, Any],
        community: Any = None,
    ) -> None:
        """Replace this round's deal with exact hands (for tests and scripted rounds).

        Allowed only before the round's first declaration. ``hands`` is one cards-like
        value per seat (empty for seats out) or a mapping seat -> cards for the active
        seats. The round's ``Dealt`` event is replaced.
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
        self._hands = parsed
        self._community = comm
        self._events[-1] = self._dealt_event()

    # ------------------------------------------------------------------- internals

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    def _check_seat(self, seat: int) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise UsageError(f"no seat {seat!r}: seats are 0..{self.players - 1}")
        return seat

    def _check_active(self, seat: int) -> None:
        if not self._active[self._check_seat(seat)]:
            raise UsageError(f"seat {seat} is no longer in the game")

    def _next_active(self, seat: int) -> int:
        """The next active seat after ``seat``, wrapping (``seat`` need not be active)."""
        for step in range(1, self.players + 1):
            s = (seat + step) % self.players
            if self._active[s]:
                return s
        raise AssertionError("no active seat")  # the game ends before that can happen

    def _dealt_event(self) -> Dealt:
        return Dealt(self._round, self._opener, self.cap, self.counts, tuple(self._hands),
                     self._community)

    def _deal(self) -> None:
        self._round += 1
        cards = list(self._deck)
        random.Random(f"{self.seed}/{self._round}").shuffle(cards)
        pos = 0
        for s in range(self.players):
            n = self._counts[s] if self._active[s] else 0
            self._hands[s] = tuple(sorted(cards[pos:pos + n], key=lambda c: c.id))
            pos += n
        self._community = cards[pos] if self.ruleset == "official" else None
        self._history = []
        self._current = self._opener
        self._emit(self._dealt_event())

    def _resolve(self, caller: int) -> None:
        declarer, decl = self._history[-1]
        pool = [c for h in self._hands for c in h]
        if self._community is not None:
            pool.append(self._community)
        found = exists(decl, pool, self.ruleset)
        self._emit(Revealed(self._round, decl, found))
        if found:
            self._lose(caller, "wrong-call")
        else:
            self._lose(declarer, "bluff")

    def _lose(self, seat: int, reason: str) -> None:
        """End the round with ``seat`` as loser, then deal the next round or finish."""
        self._emit(RoundLost(self._round, seat, reason))
        # The cap in force when the round was lost, i.e. with the players in now.
        if self._counts[seat] >= self.cap:
            self._eliminate(seat, "cards")
        else:
            self._counts[seat] += 1
        if sum(self._active) < 2:
            self._finish()
            return
        if self.ruleset == "official":
            self._opener = self._next_active(self._opener)
        else:
            self._opener = seat if self._active[seat] else self._next_active(seat)
        self._deal()

    def _eliminate(self, seat: int, reason: str) -> None:
        place = sum(self._active)
        self._active[seat] = False
        self._counts[seat] = 0
        self._eliminated.append(seat)
        self._emit(Eliminated(self._round, seat, place, reason))

    def _finish(self) -> None:
        self._current = None
        self._emit(GameOver(self.finishing_order))
