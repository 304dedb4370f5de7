"""Turkish poker's rules at their edges, on the pure engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evaluator.turkish import OPENING_KEY, deck_for, rank_key
from referee.games.api import IllegalAction
from referee.games.turkish_poker import events as ev
from referee.games.turkish_poker.engine import Action, TurkishPoker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import (  # noqa: E402
    call_around,
    can_open,
    draw_all,
    engine_where,
    hand_ended,
    of_type,
    opened,
)


def legal_of(engine: TurkishPoker, kind: str) -> dict | None:
    return next((a for a in engine.legal(engine.current_seat) if a["kind"] == kind), None)


def test_passed_out_deals_reante_then_split_after_ten_with_odd_chips_left_of_dealer() -> None:
    engine = TurkishPoker(3, 7, hands=1, rake=0.2)
    assert engine.dealer == 2 and engine.current_seat == 0
    engine.apply(0, Action("fold"))
    for _ in range(10):
        engine.apply(engine.current_seat, Action("pass"))
        engine.apply(engine.current_seat, Action("pass"))
    antes = of_type(engine, ev.Antes)
    assert [a.deal for a in antes] == list(range(1, 11))
    # The folded seat antes no more, and the deck follows the two seats dealt in.
    assert antes[0].seats == (0, 1, 2) and antes[0].deck == 28
    assert all(a.seats == (1, 2) and a.deck == 24 for a in antes[1:])
    (pot,) = of_type(engine, ev.PotWon)
    assert (pot.amount, pot.rake, pot.winners, pot.shares) == (21, 0, (1, 2), (11, 10))
    assert hand_ended(engine).net == (-1, 1, 0) and hand_ended(engine).reason == "redeal-cap"
    assert engine.is_over


def test_all_pass_redeals_with_the_dealer_unchanged() -> None:
    engine = TurkishPoker(2, 3, hands=1)
    first = engine.current_seat
    engine.apply(first, Action("pass"))
    engine.apply(1 - first, Action("pass"))
    assert engine.deal == 2 and engine.current_seat == first and engine.dealer == 1
    assert engine.view(first)["pot"] == 4 and engine.stacks == [198, 198]


def test_opening_needs_kings_or_better_and_an_unqualified_open_is_illegal() -> None:
    engine = engine_where(2, lambda e: not can_open(e))
    seat = engine.current_seat
    assert rank_key(engine.cards[seat], engine.low_rank) < OPENING_KEY
    before = len(engine.events)
    with pytest.raises(IllegalAction, match="pair of kings"):
        engine.apply(seat, Action("open", 1))
    assert len(engine.events) == before and engine.phase == "opening"
    qualified = engine_where(2, can_open)
    assert rank_key(qualified.cards[qualified.current_seat], qualified.low_rank) >= OPENING_KEY


def test_no_limit_bounds() -> None:
    engine = engine_where(2, can_open)
    assert legal_of(engine, "open") == {"kind": "open", "min": 1, "max": 199}
    engine.apply(engine.current_seat, Action("open", 5))
    assert legal_of(engine, "raise") == {"kind": "raise", "min": 10, "max": 199}
    engine.apply(engine.current_seat, Action("raise", 12))     # a raise of 7
    assert legal_of(engine, "raise")["min"] == 19
    with pytest.raises(IllegalAction, match="outside 19..199"):
        engine.apply(engine.current_seat, Action("raise", 18))


def test_pot_limit_bounds() -> None:
    engine = engine_where(2, can_open, limit="pot-limit")
    assert legal_of(engine, "open") == {"kind": "open", "min": 1, "max": 2}
    engine.apply(engine.current_seat, Action("open", 2))
    # pot 4, 2 to call: at most 2 + (4 + 2) = 8
    assert legal_of(engine, "raise") == {"kind": "raise", "min": 4, "max": 8}
    engine.apply(engine.current_seat, Action("raise", 8))
    # pot 12, 6 to call: at most 8 + 18 = 26
    assert legal_of(engine, "raise") == {"kind": "raise", "min": 14, "max": 26}


def test_fixed_limit_sizes_and_four_bets_a_round() -> None:
    engine = engine_where(2, can_open, limit="fixed-limit")
    assert legal_of(engine, "open") == {"kind": "open", "min": 1, "max": 1}
    engine.apply(engine.current_seat, Action("open", 1))
    for to in (2, 3, 4):
        assert legal_of(engine, "raise") == {"kind": "raise", "min": to, "max": to}
        engine.apply(engine.current_seat, Action("raise", to))
    assert legal_of(engine, "raise") is None and legal_of(engine, "call")["amount"] == 1
    with pytest.raises(IllegalAction):
        engine.apply(engine.current_seat, Action("raise", 5))
    call_around(engine)
    draw_all(engine, 0)
    assert engine.phase == "final-round"
    assert legal_of(engine, "raise") == {"kind": "raise", "min": 2, "max": 2}


def test_an_all_in_for_less_does_not_reopen_the_betting() -> None:
    engine = opened(3, 10, hands=1, stacks=(100, 100, 20))
    assert engine.opener == 0
    engine.apply(1, Action("call"))
    # Seat 2 has 19: all in for a raise of 9, less than the 10 of the open.
    assert legal_of(engine, "raise") == {"kind": "raise", "min": 19, "max": 19}
    engine.apply(2, Action("raise", 19))
    for seat in (0, 1):
        assert engine.current_seat == seat
        assert {a["kind"] for a in engine.legal(seat)} == {"fold", "call"}
        engine.apply(seat, Action("call"))
    assert engine.phase == "draw"


def test_an_all_in_for_less_leaves_the_raise_to_seats_yet_to_act() -> None:
    engine = opened(4, 10, hands=1, stacks=(100, 20, 100, 100))
    engine.apply(1, Action("raise", 19))                     # all in for less
    assert legal_of(engine, "raise")["min"] == 29            # the last full raise stays 10
    engine.apply(2, Action("raise", 29))                     # a full raise reopens
    engine.apply(3, Action("call"))
    assert legal_of(engine, "raise") is not None             # the opener may raise again


def test_three_all_ins_make_side_pots_and_the_uncalled_rest_returns() -> None:
    engine = opened(4, 99, hands=1, stacks=(100, 40, 60, 80))
    for seat in (1, 2, 3):
        engine.apply(seat, Action("call"))
    draw_all(engine, 0)           # all-in seats draw too; then no one can bet
    (returned,) = of_type(engine, ev.Returned)
    assert (returned.seat, returned.amount) == (0, 20)
    pots = of_type(engine, ev.PotWon)
    assert [(p.amount, p.seats) for p in pots] == [
        (160, (0, 1, 2, 3)), (60, (0, 2, 3)), (40, (0, 3))]
    keys = {s: rank_key(engine.cards[s], engine.low_rank) for s in range(4)}
    for p in pots:
        assert p.winners == (max(p.seats, key=keys.get),)
    assert sum(hand_ended(engine).net) == 0


def test_the_stock_reshuffles_discards_and_folded_hands_but_not_the_drawers() -> None:
    engine = opened(5, 1, hands=1)
    call_around(engine)
    deck = set(deck_for(5))
    discards: dict[int, set[int]] = {}
    while engine.phase == "draw":
        seat = engine.current_seat
        out = tuple(engine.cards[seat][:4])
        discards[seat] = set(out)
        engine.apply(seat, Action("draw", cards=out))
        assert not discards[seat] & set(engine.cards[seat])
        held = [c for s in range(5) for c in engine.cards[s]]
        assert len(held) == len(set(held)) == 25
        assert set(held) | set(engine.stock) | set(engine.discards) | discards[seat] >= deck
    # The third drawer found 3 cards: the first two drawers' 8 discards became the stock.
    assert of_type(engine, ev.Reshuffled)[0].cards == 8


def test_final_round_starts_from_the_opener() -> None:
    engine = opened(3, 2, hands=1)
    opener = engine.opener
    call_around(engine)
    draw_all(engine, 1)
    assert engine.phase == "final-round" and engine.current_seat == opener


def test_final_round_starts_after_the_opener_if_it_folded() -> None:
    engine = opened(3, 2, hands=1)
    opener = engine.opener
    call_around(engine)
    while engine.phase == "draw":
        seat = engine.current_seat
        engine.apply(seat, Action("fold") if seat == opener else Action("draw"))
    assert engine.phase == "final-round" and engine.current_seat == (opener + 1) % 3


def test_rake_is_taken_after_the_opening_and_capped() -> None:
    engine = opened(2, 50, hands=1, rake=0.1, rake_cap=3)
    call_around(engine)
    draw_all(engine, 0)
    call_around(engine)
    (pot,) = of_type(engine, ev.PotWon)
    assert (pot.amount, pot.rake, sum(pot.shares)) == (102, 3, 99)
    assert sum(hand_ended(engine).net) == -3
    unopened = TurkishPoker(2, 1, hands=1, rake=0.1)
    unopened.apply(unopened.current_seat, Action("fold"))
    assert of_type(unopened, ev.PotWon)[0].rake == 0


def test_stacks_reset_every_hand() -> None:
    engine = opened(2, 150, hands=2)
    call_around(engine)
    draw_all(engine, 2)
    call_around(engine)
    assert 0 not in hand_ended(engine).net
    started = of_type(engine, ev.HandStarted)
    assert [s.stacks for s in started] == [(200, 200), (200, 200)]
    assert engine.stacks == [199, 199] and engine.dealer == 0


def test_a_fault_folds_the_hand_and_a_forfeit_sits_out_the_rest() -> None:
    engine = TurkishPoker(3, 5, hands=3)
    seat = engine.current_seat
    engine.fault(seat, "timeout")
    assert engine.folded[seat] and of_type(engine, ev.Acted)[-1].forced
    engine.forfeit(1, "crash")
    while not engine.is_over:
        engine.apply(engine.current_seat, Action("fold"))
    for started in of_type(engine, ev.HandStarted)[1:]:
        assert 1 not in started.seats
    for antes in of_type(engine, ev.Antes)[1:]:
        assert 1 not in antes.seats and antes.deck == 24
    outcome = engine.outcome()
    assert outcome.places[1] == 3 and outcome.scores[1] == -1
    assert sum(outcome.scores) == 0


def test_a_fault_needs_the_seat_to_act() -> None:
    engine = TurkishPoker(2, 5, hands=1)
    with pytest.raises(IllegalAction):
        engine.fault(1 - engine.current_seat, "timeout")


def test_a_seat_sees_only_its_own_cards_and_draws() -> None:
    engine = opened(2, 1, hands=1)
    call_around(engine)
    draw_all(engine, 2)
    for seat, payload in engine.notices(0):
        if payload["type"] == "dealt":
            assert payload["seat"] == seat
        if payload["type"] == "drew" and payload["seat"] != seat:
            assert set(payload) == {"type", "seat", "count"}
    view = engine.view(0)
    assert view["cards"] and len(view["cards"]) == 5
    assert all(v != engine.view(1)["cards"] for v in [view["cards"]])
