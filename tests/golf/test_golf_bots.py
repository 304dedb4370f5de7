"""The six-card golf reference bots and the in-process driver."""

from __future__ import annotations

import statistics
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.six_card_golf import expected_bot, greedy_bot, random_bot
from bots.six_card_golf.expected_bot import Unseen
from evaluator.golf import N_RANK_KEYS, RANK_KEY, key_row_points
from referee.games.six_card_golf import load
from referee.games.six_card_golf.local import play

GAME = load({})
BOTS = {"random": random_bot.act, "greedy": greedy_bot.act, "expected": expected_bot.act}


@pytest.mark.parametrize("players", [2, 4, 8])
def test_every_bot_plays_only_legal_actions(players):
    acts = [list(BOTS.values())[s % 3] for s in range(players)]
    results = play(GAME, acts, seeds=[players])
    assert len(results) == players
    assert all(r.faults == () for r in results)
    assert all(r.rounds >= 1 and sorted(r.bot_at) == list(range(players)) for r in results)


def test_duplicate_deals_rotate_every_bot_through_every_seat():
    results = play(GAME, [greedy_bot.act, greedy_bot.act, random_bot.act], seeds=[4, 5])
    assert [r.bot_at for r in results[:3]] == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    assert [r.seed for r in results] == [4, 4, 4, 5, 5, 5]
    # The deal belongs to the seed: three copies of one deterministic bot, rotated, play
    # the very same game.
    same = play(GAME, [greedy_bot.act] * 3, seeds=[4])
    assert same[0].outcome == same[1].outcome == same[2].outcome


def test_greedy_and_expected_are_deterministic():
    for act in (greedy_bot.act, expected_bot.act):
        a = play(GAME, [act, greedy_bot.act], seeds=[7])
        b = play(GAME, [act, greedy_bot.act], seeds=[7])
        assert a == b


def test_expected_points_beats_greedy_on_duplicate_deals():
    results = play(GAME, [expected_bot.act, greedy_bot.act], seeds=range(8))
    expected = statistics.mean(r.points_per_round(0) for r in results)
    greedy = statistics.mean(r.points_per_round(1) for r in results)
    assert expected < greedy - 0.5


def _unseen(counts: list[int]) -> Unseen:
    """An Unseen with these counts per rank key (built through a view that shows the rest
    of the pack in the discard pile)."""
    pile = []
    for key in range(N_RANK_KEYS):
        full = 4 if key == 13 else 8
        pile += [RANK_KEY.index(key)] * (full - counts[key])
    return Unseen({"grids": [], "discard": pile, "drawn": None})


@given(st.lists(st.integers(0, 4), min_size=N_RANK_KEYS, max_size=N_RANK_KEYS).filter(any),
       st.integers(0, N_RANK_KEYS - 1))
def test_the_closed_form_row_expectations_match_enumeration(counts, known):
    u = _unseen(counts)
    total = sum(counts)
    p = [c / total for c in counts]
    card = RANK_KEY.index(known)
    one = sum(p[k] * key_row_points(known, k) for k in range(N_RANK_KEYS))
    two = sum(p[k] * p[m] * key_row_points(k, m)
              for k, m in product(range(N_RANK_KEYS), repeat=2))
    assert u.row(card, None) == pytest.approx(one) == u.row(None, card)
    assert u.row(None, None) == pytest.approx(two)


def test_the_driver_charges_faults_and_crashes():
    def malformed(view):
        return {"kind": "fold"}

    def illegal(view):
        return {"kind": "discard"}

    def crashes(view):
        raise RuntimeError("bug")

    for bad, label in [(malformed, "malformed"), (illegal, "illegal"), (crashes, "crash")]:
        (result,) = play(GAME, [bad, greedy_bot.act], seeds=[1])[:1]
        assert result.faults and {lab for _, lab in result.faults} == {label}
        assert all(seat == 0 for seat, _ in result.faults)
        assert result.outcome.places[0] == 2
