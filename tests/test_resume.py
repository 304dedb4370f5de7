"""``referee resume``: after ``kill -9`` or Ctrl-C, the same games and the same leaderboard
as a run that was never interrupted. Real referee processes, real bot processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.journal import read_games
from referee.verify import verify_run

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import REFEREE, assert_nothing_left, good, referee  # noqa: E402

RUN = ["--players", "2", "--games", "36", "--seed", "5", "--move-time", "2s"]


def bots(tmp_path: Path) -> list[str]:
    caller, rnd = good(tmp_path, "caller.py", "random_bot.py")
    return ["--bots", caller, rnd, f"again={rnd}"]


def outcome(run: Path) -> list[tuple]:
    """What must not depend on interruptions: each game's seed, seats and places."""
    return sorted((r["game"], r["seed"], tuple(r["seats"]), tuple(r["places"]))
                  for r in read_games(run))


def leaderboard(run: Path) -> dict:
    doc = json.loads((run / "leaderboard.json").read_text())
    return {"rows": doc["rows"], "hash": doc["inputs_hash"], "n": doc["n_games"]}


def start(tmp_path: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([str(REFEREE), "run", *bots(tmp_path), *RUN, "--out", str(out),
                             *extra], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_games(out: Path, n: int, timeout_s: float = 60) -> None:
    path = out / "games.jsonl"
    deadline = time.monotonic() + timeout_s
    while not (path.exists() and path.read_text().count("\n") >= n):
        assert time.monotonic() < deadline, f"fewer than {n} games after {timeout_s} s"
        time.sleep(0.01)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("reference")
    res = referee("run", *bots(tmp), *RUN, "--out", str(tmp / "run"), cwd=tmp, timeout=120)
    assert res.returncode == 0, res.stderr
    return tmp / "run"


@pytest.mark.parametrize("after", [1, 17])
def test_kill_9_then_resume_gives_the_uninterrupted_run(tmp_path: Path, uninterrupted: Path,
                                                        after: int) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, "--concurrency", "2")
    wait_games(out, after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert_nothing_left(tmp_path)  # the bots die with their referee
    # A write cut short by the kill: a torn last line.
    with open(out / "games.jsonl", "a") as f:
        f.write('{"schema_version": 1, "game": 3')
    res = referee("resume", str(out), cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "dropped a torn last line" in res.stderr
    assert outcome(out) == outcome(uninterrupted)
    assert leaderboard(out) == leaderboard(uninterrupted)
    assert verify_run(out).games == len(outcome(uninterrupted))
    assert_nothing_left(tmp_path)


def test_ctrl_c_stops_cleanly_and_prints_the_resume_command(tmp_path: Path,
                                                            uninterrupted: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, "--concurrency", "2")
    wait_games(out, 5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert f"referee resume {out}" in err and "Traceback" not in err
    lines = (out / "games.jsonl").read_text()
    assert lines.endswith("\n")  # nothing torn: every finished game is whole
    done = len(lines.splitlines())
    assert 5 <= done < len(outcome(uninterrupted))
    assert_nothing_left(tmp_path)
    res = referee("resume", str(out), cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert outcome(out) == outcome(uninterrupted)
    assert leaderboard(out) == leaderboard(uninterrupted)


def test_resume_of_a_finished_run_plays_nothing(tmp_path: Path, uninterrupted: Path) -> None:
    out = tmp_path / "copy"
    out.mkdir()
    for name in ("config.json", "games.jsonl", "transcripts.jsonl"):
        (out / name).write_bytes((uninterrupted / name).read_bytes())
    res = referee("resume", str(out), cwd=tmp_path, timeout=60)
    assert res.returncode == 0, res.stderr
    assert outcome(out) == outcome(uninterrupted)
    assert leaderboard(out) == leaderboard(uninterrupted)


def test_resume_refuses_a_bot_that_changed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    caller, rnd = good(tmp_path, "caller.py", "random_bot.py")
    res = referee("run", "--bots", caller, rnd, "--games", "2", "--seed", "1", "--out",
                  str(out), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    with open(caller, "a") as f:
        f.write("\n# a new version\n")
    res = referee("resume", str(out), cwd=tmp_path)
    assert res.returncode == 2
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "changed since the run started" in err[0], res.stderr


@pytest.mark.parametrize("what", ["missing", "garbage"])
def test_resume_of_something_that_is_not_a_run(tmp_path: Path, what: str) -> None:
    out = tmp_path / "run"
    if what == "garbage":
        out.mkdir()
        (out / "config.json").write_text("{not json")
    res = referee("resume", str(out), cwd=tmp_path)
    assert res.returncode == 2
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and str(out) in err[0] and "Traceback" not in res.stderr
