"""``referee run --cluster``: a real ``dask scheduler`` and two real ``dask worker``
processes on localhost speaking ``tls://`` with certificates made here, real referee
worker processes on them, real bot processes. The games, the journal and the leaderboard
are those of one referee process with the same seed and deal secret, through the loss of
a worker, a hung worker, a ``kill -9`` of the coordinator, a killed scheduler."""

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
from dataclasses import dataclass, replace
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
# Limits that make a hung worker's deadline short: 6 s + 4 x (500 ms + 500 ms).
RUN = ["--players", "2", "--games", str(GAMES), "--seed", "5", "--move-time", "500ms",
       "--time-bank", "500ms", "--start-timeout", "6s"]
DASK = BIN / "dask"


@dataclass(frozen=True)
class Tls:
    """Certificates made for the module's clusters: one CA, one key and certificate."""

    ca: Path
    cert: Path
    key: Path

    def args(self) -> list[str]:
        return ["--tls-ca-file", str(self.ca), "--tls-cert", str(self.cert), "--tls-key",
                str(self.key)]

    def security(self):  # noqa: ANN201 (distributed is imported late)
        from distributed.security import Security

        return Security(tls_ca_file=str(self.ca), tls_client_cert=str(self.cert),
                        tls_client_key=str(self.key), require_encryption=True)


@pytest.fixture(scope="module", autouse=True)
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tls]:
    """Certificates, and Dask's configuration that makes the referee a client with them
    (what docs/cluster.md tells a host to set)."""
    from distributed.security import Security

    made, root = Security.temporary(), tmp_path_factory.mktemp("tls")
    files = Tls(root / "ca.pem", root / "cert.pem", root / "key.pem")
    for path, pem in ((files.ca, made.tls_ca_file), (files.cert, made.tls_client_cert),
                      (files.key, made.tls_client_key)):
        path.write_text(pem)
        path.chmod(0o600)
    with pytest.MonkeyPatch.context() as mp:
        for name, value in (("TLS__CA_FILE", files.ca), ("TLS__CLIENT__CERT", files.cert),
                            ("TLS__CLIENT__KEY", files.key), ("REQUIRE_ENCRYPTION", "True")):
            mp.setenv(f"DASK_DISTRIBUTED__COMM__{name}", str(value))
        yield files


def secret(tmp: Path) -> list[str]:
    path = tmp / "secret.key"
    path.write_bytes(bytes(range(32)))
    return ["--secret-file", str(path)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaskCluster:
    """A TLS scheduler and ``workers`` workers (no nanny: a worker killed stays dead)."""

    def __init__(self, root: Path, tls: Tls, workers: int = 2):
        self.root, self.tls = root, tls
        root.mkdir(exist_ok=True)
        self.port = free_port()
        self.address = f"tls://127.0.0.1:{self.port}"
        self.scheduler = self._start("scheduler", "--host", "127.0.0.1", "--port",
                                     str(self.port), "--no-dashboard", *tls.args())
        self.workers: list[subprocess.Popen] = []
        if workers:
            self.add_workers(workers)

    def add_workers(self, n: int) -> None:
        for _ in range(n):
            k = len(self.workers)
            self.workers.append(self._start(
                "worker", self.address, "--nthreads", "2", "--no-nanny", "--no-dashboard",
                "--local-directory", str(self.dir(k)), *self.tls.args(), name=f"worker-{k}"))
        self.wait_for_workers(len(self.workers))

    def dir(self, n: int) -> Path:
        return self.root / f"w{n}"

    def _start(self, *args: str, name: str = "scheduler") -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "ab")
        return subprocess.Popen([str(DASK), *args], stdout=log, stderr=log,
                                stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=30, security=self.tls.security()) as client:
            client.wait_for_workers(n, timeout=60)

    def batches_rerun(self) -> int:
        """Batch tasks that were running on a worker when it died (the scheduler marks
        each suspicious and runs it again elsewhere)."""
        from distributed import Client

        with Client(self.address, timeout=30, security=self.tls.security()) as client:
            return client.run_on_scheduler(
                lambda dask_scheduler: dask_scheduler.task_prefixes["play_batch"].suspicious)

    def kill_worker(self, n: int) -> None:
        self.workers[n].kill()
        self.workers[n].wait()

    def close(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)  # a worker a test stopped
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.fixture
def dask_cluster(tmp_path_factory: pytest.TempPathFactory, tls: Tls) -> Iterator[DaskCluster]:
    cluster = DaskCluster(tmp_path_factory.mktemp("dask"), tls)
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


