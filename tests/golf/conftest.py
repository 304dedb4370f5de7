"""Shared set-ups for the six-card golf tests: games with chosen cards, and the card count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from referee.games.six_card_golf.engine import SixCardGolf

Rig = Callable[..., SixCardGolf]


def rigged(grids: Sequence[str], stock: Sequence[str] = (), discard: Sequence[str] = ("4h",),
           seed: int = 0, **params: int) -> SixCardGolf:
    """A game whose first round has these grids (texts of six cards), these stock top
    cards (top first) and this discard pile (bottom first)."""
    g = SixCardGolf(len(grids), seed, **params)
    g.set_deal(grids, discard, stock)
    return g


@pytest.fixture(scope="session")
def rig() -> Rig:
    return rigged


def cards_of(g: SixCardGolf) -> Counter[int]:
    """Every card the engine holds: grids, stock, discard pile and the held card."""
    held = [] if g.drawn is None else [g.drawn]
    return Counter([*(c for grid in g.grids for c in grid), *g.stock, *g.discard, *held])


@pytest.fixture(scope="session")
def cards_in_play() -> Callable[[SixCardGolf], Counter[int]]:
    return cards_of
