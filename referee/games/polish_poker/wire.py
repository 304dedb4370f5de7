"""Polish Poker's payloads on the wire: the seat's view, the action, the round result.

The envelope (``protocol.messages``) is game-generic; this module is what the
Polish Poker game puts inside it, used by the referee and by the bot-side SDK. Cards
travel as card ids and declarations as declaration ids (see SPEC.md); the dataclasses
here hold parsed values.

>>> v = View("official", seat=1, players=2, round=1, cap=5, hand=parse_cards("Ah"),
...          community=parse_card("9c"), counts=(1, 1), active=(True, True), opener=0,
...          history=((0, parse_declaration("pair 9", "official")),))
>>> View.from_wire(v.to_wire()) == v, str(v.last), v.can_call
(True, 'pair 9', True)
>>> parse_action("pair A", "official"), Action.from_wire({"kind": "call"}, "official")
(Raise(declaration=Declaration('pair A', 'official')), Call())
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from evaluator import (
    Card,
    Declaration,
    DeclarationError,
    RulesetError,
    from_id,
    in_ladder,
    ladder,
    legal_raises,
    parse_card,
    parse_cards,
    parse_declaration,
    raise_error,
)
from evaluator.cards import N_CARD_IDS


class ActionError(ValueError):
    """An action payload that is not a well-formed action of the ruleset."""


@dataclass(frozen=True, slots=True)
class Raise:
    """Declare a hand (the opening declaration is a raise over nothing)."""

    declaration: Declaration


@dataclass(frozen=True, slots=True)
class Call:
    """Challenge the last declaration."""


class Action:
    """Namespace for the wire form of ``Raise | Call``."""

    @staticmethod
    def to_wire(action: Raise | Call) -> dict[str, Any]:
        if isinstance(action, Call):
            return {"kind": "call"}
        return {"kind": "raise", "declaration": action.declaration.id}

    @staticmethod
    def from_wire(payload: Any, ruleset: str) -> Raise | Call:
        if not isinstance(payload, Mapping):
            raise ActionError(f"action must be a map, got {type(payload).__name__}")
        kind = payload.get("kind")
        if kind == "call" and len(payload) == 1:
            return Call()
        if kind == "raise" and set(payload) == {"kind", "declaration"}:
            d = payload["declaration"]
            if not isinstance(d, int) or isinstance(d, bool):
                raise ActionError(f"declaration must be an integer id, got {d!r}"[:120])
            try:
                return Raise(from_id(d, ruleset))
            except DeclarationError as exc:
                raise ActionError(str(exc)) from None
        raise ActionError("action must be {kind: call} or {kind: raise, declaration: id}")


_CALL = Call()  # immutable: one for every call
# id() of each ladder Declaration -> its Raise, made on first use (immutable, like _CALL:
# a frozen dataclass costs more to build than to look up). The Raise holds the
# Declaration, so its id() cannot be reused by another object.
_RAISES: dict[int, Raise] = {}


def _raise(declaration: Declaration) -> Raise:
    """``Raise(declaration)``, the same object each time for a ladder declaration."""
    r = _RAISES.get(id(declaration))
    if r is not None and r.declaration is declaration:
        return r
    r = Raise(declaration)
    if in_ladder(declaration):
        _RAISES[id(declaration)] = r
    return r


def parse_action(value: Any, ruleset: str) -> Raise | Call:
    """An action from ``"call"``, a declaration (text, id or object), or Raise/Call."""
    # The two answers bots give most, first: one check each (a bot plays thousands a second).
    kind = type(value)
    if kind is str and value == "call":
        return _CALL
    if kind is Declaration and value.ruleset == ruleset:
        return _raise(value)
    if isinstance(value, Call):
        return value
    if isinstance(value, Raise):
        # ``Raise`` does not check what it wraps: hand on the Declaration, never the
        # text or id it was built from (the engine reads ``.category`` off it).
        return _raise(parse_declaration(value.declaration, ruleset))
    if isinstance(value, str) and value.strip().lower() == "call":
        return Call()
    return _raise(parse_declaration(value, ruleset))


_CARD_OF_ID = {i: parse_card(i) for i in range(N_CARD_IDS)}


@cache
def _declaration_of_id(ruleset: str) -> dict[int, Declaration]:
    """Every declaration of the ruleset by its id (RulesetError for an unknown one)."""
    return dict(enumerate(ladder(ruleset)))


@dataclass(frozen=True, slots=True)
class View:
    """Everything one seat may know when it must act, and nothing more.

    ``history`` is this round's declarations as (seat, declaration), oldest first.
    ``time_left_ms`` is filled in by the SDK from the request's deadline.
    """

    ruleset: str
    seat: int
    players: int
    round: int
    cap: int
    hand: tuple[Card, ...]
    community: Card | None
    counts: tuple[int, ...]
    active: tuple[bool, ...]
    opener: int
    history: tuple[tuple[int, Declaration], ...]
    time_left_ms: int | None = field(default=None, compare=False)

    @staticmethod
    def build(
        ruleset: str, seat: int, players: int, round: int, cap: int, hand: tuple[Card, ...],
        community: Card | None, counts: tuple[int, ...], active: tuple[bool, ...],
        opener: int, history: tuple[tuple[int, Declaration], ...],
        time_left_ms: int | None = None,
    ) -> View:
        """The same View as ``View(...)`` of these fields, built several times faster, for
        the engine and the SDK (``from_wire``), which build one per decision.

        A frozen dataclass's ``__init__`` pays an ``object.__setattr__`` call per field.
        Here the fields go into a plain object with the very same slots, which then
        becomes a View: CPython allows ``__class__`` assignment between classes whose
        slot layouts are identical, and raises TypeError if they ever differ.
        """
        v = _ViewFields()
        v.ruleset, v.seat, v.players, v.round, v.cap = ruleset, seat, players, round, cap
        v.hand, v.community, v.counts, v.active = hand, community, counts, active
        v.opener, v.history, v.time_left_ms = opener, history, time_left_ms
        v.__class__ = View
        return v  # type: ignore[return-value]

    @property
    def last(self) -> Declaration | None:
        return self.history[-1][1] if self.history else None

    @property
    def can_call(self) -> bool:
        return bool(self.history)

    def is_raise(self, declaration: str | int | Declaration) -> bool:
        return raise_error(declaration, [d for _, d in self.history], self.ruleset) is None

    def legal_raises(self) -> tuple[Declaration, ...]:
        """Every declaration that is a legal raise now, weakest first."""
        return _raises_after(tuple([d.id for _, d in self.history]), self.ruleset)

    def to_wire(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset, "seat": self.seat, "players": self.players,
            "round": self.round, "cap": self.cap, "hand": [c.id for c in self.hand],
            "community": None if self.community is None else self.community.id,
            "counts": list(self.counts), "active": list(self.active), "opener": self.opener,
            "history": [[s, d.id] for s, d in self.history],
        }

    @classmethod
    def from_wire(cls, w: Mapping[str, Any], time_left_ms: int | None = None) -> View:
        """Parse a view payload (bot side); raises ActionError on a malformed one.

        A bot reads one per decision just woken, its caches cold: card and declaration
        ids are looked up in a table each (``_CARD_OF_ID``, ``_declaration_of_id``),
        which costs it half as much as parsing each. An id that is no card's or
        declaration's is an error; one equal to an id (``True``, ``2.0``) reads as it
        (the payload is the referee's)."""
        try:
            ruleset, community, cards = w["ruleset"], w["community"], _CARD_OF_ID
            declarations = _declaration_of_id(ruleset)
            hand = tuple(map(cards.__getitem__, w["hand"]))
            if len(set(hand)) != len(hand):
                raise ValueError(f"a card is twice in the hand {w['hand']}")
            return cls.build(
                ruleset, int(w["seat"]), int(w["players"]), int(w["round"]), int(w["cap"]),
                hand, None if community is None else cards[community],
                tuple(map(int, w["counts"])), tuple(map(bool, w["active"])), int(w["opener"]),
                tuple([(int(s), declarations[d]) for s, d in w["history"]]), time_left_ms)
        except (KeyError, TypeError, ValueError, RulesetError) as exc:
            raise ActionError(f"malformed view: {exc!r}"[:200]) from None


@lru_cache(maxsize=4096)
def _raises_after(history: tuple[int, ...], ruleset: str) -> tuple[Declaration, ...]:
    """``legal_raises`` after the round's declarations by id: a bot may ask for them
    many times a decision, and rounds repeat the same short histories."""
    return legal_raises(list(history), ruleset)


class _ViewFields:
    """View's slots, writable: what ``View.build`` fills before it becomes a View."""

    __slots__ = View.__slots__


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended, sent to every seat after it: all hands are revealed.

    ``declaration`` is the checked one (None when the round ended by a fault before a
    call); ``exists`` whether it was in the pool; ``loser`` took the penalty card or
    was ``eliminated``; ``reason`` is "bluff", "wrong-call" or a fault label.
    """

    round: int
    hands: tuple[tuple[Card, ...], ...]
    community: Card | None
    declaration: Declaration | None
    exists: bool | None
    loser: int
    reason: str
    eliminated: bool

    def to_wire(self) -> dict[str, Any]:
        return round_result_wire(self.round, self.hands, self.community, self.declaration,
                                 self.exists, self.loser, self.reason, self.eliminated)

    @classmethod
    def from_wire(cls, w: Mapping[str, Any], ruleset: str) -> RoundResult:
        return cls(
            round=w["round"], hands=tuple(parse_cards(h) for h in w["hands"]),
            community=None if w["community"] is None else parse_card(w["community"]),
            declaration=None if w["declaration"] is None else from_id(w["declaration"], ruleset),
            exists=w["exists"], loser=w["loser"], reason=w["reason"],
            eliminated=w["eliminated"],
        )


def round_result_wire(
    round: int, hands: tuple[tuple[Card, ...], ...], community: Card | None,
    declaration: Declaration | None, exists: bool | None, loser: int, reason: str,
    eliminated: bool,
) -> dict[str, Any]:
    """``RoundResult(...).to_wire()`` of these fields, without the RoundResult: the
    referee makes one per round (``adapter.round_results``)."""
    return {
        "round": round, "hands": [[c.id for c in h] for h in hands],
        "community": None if community is None else community.id,
        "declaration": None if declaration is None else declaration.id,
        "exists": exists, "loser": loser, "reason": reason, "eliminated": eliminated,
    }
