"""Games on the workers of a Dask cluster: ``referee run --cluster ADDRESS``.

The process that ran ``referee run`` (the coordinator) keeps what makes a run one run,
as with ``--workers``: the format's stages, resuming, the journal (it alone writes it),
the progress callback, ``stop``/``interrupt``. It hands the games out as Dask tasks, one
batch of games each (``play_batch``); a task's result is its games' records, which the
coordinator journals when the task is done, so each game is journalled once however
often Dask runs its task.

On each Dask worker, the batches of one run session are played by one long-lived
referee worker process (``RunHost``): the very ``python -m referee.workers`` process of
``--workers`` (``referee.workers.WorkerProcess``), with its own endpoint, its own bot
processes reused game after game, the run's limits, sandbox, fault policy and CPU-wait
rule. Only the transport differs: games come in as tasks, records go out as results.

Bot files travel with the run (``BotFile``), addressed by their sha256: a worker writes
each into a directory of its own under its local directory and refuses one whose bytes
do not hash to the sha256 the run recorded. No filesystem is shared. A bot's logs stay on
the worker that ran it (``<dask local directory>/referee/<session>/logs``).

Faults: a Dask worker that dies loses its batches in flight; the scheduler runs those
tasks again on another worker (``distributed.scheduler.allowed-failures`` times), and
the coordinator journals each batch once, when its task is done. The referee worker
process dies with the Dask worker (Linux's parent-death signal), and its bots with it.
A referee worker whose coordinator has gone (``kill -9``) ends itself once no batch has
come for ``IDLE_S``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

from referee.config import ConfigError, RunConfig
from referee.journal import transcript_line
from referee.process import BotSpec
from referee.runner import BotStartError
from referee.schedule import ScheduledGame
from referee.tournament import ProgressFn, Tournament
from referee.workers import (
    CLOSE_S,
    TICK_S,
    WorkerError,
    WorkerProcess,
    WorkerTraceback,
    sum_counters,
)

CONNECT_TIMEOUT_S = 10.0  # for the scheduler to answer
BATCH_PER_SLOT = 4        # games of a batch per game slot of a worker
BATCHES_PER_WORKER = 2    # batches in flight per Dask worker: one plays, one waits
IDLE_S = 30.0             # a referee worker with no batch this long ends itself
THREADS_PER_WORKER = BATCHES_PER_WORKER  # of each worker of ``--cluster local:N``
WORKERS_EVERY_S = 1.0     # how often the coordinator asks how many workers there are

# A game's record, and its line of ``transcripts.jsonl``: made on the worker, so that the
# coordinator neither decodes nor encodes the events (``referee.journal``).
Record = tuple[dict[str, Any], bytes]
BatchFn = Callable[["RunPayload", list[ScheduledGame]], list[Record]]


class ClusterError(RuntimeError):
    """A cluster that cannot be used: a bad address, or no scheduler answers there."""


class BotFileMismatch(ValueError):
    """A bot file whose bytes do not hash to the sha256 the run recorded."""


@dataclass(frozen=True)
class BotFile:
    """A bot file as it travels with the run: its bytes, addressed by their sha256."""

    name: str
    filename: str
    sha256: str
    mode: int
    data: bytes = b""

    @classmethod
    def read(cls, spec: BotSpec) -> BotFile:
        return cls(spec.name, spec.path.name, spec.sha256, spec.path.stat().st_mode & 0o755,
                   spec.path.read_bytes())

    def place(self, root: Path) -> BotSpec:
        """Write the file to ``root/<sha256>/<filename>`` (a directory of its own: what
        its sandbox shows it) and return its spec there; BotFileMismatch if its bytes are
        not those the run recorded."""
        digest = hashlib.sha256(self.data).hexdigest()
        if digest != self.sha256:
            raise BotFileMismatch(f"bot {self.name}: the file received has sha256 {digest}, "
                                  f"not the run's {self.sha256}; refused")
        path = root / self.sha256 / self.filename
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_name(path.name + ".part")
            part.write_bytes(self.data)
            part.chmod(self.mode)
            part.replace(path)
        return BotSpec(self.name, path, self.sha256)


@dataclass(frozen=True)
class RunPayload:
    """What every worker needs to play a run session's games: its configuration (the
    coordinator's; ``out`` and the bots' paths are made local on the worker) and its
    bot files. ``key`` names the session."""

    key: str
    config: RunConfig
    files: tuple[BotFile, ...]

    def local_config(self, root: Path) -> RunConfig:
        """The configuration of this session's referee worker on this host."""
        bots = tuple(f.place(root / "bots") for f in self.files)
        return replace(self.config, out=root / "run", bots=bots, workers=1)


