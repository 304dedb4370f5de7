"""replay.html for runs of growing size: file size, write time, open time in Chromium,
peak memory of the writer.

    python benchmarks/bench_replay.py                       # 100, 1000, 10000 games
    python benchmarks/bench_replay.py --games 100 1000 --runs /tmp/replay-runs

Each run is a real ``referee run --in-process`` of the bundled Polish Poker bots
(statistician, caller, random_bot; seed 1), made once and kept under ``--runs`` (a 10,000
game run takes some minutes of CPU; later calls reuse it). The replay of every game is
written by ``referee.show.html.write_replay`` (what ``referee show RUN --html`` calls) in a
child process whose peak resident memory (``ru_maxrss``) is reported beside that of a
child that only imports the writer, so a
writer that held every game's steps at once would show here. The page is then opened
from its ``file://`` URL in headless Chromium (Debian's ``chromium``, driven by
Playwright, as in tests/browser/): "open" is the time from the navigation to the first
game's table on screen, "load" to the end of the browser's load event; best of three
fresh pages (other processes on the same cores disturb timings, and the best is the
least disturbed). The target: a 10,000-game run opens in under 2 s.

A second table, per game (``--kinds polish turkish golf golf2``, ``--kind-games 20``
each): Polish Poker (the three bots above), Turkish poker (100 hands a game; rules_bot,
equity_bot, random_bot), six-card golf (greedy, expected and random bots) and 2-player
golf (greedy and expected: longer rounds, more steps a game), each a real
``referee run --in-process``: the CPU milliseconds per game that building the replay
takes (``write_replay`` in a child, its ``process_time``), the seconds from the end of the
run's last game (``started_at + duration_s`` in the journal) to the command's return (the
standings come first; a replay that takes more than half a second to build is given up
and written by a process of its own after the return), the page's size per game and its
open time in Chromium, and the milliseconds that opening one more game (the run's last,
by the URL fragment) takes the page once it is open. The targets: at most 5 ms of CPU
per game to build, at most 1 s from the last game to the return, for every game.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.show.select import summaries

ROOT = Path(__file__).resolve().parents[1]
POLISH = ROOT / "bots" / "polish_poker"
BOTS = [str(POLISH / f"{b}.py") for b in ("statistician", "caller", "random_bot")]
CHROMIUM = os.environ.get("REFEREE_TEST_CHROMIUM") or shutil.which("chromium") or ""
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REFEREE = [sys.executable, "-c", "from referee.cli import main; main()"]
PEAK = "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
BASELINE = f"import resource, referee.show.html; {PEAK}"
WRITE = f"""import resource, sys, time
from pathlib import Path
from referee.show.html import write_replay
from referee.show.select import summaries
run, out = Path(sys.argv[1]), Path(sys.argv[2])
t0, c0 = time.perf_counter(), time.process_time()
write_replay(run, [s.game for s in summaries(run)], out)
print(time.perf_counter() - t0, time.process_time() - c0)
{PEAK}
"""


def table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print("| " + " | ".join(f"{c:>{w}}" for c, w in zip(r, widths, strict=True)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def make_run(runs: Path, games: int) -> Path:
    """The run of ``games`` games under ``runs``, played now unless it is there."""
    out = runs / str(games)
    if (out / "leaderboard.json").is_file():
        return out
    shutil.rmtree(out, ignore_errors=True)
    print(f"playing {games} games into {out} ...", file=sys.stderr, flush=True)
    subprocess.run([*REFEREE, "run", "--in-process", "--bots", *BOTS, "--games", str(games),
                    "--seed", "1", "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def write(run: Path, out: Path) -> tuple[float, float, int]:
    """Seconds, CPU seconds and peak RSS (KiB) of a child process writing the replay of
    every game."""
    done = subprocess.run([sys.executable, "-c", WRITE, str(run), str(out)], check=True,
                          capture_output=True, text=True).stdout.split()
    return float(done[0]), float(done[1]), int(done[2])


KINDS = {
    "polish": [*BOTS],
    "turkish": ["--game", "turkish-poker", "--param", "hands=100",
                *(str(ROOT / "bots" / "turkish_poker" / f"{b}.py")
                  for b in ("rules_bot", "equity_bot", "random_bot"))],
    "golf": ["--game", "six-card-golf",
             *(str(ROOT / "bots" / "six_card_golf" / f"{b}.py")
               for b in ("greedy_bot", "expected_bot", "random_bot"))],
    "golf2": ["--game", "six-card-golf",
              *(str(ROOT / "bots" / "six_card_golf" / f"{b}.py")
                for b in ("greedy_bot", "expected_bot"))],
}


def play_kind(runs: Path, kind: str, games: int) -> tuple[Path, float]:
    """A fresh run of ``kind``; the seconds from its last game's end to the return."""
    out = runs / f"{kind}-{games}"
    shutil.rmtree(out, ignore_errors=True)
    args = KINDS[kind]
    flags, bots = [a for a in args if not a.endswith(".py")], [a for a in args
                                                                if a.endswith(".py")]
    print(f"playing {games} {kind} games into {out} ...", file=sys.stderr, flush=True)
    done = subprocess.run([*REFEREE, "run", "--in-process", *flags, "--bots", *bots,
                           "--games", str(games), "--seed", "1", "--out", str(out)],
                          check=True, capture_output=True, text=True)
    returned = time.time()
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    last = max(r["started_at"] + r["duration_s"] for r in records)
    background = re.search(r"process (\d+) writes", done.stdout)
    while background and os.path.exists(f"/proc/{background[1]}"):
        time.sleep(0.2)  # its page is not measured, but it would disturb what is
    return out, returned - last


