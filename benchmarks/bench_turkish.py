"""Turkish poker's speed and its bots' strength: a script, not a test.

    python benchmarks/bench_turkish.py [--scale 1] [--hands 1000] [--repeats 3]

Prints three tables:

1. hand ranking in batch on one core, per deck size: the numba kernel
   (``evaluator.turkish_kernels.rank_keys``), its plain-Python twin, and PokerKit's own
   evaluation (``StandardHighHand``) of the same hands in the same run, and the ratio
   kernel / PokerKit (target >= 20x). The kernel's keys are asserted equal to the twin's.
2. the engine in-process (``referee.games.turkish_poker.local``), hands per second with
   2 and 5 players, random bots and the equity bot (target >= 2,000 2-player hands/s with
   random bots); every bot's action goes through the view and the action codec. Both
   wall-clock and CPU-time rates are printed; the target is judged on CPU time, which a
   machine shared with other work does not distort (the wall rate is the one to read on
   an idle machine).
3. the equity bot against the random and the rule-based bot, ``--hands`` hands each with
   duplicate deals (every deal played twice, seats swapped): its chips per hand with a
   95% interval over the duplicate pairs, and the same for the rule-based bot against the
   random one.

Times are the best of ``--repeats`` (``time.perf_counter``); compilation (or loading the
on-disk cache) happens before any timing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
from pokerkit import Card as PKCard  # noqa: E402
from pokerkit import StandardHighHand  # noqa: E402

from bots.turkish_poker import equity_bot, random_bot, rules_bot  # noqa: E402
from evaluator.turkish import LOW_RANK, card_text, deck_for, rank_key  # noqa: E402
from evaluator.turkish_kernels import rank_keys  # noqa: E402
from referee.games.turkish_poker import load  # noqa: E402
from referee.games.turkish_poker.local import chips_by_bot, play, play_one  # noqa: E402

TARGET_RATIO = 20.0
TARGET_HANDS = 2000.0


def best_time(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def print_table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-" * (sum(widths) + 2 * len(widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def random_hands(rng: np.random.Generator, players: int, n: int) -> np.ndarray:
    deck = np.array(deck_for(players), dtype=np.int8)
    order = rng.random((n, deck.size)).argsort(axis=1)[:, :5]
    return deck[order]


def ranking_rows(rng: np.random.Generator, scale: float, repeats: int) -> list[tuple[str, ...]]:
    rows = []
    for players, low in LOW_RANK.items():
        n = int(1_000_000 * scale)
        hands = random_hands(rng, players, n)
        rank_keys(hands[:1], low)
        few = hands[:int(20_000 * scale) or 1]
        keys = rank_keys(hands, low)
        assert [int(k) for k in keys[:few.shape[0]]] == [rank_key(h, low) for h in few]
        pk_hands = [tuple(PKCard.parse("".join(card_text(c) for c in h))) for h in few]
        t_kernel = best_time(lambda h=hands, lo=low: rank_keys(h, lo), repeats)
        t_twin = best_time(lambda f=few, lo=low: [rank_key(h, lo) for h in f], repeats)
        t_pk = best_time(lambda p=pk_hands: [StandardHighHand(h) for h in p], repeats)
        kernel = n / t_kernel
        pk = few.shape[0] / t_pk
        rows.append((f"{4 * (15 - low)} cards ({players} players)",
                     f"{kernel / 1e6:.1f} M/s", f"{few.shape[0] / t_twin / 1e3:.0f} k/s",
                     f"{pk / 1e3:.0f} k/s", f"{kernel / pk:,.0f}x",
                     mark(kernel / pk >= TARGET_RATIO)))
    return rows


def engine_rows(hands: int, repeats: int) -> list[tuple[str, ...]]:
    game = load({"hands": hands})
    cases = [
        ("2 players, random bots", [random_bot.act] * 2, True),
        ("5 players, random bots", [random_bot.act] * 5, False),
        ("2 players, equity vs random", [equity_bot.act, random_bot.act], False),
        ("5 players, equity + 4 random", [equity_bot.act] + [random_bot.act] * 4, False),
    ]
    play_one(game, [equity_bot.act, random_bot.act], 0)
    rows = []
    for name, bots, targeted in cases:
        wall = cpu = float("inf")
        for _ in range(repeats):
            w, c = time.perf_counter(), time.process_time()
            play_one(game, bots, 1)
            wall = min(wall, time.perf_counter() - w)
            cpu = min(cpu, time.process_time() - c)
        rows.append((name, f"{hands / wall:,.0f}", f"{hands / cpu:,.0f}",
                     ">= 2,000" if targeted else "",
                     mark(hands / cpu >= TARGET_HANDS) if targeted else ""))
    return rows


def match_row(name: str, bots: list, hands: int) -> tuple[str, ...]:
    """Duplicate deals: one-hand games on seeds 0.. (stacks reset every hand anyway), each
    played twice with the seats swapped; the pair's sum is one sample."""
    game = load({"hands": 1})
    results = play(game, bots, range(hands // 2))
    pairs = np.array(chips_by_bot(results, 2)[0]) / 2
    mean = pairs.mean()
    half = 1.96 * pairs.std(ddof=1) / math.sqrt(pairs.size)
    faults = sum(sum(r.faults) for r in results)
    return (name, f"{2 * pairs.size:,}", f"{mean:+.2f}",
            f"[{mean - half:+.2f}, {mean + half:+.2f}]",
            "clear" if mean - half > 0 else "NOT CLEAR", str(faults))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the ranking batch (1M hands per deck)")
    parser.add_argument("--hands", type=int, default=1000, help="hands per bot match")
    parser.add_argument("--engine-hands", type=int, default=2000,
                        help="hands per engine timing")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"Turkish poker benchmark: Python {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, {os.cpu_count()} cpus")
    print_table("1. hand ranking, one core (PokerKit: StandardHighHand on the same hands)",
                ("batch", "numba kernel", "Python twin", "PokerKit", "kernel/PokerKit",
                 ">= 20x"), ranking_rows(rng, args.scale, args.repeats))
    print_table(f"2. engine in-process, {args.engine_hands} hands, best of {args.repeats}",
                ("case", "hands/s (wall)", "hands/s (CPU)", "target", ""),
                engine_rows(args.engine_hands, args.repeats))
    print_table(f"3. bots, no-limit, 2 players, {args.hands} hands, duplicate deals",
                ("match (first bot's chips per hand)", "hands", "chips/hand", "95% interval",
                 "", "faults"),
                [match_row("equity vs random", [equity_bot.act, random_bot.act], args.hands),
                 match_row("equity vs rules", [equity_bot.act, rules_bot.act], args.hands),
                 match_row("rules vs random", [rules_bot.act, random_bot.act], args.hands)])


if __name__ == "__main__":
    main()