def session_key(config: RunConfig) -> str:
    """A name for one session of a run (a resume is another session)."""
    return f"{config.out.name[:40]}-{uuid.uuid4().hex[:12]}"


class RunHost:
    """On a Dask worker: the referee worker process of one run session, shared by the
    session's batches that run there (each in a task thread of its own)."""

    def __init__(self, payload: RunPayload, root: Path):
        self.key = payload.key
        self.config = payload.local_config(root)
        self.config.out.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.failure: BaseException | None = None
        self.counters: dict[str, Any] | None = None  # once closed
        self.closed = threading.Event()
        self.last_used = time.monotonic()
        self._cond = threading.Condition()
        self._waiting: dict[int, Record | None] = {}  # game index -> its record, once back
        self._send_lock = threading.Lock()
        self._started = threading.Event()
        self._proc: WorkerProcess | None = None
        # The thread that starts the process lives as long as it: Linux's parent-death
        # signal follows the thread that started a process, not its process.
        threading.Thread(target=self._serve, name=f"referee-{self.key}", daemon=True).start()
        self._started.wait()

    def play(self, games: list[ScheduledGame]) -> list[Record]:
        """Play ``games`` in this host's referee worker; their records, in their order."""
        indexes = [g.index for g in games]
        with self._cond:
            self._check()
            for i in indexes:
                self._waiting[i] = None
        try:
            for g in games:
                self._send("game", g)
            with self._cond:
                while not all(self._waiting[i] is not None for i in indexes):
                    self._check()
                    self._cond.wait(1.0)
                return [self._waiting[i] for i in indexes]  # type: ignore[misc]
        finally:
            with self._cond:
                for i in indexes:
                    self._waiting.pop(i, None)
                self.last_used = time.monotonic()

    def idle_for(self) -> float:
        with self._cond:
            return 0.0 if self._waiting else time.monotonic() - self.last_used

    def close(self) -> dict[str, Any] | None:
        """Tell the referee worker to quit (abandoning its games) and wait until it has
        ended its bots; its counters (None if it failed)."""
        self._send("quit")
        self.closed.wait(CLOSE_S + 2.0)
        return self.counters

    def _check(self) -> None:
        if self.failure is not None:
            raise self.failure
        if self.closed.is_set():
            raise WorkerError(f"the referee worker of run session {self.key} has ended")

    def _send(self, *message: Any) -> None:
        with self._send_lock:
            if self._proc is not None:
                self._proc.send(*message)

    def _serve(self) -> None:
        """Start the referee worker process, then take what it sends until it closes."""
        try:
            self._proc = WorkerProcess(0, 0, self.config)
        except BaseException as exc:
            self._fail(exc)
            self.closed.set()
            return
        finally:
            self._started.set()
        proc = self._proc
        try:
            while True:
                try:
                    kind, *args = proc.conn.recv()
                except (EOFError, OSError):
                    self._fail(WorkerError(f"the referee worker {proc.why_gone()}"))
                    break
                if kind == "done":
                    record, events = args
                    done = (record, transcript_line(record, events))
                    with self._cond:
                        if record["game"] in self._waiting:
                            self._waiting[record["game"]] = done
                            self._cond.notify_all()
                elif kind == "closed":
                    self.counters = args[0]
                    break
                elif kind == "bot_start_error":
                    self._fail(BotStartError(args[0]))
                elif kind == "error":
                    exc = WorkerError(f"referee worker: {args[0].strip().splitlines()[-1]}")
                    exc.__cause__ = WorkerTraceback(args[0])
                    self._fail(exc)
        finally:
            proc.end(1.0)
            self.closed.set()
            with self._cond:
                self._cond.notify_all()

    def _fail(self, exc: BaseException) -> None:
        with self._cond:
            self.failure = self.failure or exc
            self._cond.notify_all()


