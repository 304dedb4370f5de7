"""Expected points: values every move by the expected points of its grid afterwards.

The cards it has not seen are the two decks minus every card in its view (face-up cards
of every seat, the whole discard pile, the card it holds); a face-down card, its own or
another seat's, and the stock's next card are taken to be drawn from them. (A card seen
earlier that a reshuffle put back into the stock counts as unseen again: nobody knows
where it lies. So the view alone is enough, and the bot keeps no state.) It counts
them by rank (suits never matter) and scores a row with unknown cards in closed form,
pairs included:

- a known card ``a`` beside an unknown one: ``pts(a) + mean - 2 * P(rank a) * pts(a)``
  (a joker keeps its -3 in a pair, so it gets no pair term);
- two unknown cards: ``2 * mean - 2 * sum of P(rank)^2 * pts(rank)`` over ranks but the
  joker.

It takes the discard pile's card when its best placement beats the expected value of
the stock's card (placed at its best position, or discarded), and places a card where the
expected points drop most. It goes out only if its final score would be no higher than
every opponent's expected score, or on its last turn. No randomness.
"""

from __future__ import annotations

from typing import Any

from evaluator.golf import GOLF_PACK, JOKER_KEY, KEY_POINTS, N_RANK_KEYS, RANK_KEY

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

PACK_COUNTS = [sum(1 for c in GOLF_PACK if RANK_KEY[c] == k) for k in range(N_RANK_KEYS)]
# One card id of each rank key: what a stock card of that rank is for ``placements``.
KEY_CARD = [RANK_KEY.index(k) for k in range(N_RANK_KEYS)]


class Unseen:
    """The distribution of a card the bot has not seen, by rank key."""

    def __init__(self, view: View) -> None:
        counts = list(PACK_COUNTS)
        for g in view["grids"]:
            if g is not None:
                for c in g.values():
                    if c is not None:
                        counts[RANK_KEY[c]] -= 1
        for c in view["discard"]:
            counts[RANK_KEY[c]] -= 1
        if view["drawn"] is not None:
            counts[RANK_KEY[view["drawn"]]] -= 1
        n = sum(counts)
        self.p = [c / n for c in counts]
        self.mean = sum(p * v for p, v in zip(self.p, KEY_POINTS, strict=True))
        self.pair_term = [0.0 if k == JOKER_KEY else 2 * self.p[k] * KEY_POINTS[k]
                          for k in range(N_RANK_KEYS)]
        self.two_unknown = 2 * self.mean - sum(
            p * t for p, t in zip(self.p, self.pair_term, strict=True))

    def row(self, a: int | None, b: int | None) -> float:
        """Expected points of a row of two cards (card ids, None when unknown)."""
        if a is None and b is None:
            return self.two_unknown
        if a is None:
            a, b = b, a
        ka = RANK_KEY[a]  # type: ignore[index]
        if b is None:
            return KEY_POINTS[ka] + self.mean - self.pair_term[ka]
        kb = RANK_KEY[b]
        if ka == kb and ka != JOKER_KEY:
            return 0.0
        return float(KEY_POINTS[ka] + KEY_POINTS[kb])


def best_place(view: View, unseen: Unseen, card: int) -> tuple[int, float] | None:
    """(position, expected points after) of the best placement of ``card``, going out
    only when allowed; None when every open position would go out while behind."""
    grid = grid_of(view, view["seat"])
    rivals = None
    best = None
    for p, after, out in placements(grid, open_positions(view), card, unseen.row):
        if out and view["out"] is None:
            if rivals is None:
                rivals = min(value(grid_of(view, s), unseen.row) for s in opponents(view))
            if after > rivals:
                continue
        if best is None or after < best[1]:
            best = (p, after)
    return best


def stock_value(view: View, unseen: Unseen, now: float) -> float:
    """Expected points after taking the stock's card and using it at its best."""
    total = 0.0
    for key, p in enumerate(unseen.p):
        if p > 0.0:
            best = best_place(view, unseen, KEY_CARD[key])
            total += p * (now if best is None else min(now, best[1]))
    return total


def act(view: View) -> dict[str, Any]:
    unseen = Unseen(view)
    now = value(grid_of(view, view["seat"]), unseen.row)
    if view["phase"] == "take":
        best = best_place(view, unseen, view["discard"][-1])
        if best is not None and best[1] < stock_value(view, unseen, now):
            return take("discard-pile")
        return take("stock")
    best = best_place(view, unseen, view["drawn"])
    if view["drawn_from"] == "stock":
        return place(best[0]) if best is not None and best[1] < now else DISCARD
    if best is None:  # taken from the pile and every place goes out: it must place
        return place(open_positions(view)[-1])
    return place(best[0])
