"""The game contract, held for every game of the registry (``referee.games.names()``,
including those added through ``REFEREE_GAMES``), with each parameter set the game names
(``Game.contract_params``), as OpenSpiel's integration tests run over every game:

- random legal play (``legal_actions``) for every seat count, with faults and forfeits
  thrown in, ends with places that rank the seats, forfeited seats placed as RULES.md
  ("Edge cases, decided") says, at once when one seat is left, and views that are
  plain data;
- the transcript replays (through JSON, as journalled) to the same outcome;
- the replay steps keep their rules (tests/steps_check.py);
- no view or notice tells a seat a card that the steps show hidden from it (in a game
  whose codes name one card each: golf's two decks have two of each);
- ``check_turns``: the legal example is in ``legal_actions`` and ``judge`` accepts it, the
  illegal one is not and is refused (or is not even an action); the engine accepts
  every legal action it lists;
- the parameters round-trip as text and as journalled values;
- one golden transcript per game and parameter set (tests/golden/) still replays event
  for event, which pins the deal: ``REFEREE_WRITE_GOLDEN=1`` writes a missing one.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evaluator.cards import CardError, parse_card
from referee.games import load_game, names
from referee.games.api import Engine, Game, Param, Step, resolve_params

sys.path.insert(0, str(Path(__file__).resolve().parent))
from steps_check import check_steps  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
WRITE_GOLDEN = "REFEREE_WRITE_GOLDEN"
MAX_DECISIONS = 20_000
# Fields of views and notices that hold cards: a card under one is shown, whatever its
# encoding (a card id or a text such as "Ah").
CARD_FIELDS = {"card", "cards", "hand", "hands", "community", "grids", "discard", "drawn",
               "discarded", "received", "replaced", "shown"}


def slug(params: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(params.items())) or "defaults"


CASES = [(name, params) for name in names() for params in load_game(name).contract_params]
IDS = [f"{name}[{slug(params)}]" for name, params in CASES]


@dataclass
class Played:
    """A randomly played game: its engine at the end, the forfeits as (seat, decisions
    before it), and what each seat was sent: (seat, the events it knows of, a view or a
    notice)."""

    engine: Engine
    left: list[tuple[int, int]] = field(default_factory=list)
    sent: list[tuple[int, int, Any]] = field(default_factory=list)  # seat, events, payload


def play(game: Game, players: int, seed: int) -> Played:
    """Random legal play: about one decision in 30 a fault instead, one in 150 a seat
    leaves, and at some tables two seats leave before the first decision."""
    rng = random.Random(seed)
    engine = game.new_game(players, seed)
    out = Played(engine)
    decisions = 0

    def leave(seat: int) -> None:
        engine.forfeit(seat, "crash")
        out.left.append((seat, decisions))
        if sum(engine.active) == 1:
            assert engine.is_over, "a game with one seat left ends at once"

    def tell(since: int) -> None:
        """Each notice of ``events[since:]`` with the event it tells of (the index after)."""
        later = engine.notices(since)
        for k in range(since, len(engine.events)):
            told, later = later, engine.notices(k + 1)
            for seat, payload in told[:len(told) - len(later)]:
                out.sent.append((seat, k + 1, payload))

    if players >= 4 and seed % 3 == 0:
        for seat in rng.sample(range(players), 2):
            if not engine.is_over:
                leave(seat)
    tell(0)
    while not engine.is_over:
        decisions += 1
        assert decisions < MAX_DECISIONS, "the game does not end"
        seat = engine.current_seat
        assert seat is not None and engine.active[seat], "the seat to act is in the game"
        since = len(engine.events)
        view = engine.view(seat)
        assert json.loads(json.dumps(view)) == view, "a view is plain data"
        out.sent.append((seat, since, view))
        legal = engine.legal_actions()
        assert legal, "a seat to act has a legal action"
        roll = rng.random()
        if roll < 1 / 150:
            leave(rng.choice([s for s in range(players) if engine.active[s]]))
        elif roll < 1 / 30:
            engine.fault(seat, "timeout")
        else:
            action = rng.choice(legal)
            wire = game.encode_action(action)
            assert game.parse_action(json.loads(json.dumps(wire))) == action
            engine.apply(seat, action)
        tell(since)
    assert engine.legal_actions() == []
    return out


def transcript(engine: Engine) -> list[dict[str, Any]]:
    """The events as a journal holds them (through JSON)."""
    return json.loads(json.dumps([e.to_dict() for e in engine.events]))


def is_ranking(places: tuple[int, ...]) -> bool:
    """1 plus the number of seats placed better, for every seat (1, 1, 3)."""
    return all(p == 1 + sum(q < p for q in places) for p in places)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_random_legal_play_replays_and_places_as_the_rules_say(name: str,
                                                               params: dict[str, str]) -> None:
    game = load_game(name, params)
    for players in game.seats:
        for seed in (players, players + 100):
            played = play(game, players, seed)
            outcome = played.engine.outcome()
            assert len(outcome.places) == players and is_ranking(outcome.places), outcome
            assert outcome.scores is None or len(outcome.scores) == players
            assert game.metric is None or outcome.scores is not None  # the metric's input
            check_forfeit_places(outcome.places, played.left)
            events = transcript(played.engine)
            assert game.replay(players, seed, events) == outcome
            assert [s for s, _ in game.faults(events)] == [
                s for s, _ in game.faults([e.to_dict() for e in played.engine.events])]
            steps = game.steps(players, events)
            unique = unique_codes(steps)
            check_steps(steps, events, players, unique_cards=unique)
            if unique:  # with two decks a code does not say which card was told
                check_nothing_hidden_is_told(steps, played.sent)


def check_forfeit_places(places: tuple[int, ...], left: list[tuple[int, int]]) -> None:
    """RULES.md: a seat that forfeits places below every seat that did not; among those
    that forfeited, the later leaver higher; those that left at one decision share."""
    gone = {seat for seat, _ in left}
    stayed = [places[s] for s in range(len(places)) if s not in gone]
    for seat, when in left:
        assert all(places[seat] > p for p in stayed), (places, left)
        for other, then in left:
            if then > when:
                assert places[other] < places[seat], (places, left)
            elif then == when:
                assert places[other] == places[seat], (places, left)


def unique_codes(steps: list[Step]) -> bool:
    """Whether a card's code names one card in every step (not so with two decks)."""
    for step in steps:
        codes = [c.code for v in step.seats for row in v.rows for c in row]
        codes += [c.code for p in step.piles for c in p.cards]
        if len(codes) != len(set(codes)):
            return False
    return True


