"""Per-decision cost of the referee against a raw pyzmq ping-pong: prints a table.

    python benchmarks/bench_protocol.py            # about a minute
    python benchmarks/bench_protocol.py --quick    # about 20 s
    python benchmarks/bench_protocol.py --game six-card-golf [--quick]

Measured in one run, side by side, for 2- and 4-player games of one game (``--game``:
Polish Poker ``official``, the default, or six-card golf; ``WORKLOADS``):

(a) raw ping-pong: a ROUTER here and a DEALER in a child process (plain python with
    pyzmq + msgpack, ipc in a temp dir, as the referee does) exchange msgpack maps of
    the size of a real ``act`` request and ``action`` reply. The child decodes each
    request and encodes its reply with the game's trivial policy, as a trivial bot
    must. The request is a real one: the simulated run's ``act`` whose encoded size is
    closest to the run's mean.
    (a'') the same, but this side waits for each reply as the referee's hub does: it
    watches the socket for a moment (``referee.hub.SPIN_S``) before it sleeps. On a VM
    that keeps its CPU from halting; an informative row, the target stays with (a).
    (a') the same trivial children, one per seat, replaying the referee's exact wire
    traffic of the run (``game_start``, ``game_end``, round results riding on ``act``,
    and each ``act``, pre-encoded): the cost of the message pattern itself.
(b) the referee: ``Runner`` playing the game's SDK bot against itself (Polish Poker:
    ``bots/polish_poker/caller.py``, whose policy is the trivial one; golf: the greedy bot) (move
    1000 ms, bank 0, concurrency 1, fixed seed) in a fresh subprocess. The clock runs from the
    end of the first game to the end of the last (the progress callback), so bot
    start-up, the bots' first-decision warm-up and shut-down are left out. CPU time
    of the referee (all its threads) and of the bots (/proc) over the same window.
(c) the referee process's peak RSS (``VmHWM`` of that subprocess; its ``ru_maxrss`` too,
    which on Linux also holds the spawning process's peak), and the largest bot's.
(d) (a) and (b') again with every process on one CPU: no wake-up then crosses CPUs (on
    a VM, waking an idle virtual CPU can cost more than the work it wakes up for), so
    these two are the work alone, and their ratio the referee's share of it (with
    one usable CPU the hub does not watch the socket before it sleeps).

Then one 4-player run under cProfile (another subprocess, profiling only the same
window): the top functions by tottime in the referee process, per decision, and the
same tottime summed by file/package.

The targets: referee µs per decision <= 1.3 x raw µs per round trip with the trivial raw
bot (b'), <= 1.5 x with the SDK bot (b). Other processes on the same cores disturb both
sides, so each is timed in chunks and the verdict compares the least disturbed chunk of
each (best/best); whole-window/median is printed too. And (a), (b) and (b') are measured
in ROUNDS rounds, interleaved (a, b, b', a, b, b', ...), each a third of the games or the
seconds: a spell of load on the host falls on all three, not on one of them. Each keeps
its least disturbed round; every round's best chunk is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import zmq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol.codec import decode, encode  # noqa: E402
from protocol.messages import parse_bot_message  # noqa: E402
from referee.deals import Deals  # noqa: E402
from referee.games import load_game  # noqa: E402
from referee.hub import SPIN_S  # noqa: E402
from referee.match import game_end  # noqa: E402
from referee.schedule import game_seed  # noqa: E402

SEED = 20240601
MOVE_MS, BANK_MS = 1000, 0
TARGET = 1.5  # the referee with an SDK bot / the raw round trip (issue 20)
RAW_TARGET = 1.3  # the referee with the trivial raw bot / the raw round trip
CHUNKS = 5  # each side is timed in chunks: best (least disturbed) and median/whole
ROUNDS = 3  # (a), (b) and (b') are measured in this many rounds, interleaved
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
ONE_CPU = min(os.sched_getaffinity(0))  # the CPU of the one-CPU rows (d)



@dataclass(frozen=True)
class Workload:
    """A game as this benchmark plays it: its parameters, the bot that plays it through
    the SDK in (b), and ``policy``, the source of ``act(view) -> action`` on the wire
    maps, the trivial bot's policy (the raw child's, and the simulated run's).
    ``game_share``: how many games it plays for one of Polish Poker's (about as many
    decisions)."""

    game: str
    params: dict[str, Any]
    sdk_bot: str
    policy: str
    game_share: float = 1.0

    @property
    def label(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.game}{f' ({params})' if params else ''}"

    def act(self) -> Callable[[dict[str, Any]], dict[str, Any]]:
        scope: dict[str, Any] = {}
        exec(self.policy, scope)  # the same source the raw child runs
        return scope["act"]


WORKLOADS = {w.game: w for w in (
    Workload("polish-poker", {"ruleset": "official"}, "bots/polish_poker/caller.py", """
