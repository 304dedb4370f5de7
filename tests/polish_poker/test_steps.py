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
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
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
            assert [c.code for c in view.rows[0]] == shown[deal]["hands"][seat]  # as dealt
            assert all(c.seen_by == (None if over else (seat,)) for c in view.rows[0])
        if ruleset == "official":
            assert [c.code for c in step.piles[0].cards] == [shown[deal]["community"]]
            assert step.piles[0].cards[0].seen_by is None
        else:
            assert step.piles == ()
    assert steps[-1].result and "wins the game" in steps[-1].result


def test_a_game_step_by_step() -> None:
    g = PolishPoker("official", 3, seed=8)
    g.apply("pair 9")
    g.fault(1, "timeout")
    g.forfeit(0, "crash")
    g.apply("high A")
    g.apply("call")
    events = transcript(g)
    steps = load_game("polish-poker", {"ruleset": "official"}).steps(3, events)
    check_steps(steps, events, 3)
    loser = events[-2]["seat"] if events[-2]["type"] == "round_lost" else None
    assert [(s.actor, s.text) for s in steps] == [
        (None, "round 1 dealt (cap 5 cards); <0> opens"),
        (0, "<0> declares pair 9"),
        (1, "<1> faults: timeout"),
        (None, "round 2 dealt (cap 5 cards); <1> opens"),
        (0, "<0> forfeits: crash"),
        (None, "round 3 dealt (cap 5 cards); <2> opens"),
        (2, "<2> declares high A"),
        (1, "<1> calls"),
        (None, steps[8].text),
    ]
    assert [s.result for s in steps[:7]] == [
        None, None, "<1> loses the round: timeout", None,
        "<0> forfeits (crash) and is out, place 3", None, None]
    assert steps[4].seats[0].status == "out" and steps[4].seats[0].info == "place 3"
    assert steps[6].history == ("<2> declares high A",)
    assert steps[6].seats[1].status == "to act"
    assert steps[7].history == ("<2> declares high A", "<1> calls")
    assert steps[7].result in ("<1> loses the round: wrong call (high A is there)",
                               "<2> loses the round: bluff (high A is not there)")
    assert loser is not None and steps[7].result.startswith(f"<{loser}>")


def test_five_aces_and_the_call_it_draws_are_one_step() -> None:
    g = PolishPoker("official", 2, seed=3)
    g.apply("five A")
    events = transcript(g)
    steps = load_game("polish-poker", {"ruleset": "official"}).steps(2, events)
    check_steps(steps, events, 2)
    assert steps[1].text == "<0> declares five A; <1> is deemed to call"
    assert steps[1].actor == 0 and steps[1].event == 4  # declared, called, revealed, lost
    assert steps[1].result == "<0> loses the round: bluff (five A is not there)"


def test_events_that_are_not_polish_pokers_are_a_value_error() -> None:
    game = load_game("polish-poker", {"ruleset": "official"})
    with pytest.raises(ValueError):
        game.steps(3, [{"type": "declared", "round": 1, "seat": 0, "declaration": "pair 9"}])
    with pytest.raises(ValueError):
        game.steps(3, [{"type": "dealt", "round": 1}])
