"""In-process mode: bots that are Python functions, played in the referee's own process.

For research and fast tests. A bot is the same ``act(view)`` (and optional hooks) that
the SDK hosts, but called directly: no processes, no sockets, no encoding. Games go
through the same engine, fault policy (``referee.match.Match``), journal and
leaderboards as a run between bot processes, so their records can be rated, verified,
resumed and merged alike.

>>> from bots.polish_poker import caller, random_bot
>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "run"
>>> records = play_local({"caller": caller.act, "random": random_bot}, games=4, seed=1,
...                      out=out)
>>> len(records), sorted(records[0]["seats"])
(4, ['caller', 'random'])

What differs from bot processes:

- A deadline cannot interrupt a function: an ``act`` that takes longer than its budget
  is charged a ``timeout`` after it returns, and its answer is discarded.
- An exception in ``act``, or a return value that is not an action, is a ``malformed``
  action, as the SDK reports it for a bot process: the seat takes the game's penalty
  for a fault and plays on; an exception in a hook counts on the seat's next decision
  of the game. The traceback goes to ``logs/<bot>.errors.log``, after a line that marks
  the game. Only ``sys.exit`` in a bot is a ``crash`` (its process would have ended): it
  forfeits the game, and the same function plays the next one.
- Each seat has Python's ``random`` (and numpy's global generator) to itself, seeded at
  each game start with the bot's seed as the SDK seeds a bot process: the module
  functions draw from the generators of the seat being called (``referee.seatrandom``),
  so a run plays the same games in-process as with bot processes, for the same seed and
  secret.
- The view is decoded by the game as the SDK decodes it, given the seat's budget for the
  decision (move time plus bank) as its time left (Polish Poker: ``view.time_left_ms``).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from referee.config import RunConfig
from referee.deals import Deals
from referee.games import DEFAULT_GAME, load_game
from referee.games.api import journal_events
from referee.journal import read_games
from referee.logs import game_marker
from referee.match import Match, game_end
from referee.process import BotFileError, BotSpec
from referee.rounds import design_for
from referee.rundir import open_append
from referee.schedule import ScheduledGame
from referee.sdk import GameInfo, bad_return, failure, hook_name, notice_hook
from referee.sdkhost import load_bot
from referee.seatrandom import SeatRandom, install
from referee.tournament import ProgressFn, Tournament

Hook = Callable[[Any], None] | None


@dataclass(frozen=True)
class LocalBot:
    """A bot as Python functions: ``act(view)`` and the SDK's optional hooks."""

    name: str
    act: Callable[[Any], Any]
    on_game_start: Hook = None
    on_notice: Hook = None
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
        return cls(name, bot.act, getattr(bot, "on_game_start", None), notice_hook(bot),
                   getattr(bot, "on_game_end", None))


def load_local_bots(specs: Sequence[BotSpec]) -> list[LocalBot]:
    """Import each bot file as its own module; BotFileError for a file that is not an
    SDK bot (``act(view)``), e.g. an executable that speaks the protocol itself."""
    install()  # before any bot binds a generator function (``referee.seatrandom``)
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


