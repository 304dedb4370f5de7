"""The run's reaper: a small process that ends the bots of a referee that was killed.

A bot dies with the referee that started it (it asks Linux for SIGKILL when its parent
dies), except one that was being started at that very moment: bubblewrap's sandboxed
child (the init of the bot's PID namespace) asks to die with its parent only once the
sandbox is set up, tens of milliseconds after it exists, and a ``kill -9`` of the
referee in between leaves it and the bot running. Every bot process is in the run's
cgroups (``referee.cgroup``), so the run starts this process beside them: it waits for
the end of a pipe that only the referee holds open, which comes however the referee
ends, then kills what is in those cgroups and removes them. After a clean end there is
nothing left to kill. Where there are no cgroups, the next run's sweep is all there is.

    python -m referee.reaper DIR...   # stdin: the pipe
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from referee.cgroup import remove_tree

WAIT_S = 5.0  # for the reaper to finish, once the referee has let go of the pipe


class Reaper:
    """The reaper of a run's cgroup directories, started at once (see the module)."""

    def __init__(self, dirs: tuple[Path, ...]):
        """OSError if the process cannot be started."""
        read, self._write = os.pipe()  # both ends are not inherited by other children
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "referee.reaper", *map(str, dirs)], stdin=read,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)  # a Ctrl-C on the terminal is not for it
        except OSError:
            os.close(self._write)
            raise
        finally:
            os.close(read)

    def close(self) -> None:
        """Let go of the pipe (the cgroups are gone by now: the reaper finds nothing) and
        wait for the reaper, so that it is no zombie of this process."""
        if self._write < 0:
            return
        os.close(self._write)
        self._write = -1
        try:
            self._proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def main(dirs: list[str]) -> None:
    """Wait for the pipe on stdin to close, then end and remove ``dirs``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while sys.stdin.buffer.read(1 << 16):
        pass
    for d in dirs:
        remove_tree(Path(d))


if __name__ == "__main__":
    main(sys.argv[1:])
