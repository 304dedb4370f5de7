"""The registry and the game options: every game listed with its parameters, a bad
parameter is one line, journals of schema 1 (Polish Poker with ``rules``) still read,
and what each seat is told is the game's decision (a golf card drawn from the stock
reaches only its drawer), through real bot processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.config import RunConfig
from referee.deals import Deals
from referee.games import GameError, load_game, names
from referee.journal import game_of
from referee.verify import verify_game

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import REFEREE, assert_nothing_left, no_traceback  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(REFEREE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "200"})


def test_every_game_loads_with_its_defaults_and_refuses_a_bad_parameter() -> None:
    assert names()[:3] == ("polish-poker", "turkish-poker", "six-card-golf")
    for name in names():
        game = load_game(name)
        assert game.name == name and len(game.seats) >= 1
    with pytest.raises(GameError, match="turkish-poker: parameter limit: 'table-stakes' is "
                                        "not allowed: expected one of no-limit, pot-limit, "
                                        "fixed-limit"):
        load_game("turkish-poker", {"limit": "table-stakes"})
    with pytest.raises(GameError, match="unknown game 'texas'"):
        load_game("texas")


@pytest.mark.parametrize(("name", "params"), [
    ("polish-poker", {"ruleset": "official"}), ("polish-poker", {"ruleset": "polacco"}),
    ("turkish-poker", {}), ("six-card-golf", {})])
def test_each_games_check_turns_pair_a_legal_answer_with_a_refused_one(
        name: str, params: dict[str, str]) -> None:
    """What ``referee check`` judges with: the game says the legal example is legal and
    the other is not (or is not even an action)."""
    game = load_game(name, params)
    turns = game.check_turns()
    assert turns
    for turn in turns:
        assert game.judge(turn.engine, game.parse_action(turn.legal)) is None
        assert game.encode_action(game.parse_action(turn.legal)) == turn.legal
        try:
            refused = game.judge(turn.engine, game.parse_action(turn.illegal))
        except ValueError:  # malformed
            continue
        assert isinstance(refused, str) and refused


def test_referee_games_lists_params_defaults_and_seat_ranges(tmp_path: Path) -> None:
    res = referee("games", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "polish-poker (default): 2-6 players" in out
    assert "turkish-poker: 2-5 players" in out and "six-card-golf: 2-8 players" in out
    assert "limit=no-limit  (no-limit, pot-limit, fixed-limit)" in out
    assert "target=150  (integer >= 1 <= 100000)" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--game", "turkish-poker", "--param", "limit=table-stakes"],
     "error: turkish-poker: parameter limit: 'table-stakes' is not allowed: expected one of "
     "no-limit, pot-limit, fixed-limit"),
    (["--game", "six-card-golf", "--param", "target"],
     "error: --param target: write it as KEY=VALUE, e.g. --param hands=100"),
    (["--rules", "polacco", "--param", "ruleset=official"],
     "error: parameter ruleset is given twice"),
    (["--game", "turkish-poker", "--players", "6"],
     "error: turkish-poker is played by 2-5 players with limit=no-limit hands=100 stack=200 "
     "rake=0.0 rake_cap=0, not 6"),
])
def test_a_bad_game_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    bot = str(ROOT / "bots" / "turkish_poker" / "random_bot.py")
    res = referee("run", *args, "--bots", bot, bot, "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert res.returncode == 2 and res.stderr == message + "\n", res.stderr
    assert not (tmp_path / "r").exists()


def test_schema_1_journals_still_read() -> None:
    game = load_game("polish-poker", {"ruleset": "polacco"})
    g = game.new_game(3, seed=5)
    while not g.is_over:
        seat = g.current_seat
        g.apply(seat, game.parse_local_action("call" if g.view(seat)["history"] else "pair 2"))
    outcome = g.outcome()
    order = sorted(range(3), key=lambda s: outcome.places[s])
    names_ = ["a", "b", "c"]
    record = {"schema_version": 1, "game": 0, "seed": 5, "game_type": "polish-poker",
              "rules": "polacco", "players": 3, "seats": names_,
              "order": [names_[s] for s in order], "places": list(outcome.places),
              "rounds": outcome.units, "faults": []}
    transcript = {"schema_version": 1, "game": 0, "seed": 5, "rules": "polacco", "players": 3,
                  "events": [e.to_dict() for e in g.events]}
    assert game_of(record) == game_of(transcript) == ("polish-poker", {"ruleset": "polacco"})
    assert verify_game(record, transcript, Deals()) == outcome
    config = {"bots": [], "rules": "official", "players": 2, "games": 2, "seed": "1",
              "move_ms": 1, "bank_ms": 1, "concurrency": 1, "max_faults": 3,
              "start_timeout_ms": 1, "limits": {}, "deals": "seed"}
    resumed = RunConfig.from_dict(config, Path("/nonexistent"))
    assert (resumed.game, resumed.params) == ("polish-poker", {"ruleset": "official"})


SPY = '''
import json, os

SEEN = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "seen.jsonl"), "a")


def act(view):
    return view["legal"][0]


def on_game_start(info):
    SEEN.write(json.dumps({"seat": info.seat}) + "\\n")


def on_notice(notice):
    SEEN.write(json.dumps(notice) + "\\n")
    SEEN.flush()
'''


def test_a_card_drawn_from_the_stock_is_told_only_to_its_drawer(tmp_path: Path) -> None:
    """Golf over real processes: the spy is told every ``took`` of the other seat, and
    never the card that seat drew from the stock; its own draws it is told in full."""
    spy = tmp_path / "spy" / "spy.py"
    spy.parent.mkdir()
    spy.write_text(SPY)
    other = str(ROOT / "bots" / "six_card_golf" / "greedy_bot.py")
    res = referee("run", "--game", "six-card-golf", "--param", "target=40", "--bots",
                  str(spy), other, "--games", "2", "--seed", "3", "--sandbox", "none",
                  "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    no_traceback(res)
    assert "points/round" in res.stdout  # the game's metric, beside the Elo
    seat, mine, theirs = None, [], []
    for line in (spy.parent / "seen.jsonl").read_text().splitlines():
        n = json.loads(line)
        if set(n) == {"seat"}:
            seat = n["seat"]
        elif n.get("type") == "took" and n["from"] == "stock":
            (mine if n["seat"] == seat else theirs).append(n["card"])
    assert mine and theirs
    assert all(isinstance(c, int) for c in mine) and set(theirs) == {None}
    records = [json.loads(x) for x in (tmp_path / "run/games.jsonl").read_text().splitlines()]
    assert all(r["game_type"] == "six-card-golf" and r["params"]["target"] == 40
               and len(r["scores"]) == 2 and r["units"] >= 1 for r in records)
    assert_nothing_left(tmp_path)
