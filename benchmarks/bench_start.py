"""What a sandboxed bot start costs, by parts: prints a table.

    python benchmarks/bench_start.py               # 20 starts a row, polish-poker
    python benchmarks/bench_start.py --starts 50 --game six-card-golf

Each row adds one part to the one above it, in a bubblewrap sandbox laid out as a run's
(``referee.sandbox``: the seccomp filter, the kernels bound read-only where the run has
them), and times ``--starts`` starts of it back to back: the CPU of every process of the
start (the sandbox's and the bot's, from ``/proc`` once it is ready) and its wall time,
medians. The parts:

- ``bwrap``: the sandbox around ``/bin/true``;
- ``interpreter``: the referee's Python with no imports (``-S``), then with its ``site``;
- ``sdk imports``: ``import referee.sdk`` (ZeroMQ, msgpack, the wire);
- ``game``: the game package the SDK loads before its hello (``REFEREE_GAME``);
- ``kernel copy``: copying the compiled kernels into the bot's own numba cache, as the
  SDK host does where the bot uses them;
- ``start to hello``: a real start (``referee.confine``, its cgroup, the SDK host, a bot
  file) until the referee has its hello; ``referee side``: the CPU the referee spent
  starting it (the cgroup, the fork and exec) in the same starts.

The machine's load average is printed: other work slows process starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.confine import Confinement
from referee.games import load_game
from referee.hub import Hub
from referee.logs import LogPump
from referee.process import BotLimits, bot_spec
from referee.sandbox import Plan, Sandbox

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"polish-poker": "bots/polish_poker/caller.py",
        "turkish-poker": "bots/turkish_poker/random_bot.py",
        "six-card-golf": "bots/six_card_golf/random_bot.py"}
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _threads_cpu_ms(pid: int) -> float:
    """CPU of a live process's threads, to the nanosecond (``schedstat``)."""
    total = 0
    try:
        for task in os.scandir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task.name}/schedstat", "rb") as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total / 1e6


def tree_cpu_ms(root: int) -> float:
    """CPU of ``root`` and every process under it: their threads' own, and the reaped
    children's (clock ticks: what exited during the start, bubblewrap's helpers)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry.name)
            parent[pid] = int(fields[1])
            cpu[pid] = sum(int(x) for x in fields[13:15]) * TICK_MS + _threads_cpu_ms(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [p for p, pp in parent.items() if pp == pid]
    return total


def until_ready(sandbox: Sandbox, plan: Plan, command: list[str], env: dict[str, str],
                starts: int) -> tuple[float, float]:
    """Median CPU and wall (ms) of a command until it prints its first line, in the
    sandbox (it then waits on its stdin, so that its processes can be read)."""
    cpu, wall = [], []
    for _ in range(starts):
        t0 = time.perf_counter()
        proc = sandbox.popen(command, plan, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdin is not None
        if not proc.stdout.readline():
            raise SystemExit(f"{command} failed in the sandbox")
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append(tree_cpu_ms(proc.pid))
        proc.stdin.close()
        proc.wait()
    return statistics.median(cpu), statistics.median(wall)


def to_hello(confinement: Confinement, game: str, bot: Path, starts: int
             ) -> tuple[float, float, float]:
    """Median bot CPU, wall and referee CPU (ms) of a real start until its hello."""
    spec = bot_spec("bot", bot)
    hub: Hub[str] = Hub(other_users=confinement.limits.ids_for(0, True) is not None)
    logs = LogPump(1 << 20)
    cpu, wall, referee = [], [], []
    with tempfile.TemporaryDirectory() as run:
        for n in range(starts):
            peer = f"p{n}"
            token = hub.new_token(peer, "bot", {})
            r0, t0 = time.process_time(), time.perf_counter()
            proc = confinement.start(spec, hub.endpoint, token, Path(run) / "logs", f"b.{n}",
                                     logs, instance=n, game=game, start_timeout_ms=30_000)
            referee.append((time.process_time() - r0) * 1000)
            hub.launched(peer, proc.pid)
            while not any(item.hello for item in hub.poll(20)):
                if proc.exit_code() is not None or time.perf_counter() - t0 > 30:
                    raise SystemExit(f"the bot did not say hello: {proc.stderr_tail()}")
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append(tree_cpu_ms(proc.pid))
            proc.kill()
            hub.forget(peer)
    hub.close()
    logs.close()
    return statistics.median(cpu), statistics.median(wall), statistics.median(referee)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--game", default="polish-poker", choices=sorted(BOTS))
    args = parser.parse_args()
    game = load_game(args.game, {})
    confinement = Confinement.open("bwrap", BotLimits(), game.kernels)
    try:
        sandbox = confinement.sandbox
        ids = confinement.limits.ids_for(0, sandboxed=True)
        plan = Plan(ROOT, "ipc:///tmp/none", uid=ids and ids[0], kernels=confinement.kernels,
                    game=args.game)
        env = plan.env()
        py = sys.executable
        load = os.getloadavg()[0]
        ready = "; print(flush=True); import sys; sys.stdin.read()"
        load_game_code = f"import referee.games as g; g.load_game({args.game!r}, {{}})"
        rows = [
            ("bwrap (and sh)", ["/bin/sh", "-c", "echo; read x"]),
            ("interpreter (-S)", [py, "-S", "-c", "pass" + ready]),
            ("interpreter", [py, "-c", "pass" + ready]),
            ("sdk imports", [py, "-c", "import referee.sdk" + ready]),
            ("game", [py, "-c", "import referee.sdk; " + load_game_code + ready]),
            ("kernel copy", [py, "-c", "import referee.sdk, referee.sdkhost as h; "
                             + load_game_code + "; h.seed_kernel_cache()" + ready]),
        ]
        print(f"load average {load:.2f}; {args.starts} starts a row; game {args.game}; "
              f"kernels {'bound' if confinement.kernels else 'not made'}")
        print("| part | CPU ms | wall ms |\n|---|---|---|")
        for name, command in rows:
            cpu, wall = until_ready(sandbox, plan, command, env, args.starts)
            print(f"| {name} | {cpu:.1f} | {wall:.1f} |", flush=True)
        cpu, wall, referee = to_hello(confinement, args.game, ROOT / BOTS[args.game],
                                      args.starts)
        print(f"| start to hello ({BOTS[args.game]}) | {cpu:.1f} | {wall:.1f} |")
        print(f"| referee side of that start | {referee:.1f} | |")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        confinement.close()


if __name__ == "__main__":
    main()
