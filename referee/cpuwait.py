"""Time a bot spent waiting for a CPU, which is not charged to it (Linux).

A decision's wall time includes any time in which the bot was ready to run but the
machine ran something else: the other bots, the referee, whatever else runs there. The
kernel counts that wait for every thread (``/proc/PID/task/TID/schedstat``: CPU time,
then time spent runnable on a run queue). A decision that takes longer than the move
time is charged

    max(CPU time of the bot's processes, wall time - waits for a CPU)

where the waits are those of the bot's threads and of the referee's own threads that
carry its messages (its main thread, its ZeroMQ context's threads) or share its
interpreter lock (the connection guard's, the log pump's: while one of them waits for a
CPU holding the lock, the main thread cannot read a reply). On an idle machine
that is the wall time. The floor keeps a bot from buying time with threads of its own
that keep its other threads waiting: whatever its processes compute is charged.

The runner reads a request's CPU time as it goes out (``CpuMeter.used_ns``), and the
waits only once the decision has lasted a millisecond (``CpuMeter.waited_ns``,
``referee.match.WAITS_AFTER_S``): most replies come before, and the waits take a system
call per thread. A wait in that first millisecond is charged to the bot; none of its
CPU time goes uncounted.

The kernel adds a wait to the count when it ends, so at a deadline a bot with a thread
that is runnable right now, or a referee's carrier that is (holding the reply, say), may
be waiting in a way not counted yet: it is looked at again later, until the bot's CPU
time alone reaches the budget (``CpuMeter.grace_s``). The processes
watched are the bot's process tree at its ``hello``; a bot that has started processes
since is charged its wall time (their CPU time cannot be counted).

Where ``/proc`` cannot be read (not Linux, out of file descriptors), ``CpuMeter.open``
gives None and decisions are charged their wall time.

>>> CpuMeter.open(-1, ThreadWaits([])) is None
True
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

# A second look at a runnable bot comes at least this long after the first.
MIN_RECHECK_S = 0.001
# A runnable carrier defers a deadline this long at most: a sleeping bot's time runs out
# even where the referee's threads are busy whenever it is looked at.
MAX_CARRIER_WAIT_S = 1.0


def process_cpu_clock(pid: int) -> int:
    """The clock id of a process's CPU time (all its threads, ended ones included):
    Linux's ``clock_getcpuclockid``, which the standard library does not wrap."""
    return (~pid << 3) | 2  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)


@dataclass(frozen=True)
class CpuSample:
    """Cumulative counters at one moment (nanoseconds)."""

    used_ns: int    # CPU time of the bot's processes, their ended threads included
    waited_ns: int  # run-queue waits of the bot's threads and the referee's carriers


def _tasks(pid: int) -> list[int]:
    return [int(t) for t in os.listdir(f"/proc/{pid}/task")]


def threads_of_this_process() -> set[int]:
    """The thread ids of this process; empty where /proc is missing."""
    try:
        return set(_tasks(os.getpid()))
    except OSError:
        return set()