def card_texts(value: Any, under_card_field: bool = False) -> Iterator[str]:
    """Every card a payload shows: texts that are cards anywhere, ids under a field
    that holds cards."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from card_texts(item, key in CARD_FIELDS)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_texts(item, under_card_field)
    elif isinstance(value, str) or (under_card_field and type(value) is int):
        try:
            yield str(parse_card(value))
        except (CardError, ValueError, TypeError):
            return


def check_nothing_hidden_is_told(steps: list[Step], sent: list[tuple[int, int, Any]]) -> None:
    """What a seat is sent once ``n`` events have happened holds no card that the step of
    event ``n - 1`` shows hidden from it (and not face up to it elsewhere)."""
    for seat, n, payload in sent:
        step = next(s for s in steps if s.event >= n - 1)
        cards = [c for v in step.seats for row in v.rows for c in row]
        cards += [c for p in step.piles for c in p.cards]
        hidden = {c.code for c in cards if not c.seen(seat)} - {
            c.code for c in cards if c.seen(seat)}
        told = hidden & set(card_texts(payload))
        assert not told, f"seat {seat} is told {told} at event {n}: {payload}"


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_check_turns_are_judged_as_the_engine_judges(name: str,
                                                     params: dict[str, str]) -> None:
    game = load_game(name, params)
    turns = game.check_turns()
    assert turns
    for turn in turns:
        engine = turn.engine
        assert engine.current_seat is not None and engine.players in game.seats
        legal = engine.legal_actions()
        ok = game.parse_action(turn.legal)
        assert ok in legal and game.judge(engine, ok) is None
        try:
            bad = game.parse_action(turn.illegal)
        except ValueError:
            continue  # not even an action: malformed
        assert bad not in legal
        why = game.judge(engine, bad)
        assert isinstance(why, str) and why
        for action in random.Random(0).sample(legal, min(len(legal), 20)):
            trial = copy.deepcopy(engine)
            trial.apply(engine.current_seat, action)
        assert engine.legal_actions() == legal, "judging changes nothing"


def as_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_parameters_round_trip(name: str, params: dict[str, str]) -> None:
    game = load_game(name, params)
    assert load_game(name, {k: as_text(v) for k, v in game.params.items()}).params \
        == game.params
    assert load_game(name, json.loads(json.dumps(game.params))).params == game.params


def test_a_bool_parameter_round_trips_as_text_and_as_a_journalled_value() -> None:
    schema = (Param("flag", True, bool),)
    for value in (True, False):
        assert resolve_params(schema, {"flag": as_text(value)}) == {"flag": value}
        assert resolve_params(schema, json.loads(json.dumps({"flag": value}))) == \
            {"flag": value}
    with pytest.raises(ValueError, match="expected true or false"):
        resolve_params(schema, {"flag": "maybe"})


def golden_path(name: str, params: dict[str, str]) -> Path:
    return GOLDEN / f"{name}.{slug(params)}.json"


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_the_golden_transcript_still_replays(name: str, params: dict[str, str]) -> None:
    """A transcript written once: replaying it makes every event again, the deals
    included, so a change to the deal's seeding cannot pass unnoticed."""
    game = load_game(name, params)
    path = golden_path(name, params)
    if not path.is_file():
        if not os.environ.get(WRITE_GOLDEN):
            pytest.fail(f"no golden transcript {path.name}: write it with "
                        f"{WRITE_GOLDEN}=1 pytest {Path(__file__).name}")
        players = min(game.seats[-1], game.seats[0] + 1)
        played = play(game, players, seed=3)
        outcome = played.engine.outcome()
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({
            "game": name, "params": game.params, "players": players, "seed": 3,
            "places": list(outcome.places), "units": outcome.units,
            "events": transcript(played.engine)}, separators=(",", ":")) + "\n")
    golden = json.loads(path.read_text())
    game = load_game(golden["game"], golden["params"])
    outcome = game.replay(golden["players"], golden["seed"], golden["events"])
    assert (list(outcome.places), outcome.units) == (golden["places"], golden["units"])
