"""Bots that try to leave their confinement: under ``--sandbox bwrap``, and without a
sandbox under ``--run-as uid-range:BASE`` (each bot its own user), every attack that
mode promises to stop fails, the run completes, honest bots play on unharmed, and
nothing is left running (no process, no cgroup). One control run without either shows
the same attacks getting through, so that these tests can fail.

Runs as root (the CI and this machine): ``--run-as`` and the per-bot uids need it.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import HOSTILE, POLISH, ROOT, assert_nothing_left, check_run  # noqa: E402

from referee.cgroup import detect  # noqa: E402
from referee.config import RunConfig  # noqa: E402
from referee.process import UID_BASE, BotLimits, closed_to_others, resolve_bots  # noqa: E402
from referee.runner import BotStartError, Runner  # noqa: E402
from referee.sandbox import bwrap_problem, hosting_paths  # noqa: E402

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="per-bot uids need a root referee"),
    pytest.mark.skipif(bwrap_problem() is not None, reason=f"bwrap: {bwrap_problem()}"),
]
RUN_AS_BASE = 2_100_000_000
CLOSED = closed_to_others(hosting_paths())
# Where only this Python is closed to other users (pyenv under /root), the bots of
# --run-as tests are executables that host them with the system's Python of the same
# version and this environment's packages (where those are open to other users).
SYSTEM_PYTHON = Path("/usr/bin/python3")
SAME_VERSION = f"import sys; sys.exit(sys.version_info[:2] != {sys.version_info[:2]})"
TWIN = CLOSED is not None and closed_to_others(hosting_paths()[1:]) is None \
    and SYSTEM_PYTHON.exists() and subprocess.run(
    [str(SYSTEM_PYTHON), "-c", SAME_VERSION], capture_output=True).returncode == 0
needs_open_python = pytest.mark.skipif(
    CLOSED is not None and not TWIN,
    reason=f"--run-as without a sandbox: {CLOSED} closes this Python or its packages to "
           "other users, and the system has no open Python of the same version")
MODES = {
    "bwrap": ("bwrap", None),
    "run-as": ("none", f"uid-range:{RUN_AS_BASE}"),
}
ALLOWED_ENV = {"PWD", "PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH", "PYTHONUNBUFFERED",
               "NUMBA_CACHE_DIR", "REFEREE_ENDPOINT", "REFEREE_TOKEN", "REFEREE_GAME",
               "REFEREE_KERNELS", "REFEREE_START_TIMEOUT_MS"}  # SPEC.md, Starting
SECRET = "referee-secret-7f3a9c"  # in the referee's environment only


class Servers:
    """What a bot must not reach: a unix socket in a world-open directory, an abstract
    unix socket, and a TCP port on loopback. Each answers ``host`` and counts visits."""

    def __init__(self, where: Path):
        self.visits = 0
        self.unix_path = where / "service.sock"
        self.abstract = f"referee-test-{os.getpid()}-{id(self)}"
        self._socks = []
        for family, address in ((socket.AF_UNIX, str(self.unix_path)),
                                (socket.AF_UNIX, "\0" + self.abstract),
                                (socket.AF_INET, ("127.0.0.1", 0))):
            s = socket.socket(family)
            s.bind(address)
            s.listen(8)
            self._socks.append(s)
        os.chmod(self.unix_path, 0o666)
        self.tcp_port = self._socks[2].getsockname()[1]
        for s in self._socks:
            threading.Thread(target=self._serve, args=(s,), daemon=True).start()

    def _serve(self, s: socket.socket) -> None:
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            self.visits += 1
            with conn:
                conn.sendall(b"host")

    def close(self) -> None:
        for s in self._socks:
            s.close()


@pytest.fixture
def arena(tmp_path, monkeypatch) -> Iterator[Path]:
    """A world-readable directory for the bots (a bot of its own uid must be able to
    read its file without a sandbox) and host services, removed afterwards."""
    monkeypatch.setenv("REFEREE_TEST_SECRET", SECRET)
    d = Path(tempfile.mkdtemp(prefix="referee-arena-"))
    d.chmod(0o755)
    (d / "host").mkdir(mode=0o777)
    (d / "host").chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def bots_in(arena: Path, *names: str, mode: str = "bwrap") -> list[str]:
    d = arena / "bots"
    d.mkdir(exist_ok=True)
    out = []
    for name in names:
        src = POLISH / name if (POLISH / name).exists() else HOSTILE / name
        shutil.copy(src, d / name)
        out.append(str(d / name) if mode != "run-as" or not TWIN else host_with_twin(d / name))
    return out


def host_with_twin(bot: Path) -> str:
    """An executable beside ``bot`` (same name, no suffix) that hosts it through the SDK
    with the system's Python."""
    exe = bot.with_suffix("")
    paths = [site.getsitepackages()[0], str(ROOT)]
    exe.write_text(f"#!{SYSTEM_PYTHON}\nimport sys\nsys.path[:0] = {paths!r}\n"
                   f"from referee.sdkhost import main\nsys.exit(main([{str(bot)!r}]))\n")
    exe.chmod(0o755)
    return str(exe)


