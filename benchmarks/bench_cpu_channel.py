"""How many bits two sandboxed colluders pass through CPU contention: prints a table.

    python benchmarks/bench_cpu_channel.py             # 80 bits per row, about 2 minutes
    python benchmarks/bench_cpu_channel.py --bits 40   # quicker, rougher

A sender and a receiver, each started as a run starts a bot (``Sandbox("bwrap").popen``
with the seccomp filter, each in its own bot cgroup of ``referee.cgroup``), share a
schedule of time slots (``--slot``, default 0.5 s) and a random bit per slot. For a 1
the sender's two processes spin through the slot, for a 0 they sleep; the receiver
counts the turns of a busy loop it makes in the middle of each slot. The decoder reads
a 1 where the count is below the median. Each row is one cap of ``--limit-cores`` for
both bots (0: none, as by default, where the bots' CPU groups still weigh the same).
Reported: bits right, the error rate, and the capacity of that binary symmetric channel
(1 - H(error) bits per slot) in bits per second. The load of the machine at the start
and end is printed: other load adds noise on both rows alike (rows alternate by bit).

Needs a root referee, bubblewrap and a writable cgroup v1 ``cpu`` hierarchy.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from referee.cgroup import RunCgroups, cpu_cap_problem  # noqa: E402
from referee.sandbox import Plan, Sandbox  # noqa: E402

SENDER = """
import os, sys, time
t0, slot, bits = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
os.fork()  # two spinning processes (two cores)
for i, bit in enumerate(bits):
    end = t0 + (i + 1) * slot
    if bit == "1":
        while time.time() < end:
            pass
    else:
        time.sleep(max(0.0, end - time.time()))
"""
RECEIVER = """
import sys, time
t0, slot, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    start, end = t0 + (i + 0.1) * slot, t0 + (i + 0.9) * slot
    time.sleep(max(0.0, start - time.time()))
    count = 0
    while time.time() < end:
        count += 1
    print(count, flush=True)
"""


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def start(cgroups: RunCgroups, name: str, cores: float, code: str, args: list[str],
          where: Path, cpu: int | None) -> subprocess.Popen:
    group = cgroups.bot(name, 0, 64, name, cores)

    def preexec() -> None:
        group.join()
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    plan = Plan(where, "tcp://127.0.0.1:1", uid=2_000_000_000 + len(name))
    return Sandbox("bwrap").popen([sys.executable, "-c", code, *args], plan, env=plan.env(),
                                  stdout=subprocess.PIPE, text=True, cwd=where,
                                  preexec_fn=preexec)


def measure(cores: float, bits: str, slot: float, pin: bool) -> int:
    """How many bits the receiver got right with each bot capped at ``cores``."""
    cgroups = RunCgroups.create()
    assert cgroups is not None
    where = Path(tempfile.mkdtemp(prefix="bench-cpu-"))
    where.chmod(0o755)
    try:
        t0 = time.time() + 2.0  # both sandboxes up before the first slot
        sender = start(cgroups, "sender", cores, SENDER, [str(t0), str(slot), bits], where,
                       0 if pin else None)
        receiver = start(cgroups, "receiver", cores, RECEIVER,
                         [str(t0), str(slot), str(len(bits))], where, 1 if pin else None)
        out, _ = receiver.communicate(timeout=len(bits) * slot + 60)
        sender.wait(timeout=60)
    finally:
        cgroups.remove()
        where.rmdir()
    counts = [int(x) for x in out.split()]
    median = sorted(counts)[len(counts) // 2]
    return sum((c < median) == (b == "1") for c, b in zip(counts, bits, strict=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bits", type=int, default=80)
    ap.add_argument("--slot", type=float, default=0.5)
    ap.add_argument("--caps", type=float, nargs="+", default=[0.0, 0.5])
    ap.add_argument("--pin", action="store_true", help="sender on CPU 0, receiver on 1")
    args = ap.parse_args()
    for cores in args.caps:
        if (why := cpu_cap_problem(cores)) is not None:
            sys.exit(f"--limit-cores {cores}: {why}")
    bits = "".join(random.choice("01") for _ in range(args.bits))
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at the start; "
          f"{args.bits} bits of {args.slot} s")
    print(f"{'--limit-cores':>14} {'right':>9} {'error':>6} {'bits/s':>7}")
    for cores in args.caps:
        right = measure(cores, bits, args.slot, args.pin)
        error = 1 - right / len(bits)
        capacity = (1 - entropy(min(error, 1 - error))) / args.slot
        print(f"{cores or 'none':>14} {right:>4}/{len(bits):<4} {error:>6.2f} {capacity:>7.3f}")
    print(f"load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
