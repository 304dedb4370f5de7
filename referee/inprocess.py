"""In-process mode: bots that are Python functions, played in the referee's own process.

For research and fast tests. A bot is the same ``act(view)`` (and optional hooks) that
the SDK hosts, but called directly: no processes, no sockets, no encoding. Games go
through the same engine, fault policy (``referee.match.Match``), journal and
leaderboards as a run between bot processes, so their records can be rated, verified,
resumed and merged alike.

>>> from bots import caller, random_bot
>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "run"
>>> records = play_local({"caller": caller.act, "random": random_bot}, games=4, seed=1,
...                      out=out)
>>> len(records), sorted(records[0]["seats"])
(4, ['caller', 'random'])

What differs from bot processes:

- A deadline cannot interrupt a function: an ``act`` that takes longer than its budget
  is charged a ``timeout`` after it returns, and its answer is discarded.
- An exception in ``act`` (or a hook) is a ``crash``: the seat forfeits the game, and the
  traceback goes to ``logs/<bot>.errors.log``. The same function plays the next game.
- All bots share the interpreter's ``random`` (and numpy's) generator, seeded from the
  game's seed at each game start, so a run is reproducible from its seed.
- ``view.time_left_ms`` is the seat's budget for the decision (move time plus bank).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from protocol.host import load_bot
from protocol.polish import GAME
from protocol.sdk import GameInfo, seed_everything
from referee.config import RunConfig
from referee.games import game_rules
from referee.journal import read_games
from referee.match import Match
from referee.process import BotFileError, BotSpec
from referee.schedule import ScheduledGame
from referee.tournament import ProgressFn, Tournament

Hook = Callable[[Any], None] | None


@dataclass(frozen=True)
class LocalBot:
    """A bot as Python functions: ``act(view)`` and the SDK's optional hooks."""

    name: str
    act: Callable[[Any], Any]
    on_game_start: Hook = None
    on_round_result: Hook = None
    on_game_end: Hook = None

    @classmethod
    def of(cls, name: str, bot: Callable[[Any], Any] | ModuleType | Any) -> LocalBot:
        """From an ``act`` function, or anything with an ``act`` attribute and maybe
        hooks (a module, an object)."""
        if not hasattr(bot, "act") and callable(bot):
            return cls(name, bot)
        if not callable(getattr(bot, "act", None)):
            raise TypeError(f"bot {name}: give a function act(view), or a module or object "
                            "with one")
        return cls(name, bot.act, getattr(bot, "on_game_start", None),
                   getattr(bot, "on_round_result", None), getattr(bot, "on_game_end", None))


def load_local_bots(specs: Sequence[BotSpec]) -> list[LocalBot]:
    """Import each bot file as its own module; BotFileError for a file that is not an
    SDK bot (``act(view)``), e.g. an executable that speaks the protocol itself."""
    bots = []
    for i, spec in enumerate(specs):
        if spec.path.suffix != ".py":
            raise BotFileError(f"bot {spec.name}: in-process mode runs .py files that "
                               f"define act(view), not {spec.path}")
        try:
            module = load_bot(spec.path, f"referee_local_bot_{i}")
        except ImportError as exc:
            raise BotFileError(f"bot {spec.name}: {exc}") from None
        bots.append(LocalBot.of(spec.name, module))
    return bots