class _BotSeeds(Sequence[int]):
    """The bot seed of each seat of a game, each worked out (an HMAC) on first use: most
    bots draw nothing and have no hooks, and their seeds are never needed."""

    def __init__(self, deals: Deals, game: ScheduledGame) -> None:
        self._deals, self._game = deals, game
        self._seeds: list[int | None] = [None] * len(game.seating)

    def __len__(self) -> int:
        return len(self._seeds)

    def __getitem__(self, seat):  # type: ignore[no-untyped-def]
        seed = self._seeds[seat]
        if seed is None:
            seed = self._seeds[seat] = self._deals.bot_seed(self._game.seed,
                                                            self._game.seating[seat])
        return seed


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
        # Per bot: the game (and seat) whose start is not yet in its log, made into
        # the log's line only if the bot writes to it.
        self._game_marks: dict[str, tuple[int, int]] = {}
        self._random = SeatRandom([])  # the generators of the game being played

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
        seeds = _BotSeeds(self.deals, game)
        self._random = rng = SeatRandom(seeds)
        # A hook's failure, per seat: reported as the seat's next decision (as the SDK does).
        failed: list[str | None] = [None] * len(bots)
        hooked = any(b.on_game_start or b.on_game_end for b in bots)
        infos = [GameInfo(str(game.index), rules.name, seat, len(bots), seeds[seat],
                          rules.params, options=dict(cfg.bots[b].options))
                 for seat, b in enumerate(game.seating)] if hooked else []
        for seat, bot in enumerate(bots):
            self._mark(match, seat)
            failed[seat] = self._hook(match, seat, "on_game_start", bot.on_game_start,
                                      infos[seat] if hooked else None)
        told = 0  # events whose notices the hooks have had
        tell = any(b.on_notice for b in bots)
        # Bound once: the loop below runs for every decision of every game.
        clock, call, acts = time.perf_counter, rng.call, [b.act for b in bots]
        budget_ms, answer, parse = match.budget_ms, match.answer, rules.parse_local_action
        local_view = getattr(engine, "local_view", None)  # api.Engine: optional
        while True:
            if tell:  # (a hook may end the game: sys.exit)
                told = self._tell(match, bots, told, failed)
            seat = engine.current_seat
            if seat is None:  # the game is over
                break
            budget = budget_ms(seat)
            if failed[seat] is not None:
                match.malformed(seat, failed[seat], 0.0)
                failed[seat] = None
                continue
            view = (local_view(seat, int(budget)) if local_view is not None
                    else rules.decode_view(engine.view(seat), int(budget)))
            start = clock()
            try:
                value = call(seat, acts[seat], view)
            except Exception as exc:  # the bot's own bug: a fault, it plays on
                elapsed = (clock() - start) * 1000
                text = failure("act", exc)
                self._log(match, seat, text)
                if not self._timed_out(match, seat, elapsed, budget):
                    match.malformed(seat, text, elapsed)
                continue
            except SystemExit as exc:  # the function's way of ending its process
                self._exited(match, seat, exc)
                continue
            elapsed = (clock() - start) * 1000
            if elapsed > budget and self._timed_out(match, seat, elapsed, budget):
                continue
            try:
                action = parse(value)
            except ValueError as exc:
                text = bad_return(value, exc)
                self._log(match, seat, text)
                match.malformed(seat, text, elapsed)
                continue
            answer(seat, action, elapsed)
        if tell:
            self._tell(match, bots, told, failed)
        if hooked:
            end = game_end(engine.outcome())
            info = {"order": tuple(end["order"]), "places": tuple(end["places"]),
                    "scores": None if end["scores"] is None else tuple(end["scores"])}
            for seat, bot in enumerate(bots):
                self._hook(match, seat, "on_game_end", bot.on_game_end,
                           replace(infos[seat], **info))
        self.journal_game(match.record(), journal_events(engine), match.decisions)

    @staticmethod
    def _timed_out(match: Match, seat: int, elapsed: float, budget: float) -> bool:
        """A function cannot be interrupted: an answer that came too late is a timeout."""
        if elapsed > budget:
            match.timeout(seat, elapsed, budget)
            return True
        return False

    def _tell(self, match: Match, bots: list[LocalBot], told: int,
              failed: list[str | None]) -> int:
        """Hand each seat its notices of the events since ``told``."""
        engine = match.engine
        for seat, notice in engine.notices(told):
            hook = bots[seat].on_notice
            if hook and failed[seat] is None:
                failed[seat] = self._hook(match, seat, hook_name(hook), hook,
                                          self.rules.decode_notice(notice))
        return len(engine.events)

    def _hook(self, match: Match, seat: int, where: str, hook: Hook, arg: Any) -> str | None:
        """Call a hook; the text of its failure, if it raised (see ``_play_game``)."""
        if hook is None:
            return None
        try:
            self._random.call(seat, hook, arg)
        except Exception as exc:  # as in act: reported on the seat's next decision
            text = failure(where, exc)
            self._log(match, seat, text)
            return text
        except SystemExit as exc:
            self._exited(match, seat, exc)
        return None

    def _exited(self, match: Match, seat: int, exc: SystemExit) -> None:
        """The bot asked to end its process (``sys.exit``): as a bot process that exits,
        it forfeits the game; the same function plays the next one."""
        text = f"the bot called sys.exit({exc.code!r})"
        self._log(match, seat, text)
        match.crash(seat, text)

    def log_path(self, name: str) -> Path:
        """The log of bot ``name``: what its exceptions printed."""
        return self.config.out / "logs" / f"{name.replace('/', '_')}.errors.log"

    def _mark(self, match: Match, seat: int) -> None:
        """Note in the bot's log where this game starts (only once it writes to it)."""
        self._game_marks[match.names[seat]] = (match.game.index, seat)

    def _log(self, match: Match, seat: int, text: str) -> None:
        """Put ``text`` and the exception being handled in the bot's log."""
        name = match.names[seat]
        with open_append(self.config.out, self.log_path(name)) as f:
            mark = self._game_marks.pop(name, None)
            head = game_marker(*mark) if mark else ""
            f.write(f"{head}{text}\n{traceback.format_exc()}".encode())


def play_local(bots: Mapping[str, Callable[[Any], Any] | ModuleType | Any], *,
               game: str = DEFAULT_GAME, params: Mapping[str, Any] | None = None,
               players: int | None = None, games: int = 100,
               seed: int = 0, out: Path | str, format: str = "round-robin",
               duplicate: bool = True, move_ms: int = 1000, bank_ms: int = 5000,
               max_faults: int = 3, progress: ProgressFn | None = None
               ) -> list[dict[str, Any]]:
    """Play a run between Python bots (name -> ``act`` function or module) and return
    its journal records; the run directory ``out`` is the same as ``referee run``'s.
    ``game`` and ``params`` as ``referee.games.load_game`` takes them."""
    locals_ = [LocalBot.of(name, bot) for name, bot in bots.items()]
    rules = load_game(game, params)
    allowed = rules.seats
    config = RunConfig(
        bots=tuple(BotSpec(b.name, Path("<in-process>"), "") for b in locals_),
        params=rules.params, game=rules.name,
        players=players or min(max(len(locals_), allowed[0]), allowed[-1]),
        games=games, seed=seed,
        move_ms=move_ms, bank_ms=bank_ms, concurrency=1, max_faults=max_faults,
        start_timeout_ms=0, out=Path(out), format=format, duplicate=duplicate,
        in_process=True, design=design_for(len(locals_)))
    LocalRunner(config, locals_, progress).run()
    return read_games(config.out)


__all__ = ["LocalBot", "LocalRunner", "load_local_bots", "play_local"]
