"""Re-play a transcript (the ``to_dict`` forms of a game's events) with a fresh engine.

The seats' decisions are read off the transcript (``took``, ``placed``, ``discarded``)
with the referee's own interventions (``faulted``, ``forfeited``); everything else the
engine must produce by itself, identical event by event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluator.golf import position_index
from referee.games.api import IllegalAction, Outcome
from referee.games.six_card_golf.actions import Discard, Place, Take
from referee.games.six_card_golf.engine import SixCardGolf, UsageError

_REDO: dict[str, Callable[[SixCardGolf, Mapping[str, Any]], None]] = {
    "took": lambda g, e: g.apply(e["seat"], Take(e["from"])),
    "placed": lambda g, e: g.apply(e["seat"], Place(position_index(e["at"]))),
    "discarded": lambda g, e: g.apply(e["seat"], Discard()),
    "faulted": lambda g, e: g.fault(e["seat"], e["label"]),
    "forfeited": lambda g, e: g.forfeit(e["seat"], e["label"]),
}


def replay(engine: SixCardGolf, events: Sequence[Mapping[str, Any]]) -> Outcome:
    """Drive ``engine`` (new, from the transcript's seed and parameters) through
    ``events``; ValueError naming the first event that differs."""
    i = 0
    while i < len(events):
        if i < len(engine.events):
            got = engine.events[i].to_dict()
            if got != events[i]:
                raise ValueError(f"event {i} differs: the transcript has {dict(events[i])!r}, "
                                 f"the replay {got!r}")
            i += 1
            continue
        kind = events[i].get("type") if isinstance(events[i], Mapping) else None
        redo = _REDO.get(kind)  # type: ignore[arg-type]
        if redo is None:
            raise ValueError(f"event {i} ({kind!r}): the engine did not produce it, and it "
                             "is not a decision")
        try:
            redo(engine, events[i])
        except (IllegalAction, UsageError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"event {i} ({kind}): cannot be re-played: {exc}") from None
    if len(engine.events) > len(events) or not engine.is_over:
        raise ValueError(f"the transcript ends at event {len(events)} before the game does")
    return engine.outcome()
