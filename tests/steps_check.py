"""The rules every game's replay steps keep (docs/adding-a-game.md, "Replay steps"),
checked on a transcript's steps by the tests of each game."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from referee.games.api import Step

SEAT_REF = re.compile(r"<(\d+)>")


def public_texts(step: Step) -> list[str]:
    """Every text of ``step`` that all seats may read."""
    return [step.text, *step.history, step.result or "",
            *(v.info for v in step.seats), *(v.status for v in step.seats),
            *(p.info for p in step.piles), *(p.label for p in step.piles)]


def hidden_codes(step: Step) -> set[str]:
    """The codes of the cards of ``step`` that are not face up to all (a code that is
    also face up somewhere, as with two decks, is not counted)."""
    cards = [c for v in step.seats for row in v.rows for c in row]
    cards += [c for p in step.piles for c in p.cards]
    return ({c.code for c in cards if c.seen_by is not None}
            - {c.code for c in cards if c.seen_by is None})


def check_steps(steps: Sequence[Step], events: Sequence[dict[str, Any]],
                players: int, unique_cards: bool = True) -> None:
    """Each event in exactly one step (``event`` strictly increasing, the last one the
    last event), a view per seat, JSON-ready, seats written ``<N>`` of real seats, and
    (with ``unique_cards``: a pack without two of a card, where a code names one card) no
    card that is hidden in a step named in its public texts."""
    assert steps, "no steps"
    marks = [s.event for s in steps]
    assert marks[0] >= 0 and marks[-1] == len(events) - 1
    assert all(a < b for a, b in zip(marks, marks[1:], strict=False)), marks
    for step in steps:
        assert len(step.seats) == players
        assert step.actor is None or 0 <= step.actor < players
        assert json.loads(json.dumps(step.to_dict())) == step.to_dict()
        hidden = hidden_codes(step) if unique_cards else set()
        for text in public_texts(step):
            assert all(int(n) < players for n in SEAT_REF.findall(text)), text
            leaked = hidden & set(re.findall(r"\w+", text))
            assert not leaked, f"step {step.event}: {leaked} hidden but in {text!r}"
        for view in step.seats:
            for row in view.rows:
                for card in row:
                    assert card.seen_by is None or all(0 <= s < players
                                                       for s in card.seen_by)
