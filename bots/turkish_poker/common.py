"""What the Turkish poker bots share: reading the view and the simple draw table."""

from __future__ import annotations

from typing import Any

from evaluator.turkish import (
    FLUSH,
    FULL_HOUSE,
    STRAIGHT,
    rank_key,
)

# Deck size -> lowest rank (the view gives the deck size of the deal).
LOW_RANK_BY_DECK = {24: 9, 28: 8, 32: 7, 36: 6}


def hand_ids(view: dict[str, Any]) -> list[int]:
    """The seat's cards (the protocol's integers, ``4 * (rank - 2) + suit``)."""
    return list(view["cards"])


def legal(view: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """The legal entry of that kind, or None."""
    return next((a for a in view["legal"] if a["kind"] == kind), None)


def key_of(view: dict[str, Any]) -> int:
    return rank_key(hand_ids(view), LOW_RANK_BY_DECK[view["deck"]])


def bet(view: dict[str, Any], to: int) -> dict[str, Any]:
    """Open or raise to ``to`` clamped into the legal range; a call or pass if neither."""
    for kind, field in (("open", "amount"), ("raise", "to")):
        entry = legal(view, kind)
        if entry is not None:
            return {"kind": kind, field: max(entry["min"], min(entry["max"], to))}
    return check_or_call(view)


def check_or_call(view: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "call"} if legal(view, "call") else {"kind": "pass"}


def check_or_fold(view: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "pass"} if legal(view, "pass") else {"kind": "fold"}


def discards(view: dict[str, Any]) -> list[int]:
    """The draw table: stand pat on a straight or better; otherwise keep the groups (pairs,
    trips, quads), or four to a flush, or the two highest cards; discard the rest."""
    cards = hand_ids(view)
    key = rank_key(cards, LOW_RANK_BY_DECK[view["deck"]])
    category = key >> 22
    if category in (STRAIGHT, FLUSH, FULL_HOUSE) or category > FLUSH:
        return []
    ranks = [c // 4 for c in cards]
    grouped = [c for c in cards if ranks.count(c // 4) > 1]
    if grouped:
        keep = grouped
    else:
        suits = [c % 4 for c in cards]
        four = next((s for s in set(suits) if suits.count(s) == 4), None)
        keep = ([c for c in cards if c % 4 == four] if four is not None
                else sorted(cards, reverse=True)[:2])
    return [c for c in cards if c not in keep][:4]
