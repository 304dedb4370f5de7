"""The sandbox through the CLI: `--sandbox auto` (the default) is bwrap where it works,
says so in one line at start and in config.json; honest bots play in it; untrusted bots
get no network, no write outside their private /tmp; nothing is left behind on any exit
path. The attacks themselves are in tests/hostile/test_sandbox_attacks.py."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.cgroup import detect
from referee.process import closed_to_others
from referee.sandbox import bwrap_problem, hosting_paths

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import _procs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLISH = ROOT / "bots" / "polish_poker"
BIN = Path(sys.executable).parent
REFEREE = str(BIN / "referee")
HAVE_BWRAP = bwrap_problem() is None
needs_bwrap = pytest.mark.skipif(not HAVE_BWRAP, reason=f"bwrap: {bwrap_problem()}")


@pytest.fixture
def listener():
    """A TCP port on loopback that accepts connections: the network a bot must not reach."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def referee(*args: str, home: Path | None = None, timeout: float = 180,
            ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "COLUMNS": "200"}
    if home is not None:
        env["HOME"] = str(home)  # where an unsandboxed probe writes, not the real HOME
        # ... but the compiled kernels stay where every run finds them
        env.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    return subprocess.run([REFEREE, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def run_probe(tmp_path: Path, port: int, *sandbox: str) -> subprocess.CompletedProcess[str]:
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "probe.py", bots / "probe.py")
    shutil.copy(POLISH / "caller.py", bots / "caller.py")
    (bots / "probe_port.txt").write_text(str(port))
    home = tmp_path / "home"
    home.mkdir()
    return referee("run", "--bots", str(bots / "probe.py"), str(bots / "caller.py"),
                   "--games", "2", "--seed", "3", *sandbox, "--out", str(tmp_path / "run"),
                   home=home)


def probe_report(tmp_path: Path) -> set[str]:
    text = (tmp_path / "run" / "logs" / "probe.0.stderr.log").read_text()
    return {line for line in text.splitlines() if ": " in line}


def recorded_sandbox(run: Path) -> str:
    return json.loads((run / "config.json").read_text())["config"]["sandbox"]


@needs_bwrap
def test_default_is_bwrap_it_blocks_network_and_writes_outside_its_tmp(tmp_path, listener):
    res = run_probe(tmp_path, listener)  # no --sandbox: auto
    assert res.returncode == 0, res.stderr
    assert probe_report(tmp_path) == {"network: blocked", "write beside me: blocked",
                                      "write home: ok"}
    assert not (tmp_path / "bots" / "written.txt").exists()
    assert not (tmp_path / "home" / "written.txt").exists()
    assert not (tmp_path / "run" / "sandbox").exists()  # its HOME was a private tmpfs
    start = [ln for ln in res.stdout.splitlines() if ln.startswith("sandbox:")]
    assert len(start) == 1 and start[0].startswith("sandbox: bwrap, 64M private /tmp")
    if detect().version:
        assert f"whole process tree (cgroup {detect().version})" in start[0]
    assert recorded_sandbox(tmp_path / "run") == "bwrap"
    games = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(games) == 2 and '"faults":[]' in games[0] and '"faults":[]' in games[1]
    assert oct((tmp_path / "run").stat().st_mode & 0o777) == "0o700"


def test_without_a_sandbox_the_probe_gets_through(tmp_path, listener):
    """The control: the same probe, trusted, reaches the network and writes beside
    itself, so the sandboxed test above can fail."""
    res = run_probe(tmp_path, listener, "--sandbox", "none")
    assert res.returncode == 0, res.stderr
    assert probe_report(tmp_path) == {"network: ok", "write beside me: ok",
                                      "write home: ok"}
    assert (tmp_path / "home" / "written.txt").exists()
    assert "sandbox: none, bots are trusted" in res.stdout
    assert recorded_sandbox(tmp_path / "run") == "none"


@pytest.mark.skipif(HAVE_BWRAP, reason="bwrap works here: auto picks it")
def test_auto_falls_back_to_none_with_a_notice(tmp_path, listener):
    res = run_probe(tmp_path, listener)
    assert res.returncode == 0, res.stderr
    assert "sandbox: none, bots are trusted (bwrap not usable:" in res.stdout
    assert recorded_sandbox(tmp_path / "run") == "none"


@pytest.mark.skipif(HAVE_BWRAP, reason="bwrap works here: the sandbox itself is tested")
def test_missing_bwrap_is_a_clear_error(tmp_path, listener):
    res = run_probe(tmp_path, listener, "--sandbox", "bwrap")
    assert res.returncode == 2
    assert "--sandbox bwrap:" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("args, message", [
    (["--sandbox", "docker"], "unknown sandbox 'docker'"),
    (["--limit-disk", "0"], "--limit-disk 0: give at least 1M"),
    (["--run-as", "uid-range:12x"], "write uid-range:BASE with a base uid"),
    (["--run-as", "uid-range:5"], "write uid-range:BASE with a base uid"),
    (["--run-as", "no-such-user-here"], "no user named 'no-such-user-here'"),
])
def test_bad_isolation_options_are_one_line_errors(tmp_path, args, message):
    if args[0] == "--run-as" and os.geteuid() != 0:
        pytest.skip("--run-as needs root")
    res = referee("run", "--bots", str(POLISH / "caller.py"),
                  str(POLISH / "caller.py"), "--games", "1", *args,
                  "--out", str(tmp_path / "run"))
    assert res.returncode == 2, res.stderr
    assert message in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.skipif(os.geteuid() != 0 or closed_to_others(hosting_paths()) is None,
                    reason="needs root and a Python closed to other users")
def test_run_as_without_a_sandbox_refuses_a_python_others_cannot_run(tmp_path):
    res = referee("run", "--bots", str(POLISH / "caller.py"),
                  str(POLISH / "caller.py"), "--games", "1", "--sandbox", "none",
                  "--run-as", "uid-range:2100000000", "--out", str(tmp_path / "run"))
    assert res.returncode == 2
    assert "other users cannot run this Python or read its packages" in res.stderr
    assert "Traceback" not in res.stderr


@needs_bwrap
def test_every_bundled_bot_plays_in_the_sandbox(tmp_path):
    """bots/polish_poker/*.py through the SDK host and the raw spec bot (pyzmq and msgpack,
    its own #! line): no faults under the default sandbox."""
    bots = sorted(str(p) for p in POLISH.glob("*.py") if p.name != "__init__.py")
    bots.append(str(ROOT / "tests" / "bots" / "raw_spec_bot.py"))
    res = referee("run", "--bots", *bots, "--games", "4", "--seed", "9",
                  "--out", str(tmp_path / "run"))
    assert res.returncode == 0, res.stderr
    records = [json.loads(ln) for ln in (tmp_path / "run" / "games.jsonl").read_text()
               .splitlines()]
    assert len(records) == 4 and all(r["faults"] == [] for r in records)
    assert recorded_sandbox(tmp_path / "run") == "bwrap"


C_BOT = r"""
/* A bot in C that never gets a hello through: it only shows that a compiled
   executable runs in the sandbox and sees its environment. */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    const char *e = getenv("REFEREE_ENDPOINT");
    fprintf(stderr, "C bot runs, endpoint %s, home %s\n", e ? e : "-", getenv("HOME"));
    return 7;
}
"""


@needs_bwrap
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_compiled_executable_runs_in_the_sandbox(tmp_path):
    """A C program starts in the sandbox (system libraries, the loader's cache) and
    sees its endpoint and HOME; it exits without a hello, which is exit 3 naming it."""
    src = tmp_path / "cbot.c"
    src.write_text(C_BOT)
    exe = tmp_path / "bots" / "cbot"
    exe.parent.mkdir()
    subprocess.run(["cc", "-O1", "-o", str(exe), str(src)], check=True)
    res = referee("run", "--bots", str(exe), str(POLISH / "caller.py"),
                  "--games", "1", "--strict-start", "--out", str(tmp_path / "run"))
    assert res.returncode == 3, res.stderr
    assert "exited with code 7" in res.stderr
    assert "C bot runs, endpoint ipc://" in res.stderr and "home /tmp/home" in res.stderr


def _cgroups_of(pid: int) -> list[str]:
    return [d.name for parent in detect().parents for d in parent.iterdir()
            if d.name.startswith(f"referee-{pid}-")]


@needs_bwrap
def test_ctrl_c_leaves_no_process_or_cgroup(tmp_path):
    """Interrupted mid-run: exit 130, and every bot process and the run's cgroups are
    gone."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("caller.py", "random_bot.py"):
        shutil.copy(POLISH / name, bots / name)
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    proc = subprocess.Popen(
        [REFEREE, "run", "--bots", str(bots / "caller.py"), str(bots / "random_bot.py"),
         "--games", "100000", "--move-time", "2s", "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    games = tmp_path / "run" / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (games.exists() and games.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)
    if detect().version:
        assert _cgroups_of(proc.pid)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert _cgroups_of(proc.pid) == []
    time.sleep(0.2)
    left = subprocess.run(["pgrep", "-f", str(bots)], capture_output=True, text=True)
    assert left.stdout.split() == []


def _reaper_of(pid: int) -> int:
    """The pid of the run's reaper (``referee.reaper``), a child of referee ``pid``."""
    reapers = [p for p, ppid, _, cmd in _procs() if ppid == pid and "referee.reaper" in cmd]
    assert reapers, f"referee {pid} has no reaper"
    return reapers[0]


@pytest.mark.skipif(not detect().version, reason="no writable cgroup here")
def test_cgroups_of_a_killed_referee_are_removed_by_the_next_run(tmp_path):
    """kill -9 of the referee and of its reaper (which would remove them at once) leaves
    the run's cgroups behind (the bots die with the referee); the next run removes them
    once nothing runs in them."""
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(POLISH / "caller.py", bots / "caller.py")
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    proc = subprocess.Popen(
        [REFEREE, "run", "--bots", str(bots / "caller.py"), str(bots / "caller.py"),
         "--games", "100000", "--out", str(tmp_path / "killed")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    games = tmp_path / "killed" / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (games.exists() and games.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(_reaper_of(proc.pid), signal.SIGKILL)
    proc.kill()
    proc.wait()
    assert _cgroups_of(proc.pid)
    res = referee("run", "--bots", str(bots / "caller.py"), str(bots / "caller.py"),
                  "--games", "1", "--out", str(tmp_path / "next"))
    assert res.returncode == 0, res.stderr
    assert _cgroups_of(proc.pid) == []


@needs_bwrap
def test_sandboxed_bots_load_the_kernels_compiled_once_and_cannot_change_them(tmp_path):
    """The first sandboxed run on a machine (here: a fresh cache folder) compiles the
    evaluator's kernels once; every bot process then loads them from numba's cache
    (no compile in the bot), and none can write to them."""
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "kernel_probe.py", bots / "kernel_probe.py")
    shutil.copy(POLISH / "caller.py", bots / "caller.py")
    cache = tmp_path / "cache"
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "XDG_CACHE_HOME": str(cache)}
    for run in ("run1", "run2"):
        res = subprocess.run([REFEREE, "run", "--bots", str(bots / "kernel_probe.py"),
                              str(bots / "caller.py"), "--players", "2", "--games", "4",
                              "--duplicate", "--sandbox", "bwrap", "--out", str(tmp_path / run)],
                             capture_output=True, text=True, env=env, timeout=300)
        assert res.returncode == 0, res.stderr
        logs = sorted((tmp_path / run / "logs").glob("kernel_probe.*.stderr.log"))
        reports = [ln for log in logs for ln in log.read_text().splitlines()
                   if ln.startswith(("kernels:", "planting:"))]
        assert len(logs) >= 2  # one process per deal of a duplicate group
        assert reports.count("kernels: hits=1 misses=0") == len(logs), reports
        assert reports.count("planting: refused") == len(logs), reports
    compiled = list((cache / "referee" / "kernels").iterdir())
    assert len(compiled) == 1 and not list(compiled[0].rglob("planted.py"))
