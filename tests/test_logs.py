"""Bot logs (``referee.logs``): where the referee's game markers fall in a bot's output.

A real child process writes into a pipe the pump copies; it writes only when told (on
its stdin) and says on its stdout when it has, so each test knows what is in the pipe.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.logs import LogPump

CHILD = r"""
import sys
for line in sys.stdin:
    sys.stderr.write(eval(line))
    sys.stderr.flush()
    print("ok", flush=True)
"""


class Child:
    def __init__(self, pump: LogPump, path: Path):
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.stream = pump.attach(self.proc.stderr.buffer, path, path.parent)

    def write(self, text: str) -> None:
        """The child writes ``text``; it is in the pipe when this returns."""
        self.proc.stdin.write(repr(text) + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline() == "ok\n"

    def end(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()
        self.stream.done.wait(5)


def run(tmp_path: Path, steps: list[str | None]) -> str:
    """Each step: text the child writes, or None for a mark; the log file."""
    log = tmp_path / f"bot{len(list(tmp_path.glob('*.log')))}.log"
    pump = LogPump(cap_bytes=1 << 20)
    child = Child(pump, log)
    for n, step in enumerate(steps):
        if step is None:
            pump.mark(child.stream, f"[referee] mark {n}\n")
        else:
            child.write(step)
    child.end()
    pump.close()
    return log.read_text()


def test_a_mark_falls_after_everything_written_before_it(tmp_path):
    """Written just before the mark (the pump has had no time to copy it) comes first."""
    assert run(tmp_path, ["one\ntwo\n", None, "three\n"]) == \
        "one\ntwo\n[referee] mark 1\nthree\n"


def test_a_mark_never_cuts_a_line(tmp_path):
    """A line written in two parts (Python's unbuffered ``print`` writes the text, then the
    newline) stays one line: the mark waits for its end."""
    assert run(tmp_path, ["game 12: playing", None, "\n", "next\n"]) == \
        "game 12: playing\n[referee] mark 1\nnext\n"
    assert run(tmp_path, ["half", None, " more", " done\nrest\n"]) == \
        "half more done\n[referee] mark 1\nrest\n"


def test_a_mark_without_output_after_it_is_not_written(tmp_path):
    assert run(tmp_path, ["a\n", None]) == "a\n"
