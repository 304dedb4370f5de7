"""One game in progress under the fault policy: the one place that policy is decided.

``Match`` is the policy, whatever carries the bots' answers (bot processes, in one
referee or several ``--workers``, or functions ``--in-process``): it asks the engine
whose turn it is, and turns what a seat answered (an action, garbage, its own error
report, nothing in time, a dead bot) into engine calls:

- a legal action is applied; the seat's run of consecutive faults resets;
- ``malformed`` (undecodable, wrong schema, or an ``error`` reply: the bot's code raised
  or returned something that is not an action), ``illegal`` (the engine refused it) and
  ``timeout``: the seat takes the game's penalty for a fault (``engine.fault``);
- ``crash`` (the process died, or an in-process bot called ``sys.exit``), ``max_faults``
  faults in a row (``faults``), or ``start-failure`` (its bot is given up on, below): the
  seat forfeits the game (``engine.forfeit``).

What happens to a bot after a forfeit is the same in every mode: it plays its next
game afresh, always (a new process; in-process, the same function). The only bot that
is given up on is one whose process cannot start (it exits, is refused, or says no
hello in time) ``START_ATTEMPTS`` times in a row: each of its later games is forfeited
at once with ``start-failure``. A run's first start is stricter: a bot that cannot start
then stops the run before any game (``referee.runner.BotStartError``).

No action is ever substituted for a bot. ``Table`` carries a ``Match`` over the wire:
it sends the ``act`` requests and keeps the one that is pending; ``referee.inprocess``
carries it by calling Python functions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import floor
from typing import Any, Protocol

from referee.cpuwait import CpuMeter, CpuSample
from referee.deals import Deals
from referee.games.api import Game, IllegalAction, Outcome
from referee.process import BotProcess
from referee.schedule import ScheduledGame


class BotInstance(Protocol):
    """What a table uses of the bot at a seat (``referee.runner.BotInstance``, which
    imports this module: the runner's, not imported here)."""

    table: Table | None
    ready: bool
    process: BotProcess | None
    meter: CpuMeter | None

    @property
    def given_up(self) -> str | None: ...
    def send(self, message: dict[str, Any]) -> int | None: ...
    def why_unreachable(self) -> str: ...


SCHEMA_VERSION = 2  # of a game's record (JOURNAL.md); 1: before games were packages
START_ATTEMPTS = 3  # failed starts in a row after which a bot is given up on
DETAIL_CHARS = 200  # of a fault's detail in the journal ...
CRASH_DETAIL_CHARS = 800  # ... and of a crash's, which ends with the bot's last stderr lines


@dataclass
class SeatClock:
    """Decision times of one seat in one game, and what is left of its time bank."""

    bank_ms: float
    times_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        t = self.times_ms
        total = sum(t)
        return {"decisions": len(t), "mean_ms": ms3(total / len(t)) if t else 0.0,
                "max_ms": ms3(max(t)) if t else 0.0, "total_ms": ms3(total)}


def ms3(ms: float) -> float:
    """``ms`` rounded to 3 decimals, as ``round(ms, 3)`` but for a tie (which rounds up
    here), at a quarter of its cost: a time is rounded at every decision.

    >>> ms3(0.0123456), ms3(12.3455), ms3(0.0)
    (0.012, 12.346, 0.0)
    """
    return floor(ms * 1000.0 + 0.5) / 1000.0


class Match:
    """One scheduled game: engine, clocks, fault streaks and the journal record."""

    def __init__(self, game: ScheduledGame, names: Sequence[str], rules: Game,
                 move_ms: int, bank_ms: int, max_faults: int, deals: Deals,
                 logs: Sequence[str] | None = None):
        """``rules`` is the game with its parameters (``referee.games.load_game``).
        ``deals`` turns the game's seed into its engine's and its bots' (``referee.deals``).
        ``logs``: per seat, the bot's log (relative to the run directory), which each of its
        faults names."""
        self.game, self.names, self.rules = game, list(names), rules
        self.logs = list(logs) if logs is not None else None
        self.move_ms, self.max_faults, self.deals = move_ms, max_faults, deals
        self.engine = rules.new_game(len(names), deals.engine_seed(game.seed))
        self.clocks = [SeatClock(bank_ms) for _ in names]
        self.streak = [0] * len(names)
        self.faults: list[dict[str, Any]] = []
        self.forfeited: list[int] = []  # seats, in order
        # [seat, event, ms] per answer or timeout: ``event`` is how many transcript events
        # came before it (those it caused start there), ``ms`` the time charged.
        self.decisions: list[list[Any]] = []
        self.started_at = time.time()

    @property
    def is_over(self) -> bool:
        return self.engine.is_over

    def budget_ms(self, seat: int) -> float:
        """What ``seat`` may spend on its next decision: the move time plus its bank."""
        return self.move_ms + self.clocks[seat].bank_ms

    def answer(self, seat: int, action: Any, elapsed_ms: float) -> None:
        """``seat`` answered with a parsed action of the game."""
        self._charge(seat, elapsed_ms)
        try:
            self.engine.apply(seat, action)
        except IllegalAction as exc:
            self._fault(seat, "illegal", str(exc))
        else:
            self.streak[seat] = 0

    def malformed(self, seat: int, detail: str, elapsed_ms: float) -> None:
        """``seat`` answered with something that is not an action."""
        self._charge(seat, elapsed_ms)
        self._fault(seat, "malformed", detail)

    def timeout(self, seat: int, elapsed_ms: float, budget_ms: float) -> None:
        """``seat`` did not answer within ``budget_ms``; its bank is spent."""
        self._charge(seat, elapsed_ms)
        self.clocks[seat].bank_ms = 0.0
        self._fault(seat, "timeout", f"no reply within {round(budget_ms)} ms")

    def crash(self, seat: int, detail: str) -> None:
        """``seat``'s bot is gone (or cannot be asked): it forfeits if still in."""
        self._out(seat, "crash", detail)

    def start_failure(self, seat: int, detail: str) -> None:
        """``seat``'s bot has been given up on (see the module): it forfeits at once."""
        self._out(seat, "start-failure", detail)

    def _out(self, seat: int, label: str, detail: str) -> None:
        if self.engine.active[seat] and not self.is_over:
            self._record(seat, label, detail)
            self._forfeit(seat, label)

    def _charge(self, seat: int, elapsed_ms: float) -> None:
        clock = self.clocks[seat]
        clock.times_ms.append(elapsed_ms)
        self.decisions.append([seat, len(self.engine.events), ms3(elapsed_ms)])
        over = elapsed_ms - self.move_ms  # what the bank pays
        if over > 0.0:
            clock.bank_ms = max(0.0, clock.bank_ms - over)

    def _record(self, seat: int, label: str, detail: str) -> None:
        cap = CRASH_DETAIL_CHARS if label == "crash" else DETAIL_CHARS
        # ``event``: how many transcript events came before it (where it happened).
        fault = {"event": len(self.engine.events), "seat": seat, "bot": self.names[seat],
                 "label": label, "detail": detail[:cap]}
        if self.logs is not None:
            fault["log"] = self.logs[seat]
        self.faults.append(fault)

    def _fault(self, seat: int, label: str, detail: str) -> None:
        self._record(seat, label, detail)
        self.streak[seat] += 1
        if self.streak[seat] >= self.max_faults:
            self._forfeit(seat, "faults")
        else:
            self.engine.fault(seat, label)

    def _forfeit(self, seat: int, label: str) -> None:
        self.engine.forfeit(seat, label)
        self.forfeited.append(seat)

    def record(self, ended_at: float | None = None) -> dict[str, Any]:
        """The journal line of the finished game (JOURNAL.md); ``ended_at`` (``time.time``)
        when it ended, if that was before now."""
        outcome = self.engine.outcome()
        places = list(outcome.places)
        g = self.game
        return {
            "schema_version": SCHEMA_VERSION, "game": g.index, "seed": g.seed,
            "group": g.group, "group_size": g.group_size, "stage": g.stage, "table": g.table,
            "game_type": self.rules.name, "params": self.rules.params,
            "players": len(self.names), "seats": self.names,
            "order": [self.names[s] for s in by_place(places, self.names)], "places": places,
            "scores": None if outcome.scores is None else list(outcome.scores),
            "units": outcome.units, "faults": self.faults,
            "timing": [dict(bot=n, **c.summary()) for n, c in zip(self.names, self.clocks,
                                                                  strict=True)],
            "started_at": round(self.started_at, 3),
            "duration_s": round((time.time() if ended_at is None else ended_at)
                                - self.started_at, 4),
        }


def by_place(places: Sequence[int], names: Sequence[Any]) -> list[int]:
    """Seats best place first; a tie in the order of ``names`` (for the record's
    ``order``, the bots' names, as the leaderboard sorts them; for ``game_end``, seats).

    >>> by_place([2, 1, 1], ["c", "b", "a"])
    [2, 1, 0]
    """
    return sorted(range(len(places)), key=lambda s: (places[s], names[s]))


def game_end(outcome: Outcome) -> dict[str, Any]:
    """What a ``game_end`` message says of the outcome (SPEC.md section 4): ``places``,
    ``scores`` (nil for a game without) and ``order``, the seats by place (ties by seat).

    >>> game_end(Outcome((2, 1, 1), (-3.0, 1.0, 1.0)))
    {'order': [1, 2, 0], 'places': [2, 1, 1], 'scores': [-3.0, 1.0, 1.0]}
    """
    places = list(outcome.places)
    return {"order": by_place(places, range(len(places))), "places": places,
            "scores": None if outcome.scores is None else list(outcome.scores)}


# A request's CPU waits are read once it has been in flight this long (``Pending``).
WAITS_AFTER_S = 0.001


@dataclass
class Pending:
    """An ``act`` request in flight.

    Its bot's CPU time is read as it goes out (``used_ns``; None where there is no
    meter), the waits for a CPU only once it has lasted WAITS_AFTER_S (``cpu``, from
    ``Table.look``): most replies come before, and the read takes a system call per
    thread. Waits in that first moment are charged to the bot (``referee.cpuwait``)."""

    seq: int
    seat: int
    sent_at: float
    deadline: float  # moves on while the bot waits for a CPU (``Table.overdue``)
    budget_s: float
    used_ns: int | None
    cpu: CpuSample | None = None
    # ``sent_at`` moved on by a time in which the referee did not run (``Runner._forgive``):
    # the bot did, so its CPU time is charged whatever the wall time says.
    forgiven: bool = False

    @property
    def look_at(self) -> float:
        """When the runner must look at this request next (``Table.look``)."""
        if self.cpu is None and self.used_ns is not None:
            return min(self.deadline, self.sent_at + WAITS_AFTER_S)
        return self.deadline

    def start(self, meter: CpuMeter) -> CpuSample:
        """The counters the decision is measured from: with the waits of now if they
        were not read yet (none is subtracted then)."""
        return self.cpu or CpuSample(self.used_ns or 0, meter.waited_ns())


class Table:
    """A ``Match`` played by bot processes: the requests on the wire, the pending one,
    and the game's notices each seat has not been told yet."""

    def __init__(self, game: ScheduledGame, seats: list[BotInstance], rules: Game,
                 move_ms: int, bank_ms: int, max_faults: int, deals: Deals):
        self.seats, self.rules = seats, rules
        self.match = Match(game, [i.spec.name for i in seats], rules, move_ms, bank_ms,
                           max_faults, deals, [i.log for i in seats])
        self.engine = self.match.engine
        # Notices ride on a seat's next ``act`` (or its ``game_end``), which saves a
        # message per seat per event.
        self.unsent: list[list[dict[str, Any]]] = [[] for _ in seats]
        self.pending: Pending | None = None
        self._sent_events = 0

    @property
    def is_over(self) -> bool:
        return self.match.is_over

    @property
    def forfeited(self) -> list[BotInstance]:
        return [self.seats[s] for s in self.match.forfeited]

    def start(self) -> None:
        """Tell every seat the game starts; a seat whose bot is not running (it has been
        given up on) forfeits before the first decision."""
        m, game = self.match, self.match.game
        for seat, inst in enumerate(self.seats):
            inst.table = self
            if not inst.ready or inst.process is None:
                m.start_failure(seat, inst.given_up or "not running")
                continue
            inst.process.mark_game(game.index, seat)
            inst.send({"type": "game_start", "game": self.rules.name,
                       "game_id": f"{game.index}", "seat": seat, "players": len(self.seats),
                       "seed": m.deals.bot_seed(game.seed, game.seating[seat]),
                       "params": self.rules.params,
                       "time": {"move_ms": m.move_ms, "bank_ms": m.clocks[seat].bank_ms}})
        self._advance()

    def _advance(self) -> None:
        """After any change: queue each seat's notices, then ask the next seat."""
        engine = self.engine
        for seat, notice in engine.notices(self._sent_events):
            self.unsent[seat].append(notice)
        self._sent_events = len(engine.events)
        if engine.is_over:
            return
        seat = engine.current_seat
        inst = self.seats[seat]
        m = self.match
        budget_ms = m.budget_ms(seat)
        msg = {"type": "act", "view": engine.view(seat),
               "results": self._take_results(seat), "deadline_ms": int(budget_ms),
               "time": {"move_ms": m.move_ms, "bank_ms": int(m.clocks[seat].bank_ms)}}
        seq = inst.send(msg)
        now = time.perf_counter()
        # The bot's CPU time is read once the request is out (off the referee's path
        # from a reply to the next request): the bot cannot have woken to it yet.
        used = inst.meter.used_ns() if inst.meter else None
        self.pending = Pending(seq, seat, now, now + budget_ms / 1000, budget_ms / 1000, used)
        if seq is None:
            self.on_crash(inst, inst.why_unreachable())

    def _take_results(self, seat: int) -> list[dict[str, Any]]:
        results, self.unsent[seat] = self.unsent[seat], []
        return results

    def _settle(self, inst: BotInstance, received_at: float) -> tuple[int, float]:
        """Close the pending request of ``inst``: its seat and the time it took (ms)."""
        pending = self.pending
        assert pending is not None and self.seats[pending.seat] is inst
        self.pending = None
        return pending.seat, self._charged_s(pending, received_at) * 1000

    def _charged_s(self, pending: Pending, received_at: float) -> float:
        """What the pending request's decision is charged, for a reply ``received_at``."""
        # A reply stamped before its request went out was queued while the referee was
        # busy (see Hub.poll): it took no time the referee can charge.
        wall_s = max(0.0, received_at - pending.sent_at)
        meter = self.seats[pending.seat].meter
        if (wall_s * 1000 > self.match.move_ms or pending.forgiven) \
                and pending.used_ns is not None and meter is not None:
            # less the time spent waiting for a CPU
            return meter.charged_s(pending.start(meter), wall_s)
        return wall_s

    def look(self, now: float, at: float) -> None:
        """The runner's look at the pending request (``Pending.look_at``): its waits
        read if they are due ``now``; past its deadline at ``at`` and ``overdue``, a
        timeout."""
        pending = self.pending
        assert pending is not None
        meter = self.seats[pending.seat].meter
        if pending.cpu is None and pending.used_ns is not None \
                and now >= pending.sent_at + WAITS_AFTER_S:
            if meter is None:  # closed since (its process is gone): charged wall time
                pending.used_ns = None
            else:
                pending.cpu = CpuSample(pending.used_ns, meter.waited_ns())
        if at > pending.deadline and self.overdue(at):
            self.on_timeout(at)

    def came_late(self, received_at: float) -> bool:
        """Whether the reply to the pending request, received at ``received_at``, ran out
        of time: past its deadline and ``overdue`` then, or charged more than its budget
        within a deadline moved on by a time the referee did not run."""
        pending = self.pending
        assert pending is not None
        if received_at > pending.deadline:
            return self.overdue(received_at)
        return pending.forgiven and self._charged_s(pending, received_at) > pending.budget_s

    def overdue(self, now: float) -> bool:
        """At or past the pending request's deadline: whether it has run out of time.
        If the bot spent some of it waiting for a CPU (see ``referee.cpuwait``), it has
        not: the deadline moves on by what is left, and this says False."""
        pending = self.pending
        assert pending is not None
        meter = self.seats[pending.seat].meter
        if pending.used_ns is None or meter is None:
            return True
        grace_s = meter.grace_s(pending.start(meter), now - pending.sent_at, pending.budget_s)
        pending.deadline = now + grace_s
        return grace_s == 0.0

    def on_reply(self, inst: BotInstance, payload: Any, received_at: float) -> None:
        """The seat's reply to the pending request (the runner has matched the seq)."""
        seat, elapsed = self._settle(inst, received_at)
        try:
            action = self.rules.parse_action(payload)
        except ValueError as exc:
            self.match.malformed(seat, str(exc), elapsed)
        else:
            self.match.answer(seat, action, elapsed)
        self._advance()

    def on_bad_message(self, inst: BotInstance, error: str, received_at: float) -> None:
        """Something undecodable from a seat that owes a reply: a malformed reply."""
        seat, elapsed = self._settle(inst, received_at)
        self.match.malformed(seat, error, elapsed)
        self._advance()

    def on_timeout(self, now: float) -> None:
        pending = self.pending
        assert pending is not None
        self.pending = None
        self.match.timeout(pending.seat, (now - pending.sent_at) * 1000,
                           pending.budget_s * 1000)
        self._advance()

    def on_crash(self, inst: BotInstance, detail: str = "process exited") -> None:
        seat = self.seats.index(inst)
        if self.pending is not None and self.pending.seat == seat:
            self.pending = None
        if self.engine.active[seat] and not self.is_over:
            self.match.crash(seat, detail)
            self._advance()

    def record(self, ended_at: float | None = None) -> dict[str, Any]:
        return self.match.record(ended_at)

    def finish(self) -> None:
        end = game_end(self.engine.outcome())
        for seat, inst in enumerate(self.seats):
            if inst.table is self:
                inst.send({"type": "game_end", **end, "results": self._take_results(seat)})
                inst.table = None
