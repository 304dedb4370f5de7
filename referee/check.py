"""``referee check BOT``: does a bot speak the protocol and play legally?

Starts the bot as a run starts its bots (the same sandbox, limits and cgroups:
``referee.confine``), waits for its hello, plays the game's scripted turns (``Game.check_turns``:
positions a bot most easily gets wrong), judging each answer with the game
(``Game.judge``), sends a game end, then ``bye``, and reports each step as PASS or FAIL
with the reason. A failure after which the bot cannot be asked anything more (it
exited, or did not answer in time) stops the check there: the steps after it are not
run, rather than failed. The bot's logs go to a folder that is kept, and printed;
nothing else is left behind.
"""

from __future__ import annotations

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
from referee.games.api import Game
from referee.hub import Hub
from referee.logs import LogPump
from referee.process import BotLimits, BotSpec
from referee.sandbox import masks


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
        token = self.hub.new_token(self.peer, spec.name)
        self.logs = LogPump(limits.log_bytes)
        try:
            self.proc = confinement.start(spec, self.hub.endpoint, token, log_dir, "check",
                                          self.logs, game=rules.name,
                                          hide=masks(spec.path, [spec.path], log_dir.parent))
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


def _play_turn(s: _Session, rules: Game, view: dict[str, Any], move_ms: int) -> str:
    """Send the game's scripted ``view``; the answer must be an action the game allows."""
    seat, players = view.get("seat", 0), view.get("players", 2)
    s.send({"type": "game_start", "game": rules.name, "game_id": "check", "seat": seat,
            "players": players, "seed": 1, "params": rules.params,
            "time": {"move_ms": move_ms, "bank_ms": 0}})
    payload = s.request({"type": "act", "view": view, "deadline_ms": move_ms,
                         "results": [], "time": {"move_ms": move_ms, "bank_ms": 0}},
                        move_ms)
    try:
        action = rules.parse_action(payload)
    except ValueError as exc:
        raise CheckFailed(f"malformed action: {exc}") from None
    why = rules.judge(view, action)
    if why is not None:
        raise CheckFailed(f"illegal: {why}")
    s.send({"type": "game_end", "order": [], "places": [], "scores": None, "results": []})
    return f"played {action!r}"[:200]


def run_check(spec: BotSpec, rules: Game, move_ms: int, start_ms: int, console: Console,
              log_dir: Path, sandbox: str, limits: BotLimits) -> int:
    """Print one PASS/FAIL line per step of game ``rules``; 0 if all pass, 1 if any
    fails, 3 if it can't start. The bot runs in ``sandbox`` (resolved: ``bwrap`` or
    ``none``) under ``limits``, held as a run's bots are (``referee.confine``); its
    stdout and stderr go to ``log_dir``. What the bot wrote or is named is printed inert
    (``leaderboards.inert``)."""
    def line(mark: tuple[str, str] | str, text: str) -> None:
        console.print(Text.assemble(mark, inert.terminal(text)), soft_wrap=True)

    confinement = Confinement.open(sandbox, limits)
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
           partial(_play_turn, s, rules, view, move_ms))
          for i, (view, _, _) in enumerate(turns, 1)),
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