def test_unreachable_scheduler_is_a_one_line_error(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION")
    address = f"tcp://127.0.0.1:{free_port()}"  # allowed: the host says so
    res = referee("run", *bots(tmp_path), *RUN, "--cluster", address, "--cluster-insecure",
                  "--out", str(tmp_path / "run"), cwd=tmp_path, timeout=120)
    assert res.returncode == 2, res.stderr
    err = lines(res.stderr)
    assert len(err) == 1 and err[0].startswith(
        f"error: --cluster {address}: no Dask scheduler answers there"), err
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_a_bad_cluster_address_is_a_usage_error(tmp_path: Path) -> None:
    from referee.sandbox import resolve

    cases = [("localhost:8786", "give a scheduler address"), ("local:0", "write local:N")]
    if resolve("auto")[0] != "none":  # sandboxed bots: not over an unencrypted scheduler
        cases.append(("tcp://127.0.0.1:8786", "an unencrypted scheduler lets anyone"))
    for address, why in cases:
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


def test_a_bot_travels_as_its_folder_and_is_refused_if_it_differs(tmp_path: Path) -> None:
    from referee.bottree import BotFileMismatch, BotTree, TreeFile
    from referee.process import resolve_bots

    package = tmp_path / "pkg"
    shutil.copytree(Path(__file__).resolve().parents[1] / "bots" / "turkish_poker", package,
                    ignore=shutil.ignore_patterns("__pycache__"))  # made by earlier tests
    (package / "model").mkdir()
    (package / "model" / "weights.bin").write_bytes(bytes(range(256)) * 4)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "common.cpython-311.pyc").write_bytes(b"stale")
    run_dir = package / "runs" / "r1"  # a run directory inside the package stays home
    run_dir.mkdir(parents=True)
    (run_dir / "games.jsonl").write_text("{}\n")
    lone, bot = resolve_bots([bots(tmp_path)[1], str(package / "rules_bot.py")])
    sent = BotTree.read(bot, run_dir)
    assert {f.path for f in sent.files} == {
        p.relative_to(package).as_posix() for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and "runs" not in p.parts}
    placed = sent.place(tmp_path / "worker")
    assert placed.path.parent.name == sent.digest and placed.sha256 == bot.sha256
    assert (placed.path.parent / "model" / "weights.bin").read_bytes() == \
        (package / "model" / "weights.bin").read_bytes()
    assert [f.path for f in BotTree.read(lone).files] == [lone.path.name]  # alone
    for tampered in (
            replace(sent, files=(*sent.files, TreeFile("extra.py", 0o644, b"x = 1\n"))),
            replace(sent, files=tuple(replace(f, data=f.data + b"#") if f.path == "common.py"
                                      else f for f in sent.files))):
        with pytest.raises(BotFileMismatch, match=f"not the run's {sent.digest}; refused"):
            tampered.place(tmp_path / "other")
    entry_changed = [replace(f, data=f.data + b"#") if f.path == sent.entry else f
                     for f in sent.files]
    from referee.bottree import tree_hash

    forged = replace(sent, files=tuple(entry_changed), digest=tree_hash(tuple(entry_changed)))
    with pytest.raises(BotFileMismatch, match=f"not the run's {bot.sha256}; refused"):
        forged.place(tmp_path / "other")
    assert not (tmp_path / "other").exists() or not any((tmp_path / "other").iterdir())


def test_a_hung_worker_is_retired_and_its_batches_played_elsewhere(
        tmp_path: Path, dask_cluster: DaskCluster, one_process: Path) -> None:
    out = tmp_path / "run"
    proc = start(tmp_path, out, dask_cluster.address)
    wait_games(out, 4, timeout_s=120)
    busy = [n for n in range(2) if sessions(dask_cluster.dir(n))]
    assert busy, "no worker has played a game"
    hung = dask_cluster.workers[busy[-1]]
    os.kill(hung.pid, signal.SIGSTOP)  # while it holds batches of the run
    try:
        stdout, stderr = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:  # ended here, so that it outlives no test
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the run did not end in 300 s; it said: {stderr}")
    finally:
        os.kill(hung.pid, signal.SIGCONT)
    assert proc.returncode == 0, stderr
    assert "was silent for" in stderr and "it is told to retire" in stderr, stderr
    check_same_run(out, one_process)  # each game journalled once, as if nothing happened
    hung.wait(30)  # it was told to close, and does once it runs again


