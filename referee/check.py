"""``referee check BOT``: does a bot speak the protocol and play legally?

Starts the bot as a run starts its bots (the same sandbox, limits and cgroups:
``referee.confine``), waits for its hello, plays the game's scripted turns
(``Game.check_turns``: positions a bot most easily gets wrong), each as a game of its own
with the messages a real run sends (SPEC.md section 4), judging each answer with the
game's engine (``Game.judge``), then says ``bye``, and reports each step as PASS or FAIL
with the reason and the action the bot sent. A failure after which the bot cannot be
asked anything more (it exited, or did not answer in time) stops the check there: the
steps after it are not run, rather than failed. The bot's logs go to a folder that is
kept, and printed; nothing else is left behind.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from leaderboards import inert
from protocol.codec import MessageError
from protocol.messages import ActionReply, new_seq, parse_bot_message
from referee.confine import Confinement
from referee.games.api import CheckTurn, Engine, Game
from referee.hub import Hub
from referee.logs import LogPump
from referee.match import game_end
from referee.process import BotLimits, BotSpec
from referee.sandbox import masks

SHOWN_CHARS = 200  # of a bot's action, in a PASS or FAIL line


class CheckFailed(Exception):
    """A step the bot failed; ``fatal`` when it cannot be asked anything more."""

    def __init__(self, detail: str, fatal: bool = False):
        super().__init__(detail)
        self.fatal = fatal


class _Session:
    def __init__(self, spec: BotSpec, rules: Game, start_ms: int, log_dir: Path,
                 confinement: Confinement):
        limits = confinement.limits
        self.hub: Hub[str] = Hub(other_users=limits.ids_for(
            0, confinement.sandbox.kind != "none") is not None)
        self.peer = "bot"
        token = self.hub.new_token(self.peer, spec.name, dict(spec.options))
        self.logs = LogPump(limits.log_bytes)
        try:
            self.proc = confinement.start(spec, self.hub.endpoint, token, log_dir, "check",
                                          self.logs, game=rules.name,
                                          hide=masks(spec.path, [spec.path], log_dir.parent),
                                          start_timeout_ms=start_ms)
        except OSError as exc:  # the system refused to run it (not a program, ...)
            self.hub.close()
            self.logs.close()
            raise CheckFailed(f"could not be started: {exc.strerror or exc}",
                              fatal=True) from None
        self.hub.launched(self.peer, self.proc.pid)
        self.start_ms = start_ms

    def hello(self) -> None:
        deadline = time.perf_counter() + self.start_ms / 1000
        while time.perf_counter() < deadline:
            for item in self.hub.poll(50):
                if item.hello:
                    if item.error:
                        raise CheckFailed(item.error, fatal=True)
                    return
            if self.proc.exit_code() is not None:
                raise CheckFailed(f"exited with code {self.proc.exit_code()} before saying "
                                  f"hello: {self.proc.stderr_tail()}", fatal=True)
        raise CheckFailed(f"no hello within {self.start_ms} ms (REFEREE_ENDPOINT and "
                          "REFEREE_TOKEN are in its environment)", fatal=True)

    def send(self, msg: dict[str, Any]) -> int:
        seq = msg["seq"] = new_seq()
        if not self.hub.send(self.peer, msg):
            raise CheckFailed("the bot's connection is gone", fatal=True)
        return seq

    def request(self, msg: dict[str, Any], timeout_ms: int) -> Any:
        seq = self.send(msg)
        deadline = time.perf_counter() + timeout_ms / 1000
        while (left := deadline - time.perf_counter()) > 0:
            for item in self.hub.poll(left * 1000):
                if item.error:
                    raise CheckFailed(f"malformed reply: {item.error}")
                try:
                    reply = parse_bot_message(item.message)
                except MessageError as exc:
                    raise CheckFailed(f"malformed reply: {exc}") from None
                if not isinstance(reply, ActionReply):
                    raise CheckFailed("expected an 'action' message")
                if reply.seq != seq:
                    raise CheckFailed(f"reply echoes seq {reply.seq}, expected {seq}")
                if reply.error is not None:
                    raise CheckFailed(f"malformed: the bot reports an error: {reply.error}"
                                      [:300])
                return reply.action
            if self.proc.exit_code() is not None:
                raise CheckFailed(f"the bot exited (code {self.proc.exit_code()}): "
                                  f"{self.proc.stderr_tail()}", fatal=True)
        raise CheckFailed(f"no reply within {timeout_ms} ms", fatal=True)

    def close(self) -> None:
        self.proc.kill()
        self.hub.close()
        self.logs.close()


def _play_turn(s: _Session, rules: Game, turn: CheckTurn, move_ms: int) -> str:
    """Play the game's scripted position as a real run would: ``game_start``, an ``act``
    with the position's view and the notices the seat has had so far; the answer must be
    an action the engine accepts there. The other seats then leave the game, which ends
    it, and ``game_end`` carries its places, scores, order and the seat's notices."""
    engine = copy.deepcopy(turn.engine)
    seat = engine.current_seat
    assert seat is not None, "a check turn has a seat to act"
    clock = {"move_ms": move_ms, "bank_ms": 0}
    s.send({"type": "game_start", "game": rules.name, "game_id": "check", "seat": seat,
            "players": engine.players, "seed": 1, "params": rules.params, "time": clock})
    payload = s.request({"type": "act", "view": engine.view(seat),
                         "results": _notices(engine, seat, 0), "deadline_ms": move_ms,
                         "time": clock}, move_ms)
    sent = _shown(payload)
    try:
        action = rules.parse_action(payload)
    except ValueError as exc:
        raise CheckFailed(f"malformed action {sent}: {exc}") from None
    why = rules.judge(engine, action)
    if why is not None:
        raise CheckFailed(f"illegal action {sent}: {why}")
    since = len(engine.events)
    engine.apply(seat, action)
    for other in range(engine.players):
        if other != seat and not engine.is_over and engine.active[other]:
            engine.forfeit(other, "check")
    s.send({"type": "game_end", **game_end(engine.outcome()),
            "results": _notices(engine, seat, since)})
    return f"played {sent}"