def config(tmp_path: Path, bots: list[str], mode: str, *, games: int = 2,
           limits: BotLimits | None = None, move_ms: int = 10_000,
           out: Path | None = None) -> RunConfig:
    sandbox, run_as = MODES[mode] if mode in MODES else ("none", None)
    return RunConfig(
        bots=tuple(resolve_bots(bots)), params={"ruleset": "official"}, players=len(bots),
        games=games,
        seed=5, move_ms=move_ms, bank_ms=10_000, concurrency=1, max_faults=3,
        start_timeout_ms=20_000, out=out or tmp_path / "run", sandbox=sandbox,
        limits=replace(limits or BotLimits(), run_as=run_as))


def bot_uids(marker: str) -> dict[int, int]:
    """pid -> host uid of every bot process (not the bwrap processes that hold its
    sandbox) whose command line names ``marker``. No command line, which every user of
    the host can read, may hold a token."""
    found = {}
    for p in Path("/proc").iterdir():
        try:
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            status = (p / "status").read_text()
        except OSError:
            continue
        if marker in cmd:
            assert "REFEREE_TOKEN" not in cmd, cmd
            if not cmd.split(" ")[0].endswith("bwrap"):
                found[int(p.name)] = int(status.split("\nUid:")[1].split()[0])
    return found


def no_cgroups_left() -> None:
    for parent in detect().parents:
        left = [p.name for p in parent.iterdir() if p.name.startswith(f"referee-{os.getpid()}-")]
        assert not left, left


def attack_run(tmp_path: Path, arena: Path, mode: str, run_dir: Path | None = None,
               **targets) -> tuple[dict, str, dict]:
    """A run of the attacker against caller and random_bot (in the same directory).
    Returns what each attack got, the attacker's whole stderr, and the bots' host uids
    seen from outside during the run."""
    servers = Servers(arena / "host")
    attacker, caller, rnd = bots_in(arena, "sandbox_attacker.py", "caller.py",
                                    "random_bot.py", mode=mode)
    run_dir = run_dir or tmp_path / "run"
    (arena / "bots" / "targets.json").write_text(json.dumps({
        "run_dir": str(run_dir), "other_log": str(run_dir / "logs" / "caller.0.stderr.log"),
        "other_bot": str(Path(caller).with_suffix(".py")),
        "referee_pid": os.getpid(), "env_marker": SECRET,
        "unix_socket": str(servers.unix_path), "abstract_socket": servers.abstract,
        "tcp_port": servers.tcp_port, "marker": str(arena / "bots"),
        "root_files": [str(p) for p in Path("/root").iterdir() if p.is_file()], **targets}))
    uids: dict[int, int] = {}
    cfg = config(tmp_path, [attacker, caller, rnd], mode, out=run_dir)
    # Sampled while the run lasts: its progress callback may come after a bot has ended
    # (a game is journalled while the next ones are played).
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            uids.update(bot_uids(str(arena)))

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        Runner(cfg).run()
    finally:
        done.set()
        sampler.join()
        servers.close()
    labels, _, _ = check_run(run_dir, None, cfg.games)  # nobody faulted
    assert not labels
    stderr = (run_dir / "logs" / "sandbox_attacker.0.stderr.log").read_text()
    assert "ATTACKS DONE" in stderr, stderr
    results = {}
    for line in stderr.splitlines():
        if line.startswith("ATTACK "):
            name, _, outcome = line.removeprefix("ATTACK ").partition(": ")
            results[name] = outcome
    assert_nothing_left(arena)
    no_cgroups_left()
    return results, stderr, uids


def got(results: dict[str, str]) -> set[str]:
    return {name for name, outcome in results.items() if outcome.startswith("got")}


