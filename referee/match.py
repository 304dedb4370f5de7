"""One game in progress between seated bot instances: the fault policy lives here.

A ``Table`` is driven by the runner's event loop. It asks the engine whose turn it
is, sends that seat's bot an ``act`` request with a deadline, and turns what comes
back (an action, garbage, nothing in time, a dead process) into engine calls:

- a legal action is applied; the seat's run of consecutive faults resets;
- ``malformed`` (undecodable or wrong schema), ``illegal`` (the engine refused it) and
  ``timeout``: the seat loses the round (``engine.fault``);
- ``crash`` (the process died), or ``max_faults`` faults in a row: the seat forfeits
  the game (``engine.forfeit``) and the runner ends the process.

No action is ever substituted for a bot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.games import GameRules
from referee.schedule import seat_seed

if TYPE_CHECKING:
    from referee.runner import BotInstance

SCHEMA_VERSION = 1


@dataclass
class Pending:
    """An ``act`` request in flight."""

    seq: int
    seat: int
    sent_at: float
    deadline: float


@dataclass
class SeatClock:
    """Decision times of one seat in one game, and what is left of its time bank."""

    bank_ms: float
    times_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        t = self.times_ms
        return {"decisions": len(t), "mean_ms": round(sum(t) / len(t), 3) if t else 0.0,
                "max_ms": round(max(t), 3) if t else 0.0, "total_ms": round(sum(t), 3)}


class Table:
    """One game: engine, seated instances, clocks and faults."""

    def __init__(self, index: int, seed: int, seats: list[BotInstance], rules: GameRules,
                 move_ms: int, bank_ms: int, max_faults: int):
        self.index, self.seed, self.seats, self.rules = index, seed, seats, rules
        self.move_ms, self.max_faults = move_ms, max_faults
        self.engine = rules.new_game(len(seats), seed)
        self.clocks = [SeatClock(bank_ms) for _ in seats]
        self.streak = [0] * len(seats)
        # Round results a seat has not been sent yet: they ride on its next ``act`` (or
        # its ``game_end``), which saves a message per seat per round.
        self.unsent: list[list[dict[str, Any]]] = [[] for _ in seats]
        self.faults: list[dict[str, Any]] = []
        self.pending: Pending | None = None
        self.started_at = time.time()
        self._sent_events = 0
        self.forfeited: list[BotInstance] = []

    @property
    def is_over(self) -> bool:
        return self.engine.is_over

    def start(self) -> None:
        """Tell every seat the game starts; a seat whose bot is not running (it could not
        be restarted) forfeits before the first decision."""
        for seat, inst in enumerate(self.seats):
            inst.table = self
            if not inst.ready:
                if not self.engine.is_over:
                    self._record(seat, "crash", "could not be restarted")
                    self.engine.forfeit(seat, "crash")
                self.forfeited.append(inst)
                continue
            inst.send({"type": "game_start", "game": self.rules.name,
                       "game_id": f"{self.index}", "seat": seat, "players": len(self.seats),
                       "seed": seat_seed(self.seed, seat), "params": self.rules.params,
                       "time": {"move_ms": self.move_ms, "bank_ms": self.clocks[seat].bank_ms}})
        self._advance()

    def _advance(self) -> None:
        """After any change: tell everyone about finished rounds, then ask the next seat."""
        events = self.engine.events
        for result in self.rules.round_results(events, self._sent_events):
            for seat, hand in enumerate(result["hands"]):
                if hand:  # the seat played that round
                    self.unsent[seat].append(result)
        self._sent_events = len(events)
        if self.is_over:
            return
        seat = self.engine.current_seat
        inst = self.seats[seat]
        budget_ms = self.move_ms + self.clocks[seat].bank_ms
        msg = {"type": "act", "view": self.rules.view_payload(self.engine, seat),
               "results": self._take_results(seat), "deadline_ms": int(budget_ms),
               "time": {"move_ms": self.move_ms, "bank_ms": int(self.clocks[seat].bank_ms)}}
        seq = inst.send(msg)
        now = time.perf_counter()
        self.pending = Pending(seq, seat, now, now + budget_ms / 1000)
        if seq is None:
            self.on_crash(inst, inst.why_unreachable())

    def _take_results(self, seat: int) -> list[dict[str, Any]]:
        results, self.unsent[seat] = self.unsent[seat], []
        return results

    def _charge(self, seat: int, elapsed_ms: float) -> None:
        clock = self.clocks[seat]
        clock.times_ms.append(elapsed_ms)
        clock.bank_ms = max(0.0, clock.bank_ms - max(0.0, elapsed_ms - self.move_ms))

    def on_reply(self, inst: BotInstance, payload: Any, received_at: float) -> None:
        """The seat's reply to the pending request (the runner has matched the seq)."""
        pending = self.pending
        assert pending is not None and self.seats[pending.seat] is inst
        self.pending = None
        self._charge(pending.seat, (received_at - pending.sent_at) * 1000)
        try:
            action = self.rules.parse_action(payload)
        except ValueError as exc:
            self._fault(pending.seat, "malformed", str(exc))
            return
        why = self.rules.apply(self.engine, pending.seat, action)
        if why is not None:
            self._fault(pending.seat, "illegal", why)
            return
        self.streak[pending.seat] = 0
        self._advance()

    def on_bad_message(self, inst: BotInstance, error: str, received_at: float) -> None:
        """Something undecodable from a seat that owes a reply: a malformed reply."""
        pending = self.pending
        assert pending is not None and self.seats[pending.seat] is inst
        self.pending = None
        self._charge(pending.seat, (received_at - pending.sent_at) * 1000)
        self._fault(pending.seat, "malformed", error)

    def on_timeout(self, now: float) -> None:
        pending = self.pending
        assert pending is not None
        self.pending = None
        self._charge(pending.seat, (now - pending.sent_at) * 1000)
        self.clocks[pending.seat].bank_ms = 0.0
        self._fault(pending.seat, "timeout",
                    f"no reply within {round((pending.deadline - pending.sent_at) * 1000)} ms")

    def on_crash(self, inst: BotInstance, detail: str = "process exited") -> None:
        seat = self.seats.index(inst)
        if self.pending is not None and self.pending.seat == seat:
            self.pending = None
        if self.engine.active[seat] and not self.is_over:
            self._record(seat, "crash", detail)
            self._forfeit(seat, "crash")

    def _record(self, seat: int, label: str, detail: str) -> None:
        self.faults.append({"round": self.engine.round, "seat": seat,
                            "bot": self.seats[seat].spec.name, "label": label,
                            "detail": detail[:200]})

    def _fault(self, seat: int, label: str, detail: str) -> None:
        self._record(seat, label, detail)
        self.streak[seat] += 1
        if self.streak[seat] >= self.max_faults:
            self._forfeit(seat, "faults")
        else:
            self.engine.fault(seat, label)
            self._advance()

    def _forfeit(self, seat: int, label: str) -> None:
        self.engine.forfeit(seat, label)
        self.forfeited.append(self.seats[seat])
        self._advance()

    def record(self) -> dict[str, Any]:
        """The journal line of the finished game."""
        order = self.engine.finishing_order
        places = [0] * len(self.seats)
        for place, seat in enumerate(order, 1):
            places[seat] = place
        return {
            "schema_version": SCHEMA_VERSION, "game": self.index, "seed": self.seed,
            "game_type": self.rules.name, "rules": self.rules.params.get("ruleset"),
            "players": len(self.seats), "seats": [i.spec.name for i in self.seats],
            "order": [self.seats[s].spec.name for s in order], "places": places,
            "rounds": self.engine.round, "faults": self.faults,
            "timing": [dict(bot=i.spec.name, **c.summary())
                       for i, c in zip(self.seats, self.clocks, strict=True)],
            "started_at": round(self.started_at, 3),
            "duration_s": round(time.time() - self.started_at, 4),
        }

    def finish(self) -> None:
        order = self.engine.finishing_order
        for seat, inst in enumerate(self.seats):
            if inst.table is self:
                inst.send({"type": "game_end", "order": list(order),
                           "results": self._take_results(seat)})
                inst.table = None
