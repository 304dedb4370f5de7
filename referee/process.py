"""Bot processes: what a bot is (a file), how it is launched, and how it is ended.

A ``.py`` file is hosted through the SDK with the referee's own interpreter
(``python -m referee.sdkhost FILE``), unless it is executable and starts with a ``#!``
line; that, and any other executable file, is started as it is.
Each process is the leader of its own session and process group, so ending the group
ends whatever it spawned. Where the machine allows, each also has a cgroup of its own
(``referee.cgroup``): what left the group (``setsid``) is ended through it; without one,
it is found by the bot's token in its environment.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pwd
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.botargs import BotArgError, parse_bot_arg
from referee.cgroup import DEFAULT_TASKS, RunCgroups, detect
from referee.logs import LogPump, game_marker
from referee.rundir import RunFileError, open_read
from referee.sandbox import Plan, Sandbox, SandboxError, bwrap_problem

UID_BASE = 2_000_000_000  # first uid of sandboxed bots of a root referee (no passwd entry)
UID_RANGE = "uid-range:"


@dataclass(frozen=True)
class BotLimits:
    """What each bot process may use (setrlimit, and its cgroup where the machine has
    one), and how much of its output is kept.

    0 means no limit. ``memory_mb`` caps a bot's whole process tree together where a
    cgroup can be made (``referee.cgroup``), else each process's address space. The
    process limit (RLIMIT_NPROC) counts every process and thread of the user, not of the
    bot, and the kernel does not apply it to root; in a cgroup, ``procs`` (or
    ``cgroup.DEFAULT_TASKS`` when 0) caps the tasks of the bot's tree. ``disk_mb`` is the
    size of a sandboxed bot's private ``/tmp``. ``cores`` caps the CPU of all of a bot's
    processes together (a cgroup v1 ``cpu`` quota, ``referee.cgroup``): bots whose caps
    add up to no more than the machine's cores cannot slow each other down by spinning.
    ``turns``: each process gets a freezer cgroup, and of the processes that have said
    hello only those asked to act run (``referee.runner.BotInstance.hold``).

    ``run_as``: ``uid-range:BASE`` runs bot instance ``n`` (slot by slot, bot by bot) as
    uid and gid ``BASE + n``, each bot its own user; a user name runs every bot as that
    one user. Both need a root referee; a root referee's sandboxed bots get
    ``uid-range:2000000000`` unless told otherwise.
    """

    memory_mb: int = 2048      # the whole tree (cgroup) or address space per process
    cpu_s: int = 0             # CPU seconds over the process's whole life
    procs: int = 0             # processes and threads of the user (of the tree in a cgroup)
    files: int = 256           # open file descriptors
    log_bytes: int = 1 << 20   # kept per stream (stdout, stderr) per process
    run_as: str | None = None  # uid-range:BASE, or a user (the referee must be root)
    disk_mb: int = 64          # a sandboxed bot's private /tmp
    cores: float = 0.0         # CPU cores at most, the bot's processes together (cgroup)
    turns: bool = False        # only the processes asked to act run; the others are frozen

    def user_ids(self) -> tuple[int, int] | None:
        """(uid, gid) of a ``run_as`` user name; None for none or a uid range; KeyError if
        there is no such user."""
        if self.run_as is None or self.run_as.startswith(UID_RANGE):
            return None
        entry = pwd.getpwnam(self.run_as)
        return entry.pw_uid, entry.pw_gid

    def uid_base(self, sandboxed: bool) -> int | None:
        """The first uid of a range of bot users, or None; ValueError for a bad range."""
        if self.run_as is None:
            return UID_BASE if sandboxed and os.geteuid() == 0 else None
        if not self.run_as.startswith(UID_RANGE):
            return None
        text = self.run_as.removeprefix(UID_RANGE)
        if not text.isdigit() or not 1000 <= int(text) < 2**31:
            raise ValueError(f"--run-as {self.run_as}: write uid-range:BASE with a base uid "
                             "from 1000 to 2147483647")
        return int(text)

    def ids_for(self, instance: int, sandboxed: bool) -> tuple[int, int] | None:
        """(uid, gid) that bot instance number ``instance`` runs as; None: the referee's."""
        base = self.uid_base(sandboxed)
        if base is not None:
            return base + instance, base + instance
        return self.user_ids()

    def apply(self, address_space: bool = True) -> None:
        """In the child before exec: set the rlimits (the address space too unless a
        cgroup caps the memory)."""
        for res, value in ((resource.RLIMIT_AS, (self.memory_mb << 20) * address_space),
                           (resource.RLIMIT_CPU, self.cpu_s),
                           (resource.RLIMIT_NPROC, self.procs),
                           (resource.RLIMIT_NOFILE, self.files)):
            if value:
                resource.setrlimit(res, (value, value))