# What each mode must stop. Without a sandbox, a bot of its own uid still reaches the
# network, world-open sockets and world-readable files (the other bots' files if they
# are), as documented in SECURITY.md.
STOPPED_BY_BOTH = {"read config.json", "list run dir", "read journal", "read other bot's log",
                   "read /root", "read /etc/shadow", "referee environment", "rename endpoint",
                   "unlink endpoint", "replace endpoint", "signal other bots",
                   "ptrace other bots", "write beside me"}
STOPPED_BY_BWRAP = STOPPED_BY_BOTH | {"read other bot's file", "read /etc/passwd",
                                      "host unix socket", "abstract unix socket",
                                      "tcp loopback"}


def test_bwrap_stops_every_attack(tmp_path, arena):
    results, stderr, uids = attack_run(tmp_path, arena, "bwrap")
    assert set(results) == STOPPED_BY_BWRAP
    assert not got(results), {k: results[k] for k in got(results)}
    env = set(next(ln for ln in stderr.splitlines() if ln.startswith("ENV ")).split()[1:])
    assert env <= ALLOWED_ENV and "REFEREE_TEST_SECRET" not in env, env
    # Each bot process runs as a uid of its own, never root, seen from outside.
    assert uids and 0 not in uids.values(), uids
    assert len(set(uids.values())) == 3 and min(uids.values()) >= UID_BASE, uids


def test_a_run_directory_beside_the_bot_is_hidden_with_its_neighbours(tmp_path, arena):
    """The bot's directory holds ``runs/`` (the default --out under the working
    directory): this run and every other run there are masked in the sandbox."""
    old = arena / "bots" / "runs" / "earlier"
    old.mkdir(parents=True)
    (old / "config.json").write_text('{"seed": 1}')
    results, _, _ = attack_run(tmp_path, arena, "bwrap",
                               run_dir=arena / "bots" / "runs" / "now",
                               earlier=str(old / "config.json"))
    assert not got(results), {k: results[k] for k in got(results)}
    assert "read config.json" in results and "read earlier run" in results


@needs_open_python
def test_run_as_uid_range_stops_what_it_promises(tmp_path, arena):
    results, stderr, uids = attack_run(tmp_path, arena, "run-as")
    assert not got(results) & STOPPED_BY_BOTH, {k: results[k] for k in got(results)}
    env = set(next(ln for ln in stderr.splitlines() if ln.startswith("ENV ")).split()[1:])
    assert env <= ALLOWED_ENV and "REFEREE_TEST_SECRET" not in env, env
    assert sorted(set(uids.values())) == [RUN_AS_BASE, RUN_AS_BASE + 1, RUN_AS_BASE + 2]


def test_control_without_confinement_the_attacks_get_through(tmp_path, arena):
    """The same bot, trusted (no sandbox, no --run-as): it reads the run, reaches the
    network and signals the other bots. So the two tests above can fail."""
    results, _, uids = attack_run(tmp_path, arena, "none")
    assert {"read config.json", "read other bot's log", "referee environment",
            "host unix socket", "tcp loopback", "signal other bots",
            "rename endpoint"} <= got(results), results
    assert set(uids.values()) == {0}


