"""The fault policy's consequences for a bot and for the person who runs it, through real
bot processes over real sockets: no restart cap, ``start-failure`` only for a bot that
cannot start, a bad ``act`` as a ``malformed`` action, crash details with the bot's last
stderr lines, game markers in the bot's logs, and the summary at the end of a run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import (  # noqa: E402
    FAULTY,
    REFEREE,
    assert_nothing_left,
    bot_dir,
    check_run,
    good,
    lines,
    no_traceback,
    play,
    referee,
)

from referee.journal import read_games  # noqa: E402
from referee.match import START_ATTEMPTS  # noqa: E402


def faulty(tmp_path: Path, name: str) -> str:
    """A private copy of the faulty bot ``name`` of ``tests/bots``."""
    d = bot_dir(tmp_path)
    shutil.copy(FAULTY / name, d / name)
    return str(d / name)


def test_a_slow_bot_gets_a_fresh_process_for_every_game_it_forfeits(tmp_path: Path) -> None:
    """More forfeits than any cap would allow: every one is a timeout streak
    (``faults``), never a crash, and every game the bot started playing."""
    games = 8
    runner, out = play(tmp_path, [faulty(tmp_path, "slow.py"), *good(tmp_path)],
                       games=games, move_ms=100, bank_ms=0)
    labels, forfeits, _ = check_run(out, "slow", games)
    assert set(labels) == {"timeout"}
    assert forfeits == Counter({"forfeit:faults": games})
    assert runner.counters["slow"].restarts == games - 1
    assert runner.counters["slow"].start_failures == 0
    for rec in read_games(out):  # it was asked in every game: three timeouts each
        assert [f["label"] for f in rec["faults"]] == ["timeout"] * 3, rec["faults"]
    assert_nothing_left(tmp_path)


def test_a_failed_start_is_tried_again_at_once(tmp_path: Path) -> None:
    # The bot counts its starts in a file beside it, across processes: no sandbox.
    runner, out = play(tmp_path, [faulty(tmp_path, "flaky_start.py"), *good(tmp_path)],
                       games=4, sandbox="none")
    labels, forfeits, entries = check_run(out, "flaky_start", 4)
    assert labels == Counter({"crash": 1}) and forfeits == Counter({"forfeit:crash": 1})
    assert runner.counters["flaky_start"].start_failures == 1
    assert runner.counters["flaky_start"].restarts == 2  # the failed one, then the good one
    assert runner.given_up == {}
    assert_nothing_left(tmp_path)


def test_a_bot_that_cannot_start_again_is_given_up_on(tmp_path: Path) -> None:
    """``dies_for_good`` crashes once, then every new process exits before its hello."""
    # The bot marks its first start in a file beside it: no sandbox.
    runner, out = play(tmp_path, [faulty(tmp_path, "dies_for_good.py"), *good(tmp_path)],
                       games=4, sandbox="none")
    labels, forfeits, _ = check_run(out, "dies_for_good", 4)
    assert labels == Counter({"crash": 1, "start-failure": 3})
    assert forfeits == Counter({"forfeit:crash": 1, "forfeit:start-failure": 3})
    assert runner.counters["dies_for_good"].start_failures == START_ATTEMPTS
    first, *later = sorted(read_games(out), key=lambda r: r["game"])
    assert [f["label"] for f in first["faults"]] == ["crash"]
    for rec in later:  # out before the first decision
        [fault] = rec["faults"]
        assert fault["label"] == "start-failure" and fault["event"] == 1  # after the deal
        assert fault["detail"].startswith(f"could not be started {START_ATTEMPTS} times in "
                                          "a row; the last exited with code 4")
        assert "already died once" in fault["detail"]  # its stderr says why
    assert_nothing_left(tmp_path)


@pytest.mark.parametrize("rules", ["official", "polacco"])
def test_a_bad_act_is_a_malformed_action_and_the_bot_plays_on(tmp_path: Path,
                                                              rules: str) -> None:
    games = 6
    runner, out = play(tmp_path, [faulty(tmp_path, "bad_act.py"), *good(tmp_path)],
                       rules=rules, games=games)
    labels, forfeits, entries = check_run(out, "bad_act", games)
    # At most two faults in a row (a bad act, then the hook's failure), so no forfeit.
    assert set(labels) <= {"malformed", "illegal"} and labels["malformed"] >= games
    assert not forfeits
    details = [f["detail"] for f in entries if f["label"] == "malformed"]
    expected = ["act returned None, which is not an action",
                "act returned 'banana', which is not an action",
                "act returned {'kind': 'call'}, which is not an action",
                "act raised ZeroDivisionError: bad_act divides by zero",
                "on_round_result raised KeyError: \"bad_act's hook\""]
    if rules == "polacco":  # not a declaration of the ruleset; in official it is one
        expected.append("act returned 'high 9', which is not an action")
    for text in expected:
        assert any(d.startswith(text) for d in details), (text, details)
    assert runner.counters["bad_act"].restarts == 0  # never a crash
    log = (out / "logs" / "bad_act.0.stderr.log").read_text()
    assert "Traceback" in log and "ZeroDivisionError: bad_act divides by zero" in log
    markers = [ln for ln in log.splitlines() if ln.startswith("[referee] --- game ")]
    assert len(markers) == games, markers  # it wrote in every game: each one is marked
    assert_nothing_left(tmp_path)


def test_a_crash_is_told_with_the_last_lines_of_stderr_and_where_to_look(
        tmp_path: Path) -> None:
    """``referee run`` with a bot that crashes in every game: the journal's detail ends
    with its stderr, its log marks each game, and the run's summary says what and where."""
    out = tmp_path / "run"
    bot = faulty(tmp_path, "crash_mid_game.py")
    # Without duplicate deals one process per slot plays every game (restarted after
    # each crash), so one log holds them all.
    proc = referee("run", "--bots", bot, *good(tmp_path), "--games", "6", "--seed", "5",
                   "--no-duplicate", "--move-time", "300ms", "--time-bank", "1s",
                   "--out", str(out), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr
    no_traceback(proc)
    labels, _, entries = check_run(out, "crash_mid_game", 6)
    assert set(labels) == {"crash"} and labels["crash"] == 6
    for f in entries:
        assert f["detail"] == ("process exited with code 1; its stderr ends:\n"
                               "crash_mid_game: third decision, goodbye"), f
        assert f["log"] == "logs/crash_mid_game.0.stderr.log"
    log = (out / f["log"]).read_text().splitlines()
    games_marked = [ln for ln in log if ln.startswith("[referee] --- game ")]
    assert len(games_marked) == 6 and log.count("crash_mid_game: third decision, goodbye") == 6
    for i, line in enumerate(log):  # each goodbye follows the marker of its game
        if line.startswith("crash_mid_game:"):
            assert log[i - 1].startswith("[referee] --- game "), log[i - 1: i + 1]
    text = lines(proc.stdout)
    start = text.index("faults (every one is in games.jsonl):")
    assert text[start + 1].strip() == "crash_mid_game: crash 6, in 6 games"
    assert text[start + 2].strip().startswith("first, game 0 event ")
    assert text[start + 2].endswith("(crash): process exited with code 1; its stderr ends:")
    assert text[start + 3].strip() == "crash_mid_game: third decision, goodbye"
    assert text[start + 4].strip() == f"log: {out / 'logs' / 'crash_mid_game.0.stderr.log'}"
    # nothing about the bots without faults; then only where the replays are
    assert [ln.split()[0] for ln in text[start + 5:]] == ["replays"], text[start + 5:]
    assert_nothing_left(tmp_path)


def test_the_summary_names_a_bot_given_up_on(tmp_path: Path) -> None:
    out = tmp_path / "run"
    bot = faulty(tmp_path, "dies_for_good.py")
    # The bot marks its first start in a file beside it: no sandbox.
    proc = referee("run", "--sandbox", "none", "--bots", bot, *good(tmp_path), "--games", "6",
                   "--seed", "5", "--time-bank", "5s", "--out", str(out), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr
    text = lines(proc.stdout)
    start = text.index("faults (every one is in games.jsonl):")
    assert text[start + 1].strip() == ("dies_for_good: start-failure 5, crash 1, in 6 games; "
                                       "given up on: it could not be started")
    assert_nothing_left(tmp_path)


def test_check_stops_at_the_first_fatal_failure_and_says_where_the_logs_are(
        tmp_path: Path) -> None:
    """``crash_mid_game`` dies on its third decision: that step fails, no later step is
    run (or failed), the log folder is printed and holds its stderr, and the check leaves
    no temporary folder behind."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    bot = faulty(tmp_path, "crash_mid_game.py")
    proc = subprocess.run([str(REFEREE), "check", bot, "--move-time", "5s", "--out",
                           str(tmp_path / "check")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "TMPDIR": str(tmp)})
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    no_traceback(proc)
    out = lines(proc.stdout)
    steps = [ln for ln in out if ln.startswith(("PASS ", "FAIL "))]
    assert [ln[:4] for ln in steps] == ["PASS"] * 3 + ["FAIL"], out
    assert "the bot exited (code 1)" in steps[-1] and "goodbye" in steps[-1], steps[-1]
    assert out[-3].startswith("stopped: the bot cannot be asked anything more, so the ")
    logs = tmp_path / "check" / "logs"
    assert out[-2] == f"bot logs: {logs}"
    assert out[-1] == "crash_mid_game: does not comply (1 failed)"
    assert "third decision, goodbye" in (logs / "check.stderr.log").read_text()
    assert list(tmp.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_the_policy_is_the_same_with_workers(tmp_path: Path) -> None:
    """``--workers 2``: each worker's runner restarts a forfeited bot for every game it
    plays, and the main process's summary covers every worker's games."""
    out = tmp_path / "run"
    bot = faulty(tmp_path, "slow.py")
    proc = referee("run", "--bots", bot, *good(tmp_path), "--games", "6", "--seed", "2",
                   "--no-duplicate",  # one process per slot: restarted, not replaced
                   "--concurrency", "2", "--workers", "2", "--move-time", "100ms",
                   "--time-bank", "0", "--out", str(out), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr
    labels, forfeits, _ = check_run(out, "slow", 6)
    assert labels == Counter({"timeout": 18}) and forfeits == Counter({"forfeit:faults": 6})
    counters = json.loads((out / "counters.json").read_text())["bots"]["slow"]
    assert counters["restarts"] == 6 - 2 and counters["start_failures"] == 0  # 2 slots
    text = lines(proc.stdout)
    assert text[text.index("faults (every one is in games.jsonl):") + 1].strip() == \
        "slow: timeout 18, in 6 games"
    assert_nothing_left(tmp_path)
