"""Each rule of six-card golf at its edge, on the pure engine (RULES.md, "Six-card golf")."""

from __future__ import annotations

import random

import pytest

from evaluator.cards import parse_card
from evaluator.golf import GOLF_PACK
from referee.games.six_card_golf.actions import PILE, STOCK, Discard, Place, Take
from referee.games.six_card_golf.engine import (
    FAULT_POINTS,
    FrozenTopRow,
    GameAlreadyOver,
    MustReplace,
    NotYourTurn,
    SixCardGolf,
    UsageError,
    WrongPhase,
    shuffle,
)

G2 = ("Kh 9c 5d Qs 2c 7h", "8s 3d Jd Th 6c Ac")


def card(text: str) -> int:
    return parse_card(text).id


def kinds(g: SixCardGolf, since: int = 0) -> list[str]:
    return [e.to_dict()["type"] for e in g.events[since:]]


def last(g: SixCardGolf, kind: str) -> dict:
    return next(e.to_dict() for e in reversed(g.events) if e.to_dict()["type"] == kind)


def discard_turn(g: SixCardGolf) -> None:
    seat = g.current_seat
    g.apply(seat, Take(STOCK))
    g.apply(seat, Discard())


def place_turn(g: SixCardGolf, position: int, source: str = STOCK) -> None:
    seat = g.current_seat
    g.apply(seat, Take(source))
    g.apply(seat, Place(position))


# ----------------------------------------------------------------------------- the deal


def test_the_deal_follows_the_documented_shuffle_from_the_dealers_left():
    g = SixCardGolf(3, seed=5)
    pack = list(GOLF_PACK)
    shuffle(pack, random.Random("six-card-golf/5/1"))
    assert (g.dealer, g.starter, g.current_seat, g.phase) == (0, 1, 1, "take")
    assert g.grids == [pack[12:18], pack[0:6], pack[6:12]]
    assert g.discard == [pack[18]]
    assert g.stock[::-1] == pack[19:] and len(g.stock) == 108 - 19
    for seat in range(3):
        for shown in g.view(seat)["grids"]:
            assert shown["r0c0"] is not None and shown["r0c1"] is not None
            assert [shown[p] for p in ("r1c0", "r1c1", "r2c0", "r2c1")] == [None] * 4


def test_a_rounds_deal_depends_on_the_seed_and_the_round_only():
    a = SixCardGolf(2, seed=9, turn_cap=1)
    b = SixCardGolf(2, seed=9, turn_cap=1)
    assert a.events[0] == b.events[0] != SixCardGolf(2, seed=10).events[0]
    discard_turn(a)
    discard_turn(a)
    place_turn(b, 0, PILE)
    place_turn(b, 3)
    assert a.round == b.round == 2
    assert a.events[-1] == b.events[-1]
    assert a.history != b.history


def test_the_deal_passes_to_the_left_and_the_dealers_left_starts():
    g = SixCardGolf(3, seed=1, turn_cap=1)
    for k in range(1, 5):
        assert (g.round, g.dealer, g.starter) == (k, (k - 1) % 3, k % 3)
        order = []
        for _ in range(3):
            order.append(g.current_seat)
            discard_turn(g)
        assert order == [k % 3, (k + 1) % 3, (k + 2) % 3]


# ----------------------------------------------------------------------------- a turn


def test_a_turn_starts_with_a_take_and_only_the_seat_to_act_plays(rig):
    g = rig(G2)
    before = (len(g.events), g.view(0), g.view(1))
    for seat, action, error in [(1, Place(2), WrongPhase), (1, Discard(), WrongPhase),
                                (0, Take(STOCK), NotYourTurn)]:
        with pytest.raises(error):
            g.apply(seat, action)
    assert (len(g.events), g.view(0), g.view(1)) == before
    g.apply(1, Take(STOCK))
    with pytest.raises(WrongPhase):
        g.apply(1, Take(PILE))


def test_a_card_from_the_discard_pile_must_replace_a_card(rig):
    g = rig(G2)
    g.apply(1, Take(PILE))
    assert g.view(0)["drawn"] == card("4h") == g.view(1)["drawn"]
    assert {"kind": "discard"} not in g.view(1)["legal"]
    with pytest.raises(MustReplace):
        g.apply(1, Discard())
    g.apply(1, Place(2))
    assert g.grids[1][2] == card("4h") and g.face_up[1][2]
    assert g.discard == [card("Jd")] and g.current_seat == 0