def test_endpoint_is_intact_and_honest_bots_unaffected(tmp_path, arena):
    """After the attacker's tries on the endpoint, the games are exactly those of a run
    with a caller in its seat (it plays like caller after its attacks): nothing was
    relayed or rewritten."""
    attack_run(tmp_path, arena, "bwrap")
    honest = tmp_path / "honest"
    honest.mkdir()
    bots = [str(arena / "bots" / n) for n in ("caller.py", "caller.py", "random_bot.py")]
    Runner(config(honest, bots, "bwrap")).run()
    a = [json.loads(ln) for ln in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    b = [json.loads(ln) for ln in (honest / "run" / "games.jsonl").read_text().splitlines()]
    assert [g["places"] for g in a] == [g["places"] for g in b]
    assert [g["faults"] for g in a] == [[], []]


def test_disk_fill_is_capped_and_the_run_completes(tmp_path, arena):
    limits = BotLimits(disk_mb=16)
    servers = Servers(arena / "host")
    try:
        bots = bots_in(arena, "sandbox_attacker.py", "caller.py")
        (arena / "bots" / "targets.json").write_text(json.dumps({
            "run_dir": str(tmp_path / "run"), "other_log": "/nonexistent",
            "other_bot": bots[1], "referee_pid": os.getpid(), "env_marker": SECRET,
            "unix_socket": str(servers.unix_path), "abstract_socket": servers.abstract,
            "tcp_port": servers.tcp_port, "marker": str(arena / "bots"), "fill_disk": True}))
        Runner(config(tmp_path, bots, "bwrap", limits=limits)).run()
    finally:
        servers.close()
    check_run(tmp_path / "run", None, 2)
    stderr = (tmp_path / "run" / "logs" / "sandbox_attacker.0.stderr.log").read_text()
    line = next(ln for ln in stderr.splitlines() if ln.startswith("DISK wrote"))
    written = int(line.split()[2])
    assert 8 << 20 <= written <= 16 << 20 and "OSError" in line, line
    assert_nothing_left(arena)


@pytest.mark.skipif(detect().version == "", reason="no writable memory cgroup here")
@pytest.mark.parametrize("mode", ["bwrap", pytest.param("run-as", marks=needs_open_python)])
def test_memory_of_the_whole_tree_is_capped(tmp_path, arena, mode):
    """Four children of 100 MB each under a 256 MB cap: the cgroup lets at most two
    live (the bot itself holds some too); each alone is well under the cap, so a
    per-process limit would have let all four through (see the control)."""
    bots = bots_in(arena, "memory_bomb.py", "caller.py", mode=mode)
    Runner(config(tmp_path, bots, mode, limits=BotLimits(memory_mb=256))).run()
    children = _children(tmp_path)
    assert len(children) == 4, children
    assert sum(c == "exit 0" for c in children) <= 2 and "signal 9" in children, children
    check_run(tmp_path / "run", None, 2)
    assert_nothing_left(arena)
    no_cgroups_left()


def test_memory_control_without_a_cap_all_children_live(tmp_path, arena):
    bots = bots_in(arena, "memory_bomb.py", "caller.py")
    Runner(config(tmp_path, bots, "bwrap", limits=BotLimits(memory_mb=0))).run()
    assert _children(tmp_path) == ["exit 0"] * 4


def _children(tmp_path: Path) -> list[str]:
    log = (tmp_path / "run" / "logs" / "memory_bomb.0.stderr.log").read_text()
    return [ln.split(" ", 2)[2] for ln in log.splitlines() if ln.startswith("CHILD ")]


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_wiped_setsid_grandchild_is_ended(tmp_path, arena, mode):
    """A process that left the bot's session and wiped its environment is ended with
    the bot: by the pid namespace in the sandbox, by the bot's cgroup without one."""
    if mode == "none" and detect().version == "":
        pytest.skip("without a cgroup such a process escapes (documented)")
    bots = bots_in(arena, "env_wiper", "caller.py")
    try:
        with pytest.raises(BotStartError, match="env_wiper"):
            Runner(replace(config(tmp_path, bots, mode), strict_start=True)).run()
        time.sleep(0.2)
        left = subprocess.run(["pgrep", "-f", "sleep 4343"], capture_output=True,
                              text=True).stdout.split()
        assert not left, left
        no_cgroups_left()
    finally:
        subprocess.run(["pkill", "-KILL", "-f", "^sleep 4343$"], capture_output=True)


def test_fork_bomb_is_capped_in_the_sandbox(tmp_path, arena):
    """In the sandbox the task cap (--limit-procs, here 30) holds for the bot's tree
    even though each process runs as its own uid; the bot never says hello."""
    if detect().version == "":
        pytest.skip("no cgroup here: the task cap is RLIMIT_NPROC only")
    bots = bots_in(arena, "caller.py")
    shutil.copy(ROOT / "tests" / "bots" / "fork_bomb", arena / "bots" / "fork_bomb")
    cfg = config(tmp_path, [str(arena / "bots" / "fork_bomb"), *bots], "bwrap",
                 limits=BotLimits(procs=30))
    with pytest.raises(BotStartError, match="fork_bomb"):
        Runner(replace(cfg, start_timeout_ms=3000, strict_start=True)).run()
    log = (tmp_path / "run" / "logs" / "fork_bomb.0.stderr.log").read_text()
    made = [int(ln.split()[1]) for ln in log.splitlines() if ln.startswith("forked ")]
    assert made and max(made) < 30, max(made, default=None)
    assert_nothing_left(arena)
    no_cgroups_left()