def act(view):  # bots/polish_poker/caller.py: call whenever it can, else the weakest declaration
    return {"kind": "call"} if view["history"] else {"kind": "raise", "declaration": 0}
"""),
    Workload("six-card-golf", {}, "bots/six_card_golf/greedy_bot.py", """
def act(view):  # take from the stock; turn up a face-down card, else throw it away
    legal, mine = view["legal"], view["grids"][view["seat"]]
    for a in legal:
        if a["kind"] == "place" and mine[a["at"]] is None:
            return a
    for a in legal:
        if a["kind"] == "discard" or a.get("from") == "stock":
            return a
    return legal[0]
""", game_share=0.2),
)}

# The trivial bot: decode every message, answer acts with the workload's policy. It is
# both the raw ping-pong's child and, run by the referee, the "trivial external bot" of
# (b'). The policy's source comes in the environment.
DEALER_CHILD = r"""
import os
import msgpack
import zmq
exec(os.environ["BENCH_POLICY"])
ctx = zmq.Context()
sock = ctx.socket(zmq.DEALER)
sock.linger = 0
sock.connect(os.environ["REFEREE_ENDPOINT"])
sock.send(msgpack.packb({"type": "hello", "token": os.environ["REFEREE_TOKEN"],
                         "protocol": 2}, use_bin_type=True))
while True:
    msg = msgpack.unpackb(sock.recv(), raw=False)
    kind = msg["type"]
    if kind == "bye":
        break
    if kind != "act":
        continue
    sock.send(msgpack.packb({"type": "action", "seq": msg["seq"], "action": act(msg["view"])},
                            use_bin_type=True))
