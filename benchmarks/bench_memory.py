"""Peak memory of the commands that read a whole journal, at 100,000 games: prints a table.

    python benchmarks/bench_memory.py                  # 100,000 games; about 5 minutes
    python benchmarks/bench_memory.py --games 20000    # a smaller journal
    python benchmarks/bench_memory.py --keep DIR       # make the run in DIR, and keep it
    python benchmarks/bench_memory.py --journal DIR    # measure a run directory made before

The journal is a real run, so that ``verify`` has real games to replay: ``referee run
--in-process``, Polish Poker ``official``, 4 players, ``bots/polish_poker/caller.py``
twice and ``bots/polish_poker/random_bot.py`` twice, duplicate deals, seed 1 (about
1 ms of CPU a game). Then, each in a fresh interpreter, as a user runs them:

- ``referee run`` itself, playing the games: its peak, end-of-run leaderboard included;
- the end-of-run leaderboard alone: ``referee resume`` of a copy of the finished run
  (nothing left to play, so it reads the journal and writes the leaderboard, the
  summary and the standings as a run does at its end);
- ``referee rate RUN_DIR`` (into another directory);
- ``referee verify RUN_DIR`` (replays every game from its transcript);
- the interpreter with the command line loaded (``import referee.cli``): the floor.

Each figure is the process's own peak resident set (``VmHWM``, read as it exits), not
``ru_maxrss``, which Linux carries over from the parent through vfork + exec. The aim
(issue 20): at most 150 MB at 100,000 games for the leaderboard, rate and verify.
Memory does not depend on the machine's load; the CPU and wall times printed beside
it do.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "polish_poker"
AIM_MB = 150

# Runs a referee command (or only imports the CLI, with no arguments), then writes its
# own peak RSS in kB to the file named by BENCH_PEAK_FILE as it exits, however it exits.
CHILD = r"""
import atexit, os, sys

def _peak():
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(os.environ["BENCH_PEAK_FILE"], "w") as out:
        out.write(str(kb))

atexit.register(_peak)
from referee.cli import main
if len(sys.argv) > 1:
    sys.argv = ["referee", *sys.argv[1:]]
    main()
"""


def measure(args: list[str], tmp: Path) -> dict[str, float]:
    """Run ``referee ARGS`` in a fresh interpreter: its peak RSS (MB), CPU and wall s."""
    peak_file = tmp / "peak"
    peak_file.unlink(missing_ok=True)
    env = {**os.environ, "BENCH_PEAK_FILE": str(peak_file), "COLUMNS": "120"}
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0 or not peak_file.is_file():
        tail = (done.stderr.strip() or done.stdout.strip())[-600:]
        raise SystemExit(f"referee {' '.join(args)}: exit {done.returncode}: {tail}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return {"mb": int(peak_file.read_text()) / 1024, "cpu": cpu, "wall": wall}


def make_journal(out: Path, games: int, tmp: Path) -> dict[str, float]:
    bots = [f"c1={BOTS / 'caller.py'}", f"c2={BOTS / 'caller.py'}",
            f"r1={BOTS / 'random_bot.py'}", f"r2={BOTS / 'random_bot.py'}"]
    return measure(["run", "--bots", *bots, "--players", "4", "--games", str(games),
                    "--seed", "1", "--in-process", "--out", str(out)], tmp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="games in the journal")
    ap.add_argument("--journal", type=Path,
                    help="a run directory made before (by this script) instead of a new run")
    ap.add_argument("--keep", type=Path, help="make the run in this new directory, and keep it")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    rows: list[tuple[str, dict[str, float] | None]] = []
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as name:
        tmp = Path(name)
        run = args.journal
        if run is None:
            run = args.keep or tmp / "run"
            rows.append((f"referee run --in-process, {args.games:,} games (playing them "
                         "too)", make_journal(run, args.games, tmp)))
        with (run / "games.jsonl").open("rb") as f:
            games = sum(1 for _ in f)
        again = tmp / "again"
        shutil.copytree(run, again)
        rows.append(("end-of-run leaderboard (referee resume of the finished run)",
                     measure(["resume", str(again)], tmp)))
        rows.append(("referee rate RUN_DIR", measure(["rate", str(run), "--out",
                                                      str(tmp / "rated")], tmp)))
        rows.append(("referee verify RUN_DIR", measure(["verify", str(run)], tmp)))
        rows.append(("interpreter with the command line loaded", measure([], tmp)))
    print(f"journal: {games:,} games of Polish Poker official, 4 players "
          f"({'made by this run' if args.journal is None else args.journal}); "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at the end")
    print()
    print(f"{'command':<66}{'peak RSS MB':>12}{'CPU s':>8}{'wall s':>8}")
    print("-" * 94)
    for label, r in rows:
        assert r is not None
        print(f"{label:<66}{r['mb']:>12.1f}{r['cpu']:>8.1f}{r['wall']:>8.1f}")
    print(f"\naim: at most {AIM_MB} MB at 100,000 games for the end-of-run leaderboard, "
          "rate and verify")


if __name__ == "__main__":
    main()
