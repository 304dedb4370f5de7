"""A full disk, SIGTERM and Ctrl-C: one line, the documented exit code, a whole journal
that ``referee resume`` finishes, no temporary folder left behind. Real referee
processes, real bots, a real (small) file system."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))
from harness import assert_nothing_left  # noqa: E402
from support import (  # noqa: E402
    bots,
    grow,
    journal,
    one_error,
    referee,
    small_disk,
    start,
)

from referee.verify import verify_run  # noqa: E402

GAMES = ["--games", "300", "--seed", "5", "--move-time", "2s", "--players", "2"]


def wait_games(run: Path, n: int, timeout_s: float = 90) -> None:
    path = run / "games.jsonl"
    deadline = time.monotonic() + timeout_s
    while not (path.exists() and path.read_text().count("\n") >= n):
        assert time.monotonic() < deadline, f"fewer than {n} games after {timeout_s} s"
        time.sleep(0.02)


def resume_finishes(run: Path, tmp: Path, before: list[dict], games: int) -> None:
    """``referee resume`` plays the rest; the games journalled before are kept as they
    were, and the whole run checks out against its schedule."""
    res = referee("resume", str(run), tmp=tmp, timeout=300)
    assert res.returncode == 0, res.stderr
    after, transcripts = journal(run)
    kept = {r["game"]: r for r in after}
    assert all(kept[r["game"]] == r for r in before)
    assert verify_run(run).games == games == len(after)
    assert (run / "leaderboard.json").exists()


@pytest.mark.parametrize("how", [[], ["--concurrency", "2", "--workers", "2"]],
                         ids=["one process", "two workers"])
def test_full_disk_mid_run_is_one_line_exit_4_and_resume_finishes(tmp_path, tmpdir_env, how):
    with small_disk(tmp_path / "disk", "300k") as disk:
        run = disk / "run"
        caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
        res = referee("run", "--bots", caller, rnd, *GAMES, *how, "--out", str(run),
                      tmp=tmpdir_env)
        line = one_error(res, 4, "No space left on device", f"referee resume {run}")
        assert line.startswith(f"error: cannot write {run}/") and ".jsonl" in line
        games, transcripts = journal(run)  # no torn line in either file
        assert 0 < len(games) < 300
        assert [t["game"] for t in transcripts] == [g["game"] for g in games]
        assert not (run / "error.log").exists()
        assert list(tmpdir_env.iterdir()) == []
        assert_nothing_left(tmp_path)
        grow(disk, "20m")
        resume_finishes(run, tmpdir_env, games, 300)
        assert list(tmpdir_env.iterdir()) == []


def test_a_disk_full_before_the_first_game(tmp_path, tmpdir_env):
    """Not even the run's first file (its deal secret) fits: one line, exit 4, and no
    resume hint (there is nothing to resume); with room, the same command starts the run."""
    with small_disk(tmp_path / "disk", "4k") as disk:
        (disk / "filler").write_bytes(b"x" * 4096)
        run = disk / "run"
        caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
        args = ["run", "--bots", caller, rnd, "--games", "2", "--out", str(run)]
        res = referee(*args, tmp=tmpdir_env)
        one_error(res, 4, f"cannot write {run}", "No space left on device",
                  "no game was played")
        assert list(tmpdir_env.iterdir()) == []
        (disk / "filler").unlink()
        grow(disk, "10m")
        again = referee(*args, tmp=tmpdir_env)
        assert again.returncode == 0, again.stderr
        assert verify_run(run).games == 2


def test_a_full_disk_in_sprt_is_exit_4_never_a_verdict(tmp_path, tmpdir_env):
    with small_disk(tmp_path / "disk", "200k") as disk:
        (caller,) = bots(tmp_path, "caller.py")  # against itself: no early verdict
        res = referee("sprt", "--candidate", caller, "--baseline", caller, "--elo1", "5",
                      "--max-games", "5000", "--out", str(disk / "run"), tmp=tmpdir_env)
        one_error(res, 4, "No space left on device")
        journal(disk / "run")
        assert list(tmpdir_env.iterdir()) == []
        assert_nothing_left(tmp_path)


def test_a_bot_that_floods_its_log_on_a_small_disk(tmp_path, tmpdir_env):
    """chatty writes 2 MB to stdout and to stderr on every decision: its logs fill the
    disk. The log thread survives (one warning), the journal cannot be written: exit 4,
    and with room again the run is finished."""
    with small_disk(tmp_path / "disk", "1200k") as disk:
        run = disk / "run"
        chatty, caller = bots(tmp_path, "chatty.py", "caller.py")
        args = ["--bots", chatty, caller, "--games", "4", "--seed", "3", "--move-time", "5s"]
        res = referee("run", *args, "--out", str(run), tmp=tmpdir_env)
        assert res.returncode == 4, res.stderr
        err = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(err) == 2 and "Traceback" not in res.stderr, err
        assert err[0].startswith("warning: cannot write ") and "logs" in err[0], err
        assert err[1].startswith("error: cannot write ") and "No space left" in err[1], err
        games, _ = journal(run)
        assert list(tmpdir_env.iterdir()) == []
        assert_nothing_left(tmp_path)
        grow(disk, "40m")
        resume_finishes(run, tmpdir_env, games, 4)


@pytest.mark.parametrize(("workers", "everyone"), [(1, False), (2, False), (2, True)],
                         ids=["one process", "two workers", "two workers, all signalled"])
def test_sigterm_stops_like_ctrl_c_exit_143_and_resume_finishes(tmp_path, tmpdir_env,
                                                                 workers, everyone):
    """``everyone``: the SIGTERM goes to the workers too, as a service manager sends it
    to every process of a service."""
    run = tmp_path / "run"
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    proc = start("run", "--bots", caller, rnd, *GAMES[:4], "--games", "40",
                 "--concurrency", "2", "--workers", str(workers), "--out", str(run),
                 tmp=tmpdir_env)
    wait_games(run, 3)
    ipc = [p for p in tmpdir_env.iterdir() if not p.name.startswith("referee-kernels-")]
    assert len(ipc) == workers  # each hub's ipc folder (and the sandbox's kernel copy)
    if everyone:
        for child in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split():
            os.kill(int(child), signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert f"go on with: referee resume {run}" in err and "Traceback" not in err
    games, _ = journal(run)
    assert 3 <= len(games) < 40
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)
    resume_finishes(run, tmpdir_env, games, 40)


def test_sigterm_during_sprt_is_143_and_removes_its_folders(tmp_path, tmpdir_env):
    (caller,) = bots(tmp_path, "caller.py")  # against itself: no early verdict
    run = tmp_path / "run"
    proc = start("sprt", "--candidate", caller, "--baseline", caller, "--elo1", "5",
                 "--max-games", "2000", "--out", str(run), tmp=tmpdir_env)
    wait_games(run, 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_ctrl_c_removes_the_temporary_folders_too(tmp_path, tmpdir_env):
    run = tmp_path / "run"
    caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
    proc = start("run", "--bots", caller, rnd, *GAMES, "--out", str(run), tmp=tmpdir_env)
    wait_games(run, 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    journal(run)
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_sigterm_while_a_bot_starts_ends_at_once(tmp_path, tmpdir_env):
    """A bot that never connects holds the start for --start-timeout; SIGTERM does not
    wait for it."""
    never, caller = bots(tmp_path, "never_connects", "caller.py")
    proc = start("run", "--bots", never, caller, "--start-timeout", "60s",
                 "--sandbox", "none",  # it writes its pid beside itself
                 "--out", str(tmp_path / "run"), tmp=tmpdir_env)
    deadline = time.monotonic() + 30
    while not (tmp_path / "bots" / "never_connects.pid").exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert time.monotonic() - sent < 10
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_sigterm_during_check_removes_its_folders(tmp_path, tmpdir_env):
    (never,) = bots(tmp_path, "never_connects")
    proc = start("check", never, "--start-timeout", "60s", "--out", str(tmp_path / "check"),
                 "--sandbox", "none", tmp=tmpdir_env)  # the bot writes its pid beside it
    deadline = time.monotonic() + 30
    while not (tmp_path / "bots" / "never_connects.pid").exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert len(list(tmpdir_env.iterdir())) == 1  # the hub's ipc folder
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_temporary_folders_go_on_success_and_on_bot_failure(tmp_path, tmpdir_env):
    caller, rnd, dead = bots(tmp_path, "caller.py", "random_bot.py", "exit_at_once")
    ok = referee("run", "--bots", caller, rnd, "--games", "2", "--out", str(tmp_path / "a"),
                 tmp=tmpdir_env)
    assert ok.returncode == 0, ok.stderr
    failed = referee("run", "--bots", dead, caller, "--strict-start", "--out",
                     str(tmp_path / "b"), tmp=tmpdir_env)
    one_error(failed, 3, "exit_at_once")
    checked = referee("check", caller, "--out", str(tmp_path / "c1"), tmp=tmpdir_env)
    assert checked.returncode == 0, checked.stdout
    not_started = referee("check", dead, "--out", str(tmp_path / "c2"), tmp=tmpdir_env)
    assert not_started.returncode == 3 and "FAIL start and hello" in not_started.stdout
    assert list(tmpdir_env.iterdir()) == []
    assert_nothing_left(tmp_path)


def test_an_unwritable_run_directory_at_resume_is_exit_2(tmp_path, tmpdir_env):
    with small_disk(tmp_path / "disk", "2m") as disk:
        run = disk / "run"
        caller, rnd = bots(tmp_path, "caller.py", "random_bot.py")
        proc = start("run", "--bots", caller, rnd, *GAMES, "--out", str(run), tmp=tmpdir_env)
        wait_games(run, 2)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        before = (run / "games.jsonl").read_bytes()
        grow(disk, "2m,ro")
        res = referee("resume", str(run), tmp=tmpdir_env)
        one_error(res, 2, str(run), "cannot be written", "Read-only file system")
        assert (run / "games.jsonl").read_bytes() == before
        assert list(tmpdir_env.iterdir()) == []