class LocalRunner(Tournament):
    """Plays a run's games between ``LocalBot``s, one after another, in this process."""

    def __init__(self, config: RunConfig, bots: Sequence[LocalBot],
                 progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Any = None):
        """``bots`` are in the order of ``config.bots`` (the schedule's bot indices)."""
        super().__init__(config, progress, schedule, resume, warn)
        if [b.name for b in bots] != [b.name for b in config.bots]:
            raise ValueError("bots must match config.bots, in order")
        self.bots = list(bots)

    def play(self, games: Iterator[ScheduledGame]) -> None:
        for game in games:
            if self.stopping:
                return
            self._play_game(game)

    def _play_game(self, game: ScheduledGame) -> None:
        cfg, rules = self.config, self.rules
        bots = [self.bots[b] for b in game.seating]
        match = Match(game, [b.name for b in bots], rules, cfg.move_ms, cfg.bank_ms,
                      cfg.max_faults, self.deals)
        engine = match.engine
        seed_everything(game.seed)
        hooked = any(b.on_game_start or b.on_game_end for b in bots)
        infos = [GameInfo(str(game.index), rules.name, seat, len(bots),
                          self.deals.seat_seed(game.seed, seat), rules.params)
                 for seat in range(len(bots))] if hooked else []
        for seat, bot in enumerate(bots):
            self._hook(match, seat, bot.on_game_start, infos[seat] if hooked else None)
        told = 0  # events whose round results the hooks have had
        tell = any(b.on_round_result for b in bots)
        clock = time.perf_counter
        while not engine.is_over:
            if tell:
                told = self._tell_results(match, bots, told)
            seat = engine.current_seat
            budget = match.budget_ms(seat)
            view = rules.view(engine, seat, int(budget))
            start = clock()
            try:
                value = bots[seat].act(view)
            except Exception as exc:  # the bot's own bug: it forfeits, the run goes on
                self._crashed(match, seat, exc)
                continue
            elapsed = (clock() - start) * 1000
            if elapsed > budget:
                match.timeout(seat, elapsed, budget)
                continue
            try:
                action = rules.parse_local_action(value)
            except ValueError as exc:
                match.malformed(seat, str(exc), elapsed)
                continue
            match.answer(seat, action, elapsed)
        if tell:
            self._tell_results(match, bots, told)
        if hooked:
            order = tuple(engine.finishing_order)
            for seat, bot in enumerate(bots):
                self._hook(match, seat, bot.on_game_end, replace(infos[seat], order=order))
        self.journal_game(match.record(), [e.to_dict() for e in engine.events])

    def _tell_results(self, match: Match, bots: list[LocalBot], told: int) -> int:
        """Hand the round results since event ``told`` to the seats that played them."""
        events = match.engine.events
        for result in self.rules.round_results(events, told):
            obj = self.rules.local_result(result)
            for seat, hand in enumerate(result["hands"]):
                if hand and bots[seat].on_round_result:
                    self._hook(match, seat, bots[seat].on_round_result, obj)
        return len(events)

    def _hook(self, match: Match, seat: int, hook: Hook, arg: Any) -> None:
        if hook is None:
            return
        try:
            hook(arg)
        except Exception as exc:  # as in act: the bot forfeits
            self._crashed(match, seat, exc)

    def _crashed(self, match: Match, seat: int, exc: Exception) -> None:
        name = match.names[seat]
        log = self.config.out / "logs" / f"{name.replace('/', '_')}.errors.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"game {match.game.index}, seat {seat}:\n{traceback.format_exc()}\n")
        match.crash(seat, f"{type(exc).__name__}: {exc}")


def play_local(bots: Mapping[str, Callable[[Any], Any] | ModuleType | Any], *,
               rules: str = "official", players: int | None = None, games: int = 100,
               seed: int = 0, out: Path | str, format: str = "round-robin",
               duplicate: bool = True, move_ms: int = 1000, bank_ms: int = 5000,
               max_faults: int = 3, progress: ProgressFn | None = None
               ) -> list[dict[str, Any]]:
    """Play a run between Python bots (name -> ``act`` function or module) and return
    its journal records; the run directory ``out`` is the same as ``referee run``'s."""
    locals_ = [LocalBot.of(name, bot) for name, bot in bots.items()]
    allowed = game_rules(GAME, rules).player_range()
    config = RunConfig(
        bots=tuple(BotSpec(b.name, Path("<in-process>"), "") for b in locals_),
        rules=rules, players=players or min(max(len(locals_), allowed[0]), allowed[-1]),
        games=games, seed=seed,
        move_ms=move_ms, bank_ms=bank_ms, concurrency=1, max_faults=max_faults,
        start_timeout_ms=0, out=Path(out), format=format, duplicate=duplicate,
        in_process=True)
    LocalRunner(config, locals_, progress).run()
    return read_games(config.out)


__all__ = ["LocalBot", "LocalRunner", "load_local_bots", "play_local"]
