"""Games in several referee processes at once: ``referee run --workers N``.

One referee loop drives every game slot of its process, so past some number of games at
once that loop, not the bots, is what is busy, and a reply can wait on the socket while
the loop works for another table. ``WorkerPool`` spreads the run's ``concurrency`` games
at once over ``workers`` processes (as evenly as possible, at least one slot each). Each
worker is a ``Runner`` of its own: its own ROUTER socket, its own bot processes reused
game after game, its own deadlines (still measured from a request sent to its reply
taken off the socket, by the loop that sent it).

The main process keeps what makes a run one run: the format's stages, resuming, the
journal (it alone writes it), the progress callback, and ``stop``/``interrupt``. It hands
each worker games on demand: a worker holds at most its slots plus ``PREFETCH_PER_SLOT``
games per slot, and each game it sends back frees room for the next, so a faster worker
takes more games and none waits for the main process between two games.

Transport: one socket pair per worker (``multiprocessing.connection.Connection``,
pickles, both ends ours). Main -> worker: the worker's configuration, then ``game``,
``stop`` (start no more, finish those in progress) and ``quit`` (abandon those in
progress). Worker -> main: ``ready`` (its bots said hello), ``done`` (a record and its
transcript's line, made by the worker while its bots think), ``played`` (no more records
will come, and which games were abandoned), ``closed`` (its counters; it exits next), or
``bot_start_error``/``error``.

A worker is started as ``python -m referee.workers`` in a process group of its own, so a
Ctrl-C on the terminal reaches only the main process, which tells the workers; it asks
Linux for SIGKILL when the main process dies, so a ``kill -9`` of the referee takes the
workers with it, and their bots with them.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from typing import Any

from referee.cgroup import sweep_here
from referee.config import RunConfig
from referee.hub import HubCounters
from referee.process import die_with_parent
from referee.rundir import open_append
from referee.runner import BotCounters, BotStartError, Runner
from referee.schedule import ScheduledGame
from referee.tournament import ProgressFn, Tournament

PREFETCH_PER_SLOT = 1  # games a worker holds beyond those it plays
TICK_S = 0.05          # how often the main loop looks at stop()/interrupt() while waiting
CLOSE_S = 10.0         # time a worker has to end its bots and exit once told to quit


class WorkerError(RuntimeError):
    """A worker process that raised (its traceback is the ``__cause__``) or died."""


class WorkerTraceback(Exception):
    """A worker's traceback, as text: the cause of the WorkerError that reports it, so
    that the run's error.log shows where the worker failed."""


def slot_split(concurrency: int, workers: int) -> list[tuple[int, int]]:
    """(first slot, slots) of each worker: ``concurrency`` as evenly as possible.

    >>> slot_split(5, 2)
    [(0, 3), (3, 2)]
    """
    share, extra = divmod(concurrency, workers)
    sizes = [share + (w < extra) for w in range(workers)]
    return [(sum(sizes[:w]), n) for w, n in enumerate(sizes)]


class WorkerProcess:
    """The main process's end of one worker: its process, its connection, its games."""

    def __init__(self, number: int, first_slot: int, config: RunConfig):
        """Start worker ``number`` for ``config`` (already cut down to its slots); its
        stderr, normally empty, goes to ``logs/worker-<number>.log``."""
        self.number = number
        self.capacity = config.concurrency * (1 + PREFETCH_PER_SLOT)
        self.outstanding = 0  # games sent to it and not yet back
        self.ready = self.played = self.closed = False
        self.log = config.out / "logs" / f"worker-{number}.log"
        ours, theirs = socket.socketpair()
        with theirs, open_append(config.out, self.log) as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "referee.workers", str(theirs.fileno()),
                 str(os.getpid())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr, process_group=0)
        self.conn = Connection(ours.detach())
        self.send(config, first_slot)

    def send(self, *message: Any) -> None:
        """Send ``message``; a worker that has exited is left to its EOF, which says why."""
        try:
            self.conn.send(message)
        except OSError:
            pass

    def send_game(self, game: ScheduledGame) -> None:
        self.send("game", game)
        self.outstanding += 1

    def why_gone(self) -> str:
        """Why the connection ended without a word: how the process exited."""
        try:
            code = self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            return "closed its connection"
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        tail = self.log.read_bytes()[-300:].decode(errors="replace").strip().splitlines()[-1:]
        return how + (f": {tail[0]} (see {self.log})" if tail else "")

    def end(self, grace_s: float) -> None:
        """Reap the process, after SIGKILL if it still runs after ``grace_s``."""
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.conn.close()


