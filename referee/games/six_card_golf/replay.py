"""What a six-card golf transcript records that the engine does not make itself: the
seats' decisions (``took``, ``placed``, ``discarded``) and the referee's interventions
(``fault``, ``forfeit``); ``Game.replay`` drives a fresh engine with them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.golf import position_index
from referee.games.six_card_golf.actions import Discard, Place, Take
from referee.games.six_card_golf.engine import SixCardGolf

_REDO: dict[str, Callable[[SixCardGolf, Mapping[str, Any]], None]] = {
    "took": lambda g, e: g.apply(e["seat"], Take(e["from"])),
    "placed": lambda g, e: g.apply(e["seat"], Place(position_index(e["at"]))),
    "discarded": lambda g, e: g.apply(e["seat"], Discard()),
    "fault": lambda g, e: g.fault(e["seat"], e["label"]),
    "forfeit": lambda g, e: g.forfeit(e["seat"], e["label"]),
}


def drive(engine: SixCardGolf, event: Mapping[str, Any]) -> bool:
    """Apply the input ``event`` records; False if the engine makes it by itself."""
    redo = _REDO.get(event.get("type"))  # type: ignore[arg-type]
    if redo is None:
        return False
    redo(engine, event)
    return True
