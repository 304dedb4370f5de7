"""How fast the evaluator checks declarations: a script, not a test.

    python benchmarks/bench_evaluator.py [--scale 0.25] [--repeats 5]

Prints one table:

- ``exists_many``: declaration checks per second (pools x declarations / seconds) of
  the numba kernel on one core, on a large batch of random pools with the card counts
  of real rounds, every declaration of the ruleset;
- the same batch through a plain vectorised numpy implementation written here (per
  declaration, whole-array operations over all pools), whose output is asserted equal
  to the kernel's, and the ratio kernel / numpy;
- ``best_many`` pools per second on the same batch;
- one ``evaluator.exists()`` call in microseconds after warm-up, with text arguments
  and with parsed arguments (a Declaration and a tuple of Cards).

Every time is the best of several repeats (``time.perf_counter``); the first call of
each kernel (compilation or loading the on-disk cache) is made before timing.
Targets: >= 200 M checks/s, >= 3x numpy, exists() < 2 us.
"""

from __future__ import annotations

import os

# One core for everything measured: the kernels are single-threaded, and so is BLAS
# (numpy's matrix products) here. Set before numpy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

import evaluator  # noqa: E402
from evaluator import deck_cards, ladder  # noqa: E402

TARGET_CHECKS = 200e6
TARGET_RATIO = 3.0
TARGET_EXISTS_US = 2.0


# --------------------------------------------------------------------------- inputs


def official_sizes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Pool sizes of official rounds: 2-6 players, each 1..cap cards, + the community card."""
    players = rng.integers(2, 7, n)
    cap = np.select([players == 6, players == 5], [3, 4], 5)
    sizes = np.ones(n, dtype=np.int64)  # the community card
    for seat in range(6):
        sizes += np.where(seat < players, rng.integers(1, cap + 1), 0)
    return np.minimum(sizes, 25)


def polacco_sizes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Pool sizes of polacco rounds: 3-8 players, each 1..cap cards (cap fixed by players)."""
    players = rng.integers(3, 9, n)
    cap = np.select([players <= 4, players == 5], [5, 4], 3)
    sizes = np.zeros(n, dtype=np.int64)
    for seat in range(8):
        sizes += np.where(seat < players, rng.integers(1, cap + 1), 0)
    return sizes