def closed_to_others(paths: Iterable[Path]) -> Path | None:
    """The first directory on the way to one of ``paths`` (symbolic links followed) that
    other users cannot search, or None if they can reach them all."""
    for path in paths:
        for d in reversed(path.resolve().parents):
            if not d.stat().st_mode & 0o001:
                return d
    return None


def become(ids: tuple[int, int]) -> None:
    """Become uid and gid ``ids`` with no supplementary groups (in the child, as root)."""
    os.setgroups([])
    os.setgid(ids[1])
    os.setuid(ids[0])


def describe_isolation(sandbox: str, limits: BotLimits) -> str:
    """The one line a run prints at its start: how its bots are confined."""
    if sandbox == "none":
        try:
            problem = bwrap_problem()
        except SandboxError:  # bubblewrap is there, but its trial failed: none was chosen
            problem = None
        what = ("sandbox: none, bots are trusted"
                + (f" (bwrap not usable: {problem})" if problem else " (--sandbox none)"))
    elif os.geteuid() == 0:
        what = (f"sandbox: bwrap, {limits.disk_mb}M private /tmp, no network, each bot as "
                f"uid {limits.uid_base(True)}+n")
    else:
        what = (f"sandbox: bwrap, {limits.disk_mb}M private /tmp, no network, bots in a user "
                f"namespace as uid {os.geteuid()}")
    if sandbox == "none" and limits.run_as is not None:
        base = limits.uid_base(False)
        what += (f"; each bot as uid {base}+n" if base is not None
                 else f"; every bot as user {limits.run_as}")
    memory = (f"memory {limits.memory_mb}M per bot: {detect().describe()}" if limits.memory_mb
              else "memory: no limit")
    cores = f"; at most {limits.cores:g} cores per bot" if limits.cores else ""
    turns = "; only the bots asked to act run" if limits.turns else ""
    return f"{what}; {memory}{cores}{turns}"


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None, signum: int = signal.SIGKILL) -> None:
    """Ask Linux to send ``signum`` (SIGKILL) to this process when its parent dies
    (elsewhere: nothing).

    A parent that died before the request (between the fork and this call) is never
    signalled for: given its pid, ``parent``, this process then exits at once."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


class BotFileError(ValueError):
    """A bot argument that names no usable file, or gives a name that cannot be used."""


class BotNotRunnable(BotFileError):
    """A bot file that the system cannot start: binary garbage, or a script whose ``#!``
    interpreter is missing (``referee run`` exits 3 for it, as for any bot that does
    not start)."""


MAX_NAME_CHARS = 64
# Log files and sandboxes are named after the bot: ``logs/<file_label>.<slot>.stdout.log``.
_FILE_LABEL = str.maketrans({"#": "_"})


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One entrant: a display name, the file that runs it, and what its bot argument
    added (``referee.botargs``): its options, its extra command-line arguments and its
    author."""

    name: str
    path: Path
    sha256: str
    options: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    author: str | None = None

    @property
    def command(self) -> list[str]:
        if self.path.suffix == ".py" and not _runs_itself(self.path):
            return [sys.executable, "-m", "referee.sdkhost", str(self.path), *self.args]
        return [str(self.path), *self.args]

    def to_dict(self) -> dict[str, Any]:
        """What ``config.json`` records of it."""
        return {"name": self.name, "path": str(self.path), "sha256": self.sha256,
                "options": dict(self.options), "args": list(self.args), "author": self.author}


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
    """Bot arguments (``[NAME=]FILE{,KEY=VALUE}``, ``referee.botargs``) -> specs with
    distinct names.

    The same file given twice gets two names (``caller``, ``caller#2``), so a bot
    can play itself. A name (given, or the file's name without ``.py``) is at most
    MAX_NAME_CHARS printable characters without ``/``: it names the bot's log files.

    >>> bot = "bots/polish_poker/caller.py"
    >>> [b.name for b in resolve_bots([bot, bot, f"x={bot}"])]
    ['caller', 'caller#2', 'x']
    >>> resolve_bots(["../x=bots/polish_poker/caller.py"])
    Traceback (most recent call last):
    ...
    referee.process.BotFileError: bot name '../x' has a '/': give another with NAME=FILE
    """
    specs: list[BotSpec] = []
    taken: set[str] = set()  # file labels: two names must not share log files
    for arg in args:
        try:
            parsed = parse_bot_arg(arg)
        except BotArgError as exc:
            raise BotFileError(str(exc)) from None
        name, file = parsed.name, parsed.file
        path = Path(file).expanduser()
        if "=" in arg.split(",")[0] and (not name or file_label(name) in taken):
            raise BotFileError(f"bot name {name!r} is empty or used twice")
        if not name:
            base, n = path.stem, 1
            name = base
            while file_label(name) in taken:
                n += 1
                name = f"{base}#{n}"
        check_name(name)
        taken.add(file_label(name))
        specs.append(replace(bot_spec(name, path), options=parsed.options, args=parsed.args,
                             author=parsed.author))
    return specs