def _notices(engine: Engine, seat: int, since: int) -> list[dict[str, Any]]:
    return [payload for to, payload in engine.notices(since) if to == seat]


def _shown(payload: Any) -> str:
    """What the bot sent, as JSON (its own values, not Python's reprs), cut short."""
    text = json.dumps(payload, ensure_ascii=False, default=repr)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def run_check(spec: BotSpec, rules: Game, move_ms: int, start_ms: int, console: Console,
              log_dir: Path, sandbox: str, limits: BotLimits) -> int:
    """Print one PASS/FAIL line per step of game ``rules``; 0 if all pass, 1 if any
    fails, 3 if it can't start. The bot runs in ``sandbox`` (resolved: ``bwrap`` or
    ``none``) under ``limits``, held as a run's bots are (``referee.confine``); its
    stdout and stderr go to ``log_dir``. What the bot wrote or is named is printed inert
    (``leaderboards.inert``)."""
    def line(mark: tuple[str, str] | str, text: str) -> None:
        console.print(Text.assemble(mark, inert.terminal(text)), soft_wrap=True)

    confinement = Confinement.open(sandbox, limits, rules.kernels)
    try:
        return _check(spec, rules, move_ms, start_ms, log_dir, confinement, line)
    finally:
        for note in confinement.close():
            line("", note)


def _check(spec: BotSpec, rules: Game, move_ms: int, start_ms: int, log_dir: Path,
           confinement: Confinement, line: Callable[..., None]) -> int:
    try:
        s = _Session(spec, rules, start_ms, log_dir, confinement)
    except CheckFailed as exc:
        line(("FAIL ", "bold red"), f"start and hello: {exc}")
        return 3
    failures = 0
    turns = rules.check_turns()
    steps: list[tuple[str, Callable[[], str]]] = [
        ("start and hello", lambda: (s.hello(), f"connected as {spec.name}")[1]),
        *((f"{rules.name}, scripted turn {i} of {len(turns)}",
           partial(_play_turn, s, rules, turn, move_ms))
          for i, turn in enumerate(turns, 1)),
        ("bye", partial(_say_bye, s, move_ms)),
    ]
    code = 0
    try:
        for number, (step, body) in enumerate(steps):
            try:
                detail = body()
            except CheckFailed as exc:
                failures += 1
                line(("FAIL ", "bold red"), f"{step}: {exc}")
                if exc.fatal:
                    left = len(steps) - number - 1
                    if left:
                        line("", f"stopped: the bot cannot be asked anything more, so "
                                 f"the {left} steps after this one were not run")
                    code = 3 if number == 0 else 1
                    break
            else:
                line(("PASS ", "green"), f"{step}: {detail}")
    finally:
        s.close()
    line("", f"bot logs: {log_dir}")
    verdict = "complies" if not failures else f"does not comply ({failures} failed)"
    line("", f"{spec.name}: {verdict}")
    return code or (1 if failures else 0)


def _say_bye(s: _Session, move_ms: int) -> str:
    """Send ``bye``: the bot must exit with code 0."""
    s.send({"type": "bye"})
    code = s.proc.wait(max(2.0, move_ms / 1000))
    if code is None:
        raise CheckFailed("did not exit after bye", fatal=True)
    if code != 0:
        raise CheckFailed(f"exited with code {code}: {s.proc.stderr_tail()}", fatal=True)
    return "exited with code 0"
