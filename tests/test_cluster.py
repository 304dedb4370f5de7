"""``referee run --cluster``: a real ``dask scheduler`` and two real ``dask worker``
processes on localhost, real referee worker processes on them, real bot processes. The
games, the journal and the leaderboard are those of one referee process with the same
seed and deal secret, through the loss of a worker and a ``kill -9`` of the coordinator."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from referee.journal import read_games  # noqa: E402
from referee.verify import verify_run  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    BIN,
    FAULTY,
    REFEREE,
    _procs,
    assert_nothing_left,
    check_transcripts,
    lines,
    referee,
)
from test_resume import bots, leaderboard, outcome, wait_games  # noqa: E402

GAMES = 72
RUN = ["--players", "2", "--games", str(GAMES), "--seed", "5", "--move-time", "2s"]
DASK = BIN / "dask"


def secret(tmp: Path) -> list[str]:
    path = tmp / "secret.key"
    path.write_bytes(bytes(range(32)))
    return ["--secret-file", str(path)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaskCluster:
    """A scheduler and two workers (no nanny: a worker killed stays dead)."""

    def __init__(self, root: Path):
        self.root = root
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.scheduler = self._start("scheduler", "--host", "127.0.0.1", "--port",
                                     str(self.port), "--no-dashboard")
        self.workers = [self._start("worker", self.address, "--nthreads", "2", "--no-nanny",
                                    "--no-dashboard", "--local-directory",
                                    str(self.dir(n)), name=f"worker-{n}") for n in range(2)]
        self.wait_for_workers(2)

    def dir(self, n: int) -> Path:
        return self.root / f"w{n}"

    def _start(self, *args: str, name: str = "scheduler") -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "ab")
        return subprocess.Popen([str(DASK), *args], stdout=log, stderr=log,
                                stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            client.wait_for_workers(n, timeout=60)

    def batches_rerun(self) -> int:
        """Batch tasks that were running on a worker when it died (the scheduler marks
        each suspicious and runs it again elsewhere)."""
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            return client.run_on_scheduler(
                lambda dask_scheduler: dask_scheduler.task_prefixes["play_batch"].suspicious)

    def kill_worker(self, n: int) -> None:
        self.workers[n].kill()
        self.workers[n].wait()

    def close(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.fixture
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    cluster = DaskCluster(tmp_path_factory.mktemp("dask"))
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference: the same run in a single referee process (``--workers 1``)."""
    tmp = tmp_path_factory.mktemp("one")
    res = referee("run", *bots(tmp), *RUN, *secret(tmp), "--workers", "1", "--out",
                  str(tmp / "run"), cwd=tmp, timeout=180)
    assert res.returncode == 0, res.stderr
    return tmp / "run"


def sessions(worker_dir: Path) -> list[Path]:
    """The run sessions a worker has played games of (each has its own directory in
    the worker's local directory, which a worker that closes removes)."""
    return [p for p in worker_dir.glob("dask-scratch-space/*/referee/*") if p.is_dir()]


def bots_left(worker_dir: Path) -> list[str]:
    """Processes that run a bot file this worker received."""
    mark = f"{worker_dir}{os.sep}"
    return [cmd for _, _, state, cmd in _procs() if mark in cmd and state != "Z"]


def assert_no_bots_left(worker_dir: Path) -> None:
    deadline = time.monotonic() + 5.0
    while bots_left(worker_dir):
        assert time.monotonic() < deadline, bots_left(worker_dir)
        time.sleep(0.05)


def check_same_run(out: Path, reference: Path) -> None:
    games = [r["game"] for r in read_games(out)]
    assert sorted(games) == list(range(GAMES))  # every game of the schedule, once
    assert verify_run(out).games == GAMES
    check_transcripts(out)
    assert outcome(out) == outcome(reference)
    assert leaderboard(out) == leaderboard(reference)


def start(tmp: Path, out: Path, address: str) -> subprocess.Popen:
    return subprocess.Popen([str(REFEREE), "run", *bots(tmp), *RUN, *secret(tmp),
                             "--cluster", address, "--out", str(out)], cwd=tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path, dask_cluster: DaskCluster,
                                               one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, dask_cluster.address)
    wait_games(out, 4, timeout_s=120)
    busy = [n for n in range(2) if sessions(dask_cluster.dir(n))]
    assert busy, "no worker has played a game"
    dask_cluster.kill_worker(busy[-1])  # while it holds batches of the run
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert f"cluster {dask_cluster.address}" in stdout
    assert "Traceback" not in stderr, stderr
    assert dask_cluster.batches_rerun() >= 1  # the killed worker's games were played again
    check_same_run(out, one_process)
    for n in range(2):  # the killed worker's bots died with it; the other's were ended
        assert_no_bots_left(dask_cluster.dir(n))
    assert_nothing_left(tmp_path)