def _tree(root: int) -> list[int]:
    """``root`` and its descendants (through every thread's ``children``); OSError if
    ``root`` is gone (a descendant that ends meanwhile is left out)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tids = _tasks(pid)
        except OSError:
            if pid == root:
                raise
            continue
        found.append(pid)
        for tid in tids:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as f:
                todo.extend(int(c) for c in f.read().split())
    return found


def _runnable(pid: int, tid: int) -> bool:
    """Whether the thread is running or waiting for a CPU (False if it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
            # The state follows the command name, which may hold spaces.
            return f.read().rsplit(b")", 1)[1].split()[0] == b"R"
    except OSError:
        return False


class ThreadWaits:
    """The run-queue waits of a fixed set of threads, read from schedstat files kept
    open (a read is then ~1 µs). A thread that ends drops out of the sum."""

    def __init__(self, threads: Iterable[tuple[int, int]]):
        """``threads``: (pid, tid) pairs; OSError if a file cannot be opened."""
        self._fds: list[int] = []
        self._threads = list(threads)
        try:
            for pid, tid in self._threads:
                self._fds.append(os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY))
        except OSError:
            self.close()
            raise

    @classmethod
    def referee(cls, carriers: Iterable[int]) -> ThreadWaits:
        """The calling thread and ``carriers``, threads of this process (``Hub.threads``,
        the log pump's). Empty where /proc is missing."""
        pid = os.getpid()
        try:
            return cls((pid, t) for t in {threading.get_native_id(), *carriers})
        except OSError:
            return cls([])

    def __len__(self) -> int:
        return len(self._fds)

    def total_ns(self) -> int:
        total = 0
        for fd in self._fds:  # no context manager: this runs at every request
            try:
                total += int(os.pread(fd, 64, 0).split()[1])
            except (OSError, IndexError, ValueError):
                pass
        return total

    def runnable(self) -> bool:
        """Whether one of these threads other than the caller's is waiting for a CPU
        right now (or running): a wait the count does not hold yet."""
        me = threading.get_native_id()
        return any(_runnable(pid, tid) for pid, tid in self._threads if tid != me)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []


class CpuMeter:
    """The CPU time and the CPU waits of one bot (see the module's docstring)."""

    def __init__(self, root: int, carriers: ThreadWaits):
        """Watch ``root``'s process tree as it is now; OSError if it cannot be read."""
        self.root = root
        self._pids = _tree(root)
        self._clocks = [process_cpu_clock(p) for p in self._pids]
        self._threads = ThreadWaits((p, t) for p in self._pids for t in _tasks(p))
        self._carriers = carriers

    @classmethod
    def open(cls, root: int, carriers: ThreadWaits) -> CpuMeter | None:
        """A meter for ``root``'s tree, or None where it cannot be read."""
        try:
            return cls(root, carriers)
        except OSError:
            return None

    def used_ns(self) -> int:
        """CPU time of the bot's processes now."""
        used = 0
        for clock in self._clocks:
            try:
                used += time.clock_gettime_ns(clock)
            except OSError:  # a process that ended
                pass
        return used

    def waited_ns(self) -> int:
        """Run-queue waits of the bot's threads and the referee's carriers now."""
        return self._threads.total_ns() + self._carriers.total_ns()

    def sample(self) -> CpuSample:
        return CpuSample(self.used_ns(), self.waited_ns())

    def charged_s(self, start: CpuSample, wall_s: float) -> float:
        """What a decision that began at ``start`` and took ``wall_s`` is charged."""
        return self._charge(start, wall_s)[0]

    def grace_s(self, start: CpuSample, wall_s: float, budget_s: float) -> float:
        """At a deadline: 0 if the decision is overdue, else how much longer to wait
        before looking again."""
        charged, used, grew = self._charge(start, wall_s)
        if charged < budget_s:
            return budget_s - charged
        if used < budget_s and not grew and (
                self.runnable() or (wall_s < budget_s + MAX_CARRIER_WAIT_S
                                    and self._carriers.runnable())):
            return max(MIN_RECHECK_S, budget_s - used)
        return 0.0

    def _charge(self, start: CpuSample, wall_s: float) -> tuple[float, float, bool]:
        """The charge and the CPU time used since ``start``, and whether the bot has
        started processes since its meter opened (it is then charged its wall time)."""
        end = self.sample()
        used = (end.used_ns - start.used_ns) / 1e9
        if self._grew():
            return max(used, wall_s), used, True
        return max(used, wall_s - (end.waited_ns - start.waited_ns) / 1e9), used, False

    def _grew(self) -> bool:
        """Whether the bot has started processes that are not watched."""
        try:
            return not set(_tree(self.root)) <= set(self._pids)
        except OSError:  # the root is gone: nothing new can be counted
            return False

    def runnable(self) -> bool:
        """Whether a thread of the bot is running or waiting for a CPU right now."""
        for pid in self._pids:
            with contextlib.suppress(OSError):
                if any(_runnable(pid, tid) for tid in _tasks(pid)):
                    return True
        return False

    def close(self) -> None:
        self._threads.close()
