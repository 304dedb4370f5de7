"""Attacks on how the referee holds bots outside ``referee run``'s own path: a stranger
given to ``referee check``, a kernel cache poisoned by a trusted bot for the sandboxed
runs after it, a bubblewrap trial start that is slow or fails (``--sandbox auto`` must
not fall back to trusting the bots), and two sandboxed colluders signalling through
locks and inotify watches on a file both sandboxes see. Each attack got through before
its fix; the CLI runs as a user would run it, with a kernel cache of the test's own
(``XDG_CACHE_HOME``), never the machine's.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import REFEREE, good, hostile, no_traceback  # noqa: E402

from referee.games import load_game  # noqa: E402
from referee.kernelcache import Tampered, cache_key, cache_root, verified  # noqa: E402
from referee.sandbox import Sandbox, bwrap_problem  # noqa: E402

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the attacks read root's files"),
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"bwrap: {bwrap_problem()}"),
]
SECRET = "STRANGER_SECRET"  # in the referee's environment only


class Planted:
    """What ``stranger.py`` writes in place of numba's index files (importing that bot
    would run its attacks here)."""

    def __reduce__(self):
        return exec, ("import sys, os; sys.stderr.write(f'KCACHE-PWNED uid={os.getuid()}\\n')",)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kernel cache of this module's commands: a copy of this machine's entry where
    it has a sound one (copied this way only, so nothing here can reach the machine's),
    else compiled by the first command that needs it."""
    cache = tmp_path_factory.mktemp("cache")
    root = cache_root()
    key = cache_key(Sandbox("bwrap"), load_game("polish-poker").kernels)
    machine = root / key if root is not None else None
    try:
        if machine is not None and verified(machine):
            shutil.copytree(machine, cache / "referee" / "kernels" / machine.name)
    except (OSError, Tampered):
        pass
    return cache


def referee(*args: str, cwd: Path, cache: Path, path: str | None = None,
            timeout: float = 240) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "XDG_CACHE_HOME": str(cache), SECRET: "x"}
    if path is not None:
        env["PATH"] = f"{path}:{env['PATH']}"
    res = subprocess.run([str(REFEREE), *args], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout, env=env)
    no_traceback(res)
    return res


def entries(cache: Path) -> list[Path]:
    root = cache / "referee" / "kernels"
    return [p for p in root.iterdir() if not p.name.startswith(".")] if root.is_dir() else []


def stderr_log(out: Path, label: str) -> str:
    return (out / "logs" / f"{label}.stderr.log").read_text()


def test_check_holds_a_stranger_as_run_does(tmp_path: Path, cache: Path):
    """``referee check`` once ran the bot unsandboxed: it read /etc/shadow and the
    referee's environment. Now it is in the default sandbox (said on the first line),
    which gets the kernels (compiled if need be) checked as a run's does."""
    bot = hostile(tmp_path, "stranger.py")
    res = referee("check", bot, "--out", str(tmp_path / "check"), cwd=tmp_path, cache=cache)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.splitlines()[0].startswith("sandbox: bwrap"), res.stdout
    log = stderr_log(tmp_path / "check", "check")
    assert "STRANGER shadow: refused" in log, log
    assert "STRANGER env: absent" in log and "STRANGER cache: no index file found" in log
    [entry] = entries(cache)
    assert any(name.endswith(".nbi") for name in verified(entry))


def test_kernel_cache_carries_no_code_between_bots(tmp_path: Path, cache: Path):
    """A trusted bot (``check --sandbox none``) plants pickles in the kernel cache: the
    referee sees the change when the bot is done and removes the entry. An entry changed
    where no referee watched (a trusted bot's process that outlived its run) is caught
    by its manifest before it is bound: the honest statistician of the next sandboxed
    check never runs the planted code (it did, as uid 2000000000, before the fix)."""
    if not entries(cache):
        referee("check", good(tmp_path, "caller.py")[0], "--out", str(tmp_path / "warm"),
                cwd=tmp_path, cache=cache)
    [entry] = entries(cache)
    saved = tmp_path / "saved"
    shutil.copytree(entry, saved)
    bot = hostile(tmp_path, "stranger.py")
    trusted = referee("check", bot, "--sandbox", "none", "--out", str(tmp_path / "trusted"),
                      cwd=tmp_path, cache=cache)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert "STRANGER cache: planted" in stderr_log(tmp_path / "trusted", "check")
    assert "kernel cache: the trusted bots changed" in trusted.stdout, trusted.stdout
    assert not entry.exists()
    assert not list(entry.parent.glob(".remove-*"))  # renamed out of the way, then deleted

    shutil.copytree(saved, entry)
    for index in entry.rglob("*.nbi"):
        index.write_bytes(pickle.dumps(Planted()))
    victim = good(tmp_path, "statistician.py")[0]
    res = referee("check", victim, "--out", str(tmp_path / "victim"), cwd=tmp_path,
                  cache=cache)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "its files are not the ones the referee compiled; removed" in res.stdout
    assert "KCACHE-PWNED" not in stderr_log(tmp_path / "victim", "check")
    [entry] = entries(cache)
    assert not any(b"KCACHE" in data for data in verified(entry).values())


