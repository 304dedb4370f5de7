"""The Dask worker's side of ``--cluster`` (``referee.cluster`` is the coordinator's).

A Dask task (``play_batch``) plays a batch of a run session's games in the session's
referee worker on this Dask worker (``RunHost``): the very ``python -m referee.workers``
process of ``--workers``, started once per session and shared by the session's batches
that run here, each in a task thread of its own. It sends each game's record with its
``transcripts.jsonl`` line ready-made (``Record``), so that the coordinator only writes.

Bots arrive with the session (``referee.bottree``): each its folder, written into a
directory named by the hash of its tree and refused if the bytes received hash otherwise.
A session's referee worker tells the coordinator, through the scheduler's event log
(topic ``progress_topic``), that its games go on, so that a hung worker can be told apart
from a slow one.
The referee worker dies with this Dask worker (Linux's parent-death signal, which
follows the thread that started it: a thread of its own, living as long as it), and
its bots with it. A session no batch has used for ``IDLE_S`` is ended: its
coordinator has gone.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.bottree import BotTree
from referee.config import RunConfig
from referee.runner import BotStartError
from referee.schedule import ScheduledGame
from referee.workers import CLOSE_S, WorkerError, WorkerProcess, WorkerTraceback

try:
    from distributed import WorkerPlugin
except ImportError:  # without the cluster extra nothing here runs; the class must exist
    WorkerPlugin = object  # type: ignore[misc,assignment]

IDLE_S = 30.0      # a referee worker with no batch this long ends itself
PROGRESS_S = 0.5   # a session's games-done event at most this often per worker

# A game's record, and its line of ``transcripts.jsonl``: made on the worker, so that the
# coordinator neither decodes nor encodes the events (``referee.journal``).
Record = tuple[dict[str, Any], bytes]


@dataclass(frozen=True)
class RunPayload:
    """What every worker needs to play a run session's games: its configuration (the
    coordinator's; ``out`` and the bots' paths are made local on the worker) and its
    bots' trees. ``key`` names the session."""

    key: str
    config: RunConfig
    bots: tuple[BotTree, ...]

    def local_config(self, root: Path) -> RunConfig:
        """The configuration of this session's referee worker on this host."""
        bots = tuple(b.place(root / "bots") for b in self.bots)
        return replace(self.config, out=root / "run", bots=bots, workers=1)


class RunHost:
    """On a Dask worker: the referee worker process of one run session, shared by the
    session's batches that run there (each in a task thread of its own)."""

    def __init__(self, payload: RunPayload, root: Path,
                 report: Callable[[int], None] | None = None):
        """``report(games)``: called with the games done so far, at most every
        PROGRESS_S, as games end."""
        self.key = payload.key
        self._report = report
        self._done, self._reported_at = 0, 0.0
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
                    record, line = args
                    done = (record, line)
                    with self._cond:
                        if record["game"] in self._waiting:
                            self._waiting[record["game"]] = done
                            self._cond.notify_all()
                    self._progressed()
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

    def _progressed(self) -> None:
        self._done += 1
        self.heartbeat(force=False)

    def heartbeat(self, force: bool = True) -> None:
        """Tell the coordinator (``report``) that this session's games go on: at most every
        PROGRESS_S as games end, and (``force``) while games wait here and the referee
        worker process runs (not stopped: a stopped one plays nothing)."""
        now = time.monotonic()
        if self._report is None or now - self._reported_at < PROGRESS_S:
            return
        if force:
            with self._cond:
                waiting = bool(self._waiting)
            if not (waiting and self._proc is not None and _runs(self._proc.process.pid)):
                return
        self._reported_at = now
        self._report(self._done)

    def _fail(self, exc: BaseException) -> None:
        with self._cond:
            self.failure = self.failure or exc
            self._cond.notify_all()


# The run sessions whose referee workers live in this (Dask worker) process, and the
# payloads of the sessions this worker has received.
_hosts: dict[str, RunHost] = {}
_hosts_lock = threading.Lock()
_payloads: dict[str, RunPayload] = {}


class SessionPlugin(WorkerPlugin):
    """Carries a run session's payload to every worker, those that join later included,
    once each: Dask sends a registered plugin to each worker as it joins. (Data scattered
    to every worker would not stay there: Dask drops the copies it deems redundant, and
    a worker removed with the last one would lose it.) One plugin per run directory, so
    that a resume's replaces the session of a coordinator that was killed."""

    def __init__(self, payload: RunPayload):
        self.payload = payload

    def setup(self, worker: Any) -> None:
        _payloads[self.payload.key] = self.payload

    def teardown(self, worker: Any) -> None:
        _payloads.pop(self.payload.key, None)


def plugin_name(config: RunConfig) -> str:
    """The name of a run's ``SessionPlugin``: one per run directory."""
    return f"referee-run-{hashlib.sha256(str(config.out.resolve()).encode()).hexdigest()[:16]}"


def session_payload(key: str) -> RunPayload:
    """The payload of run session ``key``, as this worker received it."""
    try:
        return _payloads[key]
    except KeyError:
        raise WorkerError(f"this Dask worker has not received run session {key}") from None


def progress_topic(key: str) -> str:
    """The scheduler's event topic on which a session's workers say their games go on."""
    return f"referee-progress-{key}"


def _host(key: str) -> RunHost:
    from distributed import get_worker

    with _hosts_lock:
        payload = session_payload(key)
        host = _hosts.get(payload.key)
        if host is None or host.closed.is_set():
            worker = get_worker()
            topic = progress_topic(payload.key)

            def report(games: int) -> None:
                worker.log_event(topic, {"worker": worker.address, "games": games})

            # Where this worker keeps the runs' bots and logs.
            root = Path(worker.local_directory) / "referee" / payload.key
            host = _hosts[payload.key] = RunHost(payload, root, report)
            threading.Thread(target=_reap_when_idle, args=(host,), daemon=True).start()
        return host


def _runs(pid: int) -> bool:
    """Whether process ``pid`` is there and neither stopped nor a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "TtZX"


def _reap_when_idle(host: RunHost) -> None:
    """Beat the host's heart while it plays; end it once no batch has used it for IDLE_S:
    its coordinator has gone."""
    while not host.closed.wait(PROGRESS_S):
        host.heartbeat()
        if host.idle_for() > IDLE_S:
            end_session(host.key)


def play_batch(key: str, games: list[ScheduledGame]) -> list[Record]:
    """The Dask task: play ``games`` of run session ``key`` on this worker; their records
    (``Record``)."""
    return _host(key).play(games)


def end_session(key: str) -> dict[str, Any] | None:
    """Run on every worker when a session ends: its referee worker's counters, if any."""
    with _hosts_lock:
        host = _hosts.pop(key, None)
    return None if host is None else host.close()
