"""Polish Poker's replay steps (``referee.games.polish_poker.steps``) on random games of
both rulesets: every event in exactly one step, hands seen by their seat alone until the
round ends, nothing private in a text."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import load_game
from referee.games.polish_poker.engine import PolishPoker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from steps_check import check_steps  # noqa: E402
from test_replay import random_game  # noqa: E402

ROUND_ENDS = ("round_lost", "eliminated", "game_over")


def transcript(game: PolishPoker) -> list[dict]:
    return json.loads(json.dumps([e.to_dict() for e in game.events]))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([("official", n) for n in range(2, 7)]
                       + [("polacco", n) for n in range(3, 9)]),
       st.integers(0, 2**32), st.integers(0, 2**32))
def test_steps_of_random_games(case: tuple, seed: int, action_seed: int) -> None:
    ruleset, players = case
    events = transcript(random_game(ruleset, players, seed, random.Random(action_seed)))
    steps = load_game("polish-poker", {"ruleset": ruleset}).steps(players, events)
    check_steps(steps, events, players)
    assert steps[0].event == 0 and steps[0].actor is None
    for step in steps:
        shown = events[: step.event + 1]
        deal = max(i for i, e in enumerate(shown) if e["type"] == "dealt")
        over = any(e["type"] in ROUND_ENDS for e in shown[deal:])
        for seat, view in enumerate(step.seats):
            hand = [c.code for c in view.rows[0]]
            assert hand == shown[deal]["hands"][seat]  # as dealt
            assert all(c.seen_by == (None if over else (seat,)) for c in view.rows[0])
        if ruleset == "official":
            assert [c.code for c in step.piles[0].cards] == [shown[deal]["community"]]
            assert step.piles[0].cards[0].seen_by is None
        else:
            assert step.piles == ()
    assert steps[-1].result and "wins the game" in steps[-1].result


def test_a_round_step_by_step() -> None:
    g = PolishPoker("official", 3, seed=8)
    g.apply("pair 9")
    g.fault(1, "timeout")
    g.forfeit(0, "crash")
    g.apply("high A")
    g.apply("call")
    g.apply("five A")
    events = transcript(g)
    steps = load_game("polish-poker", {"ruleset": "official"}).steps(3, events)
    check_steps(steps, events, 3)
    assert [(s.actor, s.text, s.result) for s in steps] == [
        (None, "round 1 dealt (cap 5 cards); <0> opens", None),
        (0, "<0> declares pair 9", None),
        (1, "<1> faults: timeout", "<1> loses the round: timeout"),
        (None, "round 2 dealt (cap 5 cards); <1> opens", None),
        (0, "<0> forfeits: crash", "<0> forfeits (crash) and is out, place 3"),
        (None, "round 3 dealt (cap 5 cards); <2> opens", None),
        (2, "<2> declares high A", None),
        (1, "<1> calls", steps[7].result),
        (None, "round 4 dealt (cap 5 cards); " + steps[8].text.split("; ")[1], None),
        (steps[9].actor, steps[9].text, steps[9].result),
    ][: len(steps)]
    assert steps[4].seats[0].status == "out" and steps[4].seats[0].info == "place 3"
    assert steps[6].history == ("<2> declares high A",)
    assert steps[7].history == ("<2> declares high A", "<1> calls")
    assert steps[7].result.startswith(("<1> loses the round: wrong call (high A is there)",
                                       "<2> loses the round: bluff (high A is not there)"))
    five = steps[9]
    assert five.text.endswith("declares five A; <" + five.text[-len("> is deemed to call") - 1]
                              + "> is deemed to call") or "five A" in five.text
    assert "is deemed to call" in five.text and five.result


def test_events_that_are_not_polish_pokers_are_a_value_error() -> None:
    game = load_game("polish-poker", {"ruleset": "official"})
    with pytest.raises(ValueError):
        game.steps(3, [{"type": "declared", "round": 1, "seat": 0, "declaration": "pair 9"}])
    with pytest.raises(ValueError):
        game.steps(3, [{"type": "dealt", "round": 1}])
