"""Turkish poker's replay steps (``referee.games.turkish_poker.steps``) on random games:
every event in exactly one step, no hidden card in a text, and at each step that ends
where a decision is asked, what every seat sees (``--seat N``) agrees with the engine's
view of that seat: its own cards and no one else's until a showdown, stacks, the pot,
who folded, who is all in or out, who is to act."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.turkish import card_text
from referee.games import load_game
from referee.games.api import Step
from referee.games.turkish_poker.engine import TurkishPoker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from steps_check import check_steps  # noqa: E402
from turkish.test_random_play import legal_move  # noqa: E402

STATUS = {"in": "", "folded": "folded", "all-in": "all-in", "out": "out"}


def play(players: int, seed: int, trouble: float) -> tuple[TurkishPoker, dict[int, list]]:
    rng = random.Random(seed)
    g = TurkishPoker(players, seed, hands=3)
    views = {}
    while not g.is_over:
        seat, roll = g.current_seat, rng.random()
        if roll < trouble:
            g.fault(seat, "timeout")
        elif roll < 2 * trouble:
            g.forfeit(rng.randrange(players), "crash")
        else:
            g.apply(seat, legal_move(rng, g, seat))
        views[len(g.events)] = [g.view(s) for s in range(players)]
    return g, views


def check_view(step: Step, view: dict, viewer: int, decided: bool) -> None:
    """``decided``: the next event is a decision (else a forfeit comes first, and who was
    to act is not in the transcript)."""
    for seat, seat_view in enumerate(step.seats):
        cards = [c.code if c.seen(viewer) else None for c in seat_view.rows[0]]
        if seat == viewer:  # the step's texts, the view's protocol integers
            assert cards == [card_text(c) for c in view["cards"]]
        else:
            assert set(cards) <= {None}, (seat, cards)  # no showdown before a decision
        want = STATUS[view["status"][seat]]
        if decided and not want and seat == view["to_act"]:
            want = "to act"
        assert seat_view.status == want
        assert seat_view.info.split(",")[0] == f"stack {view['stacks'][seat]}"
    assert step.piles[0].info == f"{view['pot']} chips"


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32),
       trouble=st.sampled_from([0.0, 0.02, 0.1]))
def test_steps_show_each_seat_what_it_saw(players: int, seed: int, trouble: float) -> None:
    g, views = play(players, seed, trouble)
    events = json.loads(json.dumps([e.to_dict() for e in g.events]))
    steps = load_game("turkish-poker", {"hands": 3}).steps(players, events)
    check_steps(steps, events, players)
    compared = 0
    for step in steps:
        after = views.get(step.event + 1)
        if after is None or g.is_over and step.event + 1 == len(events):
            continue
        decided = events[step.event + 1]["type"] in ("action", "drew", "fault", "reshuffled")
        for viewer in range(players):
            check_view(step, after[viewer], viewer, decided)
        compared += 1
    assert compared >= len(views) // 2
    for step in steps:  # shown cards are face up from the showdown on
        for seat, view in enumerate(step.seats):
            if step.result and f"<{seat}> shows" in step.result:
                assert all(c.seen_by is None for c in view.rows[0])
    assert steps[-1].result.startswith("places: ")