def check_name(name: str) -> None:
    """BotFileError unless ``name`` can name a bot (see ``resolve_bots``)."""
    why = ("is empty" if not name else
           f"is longer than {MAX_NAME_CHARS} characters" if len(name) > MAX_NAME_CHARS else
           "has a '/'" if "/" in name else
           "is not a file name" if name in (".", "..") else
           "has a control or invisible character" if not name.isprintable() else None)
    if why:
        raise BotFileError(f"bot name {name!r} {why}: give another with NAME=FILE")


def file_label(name: str) -> str:
    """The part of a bot's log and sandbox file names that comes from its name."""
    return name.translate(_FILE_LABEL)


def bot_spec(name: str, path: Path) -> BotSpec:
    """The spec of one bot file; BotFileError if it cannot be run (BotNotRunnable if it
    is there but the system cannot start it)."""
    if not path.is_file():
        raise BotFileError(f"bot file not found: {path}")
    if path.suffix != ".py" and not os.access(path, os.X_OK):
        raise BotFileError(f"bot file {path} is neither a .py file nor executable "
                           "(chmod +x it, or give a .py file)")
    spec = BotSpec(name, path.resolve(), _sha256(path))
    if spec.command == [str(spec.path)]:
        why = _start_problem(spec.path)
        if why:
            raise BotNotRunnable(f"bot {name} ({path}) cannot be started: {why}")
    return spec


_ELF_MAGIC = b"\x7fELF"
_SHEBANG_MAX = 256  # what Linux reads of a #! line


def _start_problem(path: Path) -> str | None:
    """Why the system would refuse to start the executable ``path``, when the file
    shows it: neither a binary nor a ``#!`` script, or a ``#!`` interpreter (or the
    program ``env`` is to find on PATH) that is not there."""
    try:
        with open(path, "rb") as f:
            head = f.read(_SHEBANG_MAX)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
    if head.startswith(_ELF_MAGIC):
        return None
    if not head.startswith(b"#!"):
        return "it is neither an executable binary nor a script with a #! line"
    words = [os.fsdecode(w) for w in head[2:].split(b"\n", 1)[0].split()]
    if not words:
        return "its #! line names no interpreter"
    interpreter = path.parent / words[0]  # a relative one is found from the bot's folder
    if not (interpreter.is_file() and os.access(interpreter, os.X_OK)):
        return f"its #! interpreter {words[0]} is missing or not executable"
    program = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
    if interpreter.name == "env" and program and shutil.which(program) is None:
        return f"its #! line runs {program}, which is not on PATH"
    return None


