"""What ``referee.cpuwait`` reads from the kernel about real processes: CPU time, waits
for a CPU, runnable threads, and processes started after the meter was opened."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.cpuwait import CpuMeter, ThreadWaits, threads_of_this_process
from referee.hub import Hub

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux /proc")

SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"


def child(code: str, cpu: int | None = None) -> subprocess.Popen:
    """A Python process running ``code`` in a process group of its own, pinned to
    ``cpu`` if given."""
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    proc = subprocess.Popen([sys.executable, "-c", code], preexec_fn=pin,
                            start_new_session=True)
    time.sleep(0.2)  # started and imported
    return proc


def end(*procs: subprocess.Popen) -> None:
    for proc in procs:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def measure(proc: subprocess.Popen, seconds: float) -> tuple[CpuMeter, float, float]:
    """Open a meter on ``proc``, let ``seconds`` pass: (meter, charged s, wall s)."""
    meter = CpuMeter.open(proc.pid, ThreadWaits([]))
    assert meter is not None
    start, began = meter.sample(), time.perf_counter()
    time.sleep(seconds)
    wall = time.perf_counter() - began
    return meter, meter.charged_s(start, wall), wall


def test_a_sleeping_process_is_charged_its_wall_time() -> None:
    proc = child("import time; time.sleep(30)")
    try:
        meter, charged, wall = measure(proc, 0.2)
        assert charged == pytest.approx(wall, abs=0.01)
        assert not meter.runnable()
        assert meter.grace_s(meter.sample(), 0.3, 0.25) == 0.0  # overdue
        meter.close()
    finally:
        end(proc)


def run_ns(pid: int) -> int:
    """CPU time the process's main thread has had (the kernel's own count, in ns)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def test_a_process_that_waits_for_a_cpu_is_charged_its_cpu_time() -> None:
    """Two spinners pinned to one CPU (whatever else runs there): each runs at most about
    half the time and waits the rest; it is charged what it ran, not the wall time."""
    others = child(SPIN.format(s=30), cpu=0)
    proc = child(SPIN.format(s=30), cpu=0)
    try:
        meter = CpuMeter.open(proc.pid, ThreadWaits([]))
        assert meter is not None
        start, began, ran = meter.sample(), time.perf_counter(), run_ns(proc.pid)
        time.sleep(0.4)
        wall = time.perf_counter() - began
        ran = (run_ns(proc.pid) - ran) / 1e9  # inside the meter's window
        charged = meter.charged_s(start, wall)
        assert 0 < ran <= charged < 0.8 * wall
        assert charged == pytest.approx(ran, abs=0.05)
        assert meter.runnable()
        meter.close()
    finally:
        end(proc, others)


def test_cpu_time_is_charged_however_long_the_waits() -> None:
    """A process that computes is charged at least the CPU time it used, however long
    it waited for a CPU (on an idle machine that is its wall time), and no more than
    the wall time; once it has used its budget in CPU time it gets no grace."""
    proc = child(SPIN.format(s=30))
    try:
        meter = CpuMeter.open(proc.pid, ThreadWaits([]))
        assert meter is not None
        start, began, ran = meter.sample(), time.perf_counter(), run_ns(proc.pid)
        time.sleep(0.3)
        wall = time.perf_counter() - began
        ran = (run_ns(proc.pid) - ran) / 1e9
        charged = meter.charged_s(start, wall)
        assert 0 < ran <= charged <= wall + 0.01
        start, began = meter.sample(), time.perf_counter()
        deadline = began + 30
        while (meter.sample().used_ns - start.used_ns) / 1e9 < 0.06:  # past its budget
            assert time.perf_counter() < deadline, "the spinner does not get a CPU"
            time.sleep(0.01)
        assert meter.grace_s(start, time.perf_counter() - began, 0.05) == 0.0
        meter.close()
    finally:
        end(proc)


def test_a_bot_that_started_a_process_since_its_meter_gets_no_grace() -> None:
    """Its new process's CPU time cannot be counted, so it is charged wall time."""
    code = ("import subprocess, sys, time\nsys.stdin.readline()\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
            "time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            start_new_session=True)
    try:
        meter = CpuMeter.open(proc.pid, ThreadWaits([]))
        assert meter is not None
        start, began = meter.sample(), time.perf_counter()
        assert meter.grace_s(start, 0.0, 1.0) > 0.0  # nothing spent yet
        proc.stdin.write(b"go\n")  # now it starts a process
        proc.stdin.flush()
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        while not children.read_text().split() or time.perf_counter() - began < 0.6:
            assert time.perf_counter() - began < 30, "no child process"
            time.sleep(0.01)
        wall = time.perf_counter() - began
        assert meter.charged_s(start, wall) == wall
        assert meter.grace_s(start, wall, 0.5) == 0.0
        meter.close()
    finally:
        end(proc)


def test_no_meter_for_a_process_that_is_not_there() -> None:
    assert CpuMeter.open(-1, ThreadWaits([])) is None
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert CpuMeter.open(proc.pid, ThreadWaits([])) is None


def test_the_referees_carriers_are_its_thread_and_its_hubs_threads() -> None:
    """ZeroMQ's threads carry the messages; the connection guard's shares the
    interpreter lock with the thread that reads them."""
    hub: Hub[object] = Hub()
    try:
        assert len(hub.zmq_threads) == 2  # I/O thread and reaper
        deadline = time.monotonic() + 5
        while True:  # they name themselves once running
            names = {Path(f"/proc/self/task/{t}/comm").read_text().strip()
                     for t in hub.zmq_threads}
            if names == {"ZMQbg/IO/0", "ZMQbg/Reaper"} or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert names == {"ZMQbg/IO/0", "ZMQbg/Reaper"}
        assert hub.guard is not None
        assert hub.threads == hub.zmq_threads | {hub.guard.thread_id}
        assert hub.guard.thread_id in threads_of_this_process() - hub.zmq_threads
        carriers = ThreadWaits.referee(hub.threads)
        assert len(carriers) == 4 and carriers.total_ns() >= 0
        carriers.close()
    finally:
        hub.close()