# The run sessions whose referee workers live in this (Dask worker) process.
_hosts: dict[str, RunHost] = {}
_hosts_lock = threading.Lock()


def _host(payload: RunPayload) -> RunHost:
    with _hosts_lock:
        host = _hosts.get(payload.key)
        if host is None or host.closed.is_set():
            host = _hosts[payload.key] = RunHost(payload, _local_root() / payload.key)
            threading.Thread(target=_reap_when_idle, args=(host,), daemon=True).start()
        return host


def _local_root() -> Path:
    """Where this worker keeps the runs' bot files and logs."""
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory) / "referee"
    except ValueError:  # not in a Dask worker (a test calling the task directly)
        return Path(tempfile.gettempdir()) / f"referee-cluster-{os.getpid()}"


def _reap_when_idle(host: RunHost) -> None:
    """End a host that no batch has used for IDLE_S: its coordinator has gone."""
    while not host.closed.wait(1.0):
        if host.idle_for() > IDLE_S:
            _end_session(host.key)


def play_batch(payload: RunPayload, games: list[ScheduledGame]) -> list[Record]:
    """The Dask task: play ``games`` on this worker; their records (``Record``)."""
    return _host(payload).play(games)


def _end_session(key: str) -> dict[str, Any] | None:
    """Run on every worker when a session ends: its referee worker's counters, if any."""
    with _hosts_lock:
        host = _hosts.pop(key, None)
    return None if host is None else host.close()


@dataclass
class Cluster:
    """A connection to a Dask scheduler (and the ``LocalCluster`` behind it, if ours)."""

    address: str
    client: Any
    local: Any = None

    def close(self) -> None:
        self.client.close()
        if self.local is not None:
            self.local.close()


