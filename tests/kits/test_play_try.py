"""``referee play`` driven through a pseudo-terminal (a person typing: help, a bad action,
whole games, and leaving mid-game), and ``referee try`` on a good bot and a broken one."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFEREE = str(Path(sys.executable).parent / "referee")
PROMPT = "your action (help, quit)> "


class Terminal:
    """``referee`` on a pseudo-terminal: what it printed so far, and typing into it."""

    def __init__(self, *args: str):
        master, slave = os.openpty()
        self.master = master
        self.proc = subprocess.Popen([REFEREE, *args], cwd=ROOT, stdin=slave, stdout=slave,
                                     stderr=slave, start_new_session=True,
                                     env={**os.environ, "COLUMNS": "120"})
        os.close(slave)
        self.text = ""

    def read_until(self, *marks: str, timeout: float = 120) -> str:
        """Read until the output (since the last call) ends with a prompt or holds one
        of ``marks``; the text read."""
        start, end = len(self.text), time.monotonic() + timeout
        while time.monotonic() < end:
            new = self.text[start:]
            if new.endswith(PROMPT) or any(m in new for m in marks):
                return new
            ready, _, _ = select.select([self.master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the other side closed: the program ended
                    return self.text[start:]
                self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        raise AssertionError(f"no prompt within {timeout}s; output so far:\n{self.text[-3000:]}")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def wait(self, timeout: float = 60) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
            os.close(self.master)


def seat_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("referee-seat-*")}


def test_play_a_whole_game_with_help_and_a_bad_action_then_show_it(tmp_path):
    out = tmp_path / "run"
    term = Terminal("play", "--bots", "bots/polish_poker/caller.py", "--seed", "7", "--out",
                    str(out))
    shown = term.read_until()
    assert "your cards:" in shown and "cards held:" in shown
    term.type("help")
    assert "`quit` leaves" in term.read_until()
    term.type("pair Z")  # not a declaration: one line, and asked again
    answer = term.read_until()
    assert re.search(r"^error: declaration 'pair Z'.*$", answer, re.M), answer
    assert answer.endswith(PROMPT)
    # An action the rules forbid here: one line, and asked again.
    if "you open" in term.text.rsplit("round ", 1)[-1]:
        term.type("call")
        assert "error: a call when there is nothing to call" in term.read_until()
    else:  # the weakest declaration raises nothing
        term.type("high 9")
        assert re.search(r"^error: high 9 does not raise ", term.read_until(), re.M)
    for _ in range(200):
        table = term.text.rsplit("round ", 1)[-1]  # the table of this decision
        term.type("call" if "type `call`" in table else "high 9")
        shown = term.read_until("journalled in")
        if "journalled in" in shown:
            break
    assert "game over: places" in shown
    assert term.wait() == 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 1 and "you" in records[0]["seats"] and records[0]["faults"] == []
    replay = subprocess.run([REFEREE, "show", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    assert "you" in replay.stdout


def test_quit_mid_game_leaves_cleanly(tmp_path):
    out = tmp_path / "run"
    before = seat_folders()
    term = Terminal("play", "--game", "six-card-golf", "--bots",
                    "bots/six_card_golf/greedy_bot.py", "--out", str(out))
    shown = term.read_until()
    assert "you may: take stock | take discard-pile" in shown
    term.type("take stock")
    assert "you hold" in term.read_until()
    term.type("quit")
    left = term.read_until("finished game(s)")
    assert "you left: the game in progress is not recorded" in left
    assert term.wait() == 0
    assert not (out / "games.jsonl").exists() or (out / "games.jsonl").read_text() == ""
    assert seat_folders() <= before  # the seat's folder and socket are gone
    assert "Traceback" not in term.text


def test_try_a_good_bot_and_a_broken_one(tmp_path, arena):
    good = subprocess.run([REFEREE, "try", "bots/six_card_golf/greedy_bot.py", "--game",
                           "six-card-golf", "--param", "target=20", "--games", "4",
                           "--out", str(tmp_path / "good")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "greedy_bot: complies" in good.stdout
    assert "expected_bot" in good.stdout and "random_bot" in good.stdout  # the field
    assert (tmp_path / "good" / "replay.html").is_file()
    assert f"referee show {tmp_path / 'good'} --bot greedy_bot" in good.stdout
    broken = arena / "broken" / "broken.py"  # readable by the sandboxed bot's own uid
    broken.parent.mkdir(mode=0o755)
    broken.write_text("def act(view):\n    return 'place r9c9'\n")
    broken.chmod(0o644)
    bad = subprocess.run([REFEREE, "try", str(broken), "--game", "six-card-golf",
                          "--out", str(tmp_path / "bad")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "FAIL" in bad.stdout
    assert "no match was played" in bad.stdout + bad.stderr
    assert not (tmp_path / "bad" / "games.jsonl").exists()
