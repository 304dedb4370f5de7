"""Play Turkish poker in-process: bots are ``act(view) -> action map`` functions.

Used by the tests and the benchmark (the harness hosts bots through the SDK instead).
``play`` seats the bots in every rotation for each seed (duplicate deals: the same cards
reach the same seat, played by each bot in turn).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.games.api import IllegalAction, Outcome
from referee.games.turkish_poker.game import TurkishPokerGame

Bot = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Played:
    """One game: its seed, which bot sat in each seat, its outcome and faults per seat."""

    seed: int
    seating: tuple[int, ...]
    outcome: Outcome
    faults: tuple[int, ...]


def play_one(game: TurkishPokerGame, bots: Sequence[Bot], seed: int) -> tuple[Outcome, list[int]]:
    """One game with ``bots[s]`` in seat ``s``; a malformed or illegal action is a fault
    (the seat folds); ``random`` is seeded with the game's seed, as the SDK does."""
    engine = game.new_game(len(bots), seed)
    random.seed(seed)
    faults = [0] * len(bots)
    while not engine.is_over:
        seat = engine.current_seat
        assert seat is not None
        try:
            action = game.parse_local_action(bots[seat](engine.view(seat)))
        except ValueError:
            faults[seat] += 1
            engine.fault(seat, "malformed")
            continue
        try:
            engine.apply(seat, action)
        except IllegalAction:
            faults[seat] += 1
            engine.fault(seat, "illegal")
    return engine.outcome(), faults


def play(game: TurkishPokerGame, bots: Sequence[Bot], seeds: Sequence[int]) -> list[Played]:
    """For each seed, one game per rotation of the seats: in rotation ``r`` seat ``s``
    holds bot ``(s + r) % n``."""
    n = len(bots)
    out = []
    for seed in seeds:
        for r in range(n):
            seating = tuple((s + r) % n for s in range(n))
            outcome, faults = play_one(game, [bots[b] for b in seating], seed)
            out.append(Played(seed, seating, outcome, tuple(faults)))
    return out


def chips_by_bot(results: Sequence[Played], bots: int) -> list[list[float]]:
    """Per bot, its score in each game it played (the duplicate games of a seed summed)."""
    per: dict[tuple[int, int], float] = {}
    for p in results:
        assert p.outcome.scores is not None
        for seat, b in enumerate(p.seating):
            per[(p.seed, b)] = per.get((p.seed, b), 0.0) + p.outcome.scores[seat]
    seeds = sorted({p.seed for p in results})
    return [[per[(s, b)] for s in seeds] for b in range(bots)]
