"""Reading a six-card golf view, and valuing placements row by row.

Shared by the reference bots. A grid here is a list of six card ids in position order
(r0c0 r0c1 r1c0 r1c1 r2c0 r2c1), ``None`` where the card is face down. A bot values a
grid as the sum of its rows' values (``RowValue``: two cards or Nones -> points), so a
placement changes one row only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.golf import POSITIONS, ROWS, TOP_ROW

Grid = list[int | None]
View = dict[str, Any]
RowValue = Callable[[int | None, int | None], float]


def grid_of(view: View, seat: int) -> Grid:
    """The seat's grid as it shows in the view; [] for a seat out of the game."""
    g = view["grids"][seat]
    return [] if g is None else [g[p] for p in POSITIONS]


def open_positions(view: View) -> list[int]:
    """The positions the seat to act may replace: the top row only while not frozen."""
    first = len(TOP_ROW) if view["frozen"][view["seat"]] else 0
    return list(range(first, len(POSITIONS)))


def opponents(view: View) -> list[int]:
    return [s for s in range(view["players"]) if s != view["seat"] and view["active"][s]]


def value(grid: Grid, row_value: RowValue) -> float:
    return sum(row_value(grid[i], grid[j]) for i, j in ROWS)


def placements(grid: Grid, positions: list[int], card: int,
               row_value: RowValue) -> list[tuple[int, float, bool]]:
    """For each position: (position, the grid's value with ``card`` there, whether that
    placement turns up the last face-down card, i.e. goes out)."""
    rows = [row_value(grid[i], grid[j]) for i, j in ROWS]
    total = sum(rows)
    down = [i for i, c in enumerate(grid) if c is None]
    out = []
    for p in positions:
        r = p >> 1
        i, j = ROWS[r]
        after = row_value(card, grid[j]) if p == i else row_value(grid[i], card)
        out.append((p, total - rows[r] + after, down == [p]))
    return out


def take(source: str) -> dict[str, Any]:
    return {"kind": "take", "from": source}


def place(position: int) -> dict[str, Any]:
    return {"kind": "place", "at": POSITIONS[position]}


DISCARD: dict[str, Any] = {"kind": "discard"}
