"""Greedy: takes the discard when it lowers its score or makes a pair, replaces its worst
card, goes out when ahead.

It values a face-down card at ``FACE_DOWN`` points whatever has been seen (a plain guess
near the pack's mean), its grid by the rules' points with that guess, and each placement
by how much it lowers that estimate. It goes out only when its final score would be no
higher than every opponent's estimate (or on its last turn, when nothing is at stake).
No randomness: the same view gives the same action.
"""

from __future__ import annotations

from typing import Any

from evaluator.golf import CARD_POINTS, JOKER_ID, PARTNER, RANK_KEY, row_points

from .grid import (
    DISCARD,
    View,
    grid_of,
    open_positions,
    opponents,
    place,
    placements,
    take,
    value,
)

FACE_DOWN = 6


def estimate(a: int | None, b: int | None) -> float:
    """A row's points, a face-down card counted as ``FACE_DOWN``."""
    if a is None or b is None:
        return (FACE_DOWN if a is None else CARD_POINTS[a]) + (
            FACE_DOWN if b is None else CARD_POINTS[b])
    return row_points(a, b)


def best_place(view: View, card: int) -> tuple[int, float] | None:
    """(position, gain) of the placement that lowers the estimate most, going out only
    when ahead; None when every open position would go out while behind."""
    grid = grid_of(view, view["seat"])
    now = value(grid, estimate)
    options = placements(grid, open_positions(view), card, estimate)
    rivals = None
    best = None
    for p, after, out in options:
        if out and view["out"] is None:
            if rivals is None:
                rivals = min(value(grid_of(view, s), estimate) for s in opponents(view))
            if after > rivals:
                continue
        if best is None or now - after > best[1]:
            best = (p, now - after)
    return best


def makes_pair(view: View, position: int, card: int) -> bool:
    partner = grid_of(view, view["seat"])[PARTNER[position]]
    return partner is not None and card != JOKER_ID and RANK_KEY[partner] == RANK_KEY[card]


def act(view: View) -> dict[str, Any]:
    if view["phase"] == "take":
        top = view["discard"][-1]
        best = best_place(view, top)
        if best is not None and (best[1] > 0 or makes_pair(view, best[0], top)):
            return take("discard-pile")
        return take("stock")
    best = best_place(view, view["drawn"])
    if view["drawn_from"] == "stock":
        return place(best[0]) if best is not None and best[1] > 0 else DISCARD
    if best is None:  # taken from the pile and every place goes out: it must place
        return place(open_positions(view)[-1])
    return place(best[0])
