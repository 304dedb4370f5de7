"""SPRT matches: play a candidate against a baseline until the test decides.

Heads-up games in pairs on the same deal seed with the seats swapped; a game scores 1, 1/2 (a
shared place) or 0 for the candidate, a complete pair the mean of its two, and the pentanomial
generalised SPRT (``leaderboards.sprt``) is fed those scores in the order the pairs complete.
The run stops scheduling games as soon as the test decides (games in flight finish and are
journalled, but do not change the verdict), when ``max_games`` have been scheduled, or when
its ``--max-time`` budget runs out (``referee.budget``: the games in flight are abandoned).
The verdict is ``H1``, ``H0`` or ``inconclusive``, the words of the exit code and the last
line; ``sprt.json`` files written before said ``continue`` for ``inconclusive``, and
:func:`load_result` reads them so.

The state of the test is a function of the journal: ``sprt.json`` in the run directory
holds the test's parameters from the start (so that ``referee resume`` can go on with
it) and its result (verdict, LLR after every pair, W/D/L, Elo estimate), rewritten when
a session ends, however it ends. A resumed test first feeds itself the journalled games
in the order they finished, then plays the games that are not in the journal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from leaderboards.sprt import Sprt, game_score
from referee.budget import Budget
from referee.clusterconnect import Cluster
from referee.config import ConfigError, RunConfig
from referee.journal import GAMES_FILE, read_lines
from referee.rundir import read_json, write_text
from referee.runner import Runner
from referee.tournament import Tournament

CANDIDATE, BASELINE = 0, 1  # bot indices in the config
SPRT_FILE = "sprt.json"
SCHEMA_VERSION = 1
INCONCLUSIVE = "inconclusive"
_OLD_WORDS = {"continue": INCONCLUSIVE}  # sprt.json before the verdict used the exit's words


@dataclass
class SprtMatch:
    """The test's state while its games are played."""

    test: Sprt
    candidate: str
    baseline: str = ""
    max_games: int = 0
    games: int = 0
    decided_at_pairs: int | None = None
    outcomes: dict[str, int] = field(default_factory=lambda: {"W": 0, "D": 0, "L": 0})
    history: list[tuple[int, int, float]] = field(default_factory=list)  # pairs, games, LLR
    _halves: dict[int, float] = field(default_factory=dict)

    def on_game(self, record: dict[str, Any]) -> None:
        """Score a finished game; feed the test when its pair is complete."""
        self.games += 1
        won = game_score(record["seats"], record["places"], self.candidate, self.baseline)
        pair = record["game"] // 2
        if pair not in self._halves:
            self._halves[pair] = won
            return
        score = (self._halves.pop(pair) + won) / 2
        if self.decided_at_pairs is not None:
            return
        self.outcomes["LDW"[(score > 0.5) - (score < 0.5) + 1]] += 1
        self.test = self.test.add([score])
        self.history.append((self.test.pairs, self.games, round(self.test.llr, 6)))
        if self.test.status != "continue":
            self.decided_at_pairs = self.test.pairs

    @property
    def verdict(self) -> str:
        """``H1``, ``H0``, or ``inconclusive`` (not decided, so far)."""
        return self.test.status if self.decided_at_pairs is not None else INCONCLUSIVE

    def to_dict(self) -> dict[str, Any]:
        """What ``sprt.json`` holds."""
        t, est = self.test, self.test.elo()
        lower, upper = t.bounds
        return {
            "schema_version": SCHEMA_VERSION, "candidate": self.candidate,
            "baseline": self.baseline,
            "test": test_params(t, self.max_games),
            "verdict": self.verdict, "llr": round(t.llr, 6),
            "bounds": [round(lower, 6), round(upper, 6)], "pairs": t.pairs,
            "games": self.games, "decided_at_pairs": self.decided_at_pairs,
            "outcomes": dict(self.outcomes), "pentanomial": list(t.pentanomial),
            "elo": {"elo": round(est.elo, 3), "low": round(est.low, 3),
                    "high": round(est.high, 3)},
            "llr_history": [{"pairs": p, "games": g, "llr": llr}
                            for p, g, llr in self.history],
        }

    def write(self, run_dir: Path) -> None:
        write_text(run_dir / SPRT_FILE, json.dumps(self.to_dict(), indent=1) + "\n")


def test_params(test: Sprt, max_games: int) -> dict[str, Any]:
    """The test's parameters, as ``sprt.json`` holds them."""
    return {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
            "max_games": max_games}


def load_test(run_dir: Path) -> tuple[Sprt, int]:
    """The test and ``max_games`` an SPRT run was started with (from ``sprt.json``)."""
    path = Path(run_dir) / SPRT_FILE
    try:
        test = read_json(Path(run_dir), SPRT_FILE)["test"]
        return (Sprt(float(test["elo0"]), float(test["elo1"]), float(test["alpha"]),
                     float(test["beta"])), int(test["max_games"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: not the parameters of an SPRT ({exc})") from None


def load_result(run_dir: Path) -> dict[str, Any]:
    """``sprt.json`` of ``run_dir``, its verdict in today's words; ConfigError if it
    cannot be read."""
    path = Path(run_dir) / SPRT_FILE
    try:
        doc = json.loads(path.read_text())
        doc["verdict"] = _OLD_WORDS.get(doc["verdict"], doc["verdict"])
        return doc
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: not an SPRT's result ({exc})") from None


def play_sprt(config: RunConfig, test: Sprt, max_games: int,
              on_update: Callable[[SprtMatch, dict[str, Any]], None] | None = None,
              resume: bool = False, cluster: Cluster | None = None,
              budget: Budget | None = None) -> SprtMatch:
    """Run the SPRT match, or with ``resume`` go on with the one in ``config.out``;
    ``config.bots`` is (candidate, baseline), two players, and ``config.format`` is
    ``sprt``: at most ``max_games`` games (whole pairs). ``cluster``: the Dask cluster
    that plays them (``referee.cluster``). ``on_update(match, record)`` after each game.
    ``budget``: stop, the test undecided, when it runs out."""
    # A broken candidate or baseline must fail the job (exit 3), not forfeit its games.
    config = replace(config, strict_start=True)
    match = SprtMatch(test, config.bots[CANDIDATE].name, config.bots[BASELINE].name,
                      max_games)
    if resume:
        for record in read_lines(config.out / GAMES_FILE):  # in the order they finished
            match.on_game(record)
    else:
        config.out.mkdir(parents=True, exist_ok=True)
    match.write(config.out)

    def progress(runner: Tournament, record: dict[str, Any]) -> None:
        match.on_game(record)
        if match.decided_at_pairs is not None:
            runner.stop()
        if on_update:
            on_update(match, record)

    try:
        if match.decided_at_pairs is None:
            if cluster is None:
                runner: Tournament = Runner(config, progress=progress, resume=resume)
            else:
                from referee.cluster import ClusterPool  # dask: for a cluster run only

                runner = ClusterPool(config, cluster, progress=progress, resume=resume)
            with (budget or Budget()).running(runner.interrupt):
                runner.run()
    finally:
        match.write(config.out)
    return match
