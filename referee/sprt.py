"""SPRT matches: play a candidate against a baseline until the test decides.

Heads-up games in pairs on the same deal seed with the seats swapped; each complete
pair scores 0, 1/2 or 1 for the candidate, and the generalised SPRT
(``leaderboards.sprt``) is fed those scores in the order the pairs complete. The run
stops scheduling games as soon as the test leaves ``continue`` (games in flight
finish and are journalled, but do not change the verdict) or when ``max_games`` have
been scheduled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from leaderboards.sprt import Sprt
from referee.config import RunConfig
from referee.runner import Runner

CANDIDATE, BASELINE = 0, 1  # bot indices in the config


@dataclass
class SprtMatch:
    """The test's state while its games are played."""

    test: Sprt
    candidate: str
    games: int = 0
    decided_at_pairs: int | None = None
    outcomes: dict[str, int] = field(default_factory=lambda: {"W": 0, "D": 0, "L": 0})
    _halves: dict[int, float] = field(default_factory=dict)

    def on_game(self, record: dict[str, Any]) -> None:
        """Score a finished game; feed the test when its pair is complete."""
        self.games += 1
        won = float(record["order"][0] == self.candidate)
        pair = record["game"] // 2
        if pair not in self._halves:
            self._halves[pair] = won
            return
        score = (self._halves.pop(pair) + won) / 2
        if self.decided_at_pairs is not None:
            return
        self.outcomes["WDL"[2 - int(score * 2)]] += 1
        self.test = self.test.add([score])
        if self.test.status != "continue":
            self.decided_at_pairs = self.test.pairs


def play_sprt(config: RunConfig, test: Sprt, max_games: int,
              on_update: Callable[[SprtMatch], None] | None = None) -> SprtMatch:
    """Run the SPRT match; ``config.bots`` is (candidate, baseline), two players, and
    ``config.format`` is ``sprt``: at most ``max_games`` games (whole pairs)."""
    match = SprtMatch(test, config.bots[CANDIDATE].name)

    def progress(runner: Runner, record: dict[str, Any]) -> None:
        match.on_game(record)
        if match.decided_at_pairs is not None:
            runner.stop()
        if on_update:
            on_update(match)

    Runner(config, progress=progress).run()
    return match
