"""What the sandbox costs: a script, not a test.

    python benchmarks/bench_sandbox.py            # about a minute
    python benchmarks/bench_sandbox.py --quick    # about 20 s

Prints one table, ``--sandbox none`` and ``--sandbox bwrap`` side by side, measured in
the same run, taking turns (none, bwrap, none, ...) so that a busy machine disturbs both
alike; each cell is the median of the rounds (best in brackets):

- bot start: from launching two bots (``bots/polish_poker/caller.py``,
  ``bots/polish_poker/random_bot.py``, both
  hosted by the SDK) to the referee holding both hellos, in ms; this includes each bot's
  cgroup and, under bwrap, building its sandbox and dropping to its uid;
- per decision: the wall time of a run of heads-up games between two callers (the
  fastest bots) divided by the decisions the referee timed, in µs: the referee's work
  and the round trip to the bot, in or out of the sandbox.

The ratio is bwrap / none. bubblewrap must be usable here (see ``referee run`` at
start: its first line says which sandbox runs).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLISH = ROOT / "bots" / "polish_poker"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.config import RunConfig  # noqa: E402
from referee.journal import read_games  # noqa: E402
from referee.process import describe_isolation, resolve_bots  # noqa: E402
from referee.runner import Runner  # noqa: E402
from referee.sandbox import bwrap_problem  # noqa: E402

MODES = ("none", "bwrap")


def config(out: Path, sandbox: str, bots: list[str], games: int) -> RunConfig:
    return RunConfig(bots=tuple(resolve_bots(bots)), params={"ruleset": "official"}, players=2,
                     games=games, seed=7, move_ms=2000, bank_ms=5000, concurrency=1,
                     max_faults=3, start_timeout_ms=30_000, out=out, sandbox=sandbox)


def start_ms(work: Path, sandbox: str) -> float:
    """Launch two bots and wait for both hellos."""
    bots = [str(POLISH / "caller.py"), str(POLISH / "random_bot.py")]
    runner = Runner(config(work / f"start-{time.perf_counter_ns()}", sandbox, bots, 1))
    runner.config.out.mkdir(parents=True)
    try:
        t0 = time.perf_counter()
        runner.open()
        return (time.perf_counter() - t0) * 1000
    finally:
        runner.close()


def decision_us(work: Path, sandbox: str, games: int) -> float:
    """Wall time per decision of a whole run between two callers (their start excluded:
    timed from the first game on)."""
    caller = str(POLISH / "caller.py")
    out = work / f"play-{time.perf_counter_ns()}"
    first: list[float] = []
    runner = Runner(config(out, sandbox, [caller, caller], games),
                    progress=lambda r, rec: first.append(time.perf_counter()))
    runner.run()
    end = time.perf_counter()
    records = read_games(out)
    decisions = sum(t["decisions"] for r in records[1:] for t in r["timing"])
    return (end - first[0]) / decisions * 1e6


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):9.1f} ({min(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and games")
    args = parser.parse_args()
    problem = bwrap_problem()
    if problem is not None:
        sys.exit(f"bench_sandbox: {problem}")
    rounds, games = (3, 40) if args.quick else (7, 150)
    print(describe_isolation("bwrap", RunConfig.__dataclass_fields__["limits"].default))
    work = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    starts: dict[str, list[float]] = {m: [] for m in MODES}
    decisions: dict[str, list[float]] = {m: [] for m in MODES}
    try:
        for _ in range(rounds):
            for mode in MODES:
                starts[mode].append(start_ms(work, mode))
                decisions[mode].append(decision_us(work, mode, games))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{rounds} rounds, {games} heads-up games per round and mode; median (best)")
    print(f"{'measure':<40} {'none':>18} {'bwrap':>18} {'ratio':>7}")
    for name, values in (("bot start, 2 bots to both hellos, ms", starts),
                         ("per decision, wall µs", decisions)):
        ratio = statistics.median(values["bwrap"]) / statistics.median(values["none"])
        print(f"{name:<40} {cell(values['none']):>18} {cell(values['bwrap']):>18} "
              f"{ratio:7.2f}")


if __name__ == "__main__":
    main()