def test_a_killed_scheduler_ends_the_run_and_resume_waits_for_workers(
        tmp_path: Path, tls: Tls, one_process: Path) -> None:
    out = tmp_path / "run"
    first = DaskCluster(tmp_path / "first", tls)
    try:
        proc = start(tmp_path, out, first.address)
        wait_games(out, 4, timeout_s=120)
        first.scheduler.kill()
        _, stderr = proc.communicate(timeout=120)
    finally:
        first.close()
    assert proc.returncode == 4, stderr
    err = lines(stderr)
    assert len(err) == 1 and err[0].startswith(f"error: the Dask scheduler at {first.address} ") \
        and err[0].endswith(f"go on with: referee resume {out} --cluster {first.address}"), err
    assert len(read_games(out)) < GAMES
    second = DaskCluster(tmp_path / "second", tls, workers=0)  # a worker comes 5 s later
    try:
        res = referee("resume", str(out), "--cluster", second.address, "--cluster-wait", "1s",
                      cwd=tmp_path, timeout=120)
        assert res.returncode == 2, res.stderr
        assert lines(res.stderr) == [
            f"waiting for a Dask worker at {second.address} (at most 1 s, --cluster-wait)",
            f"error: --cluster {second.address}: no Dask worker came in 1 s (--cluster-wait)"]
        resume = subprocess.Popen([str(REFEREE), "resume", str(out), "--cluster",
                                   second.address], cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(5)
        second.add_workers(2)
        _, stderr = resume.communicate(timeout=300)
    finally:
        second.close()
    assert resume.returncode == 0, stderr
    assert lines(stderr)[0].startswith(f"waiting for a Dask worker at {second.address}"), stderr
    check_same_run(out, one_process)


ATTACKER = """
import asyncio, sys
from distributed.comm import connect
from distributed.security import Security

async def attack():
    own = Security.temporary()  # a key of its own: not the cluster's
    for address in sys.argv[1:]:
        port = address.rsplit(":", 1)[1]
        for tried, args in ((f"tcp://127.0.0.1:{port}", {}),
                            (address, own.get_connection_args("client"))):
            try:
                comm = await connect(tried, timeout=3, connection_args=args)
                await comm.write({"op": "identity"})
                print("CONNECTED", tried, await comm.read())
            except Exception as exc:  # each refusal is what the test wants
                print("refused", tried, type(exc).__name__)

asyncio.run(attack())
"""


def test_no_other_user_can_connect_to_a_local_cluster() -> None:
    from referee.clusterconnect import connect

    cluster = connect("local:1")
    try:
        info = cluster.client.scheduler_info()
        addresses = [info["address"], *info["workers"],  # and the workers' nannies
                     *(w["nanny"] for w in info["workers"].values() if w.get("nanny"))]
        assert all(a.startswith("tls://127.0.0.1:") for a in addresses), addresses
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] \
            if os.geteuid() == 0 else []
        res = subprocess.run([*drop, sys.executable, "-c", ATTACKER, *addresses],
                             capture_output=True, text=True, timeout=120, cwd="/",
                             env={"PATH": os.environ["PATH"], "HOME": "/nonexistent"})
    finally:
        cluster.close()
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("refused") == 2 * len(addresses), res.stdout
    assert "CONNECTED" not in res.stdout, res.stdout


def test_the_readme_turkish_and_golf_commands_on_a_local_cluster(tmp_path: Path) -> None:
    """Their bots import modules beside them: each travels as its package folder. The two
    runs go at once, to spend the clusters' start-up once."""
    shipped = Path(__file__).resolve().parents[1] / "bots"
    runs = {"turkish": ["--game", "turkish-poker", "--param", "limit=pot-limit", "--param",
                        "hands=100", "--bots", str(shipped / "turkish_poker/equity_bot.py"),
                        str(shipped / "turkish_poker/rules_bot.py")],
            "golf": ["--game", "six-card-golf", "--bots",
                     str(shipped / "six_card_golf/expected_bot.py"),
                     str(shipped / "six_card_golf/greedy_bot.py")]}
    procs = {name: subprocess.Popen(
        [str(REFEREE), "run", *args, "--games", "2", "--cluster", "local:2", "--out",
         str(tmp_path / name)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True) for name, args in runs.items()}
    for name, proc in procs.items():
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, (name, stderr)
        records = read_games(tmp_path / name)
        assert sorted(r["game"] for r in records) == [0, 1], name
        assert not any(r["faults"] for r in records), (name, records)
        assert verify_run(tmp_path / name).games == 2