def test_a_card_from_the_stock_may_be_discarded_and_is_private_until_then(rig):
    g = rig(G2, stock=["Jk", "9d"])
    g.apply(1, Take(STOCK))
    assert g.view(1)["drawn"] == card("Jk") and g.view(0)["drawn"] is None
    assert g.view(0)["drawn_from"] == "stock"
    assert {"kind": "discard"} in g.view(1)["legal"]
    g.apply(1, Discard())
    assert g.discard == [card("4h"), card("Jk")]
    assert (g.current_seat, g.turns, g.frozen) == (0, [0, 1], [False, False])


def test_the_top_row_is_frozen_once_a_bottom_card_was_replaced(rig):
    g = rig(G2)
    place_turn(g, 0)   # seat 1 replaces a top card: allowed, nothing frozen
    discard_turn(g)
    place_turn(g, 1)
    discard_turn(g)
    assert g.frozen == [False, False]
    place_turn(g, 3)   # a bottom card: the top row freezes
    assert g.frozen == [False, True]
    discard_turn(g)
    g.apply(1, Take(STOCK))
    for top in (0, 1):
        with pytest.raises(FrozenTopRow, match="frozen"):
            g.apply(1, Place(top))
    assert [a["at"] for a in g.view(1)["legal"] if a["kind"] == "place"] == [
        "r1c0", "r1c1", "r2c0", "r2c1"]
    g.apply(1, Place(3))  # a face-up bottom card may be replaced again
    g.apply(0, Take(STOCK))
    g.apply(0, Place(1))  # seat 0's top row is not frozen


# ----------------------------------------------------------------------------- round end


def test_going_out_gives_every_other_seat_exactly_one_last_turn(rig):
    g = rig(("Kh 9c 5d Qs 2c 7h", "8s 3d Jd Th 6c Ac", "2d 2h 3s 4c 5c 6d"))
    # Seat 1 starts and turns a bottom card every turn; seat 2 too, one step behind.
    for position in (2, 3, 4):
        place_turn(g, position)
        place_turn(g, position)
        discard_turn(g)
    place_turn(g, 5)
    assert kinds(g)[-2:] == ["placed", "went_out"] and g.out_seat == 1
    mark = len(g.events)
    place_turn(g, 5)   # seat 2 turns its last card too: no second going out
    discard_turn(g)    # seat 0's last turn ends the round
    assert kinds(g, mark) == ["took", "placed", "took", "discarded", "round_ended", "dealt"]
    assert last(g, "round_ended")["reason"] == "out"
    assert (g.round, g.dealer, g.starter) == (2, 1, 2)


def test_the_stock_is_reshuffled_keeping_the_discards_top_card():
    g = SixCardGolf(8, seed=3)
    assert len(g.stock) == 108 - 48 - 1
    while len(g.stock) > 1:
        discard_turn(g)
    pile = list(g.discard)
    seat = g.current_seat
    g.apply(seat, Take(STOCK))
    g.apply(seat, Place(4))   # the last stock card is placed: the replaced card is on top
    replaced = last(g, "placed")["replaced"]
    assert kinds(g)[-1] == "reshuffled" and last(g, "reshuffled")["stock"] == len(pile)
    assert g.discard == [card(replaced)]
    assert sorted(g.stock) == sorted(pile)
    assert g.current_seat == (seat + 1) % 8 and g.phase == "take"


def test_the_turn_cap_ends_a_round_in_which_no_one_went_out():
    g = SixCardGolf(2, seed=4)
    for _ in range(79):
        discard_turn(g)
    assert g.round == 1 and g.turns == [39, 40]
    discard_turn(g)
    assert last(g, "round_ended")["reason"] == "cap" and g.round == 2


def test_going_out_on_the_capped_lap_still_gives_the_last_turns():
    g = SixCardGolf(2, seed=4, turn_cap=4)
    for position in (2, 3, 4, 5):
        discard_turn(g)            # seat 1, the starter
        place_turn(g, position)    # seat 0: its 4th turn (the cap) goes out
    assert g.out_seat == 0 and g.turns == [4, 4] and g.round == 1
    discard_turn(g)                # seat 1's 5th turn, its last
    assert last(g, "round_ended")["reason"] == "out" and g.round == 2


# ----------------------------------------------------------------------------- scoring


SCORED = {
    "Kh Ks 5d 5c Jk Jk": -6,    # a king pair, a five pair, a joker pair
    "Qh Jd 7c 2s Ac Ad": 29,    # Q and J do not pair; an ace pair is 0
    "Jk 3c 3d 9h Th Tc": 12,    # a lone joker is -3
    "5h 2c 5s 3c 9d 9s": 15,    # equal ranks in different rows do not pair
}


