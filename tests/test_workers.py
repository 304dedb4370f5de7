"""``referee run --workers N``: the same games as one referee process, and the same clean
endings (Ctrl-C, ``kill -9``, a bot that cannot start, a worker that fails). Real referee
processes, real worker processes, real bot processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.config import RunConfig
from referee.journal import read_games
from referee.process import resolve_bots
from referee.verify import verify_run
from referee.workers import WorkerPool

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    FAULTY,
    REFEREE,
    _procs,
    assert_nothing_left,
    bot_dir,
    check_transcripts,
    good,
    lines,
    no_traceback,
    referee,
)
from test_resume import bots, leaderboard, outcome, wait_games  # noqa: E402

RUN = ["--players", "2", "--games", "36", "--seed", "5", "--move-time", "2s",
       "--concurrency", "2"]
WORKERS = ["--workers", "2"]


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference: the same run in a single referee process."""
    tmp = tmp_path_factory.mktemp("one")
    res = referee("run", *bots(tmp), *RUN, "--out", str(tmp / "run"), cwd=tmp, timeout=120)
    assert res.returncode == 0, res.stderr
    return tmp / "run"


def start(tmp_path: Path, out: Path) -> subprocess.Popen:
    """A run with workers in a session of its own, as a terminal's foreground job is."""
    return subprocess.Popen([str(REFEREE), "run", *bots(tmp_path), *RUN, *WORKERS, "--out",
                             str(out)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def children(pid: int) -> list[int]:
    return [p for p, ppid, _, _ in _procs() if ppid == pid]


def workers_of(proc: subprocess.Popen) -> list[int]:
    pids = [p for p in children(proc.pid)
            if "referee.workers" in Path(f"/proc/{p}/cmdline").read_text()]
    assert len(pids) == 2, pids
    return pids


def test_workers_play_the_same_games_as_one_process(tmp_path: Path, one_process: Path) -> None:
    out = tmp_path / "run"
    res = referee("run", *bots(tmp_path), *RUN, *WORKERS, "--out", str(out), cwd=tmp_path,
                  timeout=120)
    assert res.returncode == 0, res.stderr
    assert "2 workers" in res.stdout
    assert outcome(out) == outcome(one_process)
    assert leaderboard(out) == leaderboard(one_process)
    assert verify_run(out).games == 36
    check_transcripts(out)
    assert json.loads((out / "config.json").read_text())["config"]["workers"] == 2
    counters = json.loads((out / "counters.json").read_text())
    assert counters == json.loads((one_process / "counters.json").read_text())  # all zero
    # Slots are numbered across the workers: one set of logs per process, each worker's
    # processes under its own slot (0 or 1; a later process of the slot is a generation).
    # Each worker is first handed a whole group (two games of one deal), which no process
    # plays twice: a second process of its slot plays the other game.
    labels = {p.name.removesuffix(".stderr.log").removesuffix(".stdout.log")
              for p in (out / "logs").glob("caller.*")}
    assert {"caller.0", "caller.0.1", "caller.1", "caller.1.1"} <= labels
    assert all(re.fullmatch(r"caller\.[01](\.\d+)?", label) for label in labels), labels
    for label in labels:
        assert (out / "logs" / f"{label}.stdout.log").exists()
    assert_nothing_left(tmp_path)


def test_ctrl_c_stops_the_workers_and_resume_completes(tmp_path: Path,
                                                       one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out)
    wait_games(out, 2)
    workers = workers_of(proc)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert f"referee resume {out}" in err and "Traceback" not in err
    journal = (out / "games.jsonl").read_text()
    assert journal.endswith("\n")
    assert 2 <= len(journal.splitlines()) < 36
    assert_nothing_left(tmp_path, workers)
    res = referee("resume", str(out), cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert outcome(out) == outcome(one_process)
    assert leaderboard(out) == leaderboard(one_process)
    assert_nothing_left(tmp_path)


def test_kill_9_takes_the_workers_and_their_bots_along(tmp_path: Path,
                                                      one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out)
    wait_games(out, 2)
    workers = workers_of(proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert_nothing_left(tmp_path, workers)
    res = referee("resume", str(out), cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert outcome(out) == outcome(one_process)
    assert_nothing_left(tmp_path)


def test_a_worker_that_dies_is_an_internal_error(tmp_path: Path, one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out)
    wait_games(out, 2)
    workers = workers_of(proc)
    os.kill(workers[1], signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 4, err
    assert "internal error: WorkerError: worker 1 was killed by signal 9" in err, err
    assert_nothing_left(tmp_path, workers)
    res = referee("resume", str(out), cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert outcome(out) == outcome(one_process)


def test_an_exception_in_a_worker_is_an_internal_error(tmp_path: Path) -> None:
    out = tmp_path / "run"
    (out / "logs" / "caller.0.stdout.log").mkdir(parents=True)  # worker 0 cannot log it
    res = referee("run", *bots(tmp_path), *RUN, *WORKERS, "--out", str(out), cwd=tmp_path)
    assert res.returncode == 4, res.stderr
    no_traceback(res)
    err = lines(res.stderr)
    assert len(err) == 1 and err[0].startswith("internal error: WorkerError: worker 0: "
                                               "IsADirectoryError"), err
    log = (out / "error.log").read_text()
    assert "WorkerTraceback" in log and "referee/logs.py" in log  # where the worker failed
    assert_nothing_left(tmp_path)


def test_a_bot_that_cannot_start_stops_the_run(tmp_path: Path) -> None:
    broken = bot_dir(tmp_path) / "exit_at_once"
    shutil.copy(FAULTY / "exit_at_once", broken)
    res = referee("run", "--bots", str(broken), *good(tmp_path), *RUN, *WORKERS,
                  "--strict-start", "--out",
                  str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 3, (res.stdout, res.stderr)
    no_traceback(res)
    err = lines(res.stderr)
    assert len(err) == 1, res.stderr
    assert err[0].startswith("error: bot exit_at_once ") and "exited with code 3" in err[0]
    assert "not today" in err[0]  # the bot's own last words
    assert_nothing_left(tmp_path)


def test_stop_finishes_the_games_in_progress_and_starts_no_more(tmp_path: Path) -> None:
    config = RunConfig(bots=tuple(resolve_bots(bots(tmp_path)[1:])), params={"ruleset": "official"},
                       players=2, games=36, seed=5, move_ms=2000, bank_ms=5000,
                       concurrency=2, max_faults=3, start_timeout_ms=10_000,
                       out=tmp_path / "run", workers=2)

    def progress(pool: WorkerPool, record: dict) -> None:
        if pool.played == 4:
            pool.stop()

    pool = WorkerPool(config, progress=progress)
    pool.run()
    records = read_games(config.out)
    assert 4 <= len(records) == pool.played < 36 and pool.abandoned == []
    assert verify_run(config.out, complete=False).games == len(records)
    assert set(pool.counters_report()["bots"]) == {"caller", "random_bot", "again"}
    assert_nothing_left(tmp_path)


@pytest.mark.parametrize("args, why", [
    (["--workers", "3"], "--workers 3 needs --concurrency 3 or more"),
    (["--workers", "0"], "must be at least 1"),
])
def test_bad_workers(tmp_path: Path, args: list[str], why: str) -> None:
    res = referee("run", *bots(tmp_path), "--concurrency", "2", *args, "--out",
                  str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 2 and why in res.stderr, res.stderr
