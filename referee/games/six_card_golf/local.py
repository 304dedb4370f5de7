"""A small in-process driver: Python ``act(view)`` functions play whole games, for tests
and benchmarks (the harness's own in-process mode comes with its integration).

Duplicate deals: every seed is played once per rotation of the seats, bot ``i`` at seat
``(i + r) % players`` in rotation ``r``, so every bot plays every seat's cards. Faults
follow the harness's policy without its clock: an exception in ``act`` forfeits the seat
(``crash``), an answer that is not an action is a ``malformed`` fault, an action the rules
forbid an ``illegal`` one. ``random`` is seeded with the game's seed before each game.

>>> from bots.six_card_golf import greedy_bot, random_bot
>>> game = load({})
>>> results = play(game, [greedy_bot.act, random_bot.act], seeds=[1])
>>> [r.bot_at for r in results], [r.faults for r in results]
([(0, 1), (1, 0)], [(), ()])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.games.api import IllegalAction, Outcome
from referee.games.six_card_golf.game import SixCardGolfGame, load

Act = Callable[[dict[str, Any]], Any]

__all__ = ["Act", "GameResult", "load", "play", "play_game"]


@dataclass(frozen=True)
class GameResult:
    """One game: ``bot_at[seat]`` is the index of the bot in that seat; ``faults`` holds
    (seat, label) in order."""

    seed: int
    bot_at: tuple[int, ...]
    outcome: Outcome
    rounds: int
    faults: tuple[tuple[int, str], ...]

    def seat_of(self, bot: int) -> int:
        return self.bot_at.index(bot)

    def points_per_round(self, bot: int) -> float:
        assert self.outcome.scores is not None, "golf outcomes carry the totals"
        return self.outcome.scores[self.seat_of(bot)] / self.rounds


def play_game(game: SixCardGolfGame, acts: Sequence[Act], seed: int,
              bot_at: Sequence[int] | None = None) -> GameResult:
    """One game with ``acts[s]`` in seat ``s``."""
    engine = game.new_game(len(acts), seed)
    random.seed(seed)
    faults: list[tuple[int, str]] = []
    while not engine.is_over:
        seat = engine.current_seat
        assert seat is not None
        try:
            value = acts[seat](engine.view(seat))
        except Exception:  # the bot's own bug: it forfeits, as a crashed process does
            faults.append((seat, "crash"))
            engine.forfeit(seat, "crash")
            continue
        try:
            engine.apply(seat, game.parse_local_action(value))
        except IllegalAction:
            faults.append((seat, "illegal"))
            engine.fault(seat, "illegal")
        except ValueError:
            faults.append((seat, "malformed"))
            engine.fault(seat, "malformed")
    return GameResult(seed, tuple(bot_at or range(len(acts))), engine.outcome(),
                      engine.round, tuple(faults))


def play(game: SixCardGolfGame, bots: Sequence[Act], seeds: Iterable[int]) -> list[GameResult]:
    """Every seed once per rotation of the seats (duplicate deals)."""
    n = len(bots)
    results = []
    for seed in seeds:
        for r in range(n):
            bot_at = [(s - r) % n for s in range(n)]
            results.append(play_game(game, [bots[b] for b in bot_at], seed, bot_at))
    return results