def test_round_points_count_every_card_with_pairs_and_jokers(rig):
    g = rig(tuple(SCORED), turn_cap=1)
    for _ in range(4):
        discard_turn(g)
    ended = last(g, "round_ended")
    assert ended["points"] == list(SCORED.values()) == ended["totals"] == g.totals
    assert ended["grids"][0] == "Kh Ks 5d 5c Jk Jk".split()
    assert g.view(0)["rounds"] == [list(SCORED.values())]


@pytest.mark.parametrize("target, over", [(30, False), (29, True), (20, True)])
def test_the_game_ends_after_the_round_reaching_target(rig, target, over):
    g = rig(tuple(SCORED)[1:], turn_cap=1, target=target)   # 29, 12, 15
    for _ in range(3):
        discard_turn(g)
    assert g.is_over is over and kinds(g)[-1] == ("game_over" if over else "dealt")


def test_equal_totals_share_a_place_and_the_lowest_total_wins(rig):
    g = rig(("Jk 3c 3d 9h Th Tc", "Qh Jd 7c 2s Ac Ad", "2c 2d 5h 7c 9d 9s"),
            turn_cap=1, target=20)
    for _ in range(3):
        discard_turn(g)
    assert g.totals == [12, 29, 12]
    outcome = g.outcome()
    assert outcome.places == (1, 3, 1) and outcome.scores == (12.0, 29.0, 12.0)
    assert last(g, "game_over") == {"type": "game_over", "places": [1, 3, 1],
                                    "totals": [12, 29, 12]}
    with pytest.raises(GameAlreadyOver):
        g.apply(0, Take(STOCK))


def test_the_round_cap_ends_a_game_nobody_finishes():
    g = SixCardGolf(2, seed=2, turn_cap=1, target=10_000, round_cap=3)
    while not g.is_over:
        discard_turn(g)
    assert g.round == 3 and len(g.history) == 3


# ----------------------------------------------------------------------------- faults


def test_a_fault_ends_the_round_and_costs_the_most_a_grid_can_score(rig):
    g = rig(G2)
    g.apply(1, Take(STOCK))
    with pytest.raises(UsageError):
        g.fault(0, "timeout")   # not seat 0's decision
    g.fault(1, "timeout")
    assert kinds(g)[-3:] == ["fault", "round_ended", "dealt"]
    assert last(g, "fault") == {"type": "fault", "round": 1, "seat": 1,
                                  "label": "timeout", "points": 60}
    assert last(g, "round_ended")["points"] == [33, FAULT_POINTS]
    assert g.round == 2 and g.active == [True, True]


def test_a_forfeit_ends_the_round_and_puts_the_seat_last_for_good():
    g = SixCardGolf(3, seed=8)
    g.forfeit(2, "crash")
    assert last(g, "forfeit")["place"] == 3 and last(g, "round_ended")["points"][2] == 60
    assert g.grids[2] == [] and g.view(0)["grids"][2] is None
    assert (g.round, g.dealer, g.starter) == (2, 1, 0)   # seat 2 is skipped
    for _ in range(4):
        discard_turn(g)
        assert g.current_seat != 2
    with pytest.raises(UsageError):
        g.forfeit(2, "crash")
    g.forfeit(0, "faults")
    assert g.is_over and g.outcome().places == (2, 1, 3)
    with pytest.raises(UsageError):
        g.forfeit(1, "crash")


def test_bad_engine_usage_is_refused():
    with pytest.raises(UsageError, match="2 to 8 players"):
        SixCardGolf(9, seed=1)
    g = SixCardGolf(2, seed=1)
    with pytest.raises(UsageError, match="label"):
        g.fault(1, "")
    with pytest.raises(UsageError, match="not a six-card golf action"):
        g.apply(1, "take stock")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="not over"):
        g.outcome()


def test_with_the_default_target_the_game_ends_after_the_round_reaching_150():
    g = SixCardGolf(2, seed=6)
    assert g.target == 150
    while not g.is_over:
        before = max(g.totals)
        assert before < 150
        g.fault(g.current_seat, "timeout")   # 60 for the faulting seat each round
    assert max(g.totals) >= 150 > before


def test_a_set_deal_must_fit_the_pack_and_the_round(rig):
    g = SixCardGolf(2, seed=1)
    with pytest.raises(UsageError, match="more copies"):
        g.set_deal(["Jk Jk Jk Jk 2c 3c", "Jk 2d 3d 4d 5d 6d"], "4h")
    with pytest.raises(UsageError, match="six cards"):
        g.set_deal(["2c 3c", "2d 3d 4d 5d 6d 7d"], "4h")
    g = rig(G2)
    discard_turn(g)
    with pytest.raises(UsageError, match="first decision"):
        g.set_deal(G2, "4h")
