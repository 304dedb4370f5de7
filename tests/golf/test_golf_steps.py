"""Six-card golf's replay steps (``referee.games.six_card_golf.steps``) on random games:
every event in exactly one step, and at each step that ends where a decision is asked,
every seat's view of the table (``--seat N``) is exactly what the engine's view of that
seat holds: face-down cards, the card taken from the stock, the discard pile, the stock."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.cards import CARD_TEXT
from evaluator.golf import POSITIONS
from referee.games.api import Step
from referee.games.six_card_golf import load
from referee.games.six_card_golf.actions import STOCK, Take
from referee.games.six_card_golf.engine import SixCardGolf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from steps_check import check_steps  # noqa: E402


def play(players: int, seed: int, trouble: float) -> tuple[SixCardGolf, dict[int, list]]:
    """A random game, with every seat's view after each decision (by event count)."""
    rng = random.Random(seed)
    g = SixCardGolf(players, seed, target=40, turn_cap=6, round_cap=6)
    views = {len(g.events): [g.view(s) for s in range(players)]}
    while not g.is_over:
        seat, roll = g.current_seat, rng.random()
        if roll < trouble:
            g.fault(seat, "timeout")
        elif roll < 2 * trouble:
            g.forfeit(rng.choice([s for s in range(players) if g.active[s]]), "crash")
        elif g.phase == "take" and roll < 0.6:
            g.apply(seat, Take(STOCK))
        else:
            g.apply(seat, rng.choice(g.legal_actions()))
        views[len(g.events)] = [g.view(s) for s in range(players)]
    return g, views


def seen(card, viewer: int) -> str | None:
    return card.code if card.seen(viewer) else None


def check_view(step: Step, view: dict, viewer: int) -> None:
    """What seat ``viewer`` sees in ``step`` is what its engine view holds."""
    for seat, grid in enumerate(view["grids"]):
        cards = [c for row in step.seats[seat].rows for c in row]
        if grid is None:
            assert not cards
            continue
        want = [None if grid[p] is None else CARD_TEXT[grid[p]] for p in POSITIONS]
        assert [seen(c, viewer) for c in cards] == want
    piles = {p.label: p for p in step.piles}
    drawn = [seen(c, viewer) for c in piles["drawn"].cards] if "drawn" in piles else []
    assert drawn == ([] if view["drawn"] is None and view["drawn_from"] is None
                     else [None if view["drawn"] is None else CARD_TEXT[view["drawn"]]])
    assert [c.code for c in piles["discard"].cards] == [CARD_TEXT[c] for c in view["discard"][-1:]]
    assert piles["discard"].info.split()[0] == str(len(view["discard"]))
    assert piles["stock"].info.split()[0] == str(view["stock"])
    assert [v.status == "to act" for v in step.seats] == [
        s == view["to_act"] for s in range(view["players"])]
    assert [v.info.endswith(f"total {t}") for v, t in zip(step.seats, view["totals"],
                                                           strict=True)] == [True] * len(
        view["totals"])


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32),
       trouble=st.sampled_from([0.0, 0.01, 0.05]))
def test_steps_show_each_seat_what_it_saw(players: int, seed: int, trouble: float) -> None:
    g, views = play(players, seed, trouble)
    events = json.loads(json.dumps([e.to_dict() for e in g.events]))
    steps = load({}).steps(players, events)
    check_steps(steps, events, players, unique_cards=False)
    compared = 0
    for step in steps:
        after = views.get(step.event + 1)
        if after is None or events[step.event]["type"] == "game_over":
            continue
        for viewer in range(players):
            check_view(step, after[viewer], viewer)
        compared += 1
    assert compared >= len(views) // 2
    for step in steps:
        if events[step.event]["type"] != "took" or events[step.event]["from"] != STOCK:
            continue
        assert step.text == f"<{step.actor}> takes a card from the stock"
    ends = [s for s in steps if s.result and s.result.startswith("round ")]
    assert len(ends) == sum(e["type"] == "round_ended" for e in events)
    for step in ends:  # every card turned up
        assert all(c.seen_by is None for v in step.seats for row in v.rows for c in row)
    assert steps[-1].result.startswith("places: ")
