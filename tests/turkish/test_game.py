"""Turkish poker as a package: parameters, the wire codec, replay, check turns, rules
text, the reference bots and the in-process driver."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from bots.turkish_poker import equity_bot, random_bot, rules_bot
from evaluator.turkish import LOW_RANK, category_name, parse_hand, rank_key
from referee.games.api import IllegalAction, resolve_params
from referee.games.turkish_poker import GAME_PARAMS, load
from referee.games.turkish_poker.engine import Action
from referee.games.turkish_poker.local import chips_by_bot, play, play_one
from referee.games.turkish_poker.wire import action_payload, parse_action


def test_params_resolve_from_text_and_refuse_bad_values() -> None:
    params = resolve_params(GAME_PARAMS, {"limit": "pot-limit", "hands": "5", "rake": "0.05"})
    assert params == {"limit": "pot-limit", "hands": 5, "stack": 200, "rake": 0.05,
                      "rake_cap": 0}
    for given, words in [({"limit": "table-stakes"}, "limit"), ({"hands": "0"}, "hands"),
                         ({"stack": "10"}, "stack"), ({"rake": "0.9"}, "rake"),
                         ({"ante": "2"}, "ante"), ({"hands": "many"}, "hands")]:
        with pytest.raises(ValueError, match=words):
            resolve_params(GAME_PARAMS, given)
    with pytest.raises(ValueError, match="rake_cap"):
        load({"rake_cap": -1})
    assert load(params).params == params


@pytest.mark.parametrize("payload", [
    {"kind": "fold"}, {"kind": "pass"}, {"kind": "call"}, {"kind": "open", "amount": 3},
    {"kind": "raise", "to": 12}, {"kind": "draw", "cards": []},
    {"kind": "draw", "cards": [50, 33, 28]},
])
def test_actions_round_trip(payload) -> None:
    assert action_payload(parse_action(payload)) == payload


@pytest.mark.parametrize("payload, words", [
    ("fold", "map"), ({"kind": "bet"}, "unknown action kind"), ({"kind": "raise"}, "'to'"),
    ({"kind": "raise", "to": 2.5}, "whole number"), ({"kind": "raise", "to": True}, "whole"),
    ({"kind": "open", "amount": -1}, "out of range"), ({"kind": "call", "to": 3}, "no field"),
    ({"kind": "draw", "cards": [50] * 5}, "at most 4"),
    ({"kind": "draw", "cards": ["Ah"]}, "integer 0..51"),  # protocol 1's text, no more
    ({"kind": "draw", "cards": [52]}, "integer 0..51"),  # the joker: not in this deck
    ({"kind": "draw", "cards": [True]}, "integer"),
])
def test_malformed_actions_say_why(payload, words) -> None:
    with pytest.raises(ValueError, match=words):
        parse_action(payload)


def test_replay_reproduces_a_game_and_names_the_first_difference() -> None:
    game = load({"hands": 6, "rake": 0.05})
    engine = game.new_game(3, 42)
    bots = [random_bot.act, rules_bot.act, random_bot.act]
    random.seed(1)
    while not engine.is_over:
        seat = engine.current_seat
        if len(engine.events) == 30:
            engine.fault(seat, "timeout")
            continue
        engine.apply(seat, game.parse_local_action(bots[seat](engine.view(seat))))
    engine.forfeit(0, "crash")                 # after the end: nothing changes
    transcript = [e.to_dict() for e in engine.events]
    assert game.replay(3, 42, transcript) == engine.outcome()
    changed = [dict(e) for e in transcript]
    i = next(k for k, e in enumerate(changed) if e["type"] == "pot")
    changed[i]["rake"] += 1
    with pytest.raises(ValueError, match=f"event {i} differs"):
        game.replay(3, 42, changed)
    with pytest.raises(ValueError, match="the transcript ends early"):
        game.replay(3, 42, transcript[:-1])
    with pytest.raises(ValueError, match="event 2 differs .*cards"):
        game.replay(3, 43, transcript)


def test_check_turns_offer_a_legal_and_an_illegal_answer() -> None:
    game = load({})
    turns = game.check_turns()
    assert len(turns) == 3
    for turn in turns:
        view = turn.engine.view(turn.engine.current_seat)
        for payload, legal in ((turn.legal, True), (turn.illegal, False)):
            action = game.parse_action(payload)
            listed = [a for a in view["legal"] if a["kind"] == action.kind]
            ok = bool(listed) and (
                action.kind not in ("open", "raise")
                or listed[0]["min"] <= action.amount <= listed[0]["max"]) and (
                action.kind != "draw" or set(payload["cards"]) <= set(view["cards"]))
            assert ok is legal, (view["phase"], payload)


def test_rules_text_examples_rank_as_labelled() -> None:
    text = load({}).rules_text()
    assert "Faults and forfeits" in text and "hearts > spades > diamonds > clubs" in text
    rows = re.findall(r"^\| ([a-z ]+) \| `([^`]+)` \|", text, re.M)
    assert len(rows) == 10
    keys = [rank_key(parse_hand(cards), LOW_RANK[2]) for _, cards in rows]
    assert [category_name(k) for k in keys] == [name for name, _ in rows]
    assert keys == sorted(keys, reverse=True)


@pytest.mark.parametrize("players", [2, 5])
def test_reference_bots_play_only_legal_actions(players) -> None:
    game = load({"hands": 8})
    for bot in (random_bot.act, rules_bot.act, equity_bot.act):
        others = [random_bot.act] * (players - 1)
        outcome, faults = play_one(game, [bot, *others], 11)
        assert faults == [0] * players
        assert sum(outcome.scores) == 0


def test_duplicate_deals_seat_every_bot_everywhere() -> None:
    game = load({"hands": 3})
    results = play(game, [rules_bot.act, random_bot.act, random_bot.act], [5])
    assert [r.seating for r in results] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    per_bot = chips_by_bot(results, 3)
    assert len(per_bot) == 3 and sum(sum(b) for b in per_bot) == 0


def test_an_unlisted_action_is_refused() -> None:
    engine = load({}).new_game(2, 0)
    with pytest.raises(IllegalAction):
        engine.apply(engine.current_seat, Action("call"))
    with pytest.raises(IllegalAction):
        engine.apply(engine.current_seat, "fold")


def test_spec_examples_parse() -> None:
    spec = (Path(__file__).resolve().parents[2] / "referee/games/turkish_poker/SPEC.md")
    text = spec.read_text("utf-8")
    view = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    assert {a["kind"] for a in view["legal"]} == {"fold", "call", "raise"}
    section = text.split("## action\n")[1].split("## notices")[0]
    actions = re.findall(r"^\| `(\{\"kind\".*?\})` \|", section, re.M)
    assert len(actions) == 6
    for text_payload in actions:
        payload = json.loads(text_payload.replace(": N", ": 3"))
        assert action_payload(parse_action(payload)) == payload


def test_a_malformed_answer_is_a_fault_that_folds() -> None:
    game = load({"hands": 2})
    outcome, faults = play_one(game, [lambda view: {"kind": "bet"}, rules_bot.act], 3)
    assert faults == [2, 0]             # one decision a hand: it folds at once
    assert outcome.scores == (-2.0, 2.0)


def test_the_views_history_marks_where_each_betting_round_and_the_draw_begin() -> None:
    """Opened and called, the hand goes through the draw to the final round: the
    history says where each begins, in order, the opening bet first in its round."""
    game = load({"hands": "1"})
    rng = random.Random(5)
    for seed in range(50):
        engine = game.new_game(2, seed)
        seen: list[dict] = []
        while not engine.is_over:
            seat = engine.current_seat
            seen = engine.view(seat)["history"]
            kinds = {a.kind for a in engine.legal_actions()}
            pick = "open" if "open" in kinds else "call" if "call" in kinds else "draw" \
                if "draw" in kinds else "pass"
            engine.apply(seat, rng.choice([a for a in engine.legal_actions()
                                           if a.kind == pick]))
        phases = [h["phase"] for h in seen if h["kind"] == "round"]
        if phases == ["first-round", "draw", "final-round"]:
            first = seen.index({"kind": "round", "phase": "first-round"})
            assert seen[first + 1]["kind"] == "open"
            return
    raise AssertionError("no deal of 50 reached the final round")
