"""Six-card golf in-process: speed with greedy bots, and expected points against greedy.

    python benchmarks/bench_golf.py              # about 1 minute of CPU (2 and 4 players: 3)
    python benchmarks/bench_golf.py --quick      # about 10 s of CPU

Prints two tables, every line measured in the same run:

1. Speed: complete 4-player games with ``bots/six_card_golf/greedy_bot.py`` in every seat,
   driven by ``referee.games.six_card_golf.local`` (view, the bot, the action parsed and
   applied, until the game is over): games/s and ms/game, rounds per game, decisions per
   game. Other processes on the same cores disturb timings, so games are timed in chunks
   and the table gives the least disturbed chunk (best) and the median, by the wall clock
   and by this process's CPU time (which a busy machine disturbs less).
2. Strength: ``expected_bot`` against ``greedy_bot`` over duplicate deals (each seed
   played once per rotation of the seats, so both bots play every seat's cards): per
   bot, mean points per round (a game's total over its rounds; lower is better) with a
   95 % interval, the share of games won (a shared first place counts half), and the
   paired difference per deal with its interval. The interval is the normal one over
   deals (the games of one deal are not independent, so the deal is the unit).
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.six_card_golf import expected_bot, greedy_bot  # noqa: E402
from referee.games.six_card_golf.local import GameResult, load, play, play_game  # noqa: E402

GAME = load({})
FIRST_SEED = 1_000


def table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print("| " + " | ".join(f"{c:<{w}}" for c, w in zip(r, widths, strict=True)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def speed(chunk: int, chunks: int) -> None:
    times, cpu, rounds, decisions = [], [], [], []
    seed = FIRST_SEED
    for _ in range(chunks):
        t0, c0 = time.perf_counter(), time.process_time()
        results = [play_game(GAME, [greedy_bot.act] * 4, s) for s in range(seed, seed + chunk)]
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        rounds += [r.rounds for r in results]
        seed += chunk
    # Decisions are counted apart from the timed loop: counting costs nothing there then.
    for s in range(FIRST_SEED, FIRST_SEED + chunk):
        decisions.append(_decisions(s))
    best, median = chunk / min(times), chunk / statistics.median(times)
    cpu_best, cpu_median = chunk / min(cpu), chunk / statistics.median(cpu)
    print(f"\nSpeed: 4 greedy bots in-process; {chunk} games a chunk, {chunks} chunks")
    table([["measure", "best", "median"],
           ["games/s (wall clock)", f"{best:.1f}", f"{median:.1f}"],
           ["games/s (CPU time)", f"{cpu_best:.1f}", f"{cpu_median:.1f}"],
           ["ms/game (wall clock)", f"{1000 / best:.1f}", f"{1000 / median:.1f}"],
           ["rounds/game (all games)", f"{statistics.mean(rounds):.2f}", ""],
           ["decisions/game (first chunk)", f"{statistics.mean(decisions):.0f}", ""],
           ["µs/decision", f"{1e6 / best / statistics.mean(decisions):.1f}",
            f"{1e6 / median / statistics.mean(decisions):.1f}"]])


def _decisions(seed: int) -> int:
    g = GAME.new_game(4, seed)
    n = 0
    while not g.is_over:
        g.apply(g.current_seat, GAME.parse_local_action(greedy_bot.act(g.view(g.current_seat))))
        n += 1
    return n


def interval(xs: list[float]) -> str:
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    m = statistics.mean(xs)
    return f"{m:.3f} ± {half:.3f} [{m - half:.3f}, {m + half:.3f}]"


def strength(players: int, games: int) -> None:
    deals = games // players
    names = ["expected", "greedy"]
    acts = [expected_bot.act if i % 2 == 0 else greedy_bot.act for i in range(players)]
    t0 = time.perf_counter()
    results = play(GAME, acts, seeds=range(FIRST_SEED, FIRST_SEED + deals))
    elapsed = time.perf_counter() - t0
    per_deal: dict[str, list[float]] = {n: [] for n in names}
    wins: dict[str, float] = {n: 0.0 for n in names}
    for d in range(deals):
        group = results[d * players:(d + 1) * players]
        for kind, name in enumerate(names):
            bots = [b for b in range(players) if b % 2 == kind]
            per_deal[name].append(statistics.mean(
                r.points_per_round(b) for r in group for b in bots))
            wins[name] += sum(_win_share(r, b) for r in group for b in bots)
    faults = sum(len(r.faults) for r in results)
    print(f"\nStrength: {players} players ({', '.join(names[i % 2] for i in range(players))}), "
          f"{len(results)} games = {deals} deals x {players} rotations, "
          f"{statistics.mean(r.rounds for r in results):.2f} rounds/game, {faults} faults, "
          f"{elapsed:.0f} s")
    rows = [["bot", "mean points per round (95 % interval)", "games won"]]
    for name in names:
        rows.append([name, interval(per_deal[name]), f"{wins[name] / len(results):.1%}"])
    diff = [e - g for e, g in zip(per_deal["expected"], per_deal["greedy"], strict=True)]
    rows.append(["expected - greedy", interval(diff), ""])
    table(rows)


def _win_share(r: GameResult, bot: int) -> float:
    """1 for a first place alone, 1/k for a first place shared by k seats, else 0."""
    places = r.outcome.places
    mine = places[r.seat_of(bot)]
    return 1 / places.count(1) if mine == 1 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small samples, about 10 s of CPU")
    parser.add_argument("--games", type=int, default=1000,
                        help="games of the strength comparison (default 1000)")
    parser.add_argument("--players", type=int, nargs="+", default=[2],
                        help="table sizes of the strength comparison (default 2)")
    args = parser.parse_args()
    chunk, chunks = (10, 3) if args.quick else (40, 5)
    games = 100 if args.quick else args.games
    print(f"six-card golf benchmark: Python {platform.python_version()}, {platform.machine()}")
    speed(chunk, chunks)
    for players in args.players:
        strength(players, games)


if __name__ == "__main__":
    main()
