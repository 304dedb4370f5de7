"""``referee check BOT``: does a bot speak the protocol and play legally?

Starts the bot, waits for its hello, plays a few scripted turns of both rulesets
(opening, answering, after four flushes, after a five below aces, a position where only
a call is legal), sends a game end with a round result, then ``bye``, and reports each
step as PASS or FAIL with the reason. A failure after which the bot cannot be asked
anything more (it exited, or did not answer in time) stops the check there: the steps
after it are not run, rather than failed. The bot's logs go to a folder that is kept,
and printed; nothing else is left behind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console

from evaluator import parse_card, parse_cards, parse_declaration
from protocol.codec import MessageError
from protocol.messages import ActionReply, parse_bot_message
from protocol.polish import GAME, Action, ActionError, Raise, View
from referee.hub import Hub
from referee.logs import LogPump
from referee.process import BotLimits, BotProcess, BotSpec
from referee.sandbox import Sandbox


@dataclass(frozen=True)
class Turn:
    """One scripted decision: the view sent, and whether a call is the only legal answer."""

    label: str
    view: View


def _view(ruleset: str, seat: int, players: int, hand: str, community: str | None,
          history: list[tuple[int, str]], cap: int = 5) -> View:
    counts = tuple(len(parse_cards(hand)) if s == seat else 1 for s in range(players))
    return View(ruleset, seat, players, 1, cap, parse_cards(hand),
                parse_card(community) if community else None, counts, (True,) * players,
                history[0][0] if history else seat,
                tuple((s, parse_declaration(d, ruleset)) for s, d in history))


TURNS = (
    Turn("official, opening", _view("official", 0, 2, "Ah", "9c", [])),
    Turn("official, answering pair 9", _view("official", 1, 2, "Kd", "9c", [(0, "pair 9")])),
    Turn("official, after four flushes",
         _view("official", 2, 4, "Ts", "Jk", [(0, "flush s"), (1, "flush d"), (2, "flush h"),
                                               (3, "flush c")])),
    Turn("official, answering five T (a higher five or a call is legal)",
         _view("official", 0, 4, "Jd", "Jk", [(1, "three J"), (2, "four J"), (3, "five T")])),
    Turn("polacco, opening", _view("polacco", 0, 3, "7h", None, [])),
    Turn("polacco, top of the ladder (only a call is legal)",
         _view("polacco", 1, 3, "2c", None, [(0, "straight-flush s A")])),
)


class CheckFailed(Exception):
    """A step the bot failed; ``fatal`` when it cannot be asked anything more."""

    def __init__(self, detail: str, fatal: bool = False):
        super().__init__(detail)
        self.fatal = fatal


class _Session:
    def __init__(self, spec: BotSpec, start_ms: int, log_dir: Path):
        self.hub: Hub[str] = Hub()
        self.peer = "bot"
        token = self.hub.new_token(self.peer, spec.name)
        self.logs = LogPump(BotLimits().log_bytes)
        self.proc = BotProcess(spec, self.hub.endpoint, token, log_dir, "check", BotLimits(),
                               self.logs, Sandbox())
        self.seq = 0
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
        self.seq += 1
        msg["seq"] = self.seq
        if not self.hub.send(self.peer, msg):
            raise CheckFailed("the bot's connection is gone", fatal=True)
        return self.seq

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


def _play_turn(s: _Session, turn: Turn, move_ms: int) -> str:
    v = turn.view
    s.send({"type": "game_start", "game": GAME, "game_id": "check", "seat": v.seat,
            "players": v.players, "seed": 1, "params": {"ruleset": v.ruleset},
            "time": {"move_ms": move_ms, "bank_ms": 0}})
    payload = s.request({"type": "act", "view": v.to_wire(), "deadline_ms": move_ms,
                         "results": [], "time": {"move_ms": move_ms, "bank_ms": 0}},
                        move_ms)
    try:
        action = Action.from_wire(payload, v.ruleset)
    except ActionError as exc:
        raise CheckFailed(f"malformed action: {exc}") from None
    if isinstance(action, Raise):
        if not v.is_raise(action.declaration):
            raise CheckFailed(f"illegal: {action.declaration} is not a raise here")
        return f"raised to {action.declaration}"
    if not v.can_call:
        raise CheckFailed("illegal: a call when there is nothing to call")
    return "called"


def run_check(spec: BotSpec, move_ms: int, start_ms: int, console: Console,
              log_dir: Path) -> int:
    """Print one PASS/FAIL line per step; 0 if all pass, 1 if any fails, 3 if it can't
    start. The bot's stdout and stderr go to ``log_dir``."""
    s = _Session(spec, start_ms, log_dir)
    failures = 0
    steps: list[tuple[str, Callable[[], str]]] = [
        ("start and hello", lambda: (s.hello(), f"connected as {spec.name}")[1]),
        *((turn.label, partial(_play_turn, s, turn, move_ms)) for turn in TURNS),
        ("game end with a round result, and bye", partial(_say_bye, s, move_ms)),
    ]
    code = 0
    try:
        for number, (step, body) in enumerate(steps):
            try:
                detail = body()
            except CheckFailed as exc:
                failures += 1
                console.print(f"[bold red]FAIL[/] {step}: {exc}", highlight=False,
                              soft_wrap=True)
                if exc.fatal:
                    left = len(steps) - number - 1
                    if left:
                        console.print(f"stopped: the bot cannot be asked anything more, so "
                                      f"the {left} steps after this one were not run",
                                      highlight=False)
                    code = 3 if number == 0 else 1
                    break
            else:
                console.print(f"[green]PASS[/] {step}: {detail}", highlight=False,
                              soft_wrap=True)
    finally:
        s.close()
    console.print(f"bot logs: {log_dir}", highlight=False)
    verdict = "complies" if not failures else f"does not comply ({failures} failed)"
    console.print(f"{spec.name}: {verdict}", highlight=False)
    return code or (1 if failures else 0)


def _say_bye(s: _Session, move_ms: int) -> str:
    """Send a game end with a round result and ``bye``: the bot must exit with code 0."""
    s.send({"type": "game_end", "order": [1, 0], "results": [{
        "round": 1, "hands": [[48], [44], [40]], "community": None, "declaration": 6,
        "exists": False, "loser": 0, "reason": "bluff", "eliminated": False}]})
    s.send({"type": "bye"})
    code = s.proc.wait(max(2.0, move_ms / 1000))
    if code is None:
        raise CheckFailed("did not exit after bye", fatal=True)
    if code != 0:
        raise CheckFailed(f"exited with code {code}: {s.proc.stderr_tail()}", fatal=True)
    return "exited with code 0"