def connect(address: str) -> Cluster:
    """``tcp://HOST:PORT`` (any Dask address) or ``local:N`` (a LocalCluster of N
    workers on this machine); ClusterError if the extra is missing or nobody answers."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install "
                           "'polish-poker-referee[cluster]'") from None
    if address.startswith("local:"):
        try:
            n = int(address.removeprefix("local:"))
            if n < 1:
                raise ValueError
        except ValueError:
            raise ClusterError(f"--cluster {address}: write local:N with N a number of "
                               "workers, 1 or more") from None
        # A Ctrl-C on the terminal is the coordinator's to handle (it ends the workers'
        # games itself): the worker processes are started with SIGINT ignored, which they
        # keep (Python and asyncio leave an ignored SIGINT alone).
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            local = LocalCluster(n_workers=n, threads_per_worker=THREADS_PER_WORKER,
                                 processes=True, dashboard_address=None,
                                 silence_logs=logging.ERROR)
        finally:
            signal.signal(signal.SIGINT, previous)
        return Cluster(address, Client(local), local)
    if "://" not in address:
        raise ClusterError(f"--cluster {address}: give a scheduler address such as "
                           "tcp://HOST:8786, or local:N")
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"--cluster {address}: no Dask scheduler answers there "
                           f"({first[:200]})") from None
    return Cluster(address, client)


class ClusterPool(Tournament):
    """Plays a run's games on the workers of a Dask cluster; see the module.
    ``concurrency`` is the number of games at once on each worker."""

    def __init__(self, config: RunConfig, cluster: Cluster, progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Any = None, batch_fn: BatchFn = play_batch, batch_games: int = 0):
        """As ``Runner``; ``batch_fn`` is the task (the benchmark's coordinator ceiling
        gives one that answers at once); ``batch_games`` the games of a batch (0:
        BATCH_PER_SLOT per slot of a worker)."""
        super().__init__(config, progress, schedule, resume, warn)
        if config.in_process:
            raise ConfigError("--cluster plays bot processes; --in-process plays none")
        self.cluster = cluster
        self.batch_fn = batch_fn
        self.batch_games = batch_games or max(2, BATCH_PER_SLOT * config.concurrency)
        self.payload: RunPayload | None = None
        self._payload_future: Any = None
        self._inflight: dict[Any, list[ScheduledGame]] = {}
        self._reports: list[dict[str, Any]] = []
        self._n_workers, self._workers_at = 1, -WORKERS_EVERY_S

    def open(self) -> None:
        """Send the run's configuration and bot files to every worker (once)."""
        self.payload = RunPayload(session_key(self.config), self.config,
                                  tuple(BotFile.read(b) for b in self.config.bots))
        self._payload_future = self.cluster.client.scatter(self.payload, broadcast=True,
                                                           hash=False)

    def play(self, games: Iterator[ScheduledGame]) -> None:
        """Keep BATCHES_PER_WORKER batches in flight per worker; journal each batch's
        games when its task is done. After ``stop()``, the batches in flight are waited
        for; after ``interrupt()``, they are abandoned."""
        more = True
        while not self.stopping:
            if more:
                more = self._hand_out(games)
            if not more and not self._inflight:
                return
            self._collect_some()
        while self._inflight and not self.interrupted:
            self._collect_some()
        for future, batch in self._inflight.items():  # interrupted: abandoned
            future.cancel()
            self.abandoned += [g.index for g in batch]
        self._inflight.clear()

    def close(self) -> None:
        """End the session's referee worker on every worker (their counters are kept),
        then the connection."""
        if self.payload is not None:
            try:
                ends = self.cluster.client.run(_end_session, self.payload.key,
                                               on_error="return")
            except OSError:  # the scheduler has gone; the workers end idle ones
                ends = {}
            self._reports = [r for r in ends.values() if isinstance(r, dict)]
        self.cluster.close()

    def counters_report(self) -> dict[str, Any]:
        """``Runner.counters_report`` summed over the workers that were there at the end."""
        return sum_counters(self.config, self._reports)

    def _hand_out(self, games: Iterator[ScheduledGame]) -> bool:
        """Submit batches up to BATCHES_PER_WORKER per worker; False once ``games`` is
        exhausted."""
        while len(self._inflight) < BATCHES_PER_WORKER * self._workers():
            batch = list(islice(games, self.batch_games))
            if not batch:
                return False
            future = self.cluster.client.submit(self.batch_fn, self._payload_future, batch,
                                                pure=False)
            self._inflight[future] = batch
        return True

    def _workers(self) -> int:
        """The cluster's workers, as the scheduler said at most WORKERS_EVERY_S ago."""
        now = time.monotonic()
        if now - self._workers_at > WORKERS_EVERY_S:
            self._workers_at = now
            self._n_workers = max(1, len(self.cluster.client.scheduler_info()["workers"]))
        return self._n_workers

    def _collect_some(self) -> None:
        """Wait up to TICK_S for batches in flight, and journal those that are done."""
        from distributed import wait

        try:
            done = wait(list(self._inflight), timeout=TICK_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return
        except CancelledError as exc:  # the scheduler forgot them (it was restarted)
            raise WorkerError(f"the cluster dropped the run's batches: "
                              f"{str(exc).splitlines()[0]}") from None
        for future in done.done:
            self._collect(future)

    def _collect(self, future: Any) -> None:
        """Journal a finished batch's games (each once: it is taken off ``_inflight``)."""
        batch = self._inflight.pop(future)
        if future.status == "error":
            exc = future.exception()
            if isinstance(exc, BotStartError | WorkerError | BotFileMismatch):
                raise exc
            raise WorkerError(f"a batch of games failed on the cluster: "
                              f"{type(exc).__name__}: {exc}") from exc
        records = future.result()
        wanted = [g.index for g in batch]
        if [r["game"] for r, _ in records] != wanted:
            raise WorkerError(f"a worker sent back games {[r['game'] for r, _ in records]} "
                              f"for batch {wanted}")
        for record, transcript in records:
            self.journal_encoded(record, transcript)