class WorkerPool(Tournament):
    """Plays a run's games in ``config.workers`` worker processes; see the module."""

    def __init__(self, config: RunConfig, progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Any = None):
        """As ``Runner``."""
        super().__init__(config, progress, schedule, resume, warn)
        self.workers: list[WorkerProcess] = []
        self._reports: list[dict[str, Any]] = []  # each worker's counters, once closed

    def counters_report(self) -> dict[str, Any]:
        """``Runner.counters_report`` summed over the workers."""
        return sum_counters(self.config, self._reports)

    def open(self) -> None:
        """Start the workers (all at once) and wait until each has its bots ready."""
        for number, (first, slots) in enumerate(slot_split(self.config.concurrency,
                                                           self.config.workers)):
            config = replace(self.config, concurrency=slots, workers=1)
            self.workers.append(WorkerProcess(number, first, config))
        while not all(w.ready for w in self.workers) and not self.interrupted:
            self._receive(TICK_S)

    def play(self, games: Iterator[ScheduledGame]) -> None:
        """Hand out one stage's games on demand; return once every game handed out is
        back, or after ``stop()``/``interrupt()`` once every worker has ended its games
        in progress (finished or abandoned) and said so."""
        more = True
        while not self.stopping:
            more = more and self._hand_out(games)
            if not more and all(w.outstanding == 0 for w in self.workers):
                return  # this stage is over; the workers wait for the next one
            self._receive(TICK_S)
        for w in self.workers:
            w.send("quit" if self.interrupted else "stop")
        while not all(w.played for w in self.workers):
            self._receive(TICK_S)

    def close(self) -> None:
        """Tell every worker to quit and wait for it to end its bots and exit (SIGKILL
        after CLOSE_S: its bots die with it). A worker's failure found here is raised
        unless an exception is already on its way."""
        for w in self.workers:
            w.send("quit")
        failure: Exception | None = None
        deadline = time.monotonic() + CLOSE_S
        while not all(w.closed for w in self.workers) and time.monotonic() < deadline:
            try:
                # The journal is closed by now: a game that finishes here (only after a
                # failure, while the workers quit) is played again on resume.
                self._receive(deadline - time.monotonic(), journal=False)
            except (WorkerError, BotStartError) as exc:
                failure = failure or exc
        for w in self.workers:
            w.end(1.0 if w.closed else 0.0)  # a closed one is exiting
        sweep_here()  # what a worker that was killed was starting at that moment
        if failure is not None and sys.exc_info()[1] is None:
            raise failure

    def _hand_out(self, games: Iterator[ScheduledGame]) -> bool:
        """Fill every worker up to its capacity; False once ``games`` is exhausted."""
        for w in self.workers:
            while w.outstanding < w.capacity:
                game = next(games, None)
                if game is None:
                    return False
                w.send_game(game)
        return True

    def _receive(self, timeout: float | None, journal: bool = True) -> None:
        """Wait up to ``timeout`` seconds for the workers, then handle what they sent
        (finished games are journalled unless ``journal`` is false)."""
        by_conn = {w.conn: w for w in self.workers if not w.closed}
        for conn in wait(list(by_conn), timeout):
            w = by_conn[conn]
            try:
                kind, *args = conn.recv()
            except (EOFError, OSError):
                w.closed = True
                raise WorkerError(f"worker {w.number} {w.why_gone()}") from None
            if kind == "done":
                w.outstanding -= 1
                if journal:
                    self.journal_encoded(*args)
            elif kind == "ready":
                w.ready = True
            elif kind == "played":
                w.played = True
                self.abandoned += args[0]
            elif kind == "closed":
                w.closed = True
                self._reports.append(args[0])
            elif kind == "bot_start_error":
                raise BotStartError(args[0])
            else:
                text = args[0]
                raise WorkerError(f"worker {w.number}: {text.strip().splitlines()[-1]}") \
                    from WorkerTraceback(text)


