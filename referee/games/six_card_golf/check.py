"""Scripted check turns: (a position, a legal action payload, an illegal one) at the
edges of the rules a bot most easily gets wrong, all from one set two-player deal.

>>> [(t.engine.phase, t.legal, t.illegal) for t in check_turns()][1]
('place', {'kind': 'place', 'at': 'r1c0'}, {'kind': 'discard'})
"""

from __future__ import annotations

import copy

from referee.games.api import CheckTurn
from referee.games.six_card_golf.actions import PILE, STOCK, Discard, Place, Take
from referee.games.six_card_golf.engine import SixCardGolf

_GRIDS = ("Kh 9c 5d Qs 2c 7h", "8s 3d Jd Th 6c Ac")
_DISCARD = ("4h",)
_STOCK_TOP = ("Jk", "9d")


def scripted_game() -> SixCardGolf:
    """The two-player game the check turns come from, on a set deal."""
    g = SixCardGolf(2, seed=0)
    g.set_deal(_GRIDS, _DISCARD, _STOCK_TOP)
    return g


def check_turns() -> list[CheckTurn]:
    """Seat 1 starts (seat 0 deals): it must take before anything else; with the
    discard pile's 4h it must place; seat 0 holding a stock card may discard it; seat 1,
    whose bottom card was replaced, may not touch its frozen top row; and a take names
    its source exactly (``"discard-pile"``, not ``"discard"``)."""
    g = scripted_game()

    def turn(legal: object, illegal: object) -> CheckTurn:
        return CheckTurn(copy.deepcopy(g), legal, illegal)

    turns = [turn(Take(STOCK).to_wire(), Discard().to_wire())]
    g.apply(1, Take(PILE))
    turns.append(turn(Place(2).to_wire(), Discard().to_wire()))
    g.apply(1, Place(2))
    g.apply(0, Take(STOCK))
    turns.append(turn(Discard().to_wire(), Take(PILE).to_wire()))
    g.apply(0, Discard())
    g.apply(1, Take(STOCK))
    turns.append(turn(Place(3).to_wire(), Place(0).to_wire()))
    g.apply(1, Discard())
    turns.append(turn(Take(PILE).to_wire(), {"kind": "take", "from": "discard"}))
    return turns
