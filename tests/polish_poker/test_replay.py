"""``referee.games.polish_poker.replay``: a transcript rebuilds its game exactly, and any
tampering is caught."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.polish_poker.engine import PlayerCountError, PolishPoker
from referee.games.polish_poker.events import Dealt, Eliminated, GameOver, event_dicts
from referee.games.polish_poker.replay import ReplayMismatch, replay


def random_game(ruleset: str, players: int, seed: int, rng: random.Random) -> PolishPoker:
    """A full game with random legal actions, occasional faults and forfeits."""
    game = PolishPoker(ruleset, players, seed)
    while not game.is_over:
        roll = rng.random()
        legal = game.legal_declarations()
        if roll < 0.04:
            game.fault(rng.choice(game.active_seats), rng.choice(["timeout", "malformed"]))
        elif roll < 0.05:
            game.forfeit(rng.choice(game.active_seats), "crash")
        elif game.can_call and (roll < 0.45 or not legal):
            game.apply("call")
        else:
            game.apply(rng.choice(legal[:8]))
    return game


def transcript(game: PolishPoker) -> list[dict]:
    # Through JSON, as a journal would store it.
    return json.loads(json.dumps([e.to_dict() for e in game.events]))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([("official", n) for n in range(2, 7)]
                       + [("polacco", n) for n in range(3, 9)]),
       st.integers(0, 2**32), st.integers(0, 2**32))
def test_replay_reproduces_random_games(case: tuple, seed: int, action_seed: int) -> None:
    ruleset, players = case
    game = random_game(ruleset, players, seed, random.Random(action_seed))
    rebuilt = replay(ruleset, players, seed, transcript(game))
    assert rebuilt.events == game.events
    assert rebuilt.is_over and rebuilt.finishing_order == game.finishing_order


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([("official", n) for n in range(2, 7)]
                       + [("polacco", n) for n in range(3, 9)]),
       st.integers(0, 2**32), st.integers(0, 2**32))
def test_shared_events_are_the_events_and_their_dicts(case: tuple, seed: int,
                                                      action_seed: int) -> None:
    """The engine shares the events rounds repeat (one object per value) with their dicts
    made once: each equals the event built afresh, and the journal's dicts are to_dict's."""
    ruleset, players = case
    game = random_game(ruleset, players, seed, random.Random(action_seed))
    events = game.events
    fresh = [type(e)(*(getattr(e, f) for f in e.__slots__)) for e in events]
    assert fresh == events
    assert event_dicts(events) == [e.to_dict() for e in fresh]
    again = random_game(ruleset, players, seed, random.Random(action_seed)).events
    assert again == events
    shared = [a is b for a, b in zip(again, events, strict=True)
              if not isinstance(a, Dealt | Eliminated | GameOver)]
    assert all(shared)


def test_two_games_share_the_events_they_both_have() -> None:
    a, b = (PolishPoker("official", 4, seed) for seed in (1, 2))
    for game in (a, b):
        game.apply("high 9")
        game.apply("call")
    assert [type(e).__name__ for e in a.events[1:5]] == ["Declared", "Called", "Revealed",
                                                          "RoundLost"]
    assert all(x is y for x, y in zip(a.events[1:3], b.events[1:3], strict=True))


@pytest.fixture(scope="module")
def sample() -> tuple[PolishPoker, list[dict]]:
    game = random_game("official", 4, 5, random.Random(1))
    return game, transcript(game)


def test_replay_of_a_partial_transcript_returns_the_game_mid_way() -> None:
    game = PolishPoker("polacco", 3, seed=3)
    game.apply("pair 2")
    game.apply("pair 3")
    rebuilt = replay("polacco", 3, 3, transcript(game))
    assert not rebuilt.is_over and rebuilt.current_seat == 2 and rebuilt.history == game.history


def test_faults_forfeits_and_five_aces_replay() -> None:
    game = PolishPoker("official", 3, seed=8)
    game.apply("pair 9")
    game.fault(1, "timeout")
    game.forfeit(0, "crash")
    game.apply("high A")
    game.apply("call")
    game.apply("five A")  # the automatic call is the engine's, not driven by replay
    assert any(e.get("automatic") for e in transcript(game))
    rebuilt = replay("official", 3, 8, transcript(game))
    assert rebuilt.events == game.events


def tamper(events: list[dict], kind: str, change: dict) -> tuple[int, list[dict]]:
    """Change the first event of ``kind``; return its index and the new transcript."""
    out = copy.deepcopy(events)
    i = next(i for i, e in enumerate(out) if e["type"] == kind)
    out[i].update(change)
    return i, out


def test_another_seed_is_caught_at_the_first_deal(sample: tuple) -> None:
    _, events = sample
    with pytest.raises(ReplayMismatch, match="round 1: the deal differs") as info:
        replay("official", 4, 6, events)
    assert info.value.index == 0 and info.value.expected.round == 1


def test_tampered_hand_is_caught(sample: tuple) -> None:
    _, events = sample
    out = copy.deepcopy(events)
    i = max(i for i, e in enumerate(out) if e["type"] == "dealt")
    hands = out[i]["hands"]
    seat = next(s for s, h in enumerate(hands) if h)
    used = {c for h in hands for c in h} | {out[i]["community"]}
    hands[seat][0] = next(c for c in ("9c", "9d", "9h", "9s", "Tc", "Td") if c not in used)
    with pytest.raises(ReplayMismatch, match=f"round {out[i]['round']}: the deal differs") as info:
        replay("official", 4, 5, out)
    assert info.value.index == i


def test_tampered_declaration_is_caught(sample: tuple) -> None:
    game, events = sample
    i, out = tamper(events, "declared", {"declaration": "five A"})
    with pytest.raises(ReplayMismatch) as info:
        replay("official", 4, 5, out)
    # The engine accepts the raise but then auto-calls where the transcript does not.
    assert info.value.index == i + 1


def test_tampered_outcome_is_caught(sample: tuple) -> None:
    _, events = sample
    i, out = tamper(events, "revealed", {})
    out[i]["exists"] = not out[i]["exists"]
    with pytest.raises(ReplayMismatch, match="differs in exists") as info:
        replay("official", 4, 5, out)
    assert info.value.index == i


def test_wrong_seat_is_caught(sample: tuple) -> None:
    _, events = sample
    i, out = tamper(events, "declared", {})
    out[i]["seat"] = (out[i]["seat"] + 1) % 4
    with pytest.raises(ReplayMismatch, match="not-your-turn") as info:
        replay("official", 4, 5, out)
    assert info.value.index == i


def test_dropped_and_extra_events_are_caught(sample: tuple) -> None:
    _, events = sample
    i = next(i for i, e in enumerate(events) if e["type"] == "revealed")
    with pytest.raises(ReplayMismatch, match="emitted Revealed|has RoundLost"):
        replay("official", 4, 5, events[:i] + events[i + 1:])
    with pytest.raises(ReplayMismatch, match="ends early") as info:
        replay("official", 4, 5, events[:i])
    assert info.value.index == i
    with pytest.raises(ReplayMismatch, match="game-over"):
        replay("official", 4, 5, [*events, {"type": "called", "round": 1, "seat": 0,
                                            "automatic": False}])
    with pytest.raises(ReplayMismatch, match="emits this event itself"):
        replay("official", 4, 5, [*events, events[-1]])


def test_malformed_events_are_caught(sample: tuple) -> None:
    _, events = sample
    for bad in ({"type": "shuffled"}, {"type": "declared", "round": 1, "seat": 0,
                                       "declaration": "pair 2"}, "dealt"):
        with pytest.raises(ReplayMismatch, match="not an event") as info:
            replay("official", 4, 5, [*events[:1], bad])
        assert info.value.index == 1


def test_replay_checks_the_player_count() -> None:
    with pytest.raises(PlayerCountError):
        replay("official", 7, 0, [])