def sum_counters(config: RunConfig, reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The workers' ``Runner.counters_report``s summed: the run's ``counters.json``."""
    total = {"bots": {b.name: vars(BotCounters()) for b in config.bots},
             "hub": HubCounters().as_dict()}
    for report in reports:
        for name, counts in report["bots"].items():
            _add(total["bots"][name], counts)
        _add(total["hub"], report["hub"])
    return total


def _add(into: dict[str, int], more: dict[str, int]) -> None:
    for key, value in more.items():
        into[key] += value


class Worker(Runner):
    """A ``Runner`` in a worker process: plays the games the main process sends and
    sends each finished one back instead of journalling it."""

    def __init__(self, config: RunConfig, conn: Connection, first_slot: int):
        super().__init__(config, schedule=(), first_slot=first_slot)
        self.conn = conn
        self.inbox: deque[ScheduledGame] = deque()

    def listen(self) -> None:
        """In a thread of its own, so that the game loop never waits for the main
        process: file its games, and turn ``stop`` and ``quit`` into ``stop()`` and
        ``interrupt()`` (which the loop looks at on every turn)."""
        while True:
            try:
                kind, *args = self.conn.recv()
            except (EOFError, OSError):
                kind = "quit"  # the main process is gone
            if kind == "game":
                self.inbox.append(args[0])
            elif kind == "stop":
                self.stop()
            else:
                self.interrupt()
                return

    def games(self) -> Iterator[ScheduledGame | None]:
        """The games as they come; None while none is waiting (see ``Runner.play``)."""
        while True:
            yield self.inbox.popleft() if self.inbox else None

    def journal_encoded(self, record: dict[str, Any], transcript: bytes) -> None:
        self.conn.send(("done", record, transcript))


def serve(conn: Connection) -> None:
    """A worker's life: receive its configuration, start its bots, play until told to
    stop or quit, end its bots, send its counters."""
    config, first_slot = conn.recv()
    worker = Worker(config, conn, first_slot)
    signal.signal(ORPHANED, lambda *_: _orphaned(worker))
    threading.Thread(target=worker.listen, name="main-process", daemon=True).start()
    try:
        worker.open()
        conn.send(("ready",))
        gc.freeze()  # as Tournament.run does, for short collector pauses
        worker.play(worker.games())
        conn.send(("played", worker.abandoned))
    finally:
        worker.close()
    conn.send(("closed", worker.counters_report()))


# What Linux sends a worker when the main process dies (``main``).
ORPHANED = signal.SIGUSR1


def _orphaned(worker: Worker) -> None:
    """The main process died (``kill -9``): end this worker's bots, the one being started
    at this very moment included (its cgroup holds it before it can ask to die with its
    parent), and exit."""
    if worker.cgroups is not None:
        worker.cgroups.remove()
    os._exit(1)


def main(argv: list[str]) -> None:
    """``python -m referee.workers FD PARENT_PID``: serve the main process on the
    connection ``FD``; every failure is sent to it."""
    fd, parent = int(argv[0]), int(argv[1])
    # A SIGTERM sent to every process of the run (a service manager stopping it) is
    # the main process's to handle: it tells the workers to quit, and they end cleanly.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(parent, ORPHANED)  # before ``serve``: the default action ends it
    conn = Connection(fd)
    try:
        serve(conn)
    except BotStartError as exc:
        conn.send(("bot_start_error", str(exc)))
    except Exception:
        conn.send(("error", traceback.format_exc()))


if __name__ == "__main__":
    main(sys.argv[1:])
