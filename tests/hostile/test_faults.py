"""The fault policy end to end: faulty bots as real processes over real sockets.

Each match seats one faulty bot from ``tests/bots/`` with two well-behaved ones,
``bots/polish_poker/caller.py`` and ``bots/polish_poker/random_bot.py`` (all three copied into
the test's own
directory, so that a process left behind can be told apart from those of any other
run, even one going on at the same time) and checks, from the outside: the journal
has every game, each game's finishing order has every seat, the right fault labels
are recorded against the faulty bot only, the transcripts agree (lost rounds,
forfeits and the forfeiter's place), the runner's counters, and that no bot process
or zombie is left behind. The ``referee`` command
line is checked for its exit codes and messages (never a traceback).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from referee.cgroup import detect
from referee.config import RunConfig
from referee.journal import read_games
from referee.process import BotLimits, resolve_bots
from referee.runner import Runner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    assert_nothing_left,
    check_run,
    lines,
    no_traceback,
    referee,
)

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "bots"
BIN = Path(sys.executable).parent
REFEREE = BIN / "referee"
RESOLUTIONS = {"bluff", "wrong-call"}  # round-loss reasons that are not faults


@pytest.fixture(autouse=True)
def _this_python_first(monkeypatch):
    """The raw bots start with ``#!/usr/bin/env python3``: make that this interpreter
    (the one with pyzmq and msgpack), for in-process runs and the CLI alike."""
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture
def good(tmp_path: Path) -> list[str]:
    """Private copies of the two well-behaved reference bots."""
    d = tmp_path / "good"
    d.mkdir()
    for name in ("caller.py", "random_bot.py"):
        shutil.copy(ROOT / "bots" / "polish_poker" / name, d / name)
    return [str(d / "caller.py"), str(d / "random_bot.py")]


# ------------------------------------------------------------------------- helpers


def faulty(tmp_path: Path, name: str) -> Path:
    """A private copy of the faulty bot ``name`` (with the raw bots' wire module)."""
    d = tmp_path / "faulty"
    d.mkdir(exist_ok=True)
    for f in (name, "rawwire.py"):
        shutil.copy(FAULTY / f, d / f)  # keeps the executable bit
    return d / name


def play(tmp_path: Path, bot: str, good: list[str], *, games: int = 4, move_ms: int = 200,
         bank_ms: int = 1000, max_faults: int = 3, concurrency: int = 1,
         seed: int = 11, limits: BotLimits | None = None) -> tuple[Runner, Path]:
    """A 3-player official match of the faulty ``bot`` and the good ones, in this process.

    Tests that are not about timeouts keep a time bank, so that a busy machine (a
    fresh process's first decision, other test runs) cannot turn into a timeout."""
    out = tmp_path / "run"
    config = RunConfig(
        bots=tuple(resolve_bots([str(faulty(tmp_path, bot)), *good])),
        params={"ruleset": "official"},
        players=3, games=games, seed=seed, move_ms=move_ms, bank_ms=bank_ms,
        concurrency=concurrency, max_faults=max_faults, start_timeout_ms=10_000, out=out,
        limits=limits or BotLimits())
    runner = Runner(config)
    runner.run()
    return runner, out


def check_journal(out: Path, bot: str, games: int) -> tuple[Counter, Counter, list[dict]]:
    """``check_run`` for these 3-player matches, each with the faulty ``bot`` seated."""
    labels, forfeits, entries = check_run(out, bot, games)
    for rec in read_games(out):
        assert rec["players"] == 3 and bot in rec["seats"], rec
    return labels, forfeits, entries


# ------------------------------------------------------------- in-process matches


def test_crash_mid_game_forfeits_and_is_restarted(tmp_path, good):
    runner, out = play(tmp_path, "crash_mid_game.py", good, games=4, concurrency=2)
    labels, forfeits, entries = check_journal(out, "crash_mid_game", 4)
    assert set(labels) == {"crash"}
    assert forfeits == Counter({"forfeit:crash": labels["crash"]})
    assert all("exited with code 1" in f["detail"] for f in entries), entries
    assert runner.counters["crash_mid_game"].restarts >= labels["crash"] - 2  # 2 slots
    assert runner.counters["crash_mid_game"].restarts >= 1
    for name in ("caller", "random_bot"):
        assert runner.counters[name].restarts == 0
    assert_nothing_left(tmp_path)


def test_hang_times_out_forfeits_and_is_killed(tmp_path, good):
    runner, out = play(tmp_path, "hang.py", good, games=3, bank_ms=0)
    labels, forfeits, entries = check_journal(out, "hang", 3)
    assert set(labels) == {"timeout"}
    assert forfeits["forfeit:faults"] >= 1 and set(forfeits) == {"forfeit:faults"}
    assert all(f["detail"] == "no reply within 200 ms" for f in entries), entries
    assert runner.counters["hang"].restarts >= 1  # hung and killed, then started afresh
    assert_nothing_left(tmp_path)


def test_late_reply_is_a_timeout_and_dropped_as_stale(tmp_path, good):
    # A 0.4 s nap against 100 ms a move: the nap spans up to 4-5 requests, so allow
    # more faults in a row than that; the bot then plays on and its late answers
    # (to requests that are no longer open) arrive while a newer one is.
    runner, out = play(tmp_path, "late.py", good, games=4, move_ms=100, bank_ms=0,
                       max_faults=8)
    labels, forfeits, entries = check_journal(out, "late", 4)
    assert set(labels) == {"timeout"} and labels["timeout"] >= 4
    assert not forfeits
    assert all(f["detail"] == "no reply within 100 ms" for f in entries)
    assert runner.counters["late"].stale > 0
    assert runner.counters["late"].restarts == 0
    assert_nothing_left(tmp_path)


def test_late_bot_forfeits_with_default_max_faults(tmp_path, good):
    runner, out = play(tmp_path, "late.py", good, games=2, move_ms=100, bank_ms=0)
    labels, forfeits, _ = check_journal(out, "late", 2)
    assert set(labels) == {"timeout"}
    assert forfeits == Counter({"forfeit:faults": 2})
    assert_nothing_left(tmp_path)


def test_illegal_actions_lose_rounds_then_forfeit(tmp_path, good):
    runner, out = play(tmp_path, "illegal.py", good, games=4, concurrency=2)
    labels, forfeits, entries = check_journal(out, "illegal", 4)
    assert set(labels) == {"illegal"}
    # Every decision is illegal: max_faults in a row, every game.
    assert labels["illegal"] == 3 * 4 and forfeits == Counter({"forfeit:faults": 4})
    details = " | ".join(f["detail"] for f in entries)
    assert "call" in details and "raise" in details, details
    assert_nothing_left(tmp_path)


def test_garbage_is_malformed_then_forfeit(tmp_path, good):
    runner, out = play(tmp_path, "garbage_bot", good, games=4)
    labels, forfeits, entries = check_journal(out, "garbage_bot", 4)
    assert labels == Counter({"malformed": 12})
    assert forfeits == Counter({"forfeit:faults": 4})
    details = " | ".join(f["detail"] for f in entries)
    for words in ("not msgpack", "must be a map", "string field 'type'",
                  "2 frames in one message", "max_ext_len"):
        assert words in details, (words, details)
    assert runner.counters["garbage_bot"].restarts == 3
    assert_nothing_left(tmp_path)


def test_wrong_schema_is_malformed(tmp_path, good):
    runner, out = play(tmp_path, "schema_bot", good, games=4)
    labels, forfeits, entries = check_journal(out, "schema_bot", 4)
    assert set(labels) == {"malformed"} and labels["malformed"] >= 4
    assert not forfeits  # it answers legally every other decision
    details = " | ".join(f["detail"] for f in entries)
    for words in ("unknown fields", "field 'seq'", "field 'action'", "unknown message type",
                  "{kind: call}"):
        assert words in details, (words, details)
    assert runner.counters["schema_bot"].restarts == 0
    assert_nothing_left(tmp_path)


def test_oversize_message_is_malformed(tmp_path, good):
    runner, out = play(tmp_path, "oversize_bot", good, games=4)
    labels, forfeits, entries = check_journal(out, "oversize_bot", 4)
    assert labels == Counter({"malformed": 4}) and not forfeits
    assert all("exceeds the limit of 65536" in f["detail"] for f in entries), entries
    assert_nothing_left(tmp_path)


def test_over_transport_cap_cuts_the_bot_off(tmp_path, good):
    runner, out = play(tmp_path, "huge_bot", good, games=3, bank_ms=0)
    labels, forfeits, _ = check_journal(out, "huge_bot", 3)
    assert set(labels) <= {"timeout", "crash"} and labels
    # Cut off, it can answer nothing more: it forfeits every game it is asked again in.
    assert sum(forfeits.values()) == 3
    assert_nothing_left(tmp_path)


def test_stale_sequence_numbers_are_dropped_and_counted(tmp_path, good):
    runner, out = play(tmp_path, "stale_bot", good, games=4, bank_ms=0)
    labels, forfeits, entries = check_journal(out, "stale_bot", 4)
    assert labels == Counter({"timeout": 4}) and not forfeits
    assert runner.counters["stale_bot"].stale == 2 * 4
    assert runner.counters["stale_bot"].unsolicited == 0
    for name in ("caller", "random_bot"):
        assert runner.counters[name].stale == runner.counters[name].unsolicited == 0
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------------ command line


@pytest.mark.parametrize("bot", ["crash_at_start.py", "exit_at_once"])
def test_cli_bot_that_cannot_start(tmp_path, good, bot):
    proc = referee("run", "--bots", str(faulty(tmp_path, bot)), *good, "--games", "4",
                   "--start-timeout", "10s", "--strict-start", "--out", str(tmp_path / "run"),
                   cwd=tmp_path)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    no_traceback(proc)
    err = lines(proc.stderr)
    assert len(err) == 1, proc.stderr
    name = Path(bot).stem
    assert err[0].startswith("error: bot ") and name in err[0], err
    assert "exited with code 3" in err[0], err
    assert read_games(tmp_path / "run") == []
    assert not (tmp_path / "run" / "leaderboard.json").exists()
    assert_nothing_left(tmp_path)


def test_cli_missing_bot_file(tmp_path, good):
    missing = tmp_path / "no_such_bot.py"
    proc = referee("run", "--bots", str(missing), *good, "--games", "2",
                   "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    no_traceback(proc)
    err = lines(proc.stderr)
    assert len(err) == 1 and "bot file not found" in err[0] and str(missing) in err[0], err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("bot,label", [("crash_mid_game.py", "crash"),
                                       ("garbage_bot", "malformed")])
def test_cli_run_with_a_faulty_bot(tmp_path, good, bot, label):
    out = tmp_path / "run"
    proc = referee("run", "--bots", str(faulty(tmp_path, bot)), *good, "--games", "6",
                   "--move-time", "200ms", "--time-bank", "1s", "--concurrency", "2",
                   "--max-faults", "3", "--start-timeout", "10s", "--seed", "5",
                   "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    no_traceback(proc)
    assert proc.stderr.strip() == ""
    name = Path(bot).stem
    labels, forfeits, _ = check_journal(out, name, 6)
    assert set(labels) == {label}
    assert sum(forfeits.values()) >= 1
    board = json.loads((out / "leaderboard.json").read_text())
    rows = {r["bot"]: r for r in board["rows"]}
    assert set(rows) == {name, "caller", "random_bot"}
    assert rows[name]["faults"] == dict(labels)
    assert rows["caller"]["faults"] == rows["random_bot"]["faults"] == {}
    assert all(r["games"] == 6 for r in rows.values())
    assert_nothing_left(tmp_path)


@pytest.mark.parametrize("bot,code", [("illegal.py", 1), ("garbage_bot", 1),
                                      ("schema_bot", 1), ("hang.py", 1),
                                      ("crash_at_start.py", 3), ("exit_at_once", 3)])
def test_check_reports_a_faulty_bot(tmp_path, bot, code):
    proc = referee("check", str(faulty(tmp_path, bot)), "--move-time", "300ms",
                   "--start-timeout", "10s", cwd=tmp_path)
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    no_traceback(proc)
    sandbox, *out = lines(proc.stdout)
    assert sandbox.startswith("sandbox: "), proc.stdout  # check holds the bot as run does
    fails = [ln for ln in out if ln.startswith("FAIL ")]
    assert fails, proc.stdout
    if code == 1:
        assert out[0].startswith("PASS start and hello"), out
        assert out[-1].endswith("failed)") and "does not comply" in out[-1], out
    else:
        assert fails[0].startswith("FAIL start and hello: exited with code 3"), out
    assert_nothing_left(tmp_path)


# ------------------------------------------------------------------ resource limits


def test_memory_hog_is_stopped_by_the_address_space_limit(tmp_path, good):
    # Filling ~1 GiB before the limit bites takes a while on a busy machine: a long move
    # time keeps this about the limit, not the clock.
    runner, out = play(tmp_path, "hog.py", good, games=3, move_ms=10_000,
                       limits=BotLimits(memory_mb=1024))
    labels, forfeits, entries = check_journal(out, "hog", 3)
    if detect().version:  # a cgroup caps the bot's tree: the OOM killer ends it
        assert set(labels) == {"crash"} and forfeits == Counter({"forfeit:crash": 3})
        assert all("code -9" in f["detail"] for f in entries), entries
    else:  # the address space: the SDK catches the MemoryError, a malformed action
        assert set(labels) == {"malformed"} and set(forfeits) <= {"forfeit:faults"}
        assert all(f["detail"].startswith("act raised MemoryError") for f in entries), entries
    assert all(r["faults"] for r in read_games(out))  # in every game
    assert_nothing_left(tmp_path)


def test_cpu_limit_ends_a_spinning_bot(tmp_path, good):
    runner, out = play(tmp_path, "spinner.py", good, games=2, move_ms=5000, bank_ms=0,
                       limits=BotLimits(cpu_s=1))
    labels, forfeits, entries = check_journal(out, "spinner", 2)
    assert set(labels) == {"crash"} and forfeits["forfeit:crash"] == labels["crash"]
    assert any("-24" in f["detail"] or "code -9" in f["detail"] for f in entries), entries
    assert_nothing_left(tmp_path)


def test_chatty_bot_logs_are_capped_and_cost_the_others_nothing(tmp_path, good):
    cap = 64 << 10
    runner, out = play(tmp_path, "chatty.py", good, games=4, move_ms=300, bank_ms=0,
                       limits=BotLimits(log_bytes=cap))
    labels, _, _ = check_journal(out, "chatty", 4)
    assert not labels  # it plays legally and in time, however much it prints
    for stream in ("stdout", "stderr"):
        text = (out / "logs" / f"chatty.0.{stream}.log").read_text()
        marker, _, text = text.partition("\n")  # the referee's, not counted in the cap
        assert marker == "[referee] --- game 0 (seat 2) ---"
        assert text.startswith("x" * 1023)
        head, _, marker = text.rpartition("\n[referee: ")
        assert len(head.encode()) == cap, len(head)
        assert "more bytes dropped" in marker
    assert_nothing_left(tmp_path)


def test_fork_bomb_is_stopped_by_the_process_limit(tmp_path):
    """As root, --run-as nobody with --limit-procs caps the bomb's processes; the bot
    never starts (exit code 3) and every process it made is ended."""
    if os.geteuid() != 0:
        pytest.skip("--run-as needs root")
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="referee-bomb-"))  # readable by nobody
    try:
        shared.chmod(0o755)
        bomb = shared / "fork_bomb"
        shutil.copy(FAULTY / "fork_bomb", bomb)
        res = subprocess.run(
            [str(REFEREE), "run", "--bots", str(bomb), str(bomb), "--games", "1",
             "--run-as", "nobody", "--limit-procs", "30", "--start-timeout", "3s",
             "--strict-start",
             "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=120)
        assert res.returncode == 3, (res.stdout, res.stderr)
        assert "fork_bomb" in res.stderr and "Traceback" not in res.stderr
        logs = "".join(p.read_text() for p in (tmp_path / "run" / "logs").glob("*stderr*"))
        made = [int(line.split()[1]) for line in logs.splitlines()
                if line.startswith("forked ")]
        assert made and max(made) < 30, max(made, default=None)  # fork failed at the limit
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-u", "nobody", "-f", "sleep 120"],
                              capture_output=True, text=True).stdout.split()
        assert not left, left
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_child_that_leaves_the_process_group_is_ended_too(tmp_path, good):
    runner, out = play(tmp_path, "escaper.py", good, games=2)
    labels, forfeits, _ = check_journal(out, "escaper", 2)
    assert labels["crash"] >= 1 and forfeits["forfeit:crash"] == labels["crash"]
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", "sleep 4321"], capture_output=True,
                          text=True).stdout.split()
    assert not left, left
