"""In-process mode: Python functions as bots, through the same engine, fault policy,
journal and leaderboards as bot processes."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bots.polish_poker import caller, random_bot
from evaluator import declarations
from referee.games.polish_poker.wire import Call, RoundResult, View
from referee.inprocess import play_local
from referee.journal import read_games
from referee.verify import verify_run

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import check_run, check_transcripts, good, referee  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLISH = ROOT / "bots" / "polish_poker"


def weakest(view: View) -> Any:
    return caller.act(view)


def test_records_are_journalled_rated_and_verified(tmp_path: Path) -> None:
    out = tmp_path / "run"
    records = play_local({"caller": caller, "random": random_bot.act}, games=20, seed=3,
                         out=out)
    assert len(records) == 20 and read_games(out) == records
    assert verify_run(out).games == 20
    check_transcripts(out)
    assert {r["group_size"] for r in records} == {2}  # duplicate deals by default
    for rec in records:
        assert sorted(rec["seats"]) == ["caller", "random"] and rec["faults"] == []


def test_same_seed_same_games(tmp_path: Path) -> None:
    a = play_local({"c": caller, "r": random_bot}, games=10, seed=9, out=tmp_path / "a")
    b = play_local({"c": caller, "r": random_bot}, games=10, seed=9, out=tmp_path / "b")
    assert [(r["seats"], r["order"], r["units"]) for r in a] == \
        [(r["seats"], r["order"], r["units"]) for r in b]


def test_in_process_and_bot_processes_play_the_same_games(tmp_path: Path) -> None:
    """caller.py draws no random numbers, so its games depend on the deals alone: the
    in-process run and the run over ZeroMQ must agree game for game."""
    caller_file = good(tmp_path, "caller.py")[0]
    args = ["run", "--bots", caller_file, caller_file, caller_file, "--games", "12", "--seed",
            "4"]
    for mode in ([], ["--in-process"]):
        res = referee(*args, *mode, "--out", str(tmp_path / f"run{len(mode)}"), cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    external, local = read_games(tmp_path / "run0"), read_games(tmp_path / "run1")
    assert len(external) == len(local) == 12
    assert [(r["game"], r["seats"], r["order"], r["units"]) for r in external] == \
        [(r["game"], r["seats"], r["order"], r["units"]) for r in local]
    assert json.loads((tmp_path / "run1" / "config.json").read_text())["config"]["in_process"]


def test_faults_are_labelled_as_for_bot_processes(tmp_path: Path) -> None:
    calls: Counter[str] = Counter()

    def raiser(view: View) -> Any:
        calls["raise"] += 1
        raise RuntimeError("boom")

    def exiter(view: View) -> Any:
        calls["exit"] += 1
        sys.exit(7)

    def garbage(view: View) -> Any:
        return {"kind": "nonsense"}

    def illegal(view: View) -> Any:
        # Never legal: a call when opening, else the weakest declaration (not a raise).
        return declarations(view.ruleset)[0] if view.can_call else Call()

    def slow(view: View) -> Any:
        time.sleep(0.06)
        return caller.act(view)

    for name, bot, label in [("raiser", raiser, "malformed"), ("exiter", exiter, "crash"),
                             ("garbage", garbage, "malformed"),
                             ("illegal", illegal, "illegal"), ("slow", slow, "timeout")]:
        out = tmp_path / name
        play_local({name: bot, "caller": caller}, games=4, seed=2, out=out, move_ms=50,
                   bank_ms=0, duplicate=False)
        labels, forfeits, entries = check_run(out, name, 4)
        assert set(labels) == {label}, (name, labels)
        if label == "crash":
            assert forfeits == Counter({"forfeit:crash": 4})
            assert all(f["detail"] == "the bot called sys.exit(7)" for f in entries)
        else:
            assert sum(forfeits.values()) == 4  # three faults in a row: forfeit
    log = (tmp_path / "raiser" / "logs" / "raiser.errors.log").read_text()
    assert "RuntimeError: boom" in log and "Traceback" in log
    assert log.startswith("[referee] --- game 0 (seat ")
    assert log.count("[referee] --- game ") == 4  # one line per game, before its errors
    assert calls["raise"] == 3 * 4  # the round is lost, the game goes on
    assert calls["exit"] == 4  # the same function played every game
    garbage_details = {f["detail"] for f in read_games(tmp_path / "garbage")[0]["faults"]}
    assert garbage_details == {"act returned {'kind': 'nonsense'}, which is not an action: "
                               "not a declaration: {'kind': 'nonsense'}"}


def test_hooks_get_what_the_sdk_gives(tmp_path: Path) -> None:
    seen: dict[str, list[Any]] = {"start": [], "round": [], "end": []}

    class Bot:
        act = staticmethod(weakest)

        def on_game_start(self, info: Any) -> None:
            seen["start"].append(info)

        def on_round_result(self, result: RoundResult) -> None:
            seen["round"].append(result)

        def on_game_end(self, info: Any) -> None:
            seen["end"].append(info)

    records = play_local({"hooked": Bot(), "caller": caller}, games=2, seed=5,
                         out=tmp_path / "run", duplicate=False)
    assert [i.game_id for i in seen["start"]] == ["0", "1"]
    assert [i.order for i in seen["end"]] == \
        [tuple(r["seats"].index(b) for b in r["order"]) for r in records]
    assert len(seen["round"]) == sum(r["units"] for r in records)
    assert all(isinstance(r, RoundResult) and r.hands for r in seen["round"])


def test_cli_in_process_wants_sdk_bots(tmp_path: Path) -> None:
    raw = ROOT / "tests" / "bots" / "raw_spec_bot.py"
    res = referee("run", "--in-process", "--bots", str(POLISH / "caller.py"),
                  str(raw), "--games", "2", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "raw_spec_bot" in err[0], res.stderr


@pytest.mark.parametrize("bad", [{"x": 1}, 42])
def test_play_local_refuses_what_is_not_a_bot(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(TypeError, match="act"):
        play_local({"bad": bad, "caller": caller}, games=1, out=tmp_path / "run")


def test_two_copies_of_a_bot_do_not_mirror_each_other(tmp_path: Path) -> None:
    """In a duplicate pair the seats swap; the shared generator is seeded from who sits
    where, so the second game is not the first one replayed (every pair a draw)."""
    records = play_local({"a": random_bot, "b": random_bot}, games=40, seed=9,
                         out=tmp_path / "run")
    pairs: dict[int, list[str]] = {}
    for r in records:
        pairs.setdefault(r["group"], []).append(r["order"][0])
    decisive = [winners for winners in pairs.values() if winners[0] == winners[1]]
    assert 0 < len(decisive) < len(pairs), pairs
    again = play_local({"a": random_bot, "b": random_bot}, games=40, seed=9,
                       out=tmp_path / "again")
    assert [r["order"] for r in again] == [r["order"] for r in records]  # per seed
