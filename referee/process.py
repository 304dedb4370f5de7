"""Bot processes: what a bot is (a file), how it is launched, and how it is ended.

A ``.py`` file is hosted through the SDK with the referee's own interpreter
(``python -m protocol.host FILE``), unless it is executable and starts with a ``#!``
line; that, and any other executable file, is started as it is.
Each process is the leader of its own session and process group, so ending the group
ends whatever it spawned; what left the group (``setsid``) is found by the bot's token
in its environment and ended too.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pwd
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.logs import LogPump, game_marker
from referee.sandbox import Sandbox


@dataclass(frozen=True)
class BotLimits:
    """What each bot process may use (setrlimit), and how much of its output is kept.

    0 means no limit. The process limit (RLIMIT_NPROC) counts every process and thread
    of the user, not of the bot, and the kernel does not apply it to root: it is off by
    default and meant for bots run as a user of their own (``run_as``), which is what
    stops a fork bomb.
    """

    memory_mb: int = 2048      # address space
    cpu_s: int = 0             # CPU seconds over the process's whole life
    procs: int = 0             # processes and threads of the user
    files: int = 256           # open file descriptors
    log_bytes: int = 1 << 20   # kept per stream (stdout, stderr) per process
    run_as: str | None = None  # a user to run bots as (the referee must be root)

    def user_ids(self) -> tuple[int, int] | None:
        """(uid, gid) of ``run_as``; KeyError if there is no such user."""
        if self.run_as is None:
            return None
        entry = pwd.getpwnam(self.run_as)
        return entry.pw_uid, entry.pw_gid

    def apply(self) -> None:
        """In the child before exec: set the limits, become ``run_as``, and ask for
        SIGKILL if the referee dies (Linux; after the user change, which clears it), so
        that even a ``kill -9`` of the referee leaves no bot behind."""
        for res, value in ((resource.RLIMIT_AS, self.memory_mb << 20),
                           (resource.RLIMIT_CPU, self.cpu_s),
                           (resource.RLIMIT_NPROC, self.procs),
                           (resource.RLIMIT_NOFILE, self.files)):
            if value:
                resource.setrlimit(res, (value, value))
        ids = self.user_ids()
        if ids is not None:
            os.setgroups([])
            os.setgid(ids[1])
            os.setuid(ids[0])
        die_with_parent()


_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (elsewhere: nothing)."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class BotFileError(ValueError):
    """A bot argument that names no usable file."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One entrant: a display name and the file that runs it."""

    name: str
    path: Path
    sha256: str

    @property
    def command(self) -> list[str]:
        if self.path.suffix == ".py" and not _runs_itself(self.path):
            return [sys.executable, "-m", "protocol.host", str(self.path)]
        return [str(self.path)]


def _runs_itself(path: Path) -> bool:
    """An executable file with a ``#!`` line: a program that speaks the protocol itself."""
    try:
        with open(path, "rb") as f:
            return os.access(path, os.X_OK) and f.read(2) == b"#!"
    except OSError:
        return False


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def resolve_bots(args: list[str]) -> list[BotSpec]:
    """Bot arguments (``FILE`` or ``NAME=FILE``) -> specs with distinct names.

    The same file given twice gets two names (``caller``, ``caller#2``), so a bot
    can play itself.

    >>> [b.name for b in resolve_bots(["bots/caller.py", "bots/caller.py", "x=bots/caller.py"])]
    ['caller', 'caller#2', 'x']
    """
    specs: list[BotSpec] = []
    taken: set[str] = set()
    for arg in args:
        name, sep, file = arg.partition("=")
        if not sep:
            name, file = "", arg
        path = Path(file).expanduser()
        if sep and (not name or name in taken):
            raise BotFileError(f"bot name {name!r} is empty or used twice")
        if not name:
            base, n = path.stem, 1
            name = base
            while name in taken:
                n += 1
                name = f"{base}#{n}"
        taken.add(name)
        specs.append(bot_spec(name, path))
    return specs