sock.close()
ctx.term()
"""

# One decision of the referee's traffic: frames sent since the last act (seat, bytes),
# then the act's seat and frame.
Step = tuple[list[tuple[int, bytes]], int, bytes]


def vm_hwm_kb(pid: int | str = "self", field: str = "VmHWM") -> int:
    """Peak RSS of a process's own address space (``VmHWM``; or another field of
    /proc/PID/status, such as the current ``VmRSS``), 0 once it is gone. Unlike
    ``ru_maxrss``, it does not inherit the parent's peak through fork/vfork + exec."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def proc_cpu_s(pid: int, children: bool = False) -> float:
    """user + system CPU seconds of a process (all its threads), from /proc; with
    ``children``, those of its children it has reaped too."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks * TICK_S


def bots_cpu_s(runner: Any) -> float:
    """CPU seconds of every bot process the runner has started so far: those it has
    ended and reaped (this process's children's rusage: the pool replaces processes
    as the deals change, so summing the live ones alone would lose the ended ones'
    time), plus the live ones (each with its own reaped children)."""
    gone = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = [i.process.pid for i in runner.instances if i.process]
    live += [process.pid for _, process, _ in runner.retired]
    return gone.ru_utime + gone.ru_stime + sum(proc_cpu_s(pid, children=True) for pid in live)


# ------------------------------------------------------------------ simulated run


def simulate(work: Workload, players: int, games: int) -> dict[str, Any]:
    """Play the run's first ``games`` games in-process, as ``Table`` does (same seeds,
    same messages, the trivial policy), without sockets: the wire traffic, message
    sizes, and the referee's own in-process work per decision, by stage."""
    rules = load_game(work.game, work.params)
    policy = work.act()
    t = dict.fromkeys(("results", "view", "encode", "reply", "apply"), 0.0)
    acts: list[tuple[int, dict[str, Any]]] = []
    steps: list[Step] = []
    pre: list[tuple[int, bytes]] = []
    messages = bytes_out = 0
    clock = time.perf_counter
    tm = {"move_ms": MOVE_MS, "bank_ms": BANK_MS}
    for g in range(games):
        seed = game_seed(SEED, g)
        engine = rules.new_game(players, seed)
        seq = [0] * players
        for s in range(players):
            seq[s] += 1
            pre.append((s, encode({"type": "game_start", "game": rules.name,
                                   "game_id": f"{g}", "seat": s, "players": players,
                                   "seed": Deals().bot_seed(seed, s), "params": rules.params,
                                   "time": tm, "seq": seq[s]})))
        sent = 0
        unsent: list[list[dict[str, Any]]] = [[] for _ in range(players)]
        while True:
            t0 = clock()
            for s, notice in engine.notices(sent):
                unsent[s].append(notice)
            sent = len(engine.events)
            t1 = clock()
            t["results"] += t1 - t0
            if engine.is_over:
                break
            seat = engine.current_seat
            view = engine.view(seat)
            t2 = clock()
            seq[seat] += 1
            msg = {"type": "act", "view": view, "results": unsent[seat],
                   "deadline_ms": MOVE_MS + BANK_MS, "time": tm, "seq": seq[seat]}
            unsent[seat] = []
            frame = encode(msg)
            t3 = clock()
            reply = encode({"type": "action", "seq": seq[seat], "action": policy(view)})
            t4 = clock()
            parsed = parse_bot_message(decode(reply))
            action = rules.parse_action(parsed.action)
            t5 = clock()
            engine.apply(seat, action)
            t6 = clock()
            t["view"] += t2 - t1
            t["encode"] += t3 - t2
            t["reply"] += t5 - t4
            t["apply"] += t6 - t5
            acts.append((len(frame), msg))
            steps.append((pre, seat, frame))
            messages += len(pre) + 1
            bytes_out += sum(len(b) for _, b in pre) + len(frame)
            pre = []
        end = game_end(engine.outcome())
        for s in range(players):
            seq[s] += 1
            pre.append((s, encode({"type": "game_end", **end, "results": unsent[s],
                                   "seq": seq[s]})))
    decisions = len(acts)
    sizes = [n for n, _ in acts]
    mean = statistics.fmean(sizes)
    _, sample = min(acts, key=lambda a: abs(a[0] - mean))
    reply = {"type": "action", "seq": sample["seq"], "action": policy(sample["view"])}
    return {"decisions": decisions, "games": games, "act_mean": mean, "act_min": min(sizes),
            "act_max": max(sizes), "sample": sample, "sample_len": len(encode(sample)),
            "reply_len": len(encode(reply)), "msgs_per_decision": messages / decisions,
            "bytes_per_decision": bytes_out / decisions, "steps": steps,
            "stage_us": {k: v / decisions * 1e6 for k, v in t.items()}}


# ------------------------------------------------------------------ raw ping-pong


