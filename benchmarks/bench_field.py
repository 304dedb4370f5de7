"""A competition's field on one machine: prints a table.

    python benchmarks/bench_field.py            # 16, 64 and 256 entrants, --concurrency 4, 8
    python benchmarks/bench_field.py --quick    # 16 and 64 entrants, --concurrency 4
    python benchmarks/bench_field.py --entrants 256 --concurrency 4 8   # some rows
    python benchmarks/bench_field.py --quick --warm-processes 16  # a smaller warm pool

Each row runs ``referee run`` in a fresh subprocess, sandboxed (``--sandbox auto``), with
N entrants: copies of the bundled ``bots/polish_poker/caller.py`` and
``bots/polish_poker/random_bot.py`` in turn,
two of them replaced by broken ones (a syntax error, and an executable that exits at
once), at tables of 4 with duplicate deals, ``--games-per-bot 16`` (about 4 x N games;
256 entrants: 1,024 or a few more; ``--quick``: 4, about N). While it runs, the bot
processes are counted every 50 ms: the referee's children, one per bot process (a
sandboxed bot is its bwrap and what runs inside it, counted once), and the resident
memory of everything under them summed.

Columns: seconds from the command's start to the first game in the journal; peak bot
processes, against the README's bound ``concurrency x players x (G + 1)`` (G: the games of
one deal, 4 at tables of 4), or ``concurrency x players + N`` with
``--warm-processes N``; peak summed RSS of
the bots; games per second from start to exit; bot processes started in all (their log
files); faults by label. Goals (issue 19): first game within 10 s; peak processes within
the bound; 0 timeouts; the 2 broken entrants as ``start-failure``, everyone else playing.

Last, the seconds a Ctrl-C takes to stop the largest field's run during its start-up,
and the processes it leaves (goal: under 2 s, none).

The machine's load average is printed before and after: other work on the machine slows
process starts, which this measures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from referee.schedule import table_seatings

ROOT = Path(__file__).resolve().parents[1]
REFEREE = [sys.executable, "-c", "from referee.cli import main; main()"]
PLAYERS = 4
GROUP = len(table_seatings(tuple(range(PLAYERS))))  # the games of one deal
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def make_field(folder: Path, n: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    args = []
    for i in range(n - 2):
        source = ROOT / "bots" / "polish_poker" / ("caller.py", "random_bot.py")[i % 2]
        shutil.copy(source, folder / f"e{i:03d}.py")
        args.append(str(folder / f"e{i:03d}.py"))
    (folder / "broken_syntax.py").write_text("def act(view:\n")
    exits = folder / "broken_exits"
    exits.write_text("#!/bin/sh\nexit 3\n")
    exits.chmod(0o755)
    return args + [str(folder / "broken_syntax.py"), str(exits)]


def process_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, rss in KB) of every process."""
    procs = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        procs[int(entry.name)] = (int(fields[1]), int(fields[21]) * PAGE_KB)
    return procs