def test_resume_after_kill_9_of_the_coordinator(tmp_path: Path, dask_cluster: DaskCluster,
                                                one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, dask_cluster.address)
    wait_games(out, 4, timeout_s=120)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert len(read_games(out)) < GAMES
    res = referee("resume", str(out), "--cluster", dask_cluster.address, cwd=tmp_path,
                  timeout=300)
    assert res.returncode == 0, res.stderr
    check_same_run(out, one_process)
    # Two sessions on the workers: the killed coordinator's (ended once idle) and the
    # resume's (ended by it).
    assert len({p.name for n in range(2) for p in sessions(dask_cluster.dir(n))}) == 2


def test_local_cluster(tmp_path: Path, one_process: Path) -> None:
    out = tmp_path / "run"
    res = referee("run", *bots(tmp_path), *RUN, *secret(tmp_path), "--cluster", "local:2",
                  "--out", str(out), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "cluster local:2" in res.stdout
    check_same_run(out, one_process)
    assert_nothing_left(tmp_path)


def test_ctrl_c_on_a_local_cluster_and_resume(tmp_path: Path, one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, "local:2")
    wait_games(out, 4, timeout_s=120)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert lines(err)[-1].startswith("interrupted: ") and f"referee resume {out}" in err
    assert "Traceback" not in err and "WARNING" not in err, err
    res = referee("resume", str(out), "--cluster", "local:2", cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    check_same_run(out, one_process)
    assert_nothing_left(tmp_path)


def test_a_bot_that_cannot_start_on_a_worker(tmp_path: Path) -> None:
    crash = tmp_path / "crash_at_start.py"
    shutil.copy(FAULTY / crash.name, crash)
    res = referee("run", "--bots", str(crash), *bots(tmp_path)[1:3], "--players", "2",
                  "--games", "4", "--start-timeout", "10s", "--strict-start", "--cluster",
                  "local:1", "--out",
                  str(tmp_path / "run"), cwd=tmp_path, timeout=120)
    assert res.returncode == 3, res.stderr
    err = lines(res.stderr)
    assert len(err) == 1 and err[0].startswith("error: bot crash_at_start ") \
        and "exited with code 3" in err[0], err
    assert read_games(tmp_path / "run") == []
    assert_nothing_left(tmp_path)


def test_unreachable_scheduler_is_a_one_line_error(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    res = referee("run", *bots(tmp_path), *RUN, "--cluster", address, "--out",
                  str(tmp_path / "run"), cwd=tmp_path, timeout=120)
    assert res.returncode == 2, res.stderr
    err = lines(res.stderr)
    assert len(err) == 1 and err[0].startswith(
        f"error: --cluster {address}: no Dask scheduler answers there"), err
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_a_bad_cluster_address_is_a_usage_error(tmp_path: Path) -> None:
    for address, why in (("localhost:8786", "give a scheduler address"),
                         ("local:0", "write local:N")):
        res = referee("run", *bots(tmp_path), *RUN, "--cluster", address, cwd=tmp_path)
        assert res.returncode == 2, res.stderr
        err = lines(res.stderr)
        assert len(err) == 1 and err[0].startswith(f"error: --cluster {address}: ") \
            and why in err[0], err


def test_sprt_on_a_local_cluster(tmp_path: Path) -> None:
    caller, rnd = bots(tmp_path)[1:3]
    verdicts = []
    for how in ([], ["--cluster", "local:2"]):
        out = tmp_path / f"sprt{len(how)}"
        res = referee("sprt", "--candidate", caller, "--baseline", rnd, "--seed", "3",
                      *secret(tmp_path), "--max-games", "400", "--out", str(out), *how,
                      cwd=tmp_path, timeout=300)
        verdicts.append((res.returncode, json.loads((out / "sprt.json").read_text())
                         ["verdict"]))
        games = [r["game"] for r in read_games(out)]
        assert len(games) == len(set(games))  # each game once
        assert verify_run(out, complete=False).games == len(games)
    assert verdicts == [(0, "H1"), (0, "H1")], verdicts
    assert_nothing_left(tmp_path)


def test_a_worker_refuses_a_bot_file_whose_hash_differs(tmp_path: Path) -> None:
    from referee.clusterhost import BotFile, BotFileMismatch
    from referee.process import resolve_bots

    spec = resolve_bots([bots(tmp_path)[1]])[0]
    sent = BotFile.read(spec)
    placed = sent.place(tmp_path / "worker")
    assert placed.path.read_bytes() == spec.path.read_bytes()
    assert placed.path.parent.name == spec.sha256 and placed.sha256 == spec.sha256
    tampered = replace(sent, data=sent.data + b"\n# changed on the way\n")
    with pytest.raises(BotFileMismatch, match=f"not the run's {spec.sha256}; refused"):
        tampered.place(tmp_path / "other")
    assert not (tmp_path / "other" / spec.sha256).exists()
