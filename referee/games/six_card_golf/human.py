"""A six-card golf seat's view as text for the person playing it (``referee play``)."""

from __future__ import annotations

from typing import Any

from evaluator.cards import parse_card

ROWS = (("r0c0", "r0c1"), ("r1c0", "r1c1"), ("r2c0", "r2c1"))


def _card(card: int | None) -> str:
    return "??" if card is None else str(parse_card(card))


def _grid(grid: dict[str, Any] | None) -> list[str]:
    if grid is None:
        return ["out of the game"]
    return ["  ".join(f"{at}={_card(grid[at])}" for at in row) for row in ROWS]


def _legal(action: dict[str, Any]) -> str:
    return " ".join(str(v) for v in action.values())


def describe(view: dict[str, Any]) -> str:
    """The view (this package's SPEC.md) as lines, ending with what may be typed. A
    face-down card is ``??``; lower totals are better."""
    me = view["seat"]
    lines = [f"round {view['round']}: you are seat {me} of {view['players']} (dealer "
             f"{view['dealer']}); totals " + ", ".join(map(str, view["totals"]))
             + f" (the game ends once one reaches {view['target']})"]
    for seat, grid in enumerate(view["grids"]):
        frozen = " (top row frozen)" if view["frozen"][seat] else ""
        lines.append(f"seat {seat}{' (you)' if seat == me else ''}{frozen}:")
        lines += [f"    {row}" for row in _grid(grid)]
    top = _card(view["discard"][-1]) if view["discard"] else "empty"
    lines.append(f"discard pile top: {top}; stock: {view['stock']} cards"
                 + (f"; seat {view['out']} went out: your last turn" if view["out"] is not None
                    else ""))
    if view["drawn"] is not None:
        lines.append(f"you hold {_card(view['drawn'])} (from the {view['drawn_from']})")
    lines.append("you may: " + " | ".join(_legal(a) for a in view["legal"]))
    return "\n".join(lines)
