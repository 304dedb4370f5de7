"""Games on the workers of a Dask cluster: ``referee run --cluster ADDRESS``.

The process that ran ``referee run`` (the coordinator) keeps what makes a run one run,
as with ``--workers``: the format's stages, resuming, the journal (it alone writes it),
the progress callback, ``stop``/``interrupt``. It hands the games out as Dask tasks, one
batch of games each (``play_batch``); a task's result is its games' records, which the
coordinator journals when the task is done, so each game is journalled once however
often Dask runs its task.

On each Dask worker, the batches of one run session are played by one long-lived
referee worker process (``referee.clusterhost``): the very ``python -m referee.workers``
process of ``--workers``, with its own endpoint, its own bot processes reused game after
game, the run's limits, sandbox, fault policy and CPU-wait rule. Only the transport
differs: games come in as tasks, records go out as results. The run's configuration
and bots (``referee.bottree``: each its folder, addressed by the hash of its tree) are
sent to every worker once, as a worker plugin, when the run opens; no filesystem is
shared. A bot's logs stay on the worker that ran it.

Faults: a Dask worker that dies loses its batches in flight; the scheduler runs those
tasks again on another worker (``distributed.scheduler.allowed-failures`` times), and
the coordinator journals each batch once, when its task is done. A hung worker, a lost
scheduler, a cluster left without workers: ``referee.clusterwatch``.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from itertools import islice
from typing import Any

from referee.bottree import BotFileMismatch, BotTree
from referee.clusterconnect import Cluster
from referee.clusterhost import (
    Record,
    RunPayload,
    SessionPlugin,
    end_session,
    play_batch,
    plugin_name,
    progress_topic,
)
from referee.clusterwatch import ClusterLost, Watch
from referee.config import ConfigError, RunConfig
from referee.runner import BotStartError
from referee.schedule import ScheduledGame
from referee.tournament import ProgressFn, Tournament
from referee.workers import TICK_S, WorkerError, sum_counters

BATCH_PER_SLOT = 4        # games of a batch per game slot of a worker, at least
BATCH_S = 1.0             # ... and as many as a worker plays in this long
BATCH_MAX = 1024          # games of a batch, at most
BATCHES_PER_WORKER = 2    # batches in flight per Dask worker: one plays, one waits

BatchFn = Callable[[str, list[ScheduledGame]], list[Record]]  # session key, games


def batch_size(games_per_s: float, least: int) -> int:
    """The games of a batch for a worker that plays ``games_per_s``: BATCH_S of its
    play, so that the coordinator handles few tasks however fast the workers are, and a
    worker that dies costs little; ``least`` at least (its slots' worth), BATCH_MAX at
    most.

    >>> batch_size(70.0, 4), batch_size(0.5, 4), batch_size(1e6, 4)
    (70, 4, 1024)
    """
    return max(least, min(BATCH_MAX, int(games_per_s * BATCH_S)))


def session_key(config: RunConfig) -> str:
    """A name for one session of a run (a resume is another session)."""
    return f"{config.out.name[:40]}-{uuid.uuid4().hex[:12]}"


class ClusterPool(Tournament):
    """Plays a run's games on the workers of a Dask cluster; see the module.
    ``concurrency`` is the number of games at once on each worker."""

    def __init__(self, config: RunConfig, cluster: Cluster, progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Any = None, batch_fn: BatchFn = play_batch, batch_games: int = 0):
        """As ``Runner``; ``batch_fn`` is the task (the benchmark's coordinator ceiling
        gives one that answers at once); ``batch_games`` the games of a batch (0: sized
        as the run goes, ``batch_size``)."""
        super().__init__(config, progress, schedule, resume, warn)
        if config.in_process:
            raise ConfigError("--cluster plays bot processes; --in-process plays none")
        self.cluster = cluster
        self.batch_fn = batch_fn
        self.batch_games = batch_games
        self._least = max(2, BATCH_PER_SLOT * config.concurrency)
        self._session_games = 0  # games journalled by this session
        self._started_at: float | None = None
        self.payload: RunPayload | None = None
        self._inflight: dict[Any, list[ScheduledGame]] = {}
        self._reports: list[dict[str, Any]] = []
        self._lost = False
        self._watch = Watch(config, warn or (lambda message: print(message, file=sys.stderr)))

    def open(self) -> None:
        """Send the run's configuration and bots to every worker, once each
        (``SessionPlugin``)."""
        self.payload = RunPayload(session_key(self.config), self.config,
                                  tuple(BotTree.read(b, self.config.out)
                                        for b in self.config.bots))
        client = self.cluster.client
        client.subscribe_topic(progress_topic(self.payload.key), self._watch.progressed)
        client.register_plugin(SessionPlugin(self.payload), name=plugin_name(self.config))

    def play(self, games: Iterator[ScheduledGame]) -> None:
        """Keep BATCHES_PER_WORKER batches in flight per worker; journal each batch's
        games when its task is done. After ``stop()``, the batches in flight are waited
        for; after ``interrupt()``, they are abandoned."""
        try:
            more = True
            while not self.stopping:
                if more:
                    more = self._hand_out(games)
                if not more and not self._inflight:
                    return
                self._collect_some()
            while self._inflight and not self.interrupted:
                self._collect_some()
        except ClusterLost:
            self._lost = True
            raise
        for future, batch in self._inflight.items():  # interrupted: abandoned
            future.cancel()
            self.abandoned += [g.index for g in batch]
        self._inflight.clear()

    def close(self) -> None:
        """End the session's referee worker on every worker (their counters are kept),
        then the connection."""
        if self.payload is not None and not self._lost:
            client = self.cluster.client
            try:
                ends = client.run(end_session, self.payload.key, on_error="return")
                client.unregister_worker_plugin(plugin_name(self.config))
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
        workers = max(1, self._watch.look(self.cluster, set(self._inflight)))
        while len(self._inflight) < BATCHES_PER_WORKER * workers:
            batch = list(islice(games, self._batch_games(workers)))
            if not batch:
                return False
            future = self.cluster.client.submit(self.batch_fn, self.payload.key, batch,
                                                pure=False)
            self._inflight[future] = batch
        return True

    def _batch_games(self, workers: int) -> int:
        """``batch_games``, or ``batch_size`` at the rate each worker has played so far."""
        if self.batch_games:
            return self.batch_games
        now = time.monotonic()
        if self._started_at is None:
            self._started_at = now
        rate = self._session_games / max(now - self._started_at, 1e-3) / workers
        return batch_size(rate, self._least)

    def _collect_some(self) -> None:
        """Wait up to TICK_S for batches in flight, and journal those that are done."""
        from distributed import wait

        self._watch.look(self.cluster, set(self._inflight))
        try:
            done = wait(list(self._inflight), timeout=TICK_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return
        except CancelledError as exc:
            raise self._dropped(exc) from None
        for future in done.done:
            self._collect(future)

    def _dropped(self, exc: BaseException) -> ClusterLost:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return ClusterLost(f"the Dask scheduler at {self.cluster.address} dropped the run's "
                           f"batches (restarted?: {first[:200]})", self.cluster.address)

    def _collect(self, future: Any) -> None:
        """Journal a finished batch's games (each once: it is taken off ``_inflight``)."""
        batch = self._inflight.pop(future)
        if future.status == "cancelled":
            raise self._dropped(CancelledError(future.key))
        if future.status == "error":
            exc = future.exception()
            if isinstance(exc, BotStartError | WorkerError | BotFileMismatch):
                raise exc
            raise WorkerError(f"a batch of games failed on the cluster: "
                              f"{type(exc).__name__}: {exc}") from exc
        try:
            records = future.result(timeout=self._watch.deadline_s)
        except TimeoutError:  # done, but held by a worker that does not answer (hung)
            self._watch.retire_holders(self.cluster, future)
            self._inflight[future] = batch  # the scheduler plays it again elsewhere
            return
        except OSError as exc:  # its worker or the scheduler went while it was fetched
            raise ClusterLost(f"the Dask scheduler at {self.cluster.address} has gone "
                              f"({type(exc).__name__})", self.cluster.address) from None
        wanted = [g.index for g in batch]
        if [r["game"] for r, _ in records] != wanted:
            raise WorkerError(f"a worker sent back games {[r['game'] for r, _ in records]} "
                              f"for batch {wanted}")
        self.journal_batch(records)
        self._session_games += len(records)
