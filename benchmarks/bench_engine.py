"""How fast the Polish Poker engine plays whole games in-process: a script, not a test.

    python benchmarks/bench_engine.py            # about 15 s
    python benchmarks/bench_engine.py --quick    # about 3 s

Prints one table, every line measured in the same run:

- for 2- and 4-player ``official`` and 4-player ``polacco``: complete games with
  ``bots/polish_poker/caller.py`` in every seat (it calls when it can, else declares the weakest
  declaration), driven the way an in-process tournament does (``view``, the bot,
  ``apply``, until the game is over); games/s and µs/game for the engine alone and with
  the transcript serialised as the journal writes it (``json.dumps`` of every event's
  ``to_dict``), decisions per game and decisions/s of the engine alone;
- the deal's cost per round: the old one (a ``random.Random(f"{seed}/{k}")`` per round, a
  full shuffle, a contiguous slice per seat; a copy of it is kept here, for this
  comparison only) against the engine's (one generator per game, a fixed draw per round),
  on the counts of the rounds of real games, seat by seat as the engine deals them.

Times are CPU time of this process (``time.process_time``), as ``compare.py``'s: the time
other processes hold the cores is left out. They still disturb it (caches), so the
measures are timed in chunks, taking turns, and each line gives the least disturbed chunk
(best) and the median.
Target: 4-player ``official`` with the transcript >= 2,000 games/s (<= 500 µs/game);
the aim is <= 200 µs/game.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.polish_poker.caller import act  # noqa: E402
from evaluator import Card, deck_cards  # noqa: E402
from referee.games.polish_poker.engine import Dealt, PolishPoker, _Dealer  # noqa: E402

# (_Dealer is the engine's own deal, private to it: timed alone here to compare deals.)

TARGET_GAMES_S = 2000
AIM_US = 200
TABLES = (("official", 2), ("official", 4), ("polacco", 4))
FIRST_SEED = 20240601


def play(ruleset: str, players: int, seeds: range, transcript: bool) -> int:
    """Play one game per seed to the end; the number of decisions."""
    decisions = 0
    for seed in seeds:
        game = PolishPoker(ruleset, players, seed)
        while not game.is_over:
            seat = game.current_seat
            game.apply(act(game.view(seat)), seat=seat)
            decisions += 1
        if transcript:
            json.dumps([e.to_dict() for e in game.events])
    return decisions


def old_deal(deck: list[Card], seed: int, round_: int, counts: tuple[int, ...],
             community: bool) -> tuple[list[tuple[Card, ...]], Card | None]:
    """The deal before the engine's current one, kept for the comparison only."""
    cards = list(deck)
    random.Random(f"{seed}/{round_}").shuffle(cards)
    hands, pos = [], 0
    for n in counts:
        hands.append(tuple(sorted(cards[pos:pos + n], key=lambda c: c.id)))
        pos += n
    return hands, cards[pos] if community else None


def recorded_counts(ruleset: str, players: int, seeds: range) -> list[list[tuple[int, ...]]]:
    """Per game, the counts of each of its rounds."""
    out = []
    for seed in seeds:
        game = PolishPoker(ruleset, players, seed)
        while not game.is_over:
            seat = game.current_seat
            game.apply(act(game.view(seat)), seat=seat)
        out.append([e.counts for e in game.events if isinstance(e, Dealt)])
    return out


def deal_old(ruleset: str, games: list[list[tuple[int, ...]]], first_seed: int) -> None:
    deck = list(deck_cards(ruleset))
    community = ruleset == "official"
    for seed, rounds in enumerate(games, first_seed):
        for k, counts in enumerate(rounds, 1):
            old_deal(deck, seed, k, counts, community)


def deal_new(ruleset: str, games: list[list[tuple[int, ...]]], first_seed: int) -> None:
    players = len(games[0][0])
    for seed, rounds in enumerate(games, first_seed):
        dealer = _Dealer(ruleset, players, seed)  # one per game, as the engine has
        for counts in rounds:
            dealer.next_round(counts)