def ping_pong(work: Workload, steps: list[Step], children: int, seconds: float,
              request: dict[str, Any] | None = None, cpu: int = -1,
              watch: bool = False) -> dict[str, Any]:
    """ROUTER here, ``children`` trivial DEALER children; replays ``steps`` in a cycle.
    µs per step (best and median of CHUNKS chunks) and CPU µs per step (this process +
    children). With ``request``, a second figure where this side also encodes each
    request and decodes each reply. With ``cpu`` >= 0, this process and the children
    run on that one CPU only. With ``watch``, this side waits for each reply as the
    hub does: it watches the socket for up to SPIN_S, yielding, before it sleeps."""
    affinity = os.sched_getaffinity(0)
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})  # before the context's I/O thread and the children
    tmp = tempfile.mkdtemp(prefix="bench-zmq-")
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    sock.bind(f"ipc://{tmp}/router")
    endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    env = {**os.environ, "REFEREE_ENDPOINT": endpoint, "REFEREE_TOKEN": "-",
           "BENCH_POLICY": work.policy}
    procs = [subprocess.Popen([sys.executable, "-c", DEALER_CHILD], env=env)
             for _ in range(children)]
    try:
        idents: list[bytes] = []
        while len(idents) < children:
            if not sock.poll(30_000):
                raise RuntimeError("a ping-pong child did not connect")
            idents.append(sock.recv_multipart()[0])
        plan = [([(idents[s], b) for s, b in pre], idents[seat], frame)
                for pre, seat, frame in steps]
        send, recv = sock.send_multipart, sock.recv_multipart
        pollin = int(zmq.POLLIN)

        def watch_then_recv() -> list[bytes]:
            until = time.perf_counter() + SPIN_S
            while not sock.get(zmq.EVENTS) & pollin and time.perf_counter() < until:
                os.sched_yield()
            return recv()

        take = watch_then_recv if watch else recv

        def raw(n: int) -> None:
            i, k = 0, len(plan)
            for _ in range(n):
                pre, ident, frame = plan[i]
                for p in pre:
                    send(p)
                send([ident, frame])
                take()
                i = i + 1 if i + 1 < k else 0

        def coded(n: int) -> None:
            msg = dict(request or {})
            ident = idents[0]
            for _ in range(n):
                send([ident, encode(msg)])
                decode(recv()[1])

        def rate(fn: Callable[[int], None]) -> dict[str, float]:
            fn(300)  # warm-up
            chunks, cpu = [], []
            for _ in range(CHUNKS):
                n, t0, c0 = 0, time.perf_counter(), time.process_time()
                k0 = sum(proc_cpu_s(p.pid) for p in procs)
                while time.perf_counter() - t0 < seconds / CHUNKS:
                    fn(100)
                    n += 100
                chunks.append((time.perf_counter() - t0) / n * 1e6)
                cpu.append((time.process_time() - c0
                            + sum(proc_cpu_s(p.pid) for p in procs) - k0) / n * 1e6)
            return {"best": min(chunks), "median": statistics.median(chunks),
                    "cpu": statistics.median(cpu)}

        out = rate(raw)
        if request is not None:
            out["coded"] = rate(coded)["best"]
        for ident in idents:
            send([ident, encode({"type": "bye"})])
        for p in procs:
            p.wait(10)
        return out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        sock.close(0)
        ctx.term()
        try:
            os.unlink(f"{tmp}/router")
        except OSError:
            pass
        os.rmdir(tmp)
        os.sched_setaffinity(0, affinity)


# ------------------------------------------------------------------ the match (child)


def trivial_bot_file(work: Workload, folder: str) -> str:
    """DEALER_CHILD with the workload's policy as an executable bot file, run with this
    interpreter."""
    path = Path(folder) / "trivial_bot"
    child = DEALER_CHILD.replace('exec(os.environ["BENCH_POLICY"])', work.policy)
    path.write_text(f"#!{sys.executable}\n{child}")
    path.chmod(0o755)
    return str(path)