def bot_spec(name: str, path: Path) -> BotSpec:
    """The spec of one bot file; BotFileError if it cannot be run."""
    if not path.is_file():
        raise BotFileError(f"bot file not found: {path}")
    if path.suffix != ".py" and not os.access(path, os.X_OK):
        raise BotFileError(f"bot file {path} is neither a .py file nor executable "
                           "(chmod +x it, or give a .py file)")
    return BotSpec(name, path.resolve(), _sha256(path))


class BotProcess:
    """One running instance of a bot, with its own secret token."""

    def __init__(self, spec: BotSpec, endpoint: str, token: str, log_dir: Path, label: str,
                 limits: BotLimits, logs: LogPump, sandbox: Sandbox):
        """Start the bot; with a sandbox, its writable directory is
        ``log_dir/../sandbox/<label>``."""
        self.spec = spec
        self._token = token
        log_dir.mkdir(parents=True, exist_ok=True)
        workdir = (log_dir.parent / "sandbox" / label).resolve()
        if sandbox.kind != "none":
            workdir.mkdir(parents=True, exist_ok=True)
            ids = limits.user_ids()
            if ids is not None:
                os.chown(workdir, *ids)
        env = {**os.environ, "REFEREE_ENDPOINT": endpoint, "REFEREE_TOKEN": token,
               "PYTHONUNBUFFERED": "1", **sandbox.env(workdir)}
        self.popen = subprocess.Popen(
            sandbox.wrap(spec.command, workdir, endpoint), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=spec.path.parent, start_new_session=True,
            preexec_fn=limits.apply,
        )
        assert self.popen.stdout is not None and self.popen.stderr is not None
        self._logs = logs
        stderr_log = log_dir / f"{label}.stderr.log"
        # Where this process's part of the log starts (earlier processes of the slot
        # wrote before it).
        self._stderr_from = stderr_log.stat().st_size if stderr_log.exists() else 0
        self._streams = (logs.attach(self.popen.stdout, log_dir / f"{label}.stdout.log"),
                         logs.attach(self.popen.stderr, log_dir / f"{label}.stderr.log"))
        self.stderr_path = log_dir / f"{label}.stderr.log"

    @property
    def pid(self) -> int:
        return self.popen.pid

    def exit_code(self) -> int | None:
        """None while the process runs."""
        return self.popen.poll()

    def wait(self, timeout_s: float) -> int | None:
        """The exit code, waiting up to ``timeout_s`` for it; None if still running."""
        try:
            return self.popen.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def mark_game(self, game: int, seat: int) -> None:
        """Mark in the bot's logs where game ``game`` starts (``referee.logs``)."""
        for stream in self._streams:
            self._logs.mark(stream, game_marker(game, seat))

    def stderr_tail(self, lines: int = 1, n_chars: int = 300) -> str:
        """The last ``lines`` lines (at most ``n_chars``) this process wrote to stderr,
        without the referee's own lines (once the process has exited, everything it wrote is
        waited for)."""
        if self.popen.poll() is not None:
            self._streams[1].done.wait(1.0)
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(max(self._stderr_from, f.seek(0, os.SEEK_END) - 4 * n_chars))
                text = f.read().decode(errors="replace")
        except OSError:
            return ""
        kept = [ln for ln in text.strip().splitlines()
                if ln.strip() and not ln.startswith("[referee")]
        return "\n".join(kept[-lines:])[-n_chars:]

    def kill(self, grace_s: float = 0.0) -> None:
        """End the whole process group (after ``grace_s`` for a clean exit) and reap."""
        if grace_s and self.popen.poll() is None:
            try:
                self.popen.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.popen.wait()
        kill_strays(self._token)


def kill_strays(token: str) -> int:
    """Kill every process that still carries a bot's token in its environment: whatever
    the bot started that left its process group (``setsid``). A process that also wiped
    its environment is beyond this; ``--sandbox bwrap`` contains even that. Returns how
    many were killed."""
    if not os.path.isdir("/proc"):
        return 0
    marker = f"REFEREE_TOKEN={token}".encode()
    killed = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                if marker not in f.read().split(b"\0"):
                    continue
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
        except (OSError, ValueError):
            continue
    return killed
