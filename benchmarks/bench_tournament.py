"""Tournament throughput, memory and timing honesty: prints a table.

    python benchmarks/bench_tournament.py            # about 4 minutes
    python benchmarks/bench_tournament.py --quick    # about 1 minute

Each measure runs ``referee`` in a fresh subprocess, the way a user runs it, with the
trivial bot ``bots/polish_poker/caller.py`` (calls when it can, else declares the weakest hand) in
every seat, 4-player ``official`` games, round robin with duplicate deals:

(a) in-process (``--in-process``), pinned to one core: complete games per second,
    journal and transcripts written, from the first game's start to the last game's end
    (the journal's ``started_at`` and ``duration_s``); the rate from the process's start
    to its exit (imports and start-up included) is printed beside it.
    Target: at least 2,000 games/s.
(b) bot processes over ZeroMQ (``--concurrency 2``): wall time of 1,000 games from the
    command's start to its exit (bot start-up included). Target: under 30 s.
(c) the referee's peak memory (``VmHWM`` of the referee process, sampled until it
    exits) over a 10,000-game run between bot processes (``--quick``: 2,000 games, and
    the figure says so), and its resident memory while it plays, early and late in the
    run: nothing is kept per game, so the two should match. Target: under 150 MB.
(d) timeouts at ``--concurrency 8`` with a 50 ms move time and no time bank over 2,000
    games: the trivial bots answer in well under a millisecond, so every timeout in the
    journal is spurious. Target: 0.
(d') the same while two other processes keep both CPUs busy (in the referee's session,
    as a build in the same terminal would be): the bots wait for a CPU, and that wait is
    not charged (``referee.cpuwait``). Target: 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_protocol import vm_hwm_kb  # noqa: E402

CALLER = str(ROOT / "bots" / "polish_poker" / "caller.py")
REFEREE = [sys.executable, "-c", "from referee.cli import main; main()"]


def referee_run(out: Path, games: int, *extra: str, one_core: bool = False
                ) -> dict[str, float]:
    """Run ``referee run`` on four callers; wall time, peak RSS of the referee, and the
    journal's game and timeout counts."""
    cmd = [*REFEREE, "run", "--bots", CALLER, CALLER, CALLER, CALLER, "--players", "4",
           "--games", str(games), "--seed", "7", "--out", str(out), *extra]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.sched_setaffinity(0, {0})) if one_core
                            else None)
    peak = 0
    rss: list[tuple[int, int]] = []  # (journal bytes, resident KB) while it plays
    journal = out / "games.jsonl"
    while proc.poll() is None:
        peak = max(peak, vm_hwm_kb(proc.pid))
        if journal.exists():
            rss.append((journal.stat().st_size, vm_hwm_kb(proc.pid, "VmRSS")))
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"referee run failed ({proc.returncode}): {proc.stderr.read()}")
    records = [json.loads(line) for line in (out / "games.jsonl").open()]
    timeouts = [(r["game"], f["round"]) for r in records for f in r["faults"]
                if f["label"] == "timeout"]
    window = (max(r["started_at"] + r["duration_s"] for r in records)
              - min(r["started_at"] for r in records))
    size = journal.stat().st_size
    early = [kb for n, kb in rss if n <= size // 5]  # the first fifth of the games
    late = [kb for n, kb in rss if size // 5 < n < size]  # later, until the final report
    return {"wall_s": wall, "window_s": window, "games": len(records),
            "peak_mb": peak / 1024, "timeouts": timeouts,
            "early_mb": max(early, default=0) / 1024, "late_mb": max(late, default=0) / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs (about a minute)")
    args = ap.parse_args(argv)
    mem_games = 2_000 if args.quick else 10_000
    local_games = 4_000 if args.quick else 20_000
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        d = Path(tmp)
        local = referee_run(d / "local", local_games, "--in-process", one_core=True)
        external = referee_run(d / "external", 1_000, "--concurrency", "2")
        memory = referee_run(d / "memory", mem_games, "--concurrency", "2")
        fast = ("--concurrency", "8", "--move-time", "50ms", "--time-bank", "0")
        timing = referee_run(d / "timing", 2_000, *fast)
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        try:
            busy = referee_run(d / "busy", 2_000, *fast)
        finally:
            for hog in hogs:
                hog.kill()
    rows = [
        ("(a) in-process, one core: games/s", f"{local['games'] / local['window_s']:,.0f}",
         f"{local['games']:,} games in {local['window_s']:.2f} s; "
         f"{local['games'] / local['wall_s']:,.0f}/s counting start-up", ">= 2,000",
         local["games"] / local["window_s"] >= 2_000),
        ("(b) bot processes: 1,000 games", f"{external['wall_s']:.1f} s",
         f"{external['games'] / external['wall_s']:.0f} games/s, concurrency 2", "< 30 s",
         external["wall_s"] < 30),
        (f"(c) referee peak memory, {memory['games']:,} games", f"{memory['peak_mb']:.0f} MB",
         f"resident while playing: {memory['early_mb']:.0f} MB in the first fifth of the "
         f"games, {memory['late_mb']:.0f} MB after; the peak is the final leaderboard; "
         f"{memory['wall_s']:.0f} s. In-process run above: {local['peak_mb']:.0f} MB",
         "< 150 MB", memory["peak_mb"] < 150),
        *[(label, f"{len(run['timeouts'])}", f"{run['games']:,} games in {run['wall_s']:.1f} s"
           + (f"; (game, round): {run['timeouts'][:5]}" if run["timeouts"] else ""),
           "0", not run["timeouts"])
          for label, run in (("(d) spurious timeouts, concurrency 8, 50 ms", timing),
                             ("(d') the same, both CPUs kept busy by two other processes",
                              busy))],
    ]
    print(f"# bench_tournament ({'quick' if args.quick else 'full'}): 4-player official, "
          f"caller.py in every seat; {platform.python_version()}, {os.cpu_count()} cores\n")
    print("| measure | result | detail | target | met |")
    print("|---|---|---|---|---|")
    for label, result, detail, target, met in rows:
        print(f"| {label} | {result} | {detail} | {target} | {'yes' if met else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
