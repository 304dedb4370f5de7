"""The run's reaper (``referee.reaper``): when the referee is killed, a bot process that
did not ask to die with it (as bubblewrap's sandboxed child has not, while it is being
set up) is ended all the same, and the run's cgroups are removed. A real referee-like
process, killed with SIGKILL; a real process left in a bot's cgroup."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.cgroup import detect

pytestmark = pytest.mark.skipif(not detect().version, reason="no cgroups to hold the bots")

HOLDER = textwrap.dedent("""
    import subprocess, sys, time
    from referee.confine import Confinement
    from referee.process import BotLimits
    held = Confinement.open("none", BotLimits())
    group = held.cgroups.bot("stray", 0, 64, "stray")
    # A child that does not ask to die with this process, in its own session.
    child = subprocess.Popen(["sleep", "300"], preexec_fn=group.join, start_new_session=True)
    print(child.pid, *held.cgroups.all_dirs, flush=True)
    time.sleep(300)
""")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_referees_stray_bot_is_ended_and_its_cgroups_removed() -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE,
                              text=True)
    try:
        pid, *dirs = holder.stdout.readline().split()
        stray = int(pid)
        assert alive(stray) and all(Path(d).is_dir() for d in dirs)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        deadline = time.monotonic() + 2
        while alive(stray) or any(Path(d).exists() for d in dirs):
            assert time.monotonic() < deadline, "the stray bot outlived its referee"
            time.sleep(0.02)
    finally:
        holder.kill()
        holder.wait()


def test_a_clean_end_leaves_no_reaper() -> None:
    from referee.confine import Confinement
    from referee.process import BotLimits

    held = Confinement.open("none", BotLimits())
    reaper = held.reaper
    assert reaper is not None
    held.close()
    assert reaper._proc.returncode == 0  # waited for: no zombie of this process
