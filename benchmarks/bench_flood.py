"""What a flooding bot costs the honest games: prints a table.

    python benchmarks/bench_flood.py            # 1,000 games per column, a few minutes
    python benchmarks/bench_flood.py --quick    # 300 games per column

The same run three times, side by side: 3-player ``official`` games between two
``bots/polish_poker/caller.py`` and a third bot that plays exactly like it (same seed, same
schedule, so the very same games), ``--concurrency 2``, each run in a fresh ``referee``
subprocess:

(a) the third bot is ``caller.py`` too: the baseline;
(b) a flooding bot (``tests/hostile/flood_player``): a child of the third bot floods
    tiny junk without end on 6 more connections that never say hello;
(c) a non-helloed flooder (``tests/hostile/big_stranger``): a child of the third bot
    sends valid ~60 kB messages without end on 4 connections that never say hello;
(d) a CPU hog (``tests/hostile/spinning_player``): two children of the third bot spin
    without end, sending nothing.

Time is the journal's window, from the first game's start to the last game's end (bot
start-up left out). The three runs are repeated in turn (``--repeats``, default 3) and
each column keeps its least disturbed (fastest) run, so that other load on the machine
falls on all three alike. Each run's game results (places) must equal the baseline's.
Target: each flooded run at most 1.2 x the baseline's time. A pool of up to seven
processes plays for the third bot, each with its own children: (d) keeps up to 14
processes spinning on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALLER = ROOT / "bots" / "polish_poker" / "caller.py"
HOSTILE = ROOT / "tests" / "hostile"
RAWWIRE = ROOT / "tests" / "bots" / "rawwire.py"
REFEREE = [sys.executable, "-c", "from referee.cli import main; main()"]
TARGET = 1.2


def run(out: Path, third: Path, games: int) -> dict:
    """One ``referee run``; its journal window, results, and counters."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}"}
    cmd = [*REFEREE, "run", "--bots", f"caller={CALLER}", f"caller2={CALLER}",
           f"third={third}", "--players", "3", "--games", str(games), "--seed", "7",
           "--concurrency", "2", "--out", str(out)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=1800)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"referee run failed ({proc.returncode}): {proc.stderr}")
    records = [json.loads(line) for line in (out / "games.jsonl").open()]
    window = (max(r["started_at"] + r["duration_s"] for r in records)
              - min(r["started_at"] for r in records))
    counters = json.loads((out / "counters.json").read_text())
    return {"window_s": window, "wall_s": wall, "games": len(records),
            "places": {r["game"]: r["places"] for r in records},
            "faults": sum(len(r["faults"]) for r in records), "counters": counters}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="300 games per column")
    ap.add_argument("--repeats", type=int, default=3, help="runs per column (best kept)")
    args = ap.parse_args(argv)
    games = 300 if args.quick else 1000
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as tmp:
        d = Path(tmp)
        bots = d / "bots"
        bots.mkdir()
        shutil.copy(RAWWIRE, bots / "rawwire.py")
        for name in ("flood_player", "big_stranger", "spinning_player"):
            shutil.copy(HOSTILE / name, bots / name)
        columns = {"(a) baseline": CALLER, "(b) flooding bot": bots / "flood_player",
                   "(c) non-helloed flooder": bots / "big_stranger",
                   "(d) CPU hog": bots / "spinning_player"}
        runs: dict[str, list[dict]] = {label: [] for label in columns}
        for rep in range(args.repeats):
            for i, (label, third) in enumerate(columns.items()):
                runs[label].append(run(d / f"run{rep}.{i}", third, games))
        res = {label: min(rs, key=lambda r: r["window_s"]) for label, rs in runs.items()}
    base = res["(a) baseline"]
    labels = list(res)
    width = 26
    print(f"# bench_flood: {games:,} 3-player official games, caller x2 + a third bot, "
          f"concurrency 2, seed 7, best of {args.repeats}; {platform.python_version()}, "
          f"{os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the end\n")
    print(f"{'':44}" + "".join(f"{lab:>{width}}" for lab in labels))

    def row(name: str, cells: list[str]) -> None:
        print(f"{name:44}" + "".join(f"{c:>{width}}" for c in cells))

    row("games", [f"{r['games']:,}" for r in res.values()])
    row("time, first game start to last game end s", [f"{r['window_s']:.2f}"
                                                     for r in res.values()])
    row("  every run s", [" ".join(f"{r['window_s']:.1f}" for r in rs) for rs in runs.values()])
    row("wall time of the command s", [f"{r['wall_s']:.2f}" for r in res.values()])
    row("games per second", [f"{r['games'] / r['window_s']:.0f}" for r in res.values()])
    row("slowdown vs (a) (target <= 1.2)",
        [f"{r['window_s'] / base['window_s']:.2f}"
         + ("" if lab == labels[0] else " ok" if r["window_s"] / base["window_s"] <= TARGET
            else " OVER") for lab, r in res.items()])
    row("same results as (a), every run", ["yes" if all(r["places"] == base["places"]
                                                         for r in rs) else "NO"
                                           for rs in runs.values()])
    row("faults, every run", [str(sum(r["faults"] for r in rs)) for rs in runs.values()])
    hub_keys = ("unsolicited", "flood", "unbound", "unbound_oversize")
    for key in hub_keys:
        row(f"hub: {key}", [f"{r['counters']['hub'][key]:,}" for r in res.values()])
    same = all(r["places"] == base["places"] for rs in runs.values() for r in rs)
    return 0 if same and all(r["window_s"] / base["window_s"] <= TARGET
                             for r in res.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
