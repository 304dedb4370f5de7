"""The match runner: bot instances, the event loop, and the run directory.

One thread drives everything: it starts the bot processes each table needs as the table
is set (``referee.pool``: processes in proportion to the games in play, kept warm only
for the next games, and never one that has seen the game's deal), at most
``STARTING_AT_ONCE`` starting at a time so that the first table's are up first; it waits
on the hub for replies, fires deadlines, notices dead processes, and starts the next
scheduled game in a free slot. A bot that cannot start does not hold up the run: its
tables forfeit its seat (``referee.match``), unless the run was asked to be strict
(``RunConfig.strict_start``: every bot is started once before the first game, and one
that fails ends the run with ``BotStartError``).
Deadlines are measured from the moment a request is sent to the moment its reply is
taken off the socket (or, for a reply that waited while the loop worked for other
tables, the moment that work began: see ``Hub.poll``), less the time the bot waited for
a CPU (``referee.cpuwait``).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.codec import MessageError
from protocol.messages import ActionReply, new_seq, parse_bot_message
from referee.backlog import Backlog
from referee.cgroup import RunCgroups
from referee.config import RunConfig
from referee.confine import Confinement
from referee.cpuwait import CpuMeter, ThreadWaits
from referee.games.api import journal_events
from referee.hub import Hub
from referee.journal import transcript_steps
from referee.logs import LogPump
from referee.match import START_ATTEMPTS, Table
from referee.pool import BotPool, Lookahead
from referee.process import BotProcess, BotSpec, file_label
from referee.sandbox import Sandbox, masks
from referee.schedule import ScheduledGame, table_seatings
from referee.tournament import ProgressFn, Tournament

POLL_MS = 20
# A wait that ends this much after its time (counted from the end of the last) means the
# referee did not run, or was busy with work of its own such as starting processes.
STALL_S = 0.005
# Dealing with a wait's frames takes far less (a turn of the hub is at most 5 ms); this
# much means the referee did not run (stopped, or starved of a CPU) meanwhile.
GAP_S = 0.02
LIVENESS_EVERY_S = 0.05
# Deadlines are judged at most this long before now while frames stay unread.
UNREAD_LAG_S = 1.0
RETIRE_GRACE_S = 1.0  # a retired process has this long to exit on its `bye`
CRASH_TAIL_LINES = 5  # of a crashed bot's stderr, in its fault's detail
# Games looked ahead, per slot, for the bots whose idle processes are worth keeping.
LOOKAHEAD_PER_SLOT = 4
# A starting process still runnable at its start timeout is looked at again this much
# later, up to START_GRACE times the timeout (``BotInstance.start_failure``).
START_RECHECK_S = 0.5
START_GRACE = 3
# Processes starting at once: more only slow each other down, the first table's too.
STARTING_AT_ONCE = 2 * (os.cpu_count() or 1) + 2


def raise_open_files_limit() -> None:
    """Every bot process holds a few of the referee's file descriptors (its pipes, its
    connection, its CPU counters): a large field needs more than the usual soft limit
    of 1,024, and the hard limit is there for the asking."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:  # infinity: no soft value is safe
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def warm_processes(config: RunConfig) -> int:
    """Idle bot processes a runner keeps at most (``referee.pool``): ``--warm-processes``,
    or by default per seat in play the games of a deal (a duplicate group; 1 without), so
    that a bot's processes for one group play the next group's games without a new
    start. The processes then number at most the seats in play times one more than that
    (3 for 2 players, 7 for 3)."""
    if config.warm is not None:
        return config.warm
    group = len(table_seatings(tuple(range(config.players)))) if config.duplicate else 1
    return config.concurrency * config.players * group


class BotStartError(RuntimeError):
    """A bot that did not connect and say hello in time (or exited first); ``why`` says
    what happened, without the bot's name."""

    def __init__(self, message: str, why: str = ""):
        super().__init__(message)
        self.why = why or message


@dataclass
class BotCounters:
    """What one bot did wrong or oddly over the whole run."""

    stale: int = 0         # replies with a seq that is not the one awaited
    unsolicited: int = 0   # messages while no request was open (or sent before it)
    flood: int = 0         # messages over the hub's cap per turn of the loop
    connections_closed: int = 0  # connections over the cap per bot process
    processes_killed: int = 0  # of its trees, for connecting on after that (connguard)
    restarts: int = 0      # processes started after the run's first
    start_failures: int = 0  # processes that did not start (exited, refused, no hello)


