"""The three actions of six-card golf and their wire form (the game's SPEC.md).

A turn is two decisions of one seat: ``Take`` (from the stock or the discard pile), then
``Place`` (the held card replaces the card at a position) or, for a card from the stock
only, ``Discard``.

>>> parse_action({"kind": "place", "at": "r1c0"})
Place(position=2)
>>> parse_local_action("take discard-pile").to_wire()
{'kind': 'take', 'from': 'discard-pile'}
>>> parse_action({"kind": "take", "from": "discard"})
Traceback (most recent call last):
...
ValueError: take: 'from' must be "stock" or "discard-pile", got 'discard'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.golf import POSITIONS, position_index

STOCK = "stock"
PILE = "discard-pile"
SOURCES = (STOCK, PILE)


@dataclass(frozen=True, slots=True)
class Take:
    """Take the top card of ``source``: ``"stock"`` or ``"discard-pile"``."""

    source: str

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "take", "from": self.source}


@dataclass(frozen=True, slots=True)
class Place:
    """The held card replaces the card at ``position`` (an index into ``POSITIONS``)."""

    position: int

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "place", "at": POSITIONS[self.position]}


@dataclass(frozen=True, slots=True)
class Discard:
    """The card just taken from the stock goes onto the discard pile; the turn ends."""

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "discard"}


Action = Take | Place | Discard
_KEYS = {"take": {"kind", "from"}, "place": {"kind", "at"}, "discard": {"kind"}}


def parse_action(payload: Any) -> Action:
    """A wire action map -> Action; ValueError with one line saying what is wrong.

    Strict: exactly the keys of one form, exact lower-case strings, nothing else.
    """
    # dict first: the ABC check alone costs more than the rest of the parse.
    if not isinstance(payload, dict) and not isinstance(payload, Mapping):
        raise ValueError(f"an action is a map with a 'kind', got {type(payload).__name__}")
    kind = payload.get("kind")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise ValueError(f"unknown action kind {kind!r}: expected take, place or discard")
    keys = set(payload)
    if keys != _KEYS[kind]:
        extra = sorted(map(str, keys - _KEYS[kind]))
        missing = sorted(_KEYS[kind] - keys)
        what = f"unexpected {extra}" if extra else f"missing {missing}"
        raise ValueError(f"{kind}: {what}; a {kind} action has exactly {sorted(_KEYS[kind])}")
    if kind == "take":
        source = payload["from"]
        if source not in SOURCES:
            raise ValueError(f"take: 'from' must be \"stock\" or \"discard-pile\", got {source!r}")
        return Take(source)
    if kind == "place":
        at = payload["at"]
        if not isinstance(at, str):
            raise ValueError(f"place: 'at' must be a position name, got {at!r}")
        return Place(position_index(at))
    return Discard()


def parse_local_action(value: Any) -> Action:
    """What a Python bot's ``act`` returns: an Action, a wire map, or text such as
    ``"take stock"``, ``"take discard-pile"``, ``"place r1c0"``, ``"discard"``."""
    if isinstance(value, Take | Place | Discard):
        return value
    if isinstance(value, str):
        words = value.strip().lower().split()
        if words == ["discard"]:
            return Discard()
        if len(words) == 2 and words[0] == "take":
            return parse_action({"kind": "take", "from": words[1]})
        if len(words) == 2 and words[0] == "place":
            return parse_action({"kind": "place", "at": words[1]})
        raise ValueError(
            f"unknown action {value!r}: expected 'take stock', 'take discard-pile', "
            "'place r0c0'..'place r2c1' or 'discard'")
    return parse_action(value)