class BotProcess:
    """One running instance of a bot, with its own secret token."""

    def __init__(self, spec: BotSpec, endpoint: str, token: str, log_dir: Path, label: str,
                 limits: BotLimits, logs: LogPump, sandbox: Sandbox, *, instance: int = 0,
                 hide: tuple[Path, ...] = (), cgroups: RunCgroups | None = None,
                 game: str = "", kernels: Path | None = None, start_timeout_ms: int = 0):
        """Start the bot as instance number ``instance`` of the run (its uid, if bots get
        their own); ``hide``: other bots' files, masked in its sandbox; ``cgroups``: the
        run's, where it gets a cgroup of its own; ``game``: the run's game, named in its
        environment (``REFEREE_GAME``) so that the SDK loads it before saying hello;
        ``kernels``: compiled evaluator kernels for its sandbox (``referee.kernelcache``);
        ``start_timeout_ms``: the run's start timeout, which the SDK waits as long for its
        welcome (``REFEREE_START_TIMEOUT_MS``; 0: not said)."""
        self.spec = spec
        self._token = token
        self._cgroups = cgroups
        self._scratch: str | None = None
        run_dir = log_dir.parent  # the run directory, whose files are reached without links
        run_dir.mkdir(parents=True, exist_ok=True)
        self._run_dir = run_dir
        sandboxed = sandbox.kind != "none"
        ids = limits.ids_for(instance, sandboxed)
        self.cgroup = None if cgroups is None else cgroups.bot(
            label, limits.memory_mb << 20, limits.procs or DEFAULT_TASKS, file_label(spec.name),
            limits.cores)
        plan = Plan(spec.path.parent, endpoint, limits.disk_mb << 20,
                    None if ids is None else ids[0], hide, token, game, kernels)
        if sandboxed:
            env = plan.env()
        elif ids is not None:
            env = self._own_user_env(endpoint, token, ids)
        else:
            env = {**os.environ, "REFEREE_ENDPOINT": endpoint, "REFEREE_TOKEN": token,
                   "PYTHONUNBUFFERED": "1"}
        env["REFEREE_GAME"] = game
        if start_timeout_ms:
            env["REFEREE_START_TIMEOUT_MS"] = str(start_timeout_ms)
        cgroup = self.cgroup
        parent = os.getpid()

        def preexec() -> None:
            die_with_parent(parent)  # first: the referee may die while this child starts
            if cgroup is not None:
                cgroup.join()
            limits.apply(address_space=cgroup is None or not limits.memory_mb)
            if ids is not None and not sandboxed:  # the sandbox drops to the uid itself
                become(ids)
            die_with_parent(parent)  # again after the user change, which clears it

        try:
            self.popen = sandbox.popen(
                spec.command, plan, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=spec.path.parent, start_new_session=True,
                preexec_fn=preexec)
        except BaseException:
            self._release()
            raise
        assert self.popen.stdout is not None and self.popen.stderr is not None
        self._logs = logs
        stderr_log = log_dir / f"{label}.stderr.log"
        # Where this process's part of the log starts (earlier processes of the slot
        # wrote before it).
        self._stderr_from = stderr_log.stat().st_size if stderr_log.exists() else 0
        self._streams = (logs.attach(self.popen.stdout, log_dir / f"{label}.stdout.log", run_dir),
                         logs.attach(self.popen.stderr, stderr_log, run_dir))
        self.stderr_path = log_dir / f"{label}.stderr.log"

    def _own_user_env(self, endpoint: str, token: str, ids: tuple[int, int]) -> dict[str, str]:
        """The environment of an unsandboxed bot run as a user of its own: nothing of the
        referee's but PATH and LANG, and a private HOME (removed when it ends)."""
        self._scratch = tempfile.mkdtemp(prefix="referee-bot-")
        os.chown(self._scratch, *ids)
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "LANG": os.environ.get("LANG", "C.UTF-8"), "HOME": self._scratch,
                "TMPDIR": self._scratch, "NUMBA_CACHE_DIR": f"{self._scratch}/.numba",
                "PYTHONUNBUFFERED": "1", "REFEREE_ENDPOINT": endpoint, "REFEREE_TOKEN": token}

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
            with open_read(self._run_dir, self.stderr_path) as f:
                f.seek(max(self._stderr_from, f.seek(0, os.SEEK_END) - 4 * n_chars))
                text = f.read().decode(errors="replace")
        except (OSError, RunFileError):
            return ""
        kept = [ln for ln in text.strip().split("\n")  # a CR is shown, not obeyed
                if ln.strip() and not ln.startswith("[referee")]
        return "\n".join(kept[-lines:])[-n_chars:]

    def kill(self, grace_s: float = 0.0) -> None:
        """End the whole process group (after ``grace_s`` for a clean exit) and reap."""
        if self.cgroup is not None:
            try:
                self.cgroup.freeze(False)  # a frozen process dies only once thawed
            except OSError:
                pass
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
        self._release()

    def _release(self) -> None:
        """End whatever the bot left running and remove what was made for it."""
        if self.cgroup is not None and self._cgroups is not None:
            self._cgroups.release(self.cgroup)
            self.cgroup = None
        kill_strays(self._token)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


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