def under(procs: dict[int, tuple[int, int]], root: int) -> tuple[int, int]:
    """(``root``'s children, the summed RSS in KB of everything under ``root``) in a
    ``process_table``."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    tops = children.get(root, [])
    rss, stack = 0, list(tops)
    while stack:
        pid = stack.pop()
        rss += procs.get(pid, (0, 0))[1]
        stack += children.get(pid, [])
    return len(tops), rss


def bots_of(referee: int) -> tuple[int, int]:
    """(bot processes, their summed RSS in KB): the referee's children and everything
    under them."""
    return under(process_table(), referee)


def run_field(tmp: Path, n: int, concurrency: int, per_bot: int,
              warm: int | None) -> dict[str, object]:
    out = tmp / f"run-{n}-{concurrency}"
    bots = make_field(tmp / f"bots-{n}", n)
    journal = out / "games.jsonl"
    start = time.monotonic()
    proc = subprocess.Popen([*REFEREE, "run", "--bots", *bots, "--players", str(PLAYERS),
                             "--games-per-bot", str(per_bot), "--concurrency",
                             str(concurrency), "--move-time", "1s", "--sandbox", "auto",
                             "--out", str(out),
                             *(() if warm is None else ("--warm-processes", str(warm)))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    peak_procs = peak_rss = 0
    while proc.poll() is None:
        count, rss = bots_of(proc.pid)
        peak_procs, peak_rss = max(peak_procs, count), max(peak_rss, rss)
        if first is None and journal.is_file() and journal.stat().st_size:
            first = time.monotonic() - start
        time.sleep(0.05)
    wall = time.monotonic() - start
    err = proc.stderr.read() if proc.stderr else ""
    records = [json.loads(line) for line in journal.read_text().splitlines()] \
        if journal.is_file() else []
    faults = Counter(f"{f['label']}{'(broken)' if f['bot'].startswith('broken') else ''}"
                     for r in records for f in r["faults"])
    started = len(list((out / "logs").glob("*.stderr.log")))
    return {"entrants": n, "concurrency": concurrency, "games": len(records),
            "exit": proc.returncode, "first_s": first, "peak_procs": peak_procs,
            "bound": concurrency * PLAYERS + (concurrency * PLAYERS * GROUP if warm is None
                                              else warm),
            "peak_rss_mb": peak_rss / 1024,
            "games_per_s": len(records) / wall, "started": started, "faults": dict(faults),
            "error": err.strip().splitlines()[-1:] if proc.returncode else []}


def ctrl_c(tmp: Path, n: int, concurrency: int) -> tuple[float, int]:
    """Seconds from a Ctrl-C (sent once bots are starting) to the run's exit, and the
    processes left running under the field's folder."""
    bots = make_field(tmp / f"bots-{n}", n)
    proc = subprocess.Popen([*REFEREE, "run", "--bots", *bots, "--players", str(PLAYERS),
                             "--games", str(4 * n), "--concurrency", str(concurrency),
                             "--sandbox", "auto", "--out", str(tmp / "ctrl-c")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while bots_of(proc.pid)[0] < 4 and proc.poll() is None:
        time.sleep(0.02)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait()
    took = time.monotonic() - sent
    time.sleep(0.5)
    mark = str(tmp)
    left = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    left += mark.encode() in f.read()
            except OSError:
                pass
    return took, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="16 and 64 entrants, fewer games")
    parser.add_argument("--entrants", type=int, nargs="+", help="field sizes to run "
                        "(default: 16 64 256; --quick: 16 64)")
    parser.add_argument("--concurrency", type=int, nargs="+", help="levels to run "
                        "(default: 4 8; --quick: 4)")
    parser.add_argument("--warm-processes", type=int, help="the runs' --warm-processes "
                        "(default: the referee's)")
    args = parser.parse_args()
    sizes = args.entrants or ((16, 64) if args.quick else (16, 64, 256))
    levels = args.concurrency or ((4,) if args.quick else (4, 8))
    print(f"load average before: {os.getloadavg()}; cpus {os.cpu_count()}")
    header = (f"{'entrants':>8} {'conc':>4} {'games':>5} {'exit':>4} {'first s':>7} "
              f"{'peak procs':>10} {'bound':>5} {'peak RSS MB':>11} {'games/s':>7} "
              f"{'started':>7}  faults")
    print(header)
    with tempfile.TemporaryDirectory(prefix="bench-field-") as tmp:
        for n in sizes:
            for concurrency in levels:
                r = run_field(Path(tmp), n, concurrency, 4 if args.quick else 16,
                              args.warm_processes)
                first = f"{r['first_s']:7.1f}" if r["first_s"] is not None else "      -"
                print(f"{r['entrants']:>8} {r['concurrency']:>4} {r['games']:>5} "
                      f"{r['exit']:>4} {first} {r['peak_procs']:>10} {r['bound']:>5} "
                      f"{r['peak_rss_mb']:>11.0f} {r['games_per_s']:>7.2f} "
                      f"{r['started']:>7}  {r['faults']} {' '.join(r['error'])}", flush=True)
        took, left = ctrl_c(Path(tmp), sizes[-1], levels[-1])
        print(f"Ctrl-C during the start-up of {sizes[-1]} entrants: stopped in {took:.2f} s, "
              f"{left} processes left")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