def random_pools(ruleset: str, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A (n, deck width) uint8 0/1 array: row i holds sizes[i] distinct random cards."""
    width = len(deck_cards(ruleset))
    order = np.argsort(rng.random((sizes.size, width)), axis=1)
    pools = np.zeros((sizes.size, width), dtype=np.uint8)
    chosen = (np.arange(width)[None, :] < sizes[:, None]).astype(np.uint8)
    np.put_along_axis(pools, order, chosen, axis=1)
    return pools


# --------------------------------------------------------------------------- numpy baselines


def _card_matrices(ruleset: str) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], int],
                                          int | None]:
    """Rank and suit indicator matrices (deck width x 13, x 4), column of each
    (rank, suit), column of the joker."""
    cards = deck_cards(ruleset)
    rank_of = np.zeros((len(cards), 13), dtype=np.float32)
    suit_of = np.zeros((len(cards), 4), dtype=np.float32)
    column = {}
    joker = None
    for j, c in enumerate(cards):
        if c.is_joker:
            joker = j
        else:
            rank_of[j, c.rank - 2] = 1
            suit_of[j, c.suit] = 1
            column[c.rank, c.suit] = j
    return rank_of, suit_of, column, joker


def _run(top: int) -> list[int]:
    return [14, 2, 3, 4, 5] if top == 5 else list(range(top - 4, top + 1))


def numpy_exists_many(ruleset: str, ids: np.ndarray, pools: np.ndarray) -> np.ndarray:
    """exists_many in straightforward numpy: rank and suit counts of all pools by matrix
    products with indicator matrices (float32, so BLAS does them), then per declaration
    a few whole-column operations, written into column k of the (n_pools, n_ids) result."""
    rank_of, suit_of, column, joker_col = _card_matrices(ruleset)
    n = pools.shape[0]
    p = pools.astype(np.float32)
    counts = (p @ rank_of).astype(np.int8)  # (n, 13): cards of each rank
    suit_counts = (p @ suit_of).astype(np.int8)  # (n, 4)
    joker = pools[:, joker_col].astype(np.int8) if joker_col is not None else np.zeros(n, np.int8)
    out = np.empty((n, len(ids)), dtype=bool)
    lad = ladder(ruleset)
    for k, i in enumerate(ids):
        kind, a, b, c, d = lad[i].requirement
        if kind == 0:  # b cards of rank a and d of rank c; the joker fills one
            missing = np.maximum(0, b - counts[:, a - 2])
            if d:
                missing += np.maximum(0, d - counts[:, c - 2])
            out[:, k] = missing <= joker
        elif kind == 1:  # one card of each rank of the straight with top a
            run = [r - 2 for r in _run(a)]
            out[:, k] = (counts[:, run] == 0).sum(axis=1) <= joker
        elif kind == 2:  # the five cards of suit a of the straight with top b
            cols = [column[r, a] for r in _run(b)]
            out[:, k] = (pools[:, cols] == 0).sum(axis=1) <= joker
        elif kind == 3:  # five cards of suit a
            out[:, k] = suit_counts[:, a] + joker >= 5
        else:  # the card (b, a) and four lower cards of suit a
            lower = [column[r, a] for r in range(2, b)]
            out[:, k] = (pools[:, column[b, a]] == 1) & (pools[:, lower].sum(axis=1) >= 4)
    return out


def numpy_exists_many_tuned(ruleset: str, ids: np.ndarray, pools: np.ndarray) -> np.ndarray:
    """The same with the layout tuned for numpy: features stored pool-last, so that
    every operation reads contiguous rows, results built declaration-major and
    transposed once at the end."""
    rank_of, _, column, joker_col = _card_matrices(ruleset)
    n = pools.shape[0]
    counts = (rank_of.T @ pools.T.astype(np.float32)).astype(np.int8)  # (13, n)
    joker = pools[:, joker_col].astype(np.int8) if joker_col is not None else np.zeros(n, np.int8)
    present = np.zeros((4, 13, n), dtype=bool)  # present[s, r - 2]: card (r, s) in pool
    for (r, s), j in column.items():
        present[s, r - 2] = pools[:, j]
    suit_counts = present.sum(axis=1, dtype=np.int8)  # (4, n)
    res = np.empty((len(ids), n), dtype=bool)
    lad = ladder(ruleset)
    for k, i in enumerate(ids):
        kind, a, b, c, d = lad[i].requirement
        if kind == 0:
            missing = np.maximum(0, b - counts[a - 2])
            if d:
                missing += np.maximum(0, d - counts[c - 2])
            res[k] = missing <= joker
        elif kind == 1:
            res[k] = (counts[[r - 2 for r in _run(a)]] == 0).sum(axis=0) <= joker
        elif kind == 2:
            res[k] = (~present[a, [r - 2 for r in _run(b)]]).sum(axis=0) <= joker
        elif kind == 3:
            res[k] = suit_counts[a] + joker >= 5
        else:
            res[k] = present[a, b - 2] & (present[a, : b - 2].sum(axis=0) >= 4)
    return np.ascontiguousarray(res.T)


# --------------------------------------------------------------------------- timing


def best_time(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def calls_us(stmts: list[Callable[[], object]], rounds: int, number: int = 5_000) -> list[float]:
    """Microseconds per call of each statement: the best of ``rounds`` rounds, each
    timing every statement in turn (so that a busy moment of the machine does not
    fall on one statement only)."""
    for stmt in stmts:
        for _ in range(1000):
            stmt()
    best = [float("inf")] * len(stmts)
    for _ in range(rounds):
        for j, stmt in enumerate(stmts):
            best[j] = min(best[j], timeit.timeit(stmt, number=number) / number * 1e6)
    return best


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the batch sizes (200k official, 100k polacco pools)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    batches = [
        ("official", int(200_000 * args.scale), official_sizes),
        ("polacco", int(100_000 * args.scale), polacco_sizes),
    ]

    rows: list[tuple[str, str, str, str]] = []
    for ruleset, n, sizes_of in batches:
        sizes = sizes_of(rng, n)
        pools = random_pools(ruleset, sizes, rng)
        ids = np.arange(len(ladder(ruleset)), dtype=np.int64)
        checks = n * ids.size

        t0 = time.perf_counter()
        evaluator.exists_many(ruleset, ids[:1], pools[:1])
        evaluator.best_many(ruleset, pools[:1])
        first = time.perf_counter() - t0

        got = evaluator.exists_many(ruleset, ids, pools)
        assert got.shape == (n, ids.size) and got.flags.c_contiguous
        assert np.array_equal(got, numpy_exists_many(ruleset, ids, pools)), "numpy disagrees"
        assert np.array_equal(got, numpy_exists_many_tuned(ruleset, ids, pools)), "tuned"
        best = evaluator.best_many(ruleset, pools)
        last = ids.size - 1 - np.argmax(got[:, ::-1], axis=1)
        assert np.array_equal(best, np.where(got.any(axis=1), last, -1)), "best_many"

        t_kernel = best_time(lambda r=ruleset, p=pools, i=ids: evaluator.exists_many(r, i, p),
                             args.repeats)
        t_numpy = best_time(lambda r=ruleset, p=pools, i=ids: numpy_exists_many(r, i, p),
                            max(2, args.repeats // 2))
        t_tuned = best_time(lambda r=ruleset, p=pools, i=ids: numpy_exists_many_tuned(r, i, p),
                            max(2, args.repeats // 2))
        t_best = best_time(lambda r=ruleset, p=pools: evaluator.best_many(r, p), args.repeats)
        rate = checks / t_kernel
        what = f"{ruleset}: {n:,} pools ({sizes.mean():.1f} cards avg) x {ids.size} decl"
        rows += [
            (f"exists_many {what}", f"{rate / 1e6:,.0f} M checks/s ({t_kernel * 1e3:.1f} ms)",
             ">= 200 M/s", mark(rate >= TARGET_CHECKS)),
            ("  numpy, straightforward, same input", f"{checks / t_numpy / 1e6:,.0f} M checks/s "
             f"({t_numpy * 1e3:.1f} ms)", "", ""),
            ("  kernel / numpy", f"{t_numpy / t_kernel:.1f}x", ">= 3x",
             mark(t_numpy / t_kernel >= TARGET_RATIO)),
            ("  numpy, layout tuned (for reference)", f"{checks / t_tuned / 1e6:,.0f} M checks/s "
             f"({t_tuned * 1e3:.1f} ms)", "", ""),
            ("  kernel / tuned numpy", f"{t_tuned / t_kernel:.1f}x", "", ""),
            (f"best_many {ruleset}, same pools", f"{n / t_best / 1e6:.2f} M pools/s "
             f"({t_best * 1e3:.1f} ms)", "", ""),
            (f"first call {ruleset} (compile or load the cache)", f"{first:.2f} s", "", ""),
        ]

    d = evaluator.parse_declaration("two-pair A K", "official")
    cards = evaluator.parse_cards("Ah As Kd Jk")
    text11 = "Ah As Kd Jk 9c 9d Tc Ts Qh Qs Kc"
    cards11 = evaluator.parse_cards(text11)
    ids11 = [c.id for c in cards11]
    pd = evaluator.parse_declaration("flush h K", "polacco")
    text15 = "Ah Kh Qh 9h 4h 2h 7c 7d 3s Tc Jd 5s 8c 6d 2s"
    cards15 = evaluator.parse_cards(text15)
    singles = [
        ("exists() text: 'two-pair A K', 'Ah As Kd Jk'",
         lambda: evaluator.exists("two-pair A K", "Ah As Kd Jk", "official")),
        ("exists() parsed: Declaration, tuple of 4 Cards",
         lambda: evaluator.exists(d, cards, "official")),
        ("exists() text, official, 11 cards",
         lambda: evaluator.exists("two-pair A K", text11, "official")),
        ("exists() parsed, official, 11 Cards",
         lambda: evaluator.exists(d, cards11, "official")),
        ("exists() id and 11 card ids (the wire's form)",
         lambda: evaluator.exists(d.id, ids11, "official")),
        ("exists() text, polacco, 15 cards",
         lambda: evaluator.exists("flush h K", text15, "polacco")),
        ("exists() parsed, polacco, 15 Cards",
         lambda: evaluator.exists(pd, cards15, "polacco")),
    ]
    times = calls_us([stmt for _, stmt in singles] + [lambda: sum(range(20))],
                     rounds=4 * args.repeats)
    for (label, _), us in zip(singles, times[:-1], strict=True):
        rows.append((label, f"{us:.2f} us", "< 2 us", mark(us < TARGET_EXISTS_US)))
    rows.append(("(this machine's Python speed: sum(range(20)))", f"{times[-1]:.2f} us", "", ""))

    import numba

    print(f"evaluator benchmark: Python {platform.python_version()}, numpy {np.__version__}, "
          f"numba {numba.__version__}, {platform.machine()} {os.cpu_count()} CPUs; one thread "
          f"(OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}); best of {args.repeats}")
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    print(f"{'measure':<{w0}}  {'result':<{w1}}  {'target':<{w2}}  ")
    print("-" * (w0 + w1 + w2 + 12))
    for a, b, c, e in rows:
        print(f"{a:<{w0}}  {b:<{w1}}  {c:<{w2}}  {e}")


if __name__ == "__main__":
    main()