def run_match(work: Workload, players: int, games: int, profile_top: int, raw_bot: int = 0,
              cpu: int = -1) -> dict[str, Any]:
    """Runs in a fresh subprocess: one Runner run; its figures as a dict. The bots are
    the workload's SDK bot, or with ``raw_bot`` the trivial raw-protocol bot.
    With ``cpu`` >= 0 the referee (all its threads) and the bots it starts run on that
    one CPU only."""
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})  # before any thread or bot exists: all inherit it
    from referee.config import RunConfig
    from referee.process import resolve_bots
    from referee.runner import Runner

    rss_import = vm_hwm_kb()
    bot_hwm: list[int] = []
    # Game k's record is marked (wall, referee CPU, bots CPU) only where a chunk of the
    # window starts or ends: reading the bots' /proc files after every game would put
    # the benchmark's own work into the referee's timed window.
    bounds = [round(i * (games - 1) / CHUNKS) for i in range(CHUNKS + 1)]
    marks: dict[int, tuple[float, float, float]] = {}
    records: list[dict[str, Any]] = []
    prof = None
    if profile_top:
        import cProfile

        prof = cProfile.Profile()

    def progress(runner: Any, record: dict[str, Any]) -> None:
        k = len(records)
        records.append(record)
        if k + 1 == games and prof is not None:
            prof.disable()
        if k in bounds:
            bots_cpu = bots_cpu_s(runner)
            marks[k] = (time.perf_counter(), time.process_time(), bots_cpu)
            # At every bound: the last games are reported after their bots were told
            # ``bye`` (``referee.backlog``), when they may be gone.
            bot_hwm.extend(vm_hwm_kb(i.process.pid) for i in runner.instances if i.process)
        if prof is not None and k == 0:
            prof.enable()

    with tempfile.TemporaryDirectory(prefix="bench-run-") as out:
        bot = trivial_bot_file(work, out) if raw_bot else str(ROOT / work.sdk_bot)
        bots = tuple(resolve_bots([bot] * players))
        cfg = RunConfig(bots=bots, game=work.game, params=work.params, players=players,
                        games=games, seed=SEED,
                        move_ms=MOVE_MS, bank_ms=BANK_MS, concurrency=1, max_faults=3,
                        start_timeout_ms=30_000, out=Path(out))
        t0 = time.perf_counter()
        Runner(cfg, progress=progress).run()
        total = time.perf_counter() - t0
    rest = records[1:]
    chunks = []  # µs per decision over CHUNKS runs of consecutive games in the window
    for a, b in zip(bounds, bounds[1:], strict=False):
        n = sum(t["decisions"] for r in rest[a:b] for t in r["timing"])
        if b > a and n:
            chunks.append((marks[b][0] - marks[a][0]) / n * 1e6)
    first, last = marks[bounds[0]], marks[bounds[-1]]
    doc: dict[str, Any] = {
        "players": players, "games": len(records), "total_s": total,
        "window_s": last[0] - first[0], "window_games": len(rest),
        "best_chunk_us": min(chunks),
        "window_decisions": sum(t["decisions"] for r in rest for t in r["timing"]),
        "referee_cpu_s": last[1] - first[1], "bots_cpu_s": last[2] - first[2],
        "in_flight_ms": sum(t["total_ms"] for r in rest for t in r["timing"]),
        "faults": sum(len(r["faults"]) for r in records),
        "rss_import_kb": rss_import, "rss_kb": vm_hwm_kb(),
        "ru_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_bot_kb": max(bot_hwm, default=0),
    }
    if prof is not None:
        import pstats

        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        rows = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:profile_top]
        doc["profile"] = [
            {"func": _func_name(key), "ncalls": nc, "tottime": tt, "cumtime": ct}
            for key, (_cc, nc, tt, ct, _callers) in rows]
        doc["profile_total_s"] = sum(v[2] for v in stats.values())
        areas: dict[str, float] = {}
        for key, v in stats.items():
            areas[_area(key)] = areas.get(_area(key), 0.0) + v[2]
        doc["profile_areas"] = sorted(areas.items(), key=lambda kv: kv[1], reverse=True)
        doc["profile_wait_s"] = sum(v[2] for k, v in stats.items() if _is_wait(k))
        doc["profile_send_s"] = sum(v[2] for k, v in stats.items() if _is_zmq(k, "send"))
    return doc


def _is_zmq(key: tuple[str, int, str], name: str) -> bool:
    return key[2] == name and f"zmq{os.sep}sugar" in key[0]


def _is_wait(key: tuple[str, int, str]) -> bool:
    """Where the referee waits for bots: a zmq poll, or the hub's watch and blocking
    recv (pyzmq's compiled calls are no profiled functions: their time is the caller's)."""
    return (_is_zmq(key, "poll") or "sched_yield" in key[2]
            or (key[2] in ("_watch", "_recv_frames", "incoming")
                and key[0].endswith(f"referee{os.sep}hub.py")))


def _area(key: tuple[str, int, str]) -> str:
    """Where a profiled function lives: a repo file, a site package, or the stdlib."""
    file = key[0]
    if file == "~":
        return "builtins (C)"
    p = Path(file).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        pass
    if "site-packages" in p.parts:
        return p.parts[p.parts.index("site-packages") + 1] + " (package)"
    return f"stdlib {p.name}"


def _func_name(key: tuple[str, int, str]) -> str:
    file, line, name = key
    if file == "~":
        return name
    p = Path(file)
    try:
        file = str(p.resolve().relative_to(ROOT))
    except ValueError:
        file = "/".join(p.parts[-3:])
    return f"{file}:{line}({name})"


def least_disturbed(rounds: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Of one measure's rounds, the one whose ``key`` (its best chunk) is least."""
    return dict(min(rounds, key=lambda r: r[key]))


def match_in_subprocess(work: Workload, players: int, games: int, profile_top: int = 0,
                        raw_bot: bool = False, cpu: int = -1) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--game", work.game,
           "--_match", str(players), str(games), str(profile_top), str(int(raw_bot)), str(cpu)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"match subprocess failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ report


def machine_note() -> str:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores "
            f"({usable} usable), Python {platform.python_version()}, pyzmq {zmq.__version__} "
            f"(libzmq {zmq.zmq_version()}), msgpack {'.'.join(map(str, msgpack.version))}, "
            f"load average {os.getloadavg()[0]:.2f} at start")