def played(run: Path) -> int:
    """The games in ``run``'s journal."""
    return len((run / "games.jsonl").read_text().splitlines())


def open_times(browser: object, page_path: Path, tries: int = 3) -> tuple[float, float]:
    """Best seconds to the first game's table and to the load event."""
    best_open = best_load = float("inf")
    for _ in range(tries):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        t0 = time.perf_counter()
        page.goto(page_path.as_uri(), wait_until="commit")
        page.wait_for_selector("#table .seat", timeout=120_000)
        best_open = min(best_open, time.perf_counter() - t0)
        page.wait_for_load_state("load", timeout=120_000)
        best_load = min(best_load, time.perf_counter() - t0)
        page.close()
    return best_open, best_load


def switch_ms(browser: object, page_path: Path, game: int, tries: int = 3) -> float:
    """Best milliseconds from asking for game ``game`` (the URL fragment) to its table on
    screen, on a page already open: what opening a game costs the browser (decoding it,
    and building its steps where the page builds them)."""
    best = float("inf")
    for _ in range(tries):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_path.as_uri(), wait_until="load")
        page.wait_for_selector("#table .seat", timeout=120_000)
        best = min(best, page.evaluate("""(game) => new Promise((done) => {
          const t0 = performance.now();
          const seen = () => document.querySelector('#gamehead .title')?.textContent
            === 'Game ' + game && document.querySelector('#table .seat');
          const poll = () => (seen() ? done(performance.now() - t0) : setTimeout(poll, 0));
          location.hash = 'game=' + game;
          poll();
        })""", game))
        page.close()
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--runs", type=Path, default=Path(tempfile.gettempdir()) / "replay-bench")
    ap.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS))
    ap.add_argument("--kind-games", type=int, default=20)
    args = ap.parse_args()
    if not CHROMIUM:
        sys.exit("no Chromium: install Debian's chromium package")
    from playwright.sync_api import sync_playwright

    args.runs.mkdir(parents=True, exist_ok=True)
    runs = [make_run(args.runs, n) for n in args.games]
    base = int(subprocess.run([sys.executable, "-c", BASELINE], check=True,
                              capture_output=True, text=True).stdout)
    rows = [["games", "file MB", "KB/game", "write s", "writer peak MB", "open s", "load s"]]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for games, run in zip(args.games, runs, strict=True):
            page_path = run / "bench-replay.html"
            seconds, _, peak = write(run, page_path)
            size = page_path.stat().st_size
            opened, loaded = open_times(browser, page_path)
            rows.append([str(games), f"{size / 1e6:.1f}", f"{size / 1e3 / games:.2f}",
                         f"{seconds:.1f}", f"{peak / 1024:.0f}",
                         f"{opened:.2f}", f"{loaded:.2f}"])
        per_kind = [["game", "games", "build ms/game (CPU)", "last game to return s",
                     "KB/game", "open s", "open a game ms"]]
        for kind in args.kinds:
            run, wait = play_kind(args.runs, kind, args.kind_games)
            page_path = run / "bench-replay.html"
            _, cpu, _ = write(run, page_path)
            size = page_path.stat().st_size
            opened, _ = open_times(browser, page_path)
            games = played(run)  # --games rounds up to whole rotations of the seats
            last = max(s.game for s in summaries(run))
            per_kind.append([kind, str(games), f"{1000 * cpu / games:.1f}",
                             f"{wait:.2f}", f"{size / 1e3 / games:.1f}", f"{opened:.2f}",
                             f"{switch_ms(browser, page_path, last):.0f}"])
        browser.close()
    print(f"writer: write_replay in a child process; one that only imports it peaks at "
          f"{base / 1024:.0f} MB")
    table(rows)
    print()
    table(per_kind)


if __name__ == "__main__":
    main()
