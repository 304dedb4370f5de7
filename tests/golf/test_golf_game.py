"""Six-card golf through its Game object: parameters, the wire codec, replay, check turns,
events and notices, the rules text, and the points of a grid."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.six_card_golf import greedy_bot, random_bot
from evaluator.cards import JOKER_ID, CardError, parse_card
from evaluator.golf import (
    CARD_POINTS,
    GOLF_PACK,
    MAX_GRID_POINTS,
    POSITIONS,
    card_points,
    grid_points,
    row_points,
)
from referee.games.api import IllegalAction
from referee.games.six_card_golf import GAME_PARAMS, load
from referee.games.six_card_golf.actions import (
    PILE,
    STOCK,
    Discard,
    Place,
    Take,
    parse_action,
    parse_local_action,
)
from referee.games.six_card_golf.local import play_game

GAME = load({})
EVERY_ACTION = [Take(STOCK), Take(PILE), *(Place(p) for p in range(6)), Discard()]


# ----------------------------------------------------------------------------- points


def test_the_pack_is_two_decks_with_four_jokers():
    assert len(GOLF_PACK) == 108 and GOLF_PACK.count(JOKER_ID) == 4
    assert all(GOLF_PACK.count(c) == 2 for c in range(52))


@pytest.mark.parametrize("text, points", [
    ("Kh", 0), ("Qs", 10), ("Jd", 10), ("Jk", -3), ("Ac", 1), ("2h", 2), ("9s", 9),
    ("Td", 10), ("10c", 10)])
def test_card_points(text, points):
    assert card_points(parse_card(text).id) == points
    with pytest.raises(CardError):
        card_points(53)


@pytest.mark.parametrize("a, b, points", [
    ("5h", "5s", 0), ("Qh", "Qd", 0), ("Qh", "Jh", 20), ("Jk", "Jk", -6), ("Jk", "5c", 2),
    ("Ah", "Ac", 0), ("Kh", "9c", 9)])
def test_row_points_pairs_by_rank_and_jokers(a, b, points):
    assert row_points(parse_card(a).id, parse_card(b).id) == points


@given(st.permutations(GOLF_PACK))
def test_a_grid_scores_between_minus_twelve_and_sixty(pack):
    grid = pack[:6]  # six cards of one pack: at most its four jokers
    points = grid_points(grid)
    assert -12 <= points <= MAX_GRID_POINTS
    assert points == sum(row_points(grid[i], grid[i + 1]) for i in (0, 2, 4))
    assert points <= sum(CARD_POINTS[c] for c in grid)   # a pair only ever lowers a row


def test_a_grid_has_six_cards():
    with pytest.raises(ValueError, match="6 cards"):
        grid_points([0] * 5)


# ----------------------------------------------------------------------------- params


def test_parameters_resolve_from_text_and_refuse_bad_values():
    assert [p.name for p in GAME_PARAMS] == ["target", "turn_cap", "round_cap"]
    assert GAME.params == {"target": 150, "turn_cap": 40, "round_cap": 100}
    assert load({"target": "60", "turn_cap": 5}).params["target"] == 60
    for given_, message in [({"target": "x"}, "parameter target: 'x'"),
                            ({"turn_cap": "0"}, "parameter turn_cap: '0'"),
                            ({"speed": "1"}, "unknown parameter 'speed'")]:
        with pytest.raises(ValueError, match=message):
            load(given_)
    assert GAME.new_game(3, 1).target == 150 and load({"target": "7"}).new_game(2, 1).target == 7
    assert GAME.name == "six-card-golf" and GAME.seats == range(2, 9)


# ----------------------------------------------------------------------------- the wire


def test_every_action_round_trips_through_the_wire():
    for action in EVERY_ACTION:
        assert GAME.parse_action(action.to_wire()) == action
        assert GAME.parse_local_action(action) == action
    assert [a.to_wire()["at"] for a in EVERY_ACTION if isinstance(a, Place)] == list(POSITIONS)


@pytest.mark.parametrize("payload, message", [
    ("take stock", "a map"),
    ({}, "unknown action kind None"),
    ({"kind": "draw"}, "unknown action kind 'draw'"),
    ({"kind": "take", "from": "discard"}, 'must be "stock" or "discard-pile"'),
    ({"kind": "take", "from": "Stock"}, 'must be "stock" or "discard-pile"'),
    ({"kind": "take"}, "missing"),
    ({"kind": "discard", "at": "r1c0"}, "unexpected"),
    ({"kind": "place", "at": "r3c0"}, "unknown position 'r3c0'"),
    ({"kind": "place", "at": 2}, "must be a position name"),
    ({"kind": ["take"]}, "unknown action kind"),
])
def test_malformed_actions_are_refused_with_one_line(payload, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_action(payload)
    assert "\n" not in str(info.value)


def test_local_actions_accept_text():
    assert parse_local_action(" Take STOCK ") == Take(STOCK)
    assert parse_local_action("take discard-pile") == Take(PILE)
    assert parse_local_action("place r2c1") == Place(5)
    assert parse_local_action("discard") == Discard()
    for bad in ("take", "place r0c2", "pass", 3):
        with pytest.raises(ValueError):
            parse_local_action(bad)


# ----------------------------------------------------------------------------- replay


def test_a_transcript_replays_to_the_same_outcome_and_tampering_is_named():
    g = GAME.new_game(3, 3)
    acts = [greedy_bot.act, random_bot.act, greedy_bot.act]
    while not g.is_over:
        seat = g.current_seat
        g.apply(seat, GAME.parse_local_action(acts[seat](g.view(seat))))
    transcript = json.loads(json.dumps([e.to_dict() for e in g.events]))
    assert GAME.replay(3, 3, transcript) == g.outcome()
    assert play_game(GAME, [greedy_bot.act] * 3, 3).outcome == GAME.replay(
        3, 3, [e.to_dict() for e in _greedy_game(3, 3).events])
    i = next(i for i, e in enumerate(transcript) if e["type"] == "took" and e["from"] == "stock")
    forged = [dict(e) for e in transcript]
    forged[i]["card"] = "Jk" if forged[i]["card"] != "Jk" else "Kh"
    with pytest.raises(ValueError, match=f"event {i} differs"):
        GAME.replay(3, 3, forged)
    j = next(i for i, e in enumerate(transcript) if e["type"] == "placed")
    moved = [dict(e) for e in transcript]
    moved[j]["seat"] = (moved[j]["seat"] + 1) % 3
    with pytest.raises(ValueError, match=f"event {j}"):
        GAME.replay(3, 3, moved)
    with pytest.raises(ValueError, match="ends at event 40 before the game does"):
        GAME.replay(3, 3, transcript[:40])
    with pytest.raises(ValueError, match="differs"):
        GAME.replay(3, 4, transcript)
    with pytest.raises(ValueError, match="the engine makes this event itself"):
        GAME.replay(3, 3, [*transcript, {"type": "dealt"}])


def _greedy_game(players: int, seed: int):
    g = GAME.new_game(players, seed)
    while not g.is_over:
        g.apply(g.current_seat, GAME.parse_local_action(greedy_bot.act(g.view(g.current_seat))))
    return g


def test_faults_and_forfeits_replay():
    g = GAME.new_game(3, 12)
    g.apply(1, Take(STOCK))
    g.fault(1, "timeout")
    g.forfeit(0, "crash")
    g.apply(g.current_seat, Take(PILE))
    g.forfeit(1, "faults")
    assert g.is_over and g.outcome().places == (3, 2, 1)
    transcript = [e.to_dict() for e in g.events]
    assert GAME.replay(3, 12, transcript) == g.outcome()


# ----------------------------------------------------------------------------- events


def test_events_are_json_safe_and_notices_go_to_every_seat():
    g = GAME.new_game(4, 5)
    while g.round == 1:
        g.apply(g.current_seat, parse_action(g.view(g.current_seat)["legal"][0]))
    for e in g.events:
        d = e.to_dict()
        assert json.loads(json.dumps(d)) == d and isinstance(d["type"], str)
    notices = g.notices(0)
    assert len(notices) == 4 * len(g.events)
    assert [s for s, _ in notices[:4]] == [0, 1, 2, 3]
    assert g.notices(len(g.events)) == []


# ----------------------------------------------------------------------------- check turns


def test_check_turns_pair_a_legal_action_with_a_refused_one():
    turns = GAME.check_turns()
    assert len(turns) == 5
    views = [t.engine.view(t.engine.current_seat) for t in turns]
    for view, turn in zip(views, turns, strict=True):
        assert turn.legal in view["legal"] and turn.illegal not in view["legal"]
        assert GAME.parse_action(turn.legal).to_wire() == turn.legal
    with pytest.raises(ValueError):
        GAME.parse_action(turns[-1].illegal)   # "discard" is not a source: malformed
    phases = [(v["seat"], v["phase"], v["drawn_from"]) for v in views]
    assert phases == [(1, "take", None), (1, "place", PILE), (0, "place", STOCK),
                      (1, "place", STOCK), (0, "take", None)]
    assert views[3]["frozen"] == [False, True]


def test_an_illegal_check_action_is_refused_by_the_engine():
    from referee.games.six_card_golf.check import scripted_game
    g = scripted_game()
    with pytest.raises(IllegalAction):
        g.apply(1, Discard())


def test_the_rules_text_says_lower_is_better_and_the_fault_policy():
    text = GAME.rules_text()
    for phrase in ("lowest", "lower is better", "frozen", "scores 60", "turn_cap", "-6",
                   "must replace a card", "out of the game", "share a place"):
        assert phrase in text


def test_the_views_legal_list_is_the_engines_and_only_the_seat_to_act_plays():
    g = GAME.new_game(2, 21)
    for _ in range(30):
        seat = g.current_seat
        legal = [parse_action(a) for a in g.view(seat)["legal"]]
        assert legal == g.legal_actions()
        for action, s in product(legal[:2], range(2)):
            if s != seat:
                with pytest.raises(IllegalAction):
                    g.apply(s, action)
        g.apply(seat, legal[0])


def test_the_spec_example_is_the_first_check_turn():
    spec = (Path(__file__).parents[2] / "referee/games/six_card_golf/SPEC.md").read_text()
    example = json.loads(spec.split("```json\n")[1].split("```")[0])
    engine = GAME.check_turns()[0].engine
    view = engine.view(engine.current_seat)
    assert {k: view[k] for k in example} == example


def test_transcripts_before_schema_4_name_the_fault_events_faulted_and_forfeited():
    """The old names still replay, count as faults and draw their steps."""
    g = GAME.new_game(3, 5)
    g.apply(g.current_seat, Take(STOCK))
    g.fault(g.current_seat, "timeout")
    g.forfeit(0, "crash")
    while not g.is_over:
        g.apply(g.current_seat, g.legal_actions()[0])
    now = json.loads(json.dumps([e.to_dict() for e in g.events]))
    old = [{**e, "type": {"fault": "faulted", "forfeit": "forfeited"}.get(e["type"],
                                                                         e["type"])}
           for e in now]
    assert {"faulted", "forfeited"} <= {e["type"] for e in old}
    assert GAME.replay(3, 5, old) == GAME.replay(3, 5, now) == g.outcome()
    assert GAME.faults(old) == GAME.faults(now) == [(g.events[2].seat, "timeout"),
                                                    (0, "crash")]
    assert GAME.steps(3, old) == GAME.steps(3, now)