def _row(label: str, *cells: str) -> str:
    return f"{label:<54}" + "".join(f"{c:>15}" for c in cells)


def report(work: Workload, res: dict[int, dict[str, Any]], prof: dict[str, Any], quick: bool,
           note: str) -> list[str]:
    lines = [f"machine: {note}",
             f"config: {work.label}, {work.sdk_bot} per seat in (b), move {MOVE_MS} ms, "
             f"bank {BANK_MS} ms, concurrency 1, seed {SEED}{', --quick' if quick else ''}", "",
             _row("", "2 players", "4 players"), _row("-" * 53, *["-" * 14] * 2)]

    def add(label: str, fn: Callable[[dict[str, Any]], str]) -> None:
        lines.append(_row(label, *(fn(res[p]) for p in (2, 4))))

    def per_dec(r: dict[str, Any], key: str, scale: float = 1e6) -> float:
        m = r["match"]
        return m[key] * scale / m["window_decisions"]

    def ratio(r: dict[str, Any], base: str = "pp", best: bool = True) -> float:
        if best:
            return r["match"]["best_chunk_us"] / r[base]["best"]
        return per_dec(r, "window_s") / r[base]["median"]

    def verdict(x: float, target: float = TARGET) -> str:
        return f"{x:.2f} {'ok' if x <= target else 'OVER'}"

    def best_med(d: dict[str, float]) -> str:
        return f"{d['best']:.1f} ({d['median']:.1f})"

    add("act request bytes: mean (min-max) in the run",
        lambda r: f"{r['sim']['act_mean']:.0f} ({r['sim']['act_min']}-{r['sim']['act_max']})")
    add("act request bytes used for the ping-pong", lambda r: f"{r['sim']['sample_len']}")
    add("action reply bytes", lambda r: f"{r['sim']['reply_len']}")
    add("referee->bot messages per decision (all kinds)",
        lambda r: f"{r['sim']['msgs_per_decision']:.2f}")
    add("referee->bot bytes per decision (all kinds)",
        lambda r: f"{r['sim']['bytes_per_decision']:.0f}")
    lines.append(f"(a) raw ping-pong, 1 child, act/action sized maps [best of {CHUNKS} (median)]")
    add("  round trips per second", lambda r: f"{1e6 / r['pp']['best']:,.0f}")
    add("  µs per round trip", lambda r: best_med(r["pp"]))
    add(f"  µs per round trip, best chunk of each of {ROUNDS} rounds",
        lambda r: " ".join(f"{x['pp']['best']:.0f}" for x in r["rounds"]))
    add("  CPU µs per round trip (both processes)", lambda r: f"{r['pp']['cpu']:.1f}")
    add("  µs per round trip, ROUTER side also en/decodes",
        lambda r: f"{r['pp']['coded']:.1f}")
    add(f"  µs per round trip, ROUTER side waits as the hub does ({SPIN_S * 1e6:.0f} µs watch)",
        lambda r: best_med(r["pp_watch"]))
    lines.append("(a') raw replay of the referee's exact traffic, 1 trivial child per seat")
    add("  µs per decision", lambda r: best_med(r["pattern"]))
    add("  CPU µs per decision (all processes)", lambda r: f"{r['pattern']['cpu']:.1f}")
    lines.append(f"(b) referee (Runner, {work.sdk_bot} bots)")
    add("  games played (timed: all but the first)",
        lambda r: f"{r['match']['games']} ({r['match']['window_games']})")
    add("  timed window s (whole run() s)",
        lambda r: f"{r['match']['window_s']:.2f} ({r['match']['total_s']:.2f})")
    add("  decisions timed", lambda r: f"{r['match']['window_decisions']:,}")
    add("  faults (should be 0)", lambda r: f"{r['match']['faults']}")
    add("  decisions per second (whole window)",
        lambda r: f"{1e6 / per_dec(r, 'window_s'):,.0f}")
    add("  games per second (whole window)",
        lambda r: f"{r['match']['window_games'] / r['match']['window_s']:.1f}")
    add(f"  µs per decision: best of {CHUNKS} game chunks (whole)",
        lambda r: f"{r['match']['best_chunk_us']:.1f} ({per_dec(r, 'window_s'):.1f})")
    add(f"  µs per decision, best chunk of each of {ROUNDS} rounds",
        lambda r: " ".join(f"{x['match']['best_chunk_us']:.0f}" for x in r["rounds"]))
    add("    in flight (act sent -> reply taken off)",
        lambda r: f"{per_dec(r, 'in_flight_ms', 1e3):.1f}")
    add("    the rest (referee between reply and next act)",
        lambda r: f"{per_dec(r, 'window_s') - per_dec(r, 'in_flight_ms', 1e3):.1f}")
    add("  CPU µs per decision: referee process (all threads)",
        lambda r: f"{per_dec(r, 'referee_cpu_s'):.1f}")
    add("  CPU µs per decision: bots (all)", lambda r: f"{per_dec(r, 'bots_cpu_s'):.1f}")
    add("  in-process referee work, no sockets, µs/decision",
        lambda r: f"{sum(r['sim']['stage_us'].values()):.1f}")
    for stage, what in (("view", "engine.view + view_payload"), ("encode", "encode act"),
                        ("reply", "decode + parse reply"), ("apply", "engine apply"),
                        ("results", "engine.events + round_results + encode")):
        add(f"    {what}", lambda r, s=stage: f"{r['sim']['stage_us'][s]:.1f}")
    add(f"  RATIO end to end (referee + SDK bot) / raw round trip, best/best (<= {TARGET})",
        lambda r: verdict(ratio(r)))
    add(f"  ratio referee's own time (reply in -> next act out) / raw round trip (<= {TARGET})",
        lambda r: verdict((per_dec(r, "window_s") - per_dec(r, "in_flight_ms", 1e3))
                          / r["pp"]["median"]))
    add("  ratio referee / raw round trip, whole/median", lambda r: f"{ratio(r, best=False):.2f}")
    add("  ratio referee / raw replay of its traffic (a'), best",
        lambda r: f"{ratio(r, 'pattern'):.2f}")
    lines.append("(b') referee (Runner) with the trivial raw bot of (a), the same games")
    add("  decisions per second (whole window)",
        lambda r: f"{r['raw_match']['window_decisions'] / r['raw_match']['window_s']:,.0f}")
    add(f"  µs per decision: best of {CHUNKS} game chunks",
        lambda r: f"{r['raw_match']['best_chunk_us']:.1f}")
    add(f"  µs per decision, best chunk of each of {ROUNDS} rounds",
        lambda r: " ".join(f"{x['raw_match']['best_chunk_us']:.0f}" for x in r["rounds"]))
    add(f"  RATIO referee with a trivial bot / raw round trip, best/best (<= {RAW_TARGET})",
        lambda r: verdict(r["raw_match"]["best_chunk_us"] / r["pp"]["best"], RAW_TARGET))
    add("  ratio to the raw round trip that waits as the hub does, best/best",
        lambda r: f"{r['raw_match']['best_chunk_us'] / r['pp_watch']['best']:.2f}")
    lines.append("(c) memory (fresh subprocess running only the match)")
    add("  referee peak RSS MiB, VmHWM (after imports)",
        lambda r: f"{r['match']['rss_kb'] / 1024:.1f} ({r['match']['rss_import_kb'] / 1024:.1f})")
    add("  referee ru_maxrss MiB (*)", lambda r: f"{r['match']['ru_maxrss_kb'] / 1024:.1f}")
    add("  largest bot peak RSS MiB, VmHWM", lambda r: f"{r['match']['rss_bot_kb'] / 1024:.1f}")
    lines.append("  (*) Linux carries the parent's peak RSS over vfork + exec into ru_maxrss, so "
                 "it shows\n      max(this benchmark's RSS at spawn, the referee's own peak); "
                 "VmHWM is the referee's own")
    lines.append(f"(d) everything on CPU {ONE_CPU} only: no wake-up crosses CPUs, so the time is "
                 "the work (CPU)")
    add("  raw ping-pong of (a), µs per round trip", lambda r: best_med(r["pp_cpu"]))
    add("  referee with the trivial raw bot of (b'), µs per decision",
        lambda r: f"{r['raw_match_cpu']['best_chunk_us']:.1f}")
    add("  ratio (b') / (a) on one CPU, best/best",
        lambda r: f"{r['raw_match_cpu']['best_chunk_us'] / r['pp_cpu']['best']:.2f}")

    d = prof["window_decisions"]
    lines += ["", f"cProfile of the referee process, one 4-player run of {prof['games']} games, "
              f"timed window only ({d:,} decisions, {prof['window_s']:.2f} s under the profiler,"
              f" {prof['window_s'] / d * 1e6:.0f} µs/decision)",
              f"tottime: {prof['profile_total_s']:.2f} s; waiting for bots (zmq poll, hub "
              f"watch + recv) {prof['profile_wait_s']:.2f} s, in zmq send "
              f"{prof['profile_send_s']:.2f} s",
              f"{'ncalls':>9} {'tottime s':>10} {'µs/decision':>12} {'cumtime s':>10}  function"]
    for row in prof["profile"]:
        lines.append(f"{row['ncalls']:>9} {row['tottime']:>10.3f} "
                     f"{row['tottime'] / d * 1e6:>12.1f} {row['cumtime']:>10.3f}  {row['func']}")
    lines += ["", "the same profile, tottime by where the code lives",
              f"{'tottime s':>10} {'µs/decision':>12}  area"]
    for area, tt in prof["profile_areas"][:12]:
        lines.append(f"{tt:>10.3f} {tt / d * 1e6:>12.1f}  {area}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a ~20 s run instead of ~1 min")
    ap.add_argument("--game", choices=sorted(WORKLOADS), default="polish-poker",
                    help="the game whose traffic is measured")
    ap.add_argument("--_match", nargs=5, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    work = WORKLOADS[args.game]
    if args._match:
        print(json.dumps(run_match(work, *args._match)))
        return 0

    t_start = time.perf_counter()
    note = machine_note()
    raw_s = 1.0 if args.quick else 3.0
    polish = {2: 250, 4: 70, 0: 40} if args.quick else {2: 1500, 4: 450, 0: 150}
    games = {p: max(10, round(n * work.game_share)) for p, n in polish.items()}
    profile_games = games.pop(0)
    res: dict[int, dict[str, Any]] = {}
    for players in (2, 4):
        sims = [simulate(work, players, min(games[players], 200)) for _ in range(3)]
        sim = sims[0]  # the same games each time; keep each stage's least disturbed time
        sim["stage_us"] = {k: min(x["stage_us"][k] for x in sims) for k in sim["stage_us"]}
        sample = [([], 0, encode(sim["sample"]))]
        # (a), (b) and (b') in ROUNDS interleaved rounds, so that a spell of load on the
        # host falls on all three; each keeps its least disturbed round.
        rounds = [{"pp": ping_pong(work, sample, 1, raw_s / ROUNDS,
                                   request=sim["sample"] if r == 0 else None),
                   "match": match_in_subprocess(work, players, games[players] // ROUNDS),
                   "raw_match": match_in_subprocess(work, players, games[players] // ROUNDS,
                                                    raw_bot=True)}
                  for r in range(ROUNDS)]
        pp = least_disturbed([r["pp"] for r in rounds], "best")
        pp["coded"] = rounds[0]["pp"]["coded"]
        pp_watch = ping_pong(work, sample, 1, raw_s, watch=True)
        pattern = ping_pong(work, sim["steps"], players, raw_s)
        pp_cpu = ping_pong(work, sample, 1, raw_s, cpu=ONE_CPU)
        raw_match_cpu = match_in_subprocess(work, players, games[players], raw_bot=True,
                                            cpu=ONE_CPU)
        res[players] = {"sim": sim, "pp": pp, "pp_watch": pp_watch, "pattern": pattern,
                        "match": least_disturbed([r["match"] for r in rounds], "best_chunk_us"),
                        "raw_match": least_disturbed([r["raw_match"] for r in rounds],
                                                     "best_chunk_us"),
                        "pp_cpu": pp_cpu, "raw_match_cpu": raw_match_cpu,
                        "rounds": rounds}
    prof = match_in_subprocess(work, 4, profile_games, profile_top=15)
    lines = report(work, res, prof, args.quick, note)
    lines.append(f"\nbenchmark wall time {time.perf_counter() - t_start:.1f} s; "
                 f"load average {os.getloadavg()[0]:.2f} at the end (other processes on "
                 "these cores skew every figure: compare columns of one run, not runs)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
