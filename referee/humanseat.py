"""``referee play``: a person takes a seat in the terminal against bots.

The seat is a real seat of the run: ``human_relay`` is started for it like any bot
(same sandbox, same deadlines) and hands each request to this terminal over a unix
socket in its folder. The person sees what that seat's bot would see, the game's
``describe(view)`` (``api.describe_view`` for a game without one), and the notices;
types an action, read by the game's ``parse_local_action`` and judged by its ``judge_view``
(a bad one is a one-line error and the question is asked again); and sees the result.
The game is journalled like any other (``referee show`` replays it). ``quit`` (or
end of input, or Ctrl-C) leaves at once: the run stops as after Ctrl-C, the game in
progress is not journalled, and nothing is left running.
"""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from referee import human_relay
from referee.console import console, say
from referee.exits import EXIT_OK
from referee.games.api import Game
from referee.peercred import have_peer_credentials, socket_pid, tree_root
from referee.runner import Runner
from referee.runsetup import default_out, make_config, make_limits

SEAT_NAME = "you"
QUIT_WORDS = ("quit", "q", "exit")
HELP = ("type an action as shown after `you may`; `help` shows the table again; `quit` "
        "leaves (the game in progress is not recorded)")
ACCEPT_POLL_S = 0.2

Ask = Callable[[str], str | None]  # the prompt -> a line typed, or None at end of input
Say = Callable[[str], None]


class SeatFolder:
    """The seat's folder: the relay program and the socket it connects to, open to the
    uid a sandboxed seat runs as; removed on ``close``."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="referee-seat-"))
        self.path.chmod(0o755)
        self.program = self.path / "seat"
        self.program.write_text(f"#!{sys.executable}\n"
                                + Path(human_relay.__file__).read_text("utf-8"), "utf-8")
        self.program.chmod(0o755)
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(self.path / human_relay.SOCKET_NAME))
        (self.path / human_relay.SOCKET_NAME).chmod(0o666)
        self.listener.listen(1)
        self.listener.settimeout(ACCEPT_POLL_S)

    def accept(self, waiting: Callable[[], bool],
               trusted: Callable[[int | None], bool]) -> socket.socket | None:
        """The relay's connection, once it comes; None if ``waiting`` turns false first.
        A connection from a process that is not ``trusted`` (by its pid) is closed."""
        while waiting():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            if not trusted(socket_pid(conn)):
                conn.close()
                continue
            conn.settimeout(None)
            self.listener.close()  # one seat, one connection
            return conn
        return None

    def close(self) -> None:
        self.listener.close()  # closing twice is harmless
        shutil.rmtree(self.path, ignore_errors=True)


def _notices(msg: dict[str, Any], game: Game, say: Say) -> None:
    describe = game.describe_notice
    for notice in msg.get("results") or ():
        say(f"  {describe(notice)}")


def _decide(game: Game, view: dict[str, Any], ask: Ask, say: Say) -> dict[str, Any] | None:
    """The reply body for ``view`` from what the person types; None: they left."""
    describe = game.describe
    say(describe(view))
    while True:
        text = ask("your action (help, quit)> ")
        if text is None or text.strip().lower() in QUIT_WORDS:
            return None
        text = text.strip()
        if text.lower() in ("help", "?", ""):
            say(describe(view))
            say(HELP)
            continue
        try:
            action = game.parse_local_action(text)
            wire = game.encode_action(action)
        except (ValueError, TypeError, KeyError) as exc:
            say(f"error: {exc}")
            continue
        why = game.judge_view(view, action)
        if why is None:
            return {"action": wire}
        say(f"error: {why}")


def sit(conn: socket.socket, game: Game, ask: Ask, say: Say) -> bool:
    """Play the seat until the run says bye (True) or the person leaves (False)."""
    while (frame := human_relay.recv_frame(conn)) is not None:
        msg = msgpack.unpackb(frame)
        kind = msg.get("type")
        if kind == "game_start":
            say(f"--- game {msg['game_id']}: {msg['game']}, you are seat {msg['seat']} of "
                f"{msg['players']} ---")
        elif kind == "act":
            _notices(msg, game, say)
            body = _decide(game, msg["view"], ask, say)
            if body is None:
                return False
            human_relay.send_frame(conn, msgpack.packb(body))
        elif kind == "game_end":
            _notices(msg, game, say)
            seat_places = ", ".join(f"seat {s}: {p}" for s, p in enumerate(msg["places"]))
            scores = msg.get("scores")
            say(f"game over: places {seat_places}"
                + (f"; scores {', '.join(map(str, scores))}" if scores is not None else ""))
        elif kind == "bye":
            return True
    return True


def play_seat(runner: Runner, folder: SeatFolder, game: Game, ask: Ask, say: Say) -> bool:
    """Run ``runner`` (whose bots include ``folder.program``) in a thread and play its
    seat here. True if the run finished, False if the person left (the run is then
    interrupted). The runner's own failure is raised here."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            runner.run()
        except BaseException as exc:  # handed to the caller, whatever it is
            failed.append(exc)

    def seat_process(pid: int | None) -> bool:
        """Whether ``pid`` is the seat's relay (or in its tree: bwrap starts it), as the
        runner launched it; any process where the kernel does not name peers."""
        if not have_peer_credentials():
            return True
        roots = {i.process.pid for i in runner.instances
                 if i.spec.name == SEAT_NAME and i.process is not None}
        return pid is not None and tree_root(pid, roots) is not None

    thread = threading.Thread(target=run, name="referee-play", daemon=True)
    thread.start()
    finished = False
    try:  # Ctrl-C (or SIGTERM) stops the run as the person leaving does, then goes on up
        conn = folder.accept(thread.is_alive, seat_process)
        if conn is not None:
            with conn:
                finished = sit(conn, game, ask, say)
    finally:
        if not finished:
            runner.interrupt()
        thread.join()
    if failed:
        raise failed[0]
    return finished


def _typed(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        print(flush=True)  # the prompt's line ends
        return None


def _shown(text: str) -> None:
    print(text, flush=True)


def play_in_terminal(bots: list[str], game: Game, games: int, seed: int | None,
                     move_time: str, sandbox: str, out: Path | None) -> int:
    """``referee play``: the exit code. ConfigError, BotFileError or SandboxError for bad
    options, before anything is started."""

    folder = SeatFolder()
    out = out or default_out(f"play-{game.name}")
    runner: Runner | None = None
    try:
        config = make_config(
            [f"{SEAT_NAME}={folder.program}", *bots], game, None, games, seed, move_time,
            "0s", 1, 3, "30s", out, make_limits("2G", "0", 0, 256, "1M", None), sandbox,
            duplicate=False)
        say(f"{game.name}: you play against {', '.join(b.name for b in config.bots[1:])} "
                f"({games} game{'s' if games > 1 else ''}, {config.move_ms // 1000} s a "
                "decision); type `help` for help, `quit` to leave", to=console)
        runner = Runner(config, warn=say)
        finished = play_seat(runner, folder, game, _typed, _shown)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: their exit codes (130, 143)
        say(_left(runner.played if runner else 0, out), to=console)
        raise
    finally:
        folder.close()
    say(f"journalled in {out}: replay with `referee show {out}`" if finished
            else _left(runner.played if runner else 0, out), to=console)
    return EXIT_OK


def _left(played: int, out: Path) -> str:
    return (f"you left: the game in progress is not recorded; {played} finished game(s) "
            f"are in {out}")
