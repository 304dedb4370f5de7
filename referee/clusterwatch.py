"""What the coordinator of ``--cluster`` watches while it plays: the scheduler, the workers.

Once a second (``Watch.look``) it asks the scheduler which tasks each worker holds; that
question is also how it learns that the scheduler is gone or hangs (no answer in
SCHEDULER_S), which ends the run (``ClusterLost``). A worker that holds batches of the run
says, through the scheduler's event log, that its games go on: as they end, and twice a
second while its referee worker process runs (``clusterhost.RunHost.heartbeat``), so that
a slow game is not a hung one. A worker silent for longer than the games' own time limits
allow a step to take (a bot's start timeout, and HANG_MOVES moves of the move time plus
the time bank) is hung: the scheduler is told to remove it and to close it, and runs its
batches again on the other workers (the games are deterministic; the scheduler drops what
the removed worker sends later, and the coordinator journals each batch once). A worker
that holds a finished batch's result and does not hand it over within that deadline is
hung too (``Watch.retire_holders``). A cluster left with no worker for ``--cluster-wait``
ends the run too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from referee.clusterconnect import Cluster
from referee.config import RunConfig
from referee.workers import WorkerError

WATCH_EVERY_S = 1.0   # how often the coordinator asks the scheduler what runs where
SCHEDULER_S = 20.0    # a scheduler that does not answer this long is lost
HANG_MOVES = 4        # moves at the full time limit in a hung worker's deadline


class ClusterLost(WorkerError):
    """The cluster went away under the run: its scheduler is gone or does not answer, or
    no worker came back within ``--cluster-wait``. The journal keeps what was played."""

    def __init__(self, message: str, address: str):
        super().__init__(message)
        self.address = address


class Watch:
    """The scheduler's answers and the workers' progress, for one run session."""

    def __init__(self, config: RunConfig, warn: Callable[[str], None]):
        self.warn = warn
        self._deadline_s = (config.start_timeout_ms
                            + HANG_MOVES * (config.move_ms + config.bank_ms)) / 1000
        self._lock = threading.Lock()
        self._progress_at: dict[str, float] = {}  # worker -> when it last said so
        self._busy_since: dict[str, float] = {}   # worker -> when seen holding batches
        self._looked_at = -WATCH_EVERY_S
        self._workers = 1
        self._none_since: float | None = None

    def progressed(self, event: tuple[float, dict[str, Any]]) -> None:
        """A worker's progress event (``clusterhost.progress_topic``); on Dask's thread."""
        with self._lock:
            self._progress_at[event[1]["worker"]] = time.monotonic()

    def look(self, cluster: Cluster, mine: set[Any]) -> int:
        """Every WATCH_EVERY_S: ask the scheduler what its workers hold, retire a hung
        worker; the number of workers. ClusterLost if the cluster has gone."""
        if cluster.client.status != "running":
            # Dask retries a lost connection, but a scheduler's restart, or its dropping a
            # client that went away, forgets the client's tasks: the run cannot go on.
            raise ClusterLost(f"the Dask scheduler at {cluster.address} has gone (the "
                              "connection to it was lost)", cluster.address)
        now = time.monotonic()
        if now - self._looked_at < WATCH_EVERY_S:
            return self._workers
        self._looked_at = now
        held = self._processing(cluster)
        self._workers = len(held)
        self._count_workers(cluster, now)
        keys = {getattr(f, "key", f) for f in mine}
        busy = {w for w, tasks in held.items() if keys.intersection(tasks)}
        with self._lock:
            progress = dict(self._progress_at)
        for worker in list(self._busy_since):
            if worker not in busy:
                del self._busy_since[worker]
        for worker in busy:
            since = max(self._busy_since.setdefault(worker, now), progress.get(worker, 0.0))
            self._busy_since[worker] = since
            if now - since > self._deadline_s:
                self._retire(cluster, worker, now - since)
                del self._busy_since[worker]
        return self._workers

    @property
    def deadline_s(self) -> float:
        """How long a worker may be silent before it is taken as hung."""
        return self._deadline_s

    def retire_holders(self, cluster: Cluster, future: Any) -> None:
        """A batch that is done but whose result was not handed over within
        ``deadline_s``: the workers that hold it are hung (a finished batch is not
        processing, so ``look`` does not see them); retire them, and the scheduler plays
        the batch again elsewhere."""
        client = cluster.client
        try:
            held = client.sync(client.scheduler.who_has, keys=[future.key],
                               callback_timeout=SCHEDULER_S)
        except TimeoutError:
            raise ClusterLost(f"the Dask scheduler at {cluster.address} does not answer "
                              f"(for {SCHEDULER_S:g} s)", cluster.address) from None
        for worker in held.get(future.key, ()):
            self._retire(cluster, worker, self._deadline_s)

    def _processing(self, cluster: Cluster) -> dict[str, list[Any]]:
        client = cluster.client
        try:
            return client.sync(client.scheduler.processing, callback_timeout=SCHEDULER_S)
        except TimeoutError:
            why = f"does not answer (for {SCHEDULER_S:g} s)"
        except OSError as exc:
            why = f"has gone ({type(exc).__name__})"
        raise ClusterLost(f"the Dask scheduler at {cluster.address} {why}", cluster.address)

    def _count_workers(self, cluster: Cluster, now: float) -> None:
        """ClusterLost once the cluster has had no worker for ``--cluster-wait``."""
        if self._workers:
            self._none_since = None
            return
        if self._none_since is None:
            self._none_since = now
            self.warn(f"waiting for a Dask worker at {cluster.address}: it has none")
        if cluster.wait_s and now - self._none_since > cluster.wait_s:
            raise ClusterLost(f"no Dask worker at {cluster.address} for {cluster.wait_s:g} s "
                              "(--cluster-wait)", cluster.address)

    def _retire(self, cluster: Cluster, worker: str, idle_s: float) -> None:
        self.warn(f"the Dask worker {worker} was silent for {idle_s:.0f} s (its "
                  f"deadline: {self._deadline_s:.0f} s): its batches go to other workers, "
                  "and it is told to retire")
        client = cluster.client
        try:
            client.sync(client.scheduler.unregister, address=worker, close=True,
                        stimulus_id=f"referee-hung-{time.time()}",
                        callback_timeout=SCHEDULER_S)
        except TimeoutError:
            raise ClusterLost(f"the Dask scheduler at {cluster.address} does not answer "
                              f"(for {SCHEDULER_S:g} s)", cluster.address) from None
