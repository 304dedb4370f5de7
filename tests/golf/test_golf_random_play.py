"""Random play under hypothesis: the 108 cards are conserved, only legal actions are
accepted (a refused one changes nothing), faults and forfeits keep the game sound, every
game ends, and its transcript replays to the same outcome."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluator.golf import GOLF_PACK, GRID_SIZE
from referee.games.api import IllegalAction
from referee.games.six_card_golf import load
from referee.games.six_card_golf.actions import PILE, STOCK, Discard, Place, Take
from referee.games.six_card_golf.engine import SixCardGolf

EVERY_ACTION = [Take(STOCK), Take(PILE), *(Place(p) for p in range(GRID_SIZE)), Discard()]
PACK = Counter(GOLF_PACK)


def check_invariants(g: SixCardGolf, cards_in_play) -> None:
    assert cards_in_play(g) == PACK
    assert all(len(grid) == (GRID_SIZE if g.active[s] else 0) or g.is_over
               for s, grid in enumerate(g.grids))
    assert g.totals == [sum(p[s] or 0 for p in g.history) for s in range(g.players)]
    if g.is_over:
        return
    assert g.active[g.current_seat]
    assert all(t <= g.turn_cap + 1 for t in g.turns)
    if g.phase == "take":
        assert g.stock and g.discard and g.drawn is None
    else:
        assert g.drawn is not None and g.drawn_from in (STOCK, PILE)


def snapshot(g: SixCardGolf) -> tuple:
    return (len(g.events), [g.view(s) for s in range(g.players)], list(g.stock))


@settings(max_examples=40, deadline=None)
@example(seed=5, players=8, target=150, turn_cap=40, trouble=0.0, patience=0.95)
@example(seed=6, players=3, target=150, turn_cap=40, trouble=0.002, patience=0.95)
@given(seed=st.integers(0, 2**53), players=st.integers(2, 8),
       target=st.integers(1, 150), turn_cap=st.integers(1, 40),
       trouble=st.sampled_from([0.0, 0.002, 0.02]), patience=st.sampled_from([0.0, 0.95]))
def test_random_play_keeps_the_game_sound(cards_in_play, seed, players, target, turn_cap,
                                          trouble, patience):
    """``patience``: how often a seat takes from the stock and discards, which makes long
    rounds, stock reshuffles and turn caps likely."""
    rng = random.Random(seed)
    g = SixCardGolf(players, seed, target=target, turn_cap=turn_cap, round_cap=30)
    bound = 30 * (players * (turn_cap + 1) * 2 + 2) + 10
    decisions = 0  # actions and faults so far: seats that leave between two share a place
    left: list[tuple[int, int]] = []  # (seat, decisions before it left)
    for _ in range(bound):
        if g.is_over:
            break
        check_invariants(g, cards_in_play)
        seat = g.current_seat
        legal = g.legal_actions()
        attempt = rng.choice(EVERY_ACTION)
        if attempt not in legal:
            before = snapshot(g)
            try:
                g.apply(seat, attempt)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"{attempt} accepted, legal were {legal}")
            assert snapshot(g) == before
            wrong_seat = (seat + 1) % players
            try:
                g.apply(wrong_seat, legal[0])
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"seat {wrong_seat} played out of turn")
            assert snapshot(g) == before
        roll = rng.random()
        if roll < trouble:
            g.fault(seat, "timeout")
        elif roll < 2 * trouble:
            leaver = rng.choice([s for s in range(players) if g.active[s]])
            g.forfeit(leaver, "crash")
            left.append((leaver, decisions))
            continue
        elif rng.random() < patience:
            g.apply(seat, Take(STOCK) if g.phase == "take" else legal[-1])
        else:
            g.apply(seat, rng.choice(legal))
        decisions += 1
    assert g.is_over, "the game did not end"
    check_invariants(g, cards_in_play)
    places = g.outcome().places
    seats_in = [s for s in range(players) if g.active[s]]
    for s in seats_in:
        assert places[s] == 1 + sum(g.totals[t] < g.totals[s] for t in seats_in)
    # RULES.md: below every seat that stayed, the later leaver higher, those that left
    # at the same decision sharing a place.
    for seat, when in left:
        assert places[seat] == len(seats_in) + 1 + sum(then > when for _, then in left)
    transcript = json.loads(json.dumps([e.to_dict() for e in g.events]))
    game = load({"target": target, "turn_cap": turn_cap, "round_cap": 30})
    assert game.replay(players, seed, transcript) == g.outcome()