class BotInstance:
    """One process of one bot (restarted under the same label if it dies), labelled
    ``<bot>.<slot>``, or ``<bot>.<slot>.<generation>`` for those its slot needed later
    (a process never plays two games of one deal: ``referee.pool``)."""

    def __init__(self, spec: BotSpec, slot: int, runner: Runner, generation: int = 0):
        self.spec, self.slot, self.runner, self.generation = spec, slot, runner, generation
        self.process: BotProcess | None = None
        self.ready = False
        self.refused: str | None = None  # why its hello was refused, if it was
        self.start_deadline = 0.0
        self.start_cap = 0.0  # the start timeout's end, however busy the machine
        self.table: Table | None = None
        self.meter: CpuMeter | None = None  # once it is ready
        self.restarts = 0
        self.frozen = False  # --cpu-turns: stopped while it owes no reply
        self._turns = runner.config.limits.turns
        self.launched = False  # its first process was started

    @property
    def label(self) -> str:
        number = f"{self.slot}.{self.generation}" if self.generation else f"{self.slot}"
        return f"{file_label(self.spec.name)}.{number}"

    @property
    def log(self) -> str:
        """Its stderr log, relative to the run directory; for an instance of a bot given
        up on (never started), the log of the bot's last failed start."""
        own = f"logs/{self.label}.stderr.log"
        return self.runner.failed_logs.get(self.spec.name, own) if self.given_up else own

    @property
    def given_up(self) -> str | None:
        """Why its bot is no longer started, if it is not (``referee.match``)."""
        return self.runner.given_up.get(self.spec.name)

    def start_failure(self, now: float) -> str | None:
        """Why its starting process has failed to start (None: it may still make it).
        At the start timeout a process that is running or waiting for a CPU (importing
        on a busy machine) is looked at again a little later, up to START_GRACE times the
        timeout; one that sleeps, or waits for anything else, has failed."""
        assert self.process is not None
        code = self.process.exit_code()
        if code is None and not self.refused and now <= self.start_deadline:
            return None
        if code is None and not self.refused and now <= self.start_cap \
                and self._runnable():
            self.start_deadline = now + START_RECHECK_S
            return None
        why = (f"exited with code {code}" if code is not None else
               f"was refused: {self.refused}" if self.refused else
               f"did not connect within {self.runner.config.start_timeout_ms} ms")
        tail = self.process.stderr_tail()
        return why + (f": {tail}" if tail else "")

    def _runnable(self) -> bool:
        assert self.process is not None
        meter = CpuMeter.open(self.process.pid, self.runner.carriers)
        if meter is None:
            return False
        try:
            return meter.runnable()
        finally:
            meter.close()

    def launch(self) -> None:
        hub = self.runner.hub
        token = hub.new_token(self, self.spec.name, dict(self.spec.options))
        cfg = self.runner.config
        try:
            self.process = self.runner.confinement.start(
                self.spec, hub.endpoint, token, cfg.out / "logs", self.label,
                self.runner.logs,
                instance=self.slot * len(cfg.bots) + cfg.bots.index(self.spec),
                hide=masks(self.spec.path, [b.path for b in cfg.bots], cfg.out),
                game=self.runner.rules.name, start_timeout_ms=cfg.start_timeout_ms)
        except OSError as exc:
            if exc.filename is not None and \
                    Path(exc.filename).resolve().is_relative_to(cfg.out.resolve()):
                raise  # the run directory failed, not the bot: a storage error
            why = f"could not be started: {exc.strerror or exc}"
            raise BotStartError(f"bot {self.spec.name} ({self.spec.path}) {why}",
                                why) from None
        hub.launched(self, self.process.pid)
        self.launched, self.ready, self.refused, self.frozen = True, False, None, False
        timeout_s = self.runner.config.start_timeout_ms / 1000
        self.start_deadline = time.perf_counter() + timeout_s
        self.start_cap = time.perf_counter() + START_GRACE * timeout_s

    def awaits_reply(self) -> bool:
        """Whether this bot owes a reply to an open request now."""
        table = self.table
        return table is not None and table.pending is not None \
            and table.seats[table.pending.seat] is self

    def send(self, message: dict[str, Any]) -> int | None:
        """Send with a fresh random ``seq`` (``new_seq``), which it returns; None if the
        bot is not reachable. With ``--cpu-turns`` a request lets this process run and
        stops every other process of the run that has said hello and owes no reply
        (``hold``)."""
        if self._turns and message["type"] == "act":
            for inst in self.runner.instances:
                if inst.ready:
                    inst.hold(inst is not self and not inst.awaits_reply())
        seq = message["seq"] = new_seq()
        return seq if self.runner.hub.send(self, message) else None

    def hold(self, frozen: bool) -> None:
        """Stop (``frozen``) or let run every process of this instance, where it has a
        freezer cgroup (``--cpu-turns``): two processes that owe no reply then never run
        at the same time, so neither can feel the other's use of the CPU, nor relay it
        through a third."""
        process = self.process
        if process is None or process.cgroup is None or self.frozen == frozen:
            return
        try:
            process.cgroup.freeze(frozen)
            self.frozen = frozen
        except OSError:  # its cgroup is gone with it
            pass

    def why_unreachable(self) -> str:
        """Why a send to this bot failed: usually its process is exiting, so wait a
        moment for the exit code."""
        if self.process is None:
            return "not running"
        code = self.process.wait(0.2)
        if code is None:
            return "not reachable: its connection was dropped"
        return self.exit_detail(code)

    def exit_detail(self, code: int) -> str:
        """A crash's detail: the exit code and the last lines of the bot's stderr (ends
        the process group first, so that nothing it started holds the pipe open)."""
        process = self.process
        assert process is not None
        self.stop()
        tail = process.stderr_tail(CRASH_TAIL_LINES, 600)
        return f"process exited with code {code}" + (f"; its stderr ends:\n{tail}" if tail
                                                      else "")

    def stop(self, grace_s: float = 0.0) -> None:
        if self.process is None:
            return
        self.process.kill(grace_s)
        self._forget()

    def retire(self) -> None:
        """The pool needs this process no more: say ``bye`` and let it exit by itself
        (SPEC: the bot exits on ``bye``); the run's loop ends it after RETIRE_GRACE_S."""
        if self.process is None or not self.ready:
            self.stop()
            return
        self.hold(False)
        self.send({"type": "bye"})
        # The hub knows it until it is ended: what it does meanwhile is still its own.
        self.runner.retired.append((self, self.process, time.perf_counter() + RETIRE_GRACE_S))
        self._let_go()

    def _forget(self) -> None:
        self.runner.hub.forget(self)
        self._let_go()

    def _let_go(self) -> None:
        self.process, self.ready = None, False
        if self.meter is not None:
            self.meter.close()
            self.meter = None