def slow_bwrap(tmp_path: Path, trial: str) -> str:
    """A folder whose ``bwrap`` runs ``trial`` (shell) for bubblewrap's trial start (the
    command ``/bin/true``), then the real bubblewrap for every start."""
    d = tmp_path / "slowbin"
    d.mkdir()
    wrapper = d / "bwrap"
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *" /bin/true") {trial} ;; esac\n'
                       f'exec {shutil.which("bwrap")} "$@"\n')
    wrapper.chmod(0o755)
    return str(d)


def test_auto_sandbox_waits_for_a_slow_trial(tmp_path: Path, cache: Path):
    """Under load bubblewrap's trial start took over 10 s, and the run went on with
    "sandbox: none, bots are trusted": the stranger read root's files. A slow trial is
    waited for."""
    bots = [hostile(tmp_path, "stranger.py"), *good(tmp_path, "caller.py")]
    res = referee("run", "--bots", *bots, "--players", "2", "--games", "1",
                  "--no-duplicate", "--out", str(tmp_path / "run"), cwd=tmp_path, cache=cache,
                  path=slow_bwrap(tmp_path, "/bin/sleep 11"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "sandbox: bwrap" in res.stdout and "sandbox: none" not in res.stdout
    log = stderr_log(tmp_path / "run", "stranger.0")
    assert "STRANGER shadow: refused" in log and "STRANGER env: absent" in log, log


def test_auto_sandbox_stops_when_the_trial_fails_for_no_reason_of_this_machine(
        tmp_path: Path, cache: Path):
    """A trial start that dies (killed, out of processes) says nothing of what this
    machine can do: the command stops with exit 2, and no bot is started."""
    bot = hostile(tmp_path, "stranger.py")
    res = referee("check", bot, "--out", str(tmp_path / "check"), cwd=tmp_path, cache=cache,
                  path=slow_bwrap(tmp_path, "kill -9 $$"))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "bubblewrap's trial start failed" in res.stderr
    assert "not run unsandboxed" in res.stderr and not (tmp_path / "check").exists()


def test_sandboxed_colluders_share_no_lock_or_watch(tmp_path: Path, cache: Path):
    """Two bots at one table, each in its sandbox, signal through a file both see: the
    sender holds a flock, a POSIX and an OFD lock on it and opens it each turn; the
    receiver looks for the locks (taking its own, F_GETLK, F_OFD_GETLK) and for inotify
    IN_OPEN events, and reads the machine's counters (memory, load, CPU time, open
    files). Each of these carried hands before; now each is refused."""
    d = Path(hostile(tmp_path, "lock_sender.py")).parent
    hostile(tmp_path, "lock_receiver.py")
    res = referee("run", "--bots", f"s={d / 'lock_sender.py'}", f"r={d / 'lock_receiver.py'}",
                  "--players", "2", "--games", "2", "--no-duplicate", "--sandbox", "bwrap",
                  "--out", str(tmp_path / "run"), cwd=tmp_path, cache=cache)
    assert res.returncode == 0, res.stdout + res.stderr
    sender, receiver = (stderr_log(tmp_path / "run", f"{b}.0") for b in "sr")
    assert "CHANNEL-OPEN" not in receiver, receiver
    for channel in ("flock", "posix lock", "ofd lock"):
        assert f"SENDER {channel}: refused (Operation not permitted)" in sender, sender
        assert f"RECEIVER {channel}: refused (Operation not permitted)" in receiver, receiver
    assert "RECEIVER inotify: refused (Operation not permitted)" in receiver
    for counter in ("meminfo", "loadavg", "stat", "file-nr", "sysinfo"):
        assert f"RECEIVER {counter}: refused" in receiver, receiver


def test_cpu_turns_stop_the_other_seats(tmp_path: Path, cache: Path):
    """A receiver of the CPU channel measures how much it gets to run while its partner
    acts. With ``--cpu-turns`` it does not run at all then: its ticking thread pauses
    for as long as the other seat thinks (400 ms a turn; without the option, 9 ms at
    most on this machine under load)."""
    d = Path(hostile(tmp_path, "ticker.py")).parent
    hostile(tmp_path, "slow_thinker.py")
    res = referee("run", "--bots", str(d / "ticker.py"), str(d / "slow_thinker.py"),
                  "--players", "2", "--games", "1", "--no-duplicate", "--move-time", "2s",
                  "--cpu-turns", "--out", str(tmp_path / "run"), cwd=tmp_path, cache=cache)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "only the bots asked to act run" in res.stdout
    pauses = [int(line.split()[-1]) for line in
              stderr_log(tmp_path / "run", "ticker.0").splitlines() if "TICKER" in line]
    assert sum(p >= 350 for p in pauses) >= 2, pauses