def timed_in_turns(measures: dict[str, Callable[[], object]], turns: int) -> dict[str, list[float]]:
    """CPU seconds of each call of each measure, the measures taking turns ``turns`` times."""
    out: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(turns):
        for name, fn in measures.items():
            t0 = time.process_time()
            fn()
            out[name].append(time.process_time() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a ~3 s run instead of ~15 s")
    args = ap.parse_args()
    chunk, turns = (150, 10) if args.quick else (300, 30)
    seeds = range(FIRST_SEED, FIRST_SEED + chunk)

    measures: dict[str, Callable[[], object]] = {}
    decisions: dict[tuple[str, int], int] = {}
    for ruleset, players in TABLES:
        decisions[ruleset, players] = play(ruleset, players, seeds, False)  # and warm up
        for transcript in (False, True):
            measures[f"{ruleset} {players}p {transcript}"] = (
                lambda r=ruleset, p=players, t=transcript: play(r, p, seeds, t))
    counts = {ruleset: recorded_counts(ruleset, 4, seeds) for ruleset in ("official", "polacco")}
    rounds = {ruleset: sum(map(len, games)) for ruleset, games in counts.items()}
    for ruleset, games in counts.items():
        measures[f"old deal {ruleset}"] = lambda r=ruleset, g=games: deal_old(r, g, FIRST_SEED)
        measures[f"new deal {ruleset}"] = lambda r=ruleset, g=games: deal_new(r, g, FIRST_SEED)
    times = timed_in_turns(measures, turns)

    def best_median(name: str, per: float) -> tuple[float, float]:
        return min(times[name]) / per * 1e6, statistics.median(times[name]) / per * 1e6

    rows = [("measure", "games/s", "µs/game best (median)", "decisions/game",
             "decisions/s", "target")]
    for ruleset, players in TABLES:
        per_game = decisions[ruleset, players] / chunk
        for transcript in (False, True):
            best, median = best_median(f"{ruleset} {players}p {transcript}", chunk)
            label = f"{ruleset} {players} players, " + (
                "engine + transcript json" if transcript else "engine")
            target = ""
            if (ruleset, players) == ("official", 4) and transcript:
                ok = 1e6 / best >= TARGET_GAMES_S
                target = f">= {TARGET_GAMES_S:,}/s {'ok' if ok else 'MISSED'}"
                target += f"; aim <= {AIM_US} µs {'ok' if best <= AIM_US else 'not yet'}"
            rows.append((label, f"{1e6 / best:,.0f}", f"{best:.0f} ({median:.0f})",
                         f"{per_game:.1f}",
                         "" if transcript else f"{per_game * 1e6 / best:,.0f}", target))
    rows.append(("", "", "µs/round best (median)", "", "", ""))
    for ruleset in ("official", "polacco"):
        old_best, old_median = best_median(f"old deal {ruleset}", rounds[ruleset])
        new_best, new_median = best_median(f"new deal {ruleset}", rounds[ruleset])
        rows += [
            (f"deal, {ruleset} 4 players, old (seeded per round)", "",
             f"{old_best:.2f} ({old_median:.2f})", "", "", ""),
            (f"deal, {ruleset} 4 players, new (fixed draw)", "",
             f"{new_best:.2f} ({new_median:.2f})", "", "", f"old / new {old_best / new_best:.1f}x"),
        ]

    print(f"engine benchmark: Python {platform.python_version()}, {platform.machine()}; "
          f"bots/polish_poker/caller.py in every seat; {chunk} games a chunk, "
          f"best of {turns} chunks"
          f"{', --quick' if args.quick else ''}")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rows.insert(1, tuple("-" * w for w in widths))
    for r in rows:
        print("| " + " | ".join(f"{c:<{w}}" for c, w in zip(r, widths, strict=True)) + " |")


if __name__ == "__main__":
    main()