class Runner(Tournament):
    """Plays a run's games between bot processes and journals each one as it finishes
    (while the bots of the next requests think: ``referee.backlog``)."""

    def __init__(self, config: RunConfig, progress: ProgressFn | None = None,
                 schedule: Iterable[ScheduledGame] | None = None, resume: bool = False,
                 warn: Any = None, first_slot: int = 0):
        """See ``Tournament``; the run ends when the format has no game left, or after
        ``stop()`` (games in progress are finished) or ``interrupt()`` (they are not).
        ``first_slot`` numbers this runner's slots from there (in bot labels, so log
        files and sandboxes), so that the runners of several worker processes differ."""
        super().__init__(config, progress, schedule, resume, warn)
        raise_open_files_limit()
        other_users = config.limits.ids_for(0, config.sandbox != "none") is not None
        self.hub: Hub[BotInstance] = Hub(other_users=other_users,
                                         awaits=BotInstance.awaits_reply)
        self.confinement = Confinement(Sandbox(config.sandbox), config.limits)  # by open
        self.cgroups: RunCgroups | None = None  # the confinement's
        self.logs = LogPump(config.limits.log_bytes, warn)
        # The referee's threads whose waits for a CPU hold up a reply: those that carry
        # it, and those that share the interpreter lock with the loop that reads it.
        self.carriers = ThreadWaits.referee(self.hub.threads | {self.logs.thread_id})
        self.counters = {b.name: BotCounters() for b in config.bots}
        self.start_streak = {b.name: 0 for b in config.bots}  # failed starts in a row
        self.given_up: dict[str, str] = {}  # bot name -> why it is no longer started
        self.failed_logs: dict[str, str] = {}  # bot name -> the log of its last failed start
        # Told `bye` (``BotInstance.retire``): each with its process, ended at the time.
        self.retired: list[tuple[BotInstance, BotProcess, float]] = []
        self.pool: BotPool[BotInstance] = BotPool(
            config.bots, lambda spec, slot, gen: BotInstance(spec, slot, self, gen),
            first_slot, config.concurrency, warm=warm_processes(config))
        self.tables: list[Table | None] = [None] * config.concurrency
        # Per slot: the next game while its relaunched bots start.
        self.starting: list[tuple[ScheduledGame, list[BotInstance]] | None] = \
            [None] * config.concurrency
        self._ahead: Lookahead[ScheduledGame] | None = None
        self._first_slot = first_slot
        self.unjournaled = Backlog(most=config.concurrency)  # finished games
        self._stepped_at = 0.0  # when the loop last took a step of the backlog
        self._clock_at = time.perf_counter()  # the time kept up to (``_clock``)

    @property
    def instances(self) -> list[BotInstance]:
        return self.pool.instances

    def counters_report(self) -> dict[str, Any]:
        """What ``counters.json`` holds: per bot, then the hub's drops."""
        bots = {n: dict(vars(c)) for n, c in self.counters.items()}
        for name, drops in self.hub.drops_by_bot().items():
            for kind, n in drops.items():
                bots[name][kind] += n
        return {"bots": bots, "hub": self.hub.counters.as_dict()}

    def start_bots(self) -> None:
        """``strict_start``: start one process of every bot (STARTING_AT_ONCE at a time)
        and wait for its hello; BotStartError names the first bot that does not make it.
        The processes stay in the pool for the first games."""
        waiting = [BotInstance(b, self._first_slot, self) for b in self.config.bots]
        for bot, inst in enumerate(waiting):
            self.pool.adopt(inst, bot)
        while waiting and not self.interrupted:
            for inst in waiting:
                if inst.process is None and self._starting() < STARTING_AT_ONCE:
                    inst.launch()
            now = self._pump(POLL_MS)
            for inst in waiting:
                why = None if inst.ready or inst.process is None else inst.start_failure(now)
                if why is not None:
                    raise BotStartError(f"bot {inst.spec.name} ({inst.spec.path}) {why} "
                                        f"(its log: {self.config.out / inst.log})")
            waiting = [i for i in waiting if not i.ready]

    def _starting(self) -> int:
        """Processes started and not yet ready."""
        return sum(1 for i in self.pool.instances if i.process is not None and not i.ready)

    def open(self) -> None:
        self.config.out.chmod(0o700)  # nothing of the run is for the bots' users
        self.confinement = Confinement.open(self.config.sandbox, self.config.limits,
                                            self.rules.kernels)
        self.cgroups = self.confinement.cgroups
        if self.config.strict_start:
            self.start_bots()

    def play(self, games: Iterator[ScheduledGame | None]) -> None:
        """See ``Tournament.play``. A None from ``games`` means that no game is ready
        yet (a worker waiting for the main process): the slot stays free and asks again
        on the next turn of the loop. Finished games are journalled while the bots think
        (``referee.backlog``), and all of them before this returns."""
        try:
            self._play(games)
        finally:
            self.unjournaled.flush()

    def _play(self, games: Iterator[ScheduledGame | None]) -> None:
        ahead = self._ahead = Lookahead(games, LOOKAHEAD_PER_SLOT * self.config.concurrency,
                                        lambda g: g.seating)
        pending_games = True
        last_liveness = 0.0
        while True:
            if self.interrupted:
                self._abandon()
                return
            for s, table in enumerate(self.tables):
                if table is not None and table.is_over:
                    self._finish(s, table)
                    table = None
                if table is None and self.starting[s] is None and pending_games:
                    if self.stopping or ahead.exhausted:
                        pending_games = False
                    elif (nxt := ahead.take(self._busy_bots())) is not None:
                        self._prepare_table(s, nxt)
                if self.starting[s] is not None:
                    self._start_table_when_ready(s)
            if not pending_games and all(t is None for t in self.tables) \
                    and all(w is None for w in self.starting):
                return
            now = time.perf_counter()
            pending = [t.pending for t in self.tables if t and t.pending]
            looks = [p.look_at for p in pending]
            wait_ms = POLL_MS if not looks else min(POLL_MS, (min(looks) - now) * 1000)
            # A step of journalling when nothing is left to read, and a request has just
            # gone out (the step is done before the reply comes) or none is in flight.
            if self.unjournaled:
                fresh = not pending or any(p.sent_at > self._stepped_at for p in pending)
                if fresh and self.hub.quiet_since() >= now:
                    self._stepped_at = now
                    self.unjournaled.step()
                    wait_ms = 0.0
            now = self._pump(max(0.0, wait_ms))
            if any(now >= at for at in looks):
                self._look(now)
            if now - last_liveness > LIVENESS_EVERY_S:
                last_liveness = now
                self._check_liveness()
                self._end_retired(now)

    def _look(self, now: float) -> None:
        """Look at the pending requests (``Table.look``): their deadlines are judged at
        the last moment nothing was unread: a reply still on the socket (the turn ended
        before it) may have come in time, while the referee worked on others. Under a
        flood that leaves the socket never empty, the judging lags ``now`` by
        UNREAD_LAG_S at most."""
        # Never later than ``now``: what the referee did not see by then (it may have
        # been stopped since) is the next look's.
        at = min(now, max(self.hub.quiet_since(), now - UNREAD_LAG_S))
        for t in self.tables:
            if t is not None and t.pending is not None:
                t.look(now, at)

    def _busy_bots(self) -> set[int]:
        """The bot numbers seated at tables in progress or starting."""
        seated = [t.match.game.seating for t in self.tables if t is not None]
        seated += [w[0].seating for w in self.starting if w is not None]
        return {bot for seating in seated for bot in seating}

    def _abandon(self) -> None:
        """Leave the games in progress unfinished: they are not journalled."""
        for s, table in enumerate(self.tables):
            if table is not None:
                self.abandoned.append(table.match.game.index)
                for inst in table.seats:
                    if inst.table is table:
                        inst.table = None
                self.tables[s] = None
            if self.starting[s] is not None:
                self.abandoned.append(self.starting[s][0].index)
                self.starting[s] = None

    def _prepare_table(self, slot: int, game: ScheduledGame) -> None:
        """The table starts once its seated instances are ready (or given up on),
        without holding up the other slots."""
        self.starting[slot] = (game, self.pool.seat(game))

    def _relaunch(self, inst: BotInstance) -> None:
        """A process for an instance that has none (never started, or gone after a
        forfeit, a crash or a failed start), unless its bot has been given up on
        (``referee.match``)."""
        if inst.given_up is None:
            if inst.launched:
                inst.restarts += 1
                self.counters[inst.spec.name].restarts += 1
            try:
                inst.launch()
            except BotStartError as exc:  # the system would not run it
                inst.launched = True
                self._start_failed(inst, exc.why)

    def _start_failed(self, inst: BotInstance, why: str) -> None:
        """Count a failed start; the bot is given up on after START_ATTEMPTS in a row,
        else it is started again when there is room."""
        name = inst.spec.name
        inst.stop()
        self.counters[name].start_failures += 1
        self.start_streak[name] += 1
        self.failed_logs[name] = inst.log
        if self.start_streak[name] >= START_ATTEMPTS:
            self.given_up[name] = (f"could not be started {START_ATTEMPTS} times in a row; "
                                   f"the last {why}")

    def _start_table_when_ready(self, slot: int) -> None:
        game, seats = self.starting[slot]
        now = time.perf_counter()
        for inst in seats:
            if inst.process is not None and not inst.ready \
                    and (why := inst.start_failure(now)) is not None:
                self._start_failed(inst, why)
        room = STARTING_AT_ONCE - self._starting()
        for inst in seats:
            if inst.process is None and inst.given_up is None and room > 0:
                self._relaunch(inst)
                room -= 1
        if any(i.given_up is None and not i.ready for i in seats):
            return
        self.starting[slot] = None
        table = Table(game, seats, self.rules, self.config.move_ms, self.config.bank_ms,
                      self.config.max_faults, self.deals)
        self.tables[slot] = table
        table.start()

    def _finish(self, slot: int, table: Table) -> None:
        for inst in table.seats:
            inst.hold(False)
        table.finish()
        self.tables[slot] = None
        for inst in table.forfeited:
            inst.stop()
        self.pool.release(table.seats, self._ahead.soon() if self._ahead else ())
        self.unjournaled.add(self._journal_steps(table, time.time()))

    def _journal_steps(self, table: Table, ended_at: float) -> Iterator[None]:
        """``journal_game`` of a table that finished at ``ended_at``, in steps
        (``referee.backlog``)."""
        record = table.record(ended_at)
        events = journal_events(table.engine)
        yield
        line = yield from transcript_steps(record, events, table.match.decisions)
        yield
        self.journal_encoded(record, line)

    def _pump(self, timeout_ms: float) -> float:
        """Wait up to ``timeout_ms`` for frames and deal with them; the time it is done
        (``time.perf_counter``), up to which the clock is kept (``_clock``)."""
        items = self.hub.incoming(timeout_ms)  # lazily: each judged after the last
        # Since the last pump, the wait and the loop's own work (which takes next to
        # nothing, but for a table's start: that is forgiven too).
        self._clock(time.perf_counter(), timeout_ms / 1000, STALL_S)
        for item in items:
            inst = item.peer
            if item.hello:
                inst.ready, inst.refused = item.error is None, item.error
                if inst.ready and inst.process is not None:
                    inst.meter = CpuMeter.open(inst.process.pid, self.carriers)
                    self.start_streak[inst.spec.name] = 0
                    self.given_up.pop(inst.spec.name, None)
                continue
            counters = self.counters[inst.spec.name]
            table = inst.table
            pending = table.pending if table else None
            mine = inst.awaits_reply()
            reply: ActionReply | None = None
            error = item.error
            if error is None:
                try:
                    parsed = parse_bot_message(item.message)
                except MessageError as exc:
                    error = str(exc)
                else:
                    reply = parsed if isinstance(parsed, ActionReply) else None
                    if reply is None:
                        error = f"unexpected '{item.message['type']}' message"
            if reply is not None and not (mine and reply.seq == pending.seq):
                counters.stale += 1
            elif not mine:
                counters.unsolicited += 1
            elif table.came_late(item.received_at):
                counters.stale += 1
                table.on_timeout(item.received_at)
            elif reply is not None and reply.error is None:
                table.on_reply(inst, reply.action, item.received_at)
            else:  # undecodable, or the bot's own error reply (SPEC.md section 4)
                table.on_bad_message(inst, reply.error if reply else error, item.received_at)
        done = time.perf_counter()
        self._clock(done)
        return done

    def _clock(self, now: float, expected_s: float = 0.0, slack_s: float = GAP_S) -> None:
        """Keep the clock up to ``now``: since it was last kept, the referee expected to
        take ``expected_s`` (a wait's timeout). Over ``slack_s`` more, and it did not run
        or was busy with work of its own: that time is forgiven. Kept before every
        judgement of a deadline (a stop falls whole between two readings of the time,
        so no judgement sees it unforgiven)."""
        stalled_s = now - self._clock_at - expected_s
        if stalled_s > slack_s:
            self._forgive(now - stalled_s, now)
        self._clock_at = now

    def _forgive(self, start: float, end: float) -> None:
        """From ``start`` to ``end`` this process did not run (the machine was
        overloaded, or it was stopped), or did work of its own. Nobody can tell what the
        bots did meanwhile, so that time is not charged: a request in flight is taken as
        sent that much later (the part after it went out, for one sent meanwhile).
        Its bot's CPU time is charged still (``Pending.forgiven``)."""
        for table in self.tables:
            if table is not None and table.pending is not None:
                pending = table.pending
                stalled_s = end - max(pending.sent_at, start)
                if stalled_s > 0:
                    pending.sent_at += stalled_s
                    pending.deadline += stalled_s
                    pending.forgiven = True

    def _check_liveness(self) -> None:
        """End the instances whose process has exited (one that is still starting is
        ``_start_table_when_ready``'s); a seat in a game forfeits it."""
        for inst in self.instances:
            if inst.process is None or not inst.ready:
                continue
            code = inst.process.exit_code()
            if code is None:
                continue
            table = inst.table
            detail = inst.exit_detail(code)
            if table is not None:
                table.on_crash(inst, detail)

    def _end_retired(self, now: float) -> None:
        """Reap the retired processes that exited on their ``bye``; kill those past
        their grace."""
        kept = []
        for inst, process, deadline in self.retired:
            if process.exit_code() is not None or now > deadline:
                process.kill()
                self.hub.forget(inst)
            else:
                kept.append((inst, process, deadline))
        self.retired = kept

    def close(self) -> None:
        """End every bot process group (politely first) and the hub."""
        live = [i for i in self.instances if i.process is not None]
        for inst in live:
            inst.hold(False)  # a frozen process could not say goodbye
            if inst.ready:
                inst.send({"type": "bye"})
        deadline = time.perf_counter() + RETIRE_GRACE_S
        for inst, process, retired_by in self.retired:
            process.kill(max(0.0, retired_by - time.perf_counter()))
            self.hub.forget(inst)
        self.retired = []
        for inst in live:
            grace = deadline - time.perf_counter() if inst.ready else 0.0
            inst.stop(grace_s=max(0.0, grace))
        self.hub.close()
        self.carriers.close()
        self.logs.close()
        for note in self.confinement.close():  # a kernel cache the bots changed
            if self.warn is not None:
                self.warn(note)
        self.cgroups = None
