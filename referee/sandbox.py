"""Sandboxes for untrusted bots: how a bot's command is wrapped before it is started.

``none`` runs the bot as it is (trusted local development). ``bwrap`` runs it under
bubblewrap in an empty root of its own that holds only: ``/usr`` and the ``/bin``,
``/lib*`` links, the few ``/etc`` files a dynamic loader needs, the referee's Python
(its prefix) and the SDK's packages (``/opt/referee``), the evaluator's compiled
kernels (``/opt/kernels``, ``referee.kernelcache``), the bot's own directory, all
read-only; a private ``/tmp`` capped at ``--limit-disk`` (its ``HOME`` is ``/tmp/home``);
its own ``/proc`` (without the files that count for the whole machine: ``PROC_MASKS``),
pid, ipc, uts and network namespaces (no network, not even loopback);
and the directory of its endpoint, read-only (it can connect to the socket, not rename,
remove or replace it). Its environment holds only the variables of ``Plan.env``, given
to bubblewrap, which passes them on (never on its command line, which every user of
the host can read).

When the referee is root, bubblewrap builds that root with root's rights and then the
bot becomes an unprivileged uid of its own (``setpriv``), with no capabilities; otherwise
bubblewrap puts it in a user namespace as the referee's own (non-root) uid.

``auto`` is bwrap where it works, else none: only where bubblewrap is missing or this
kernel cannot give it what it needs (``bwrap_problem``), never because its trial start
failed for another reason or was slow (that stops the command instead). Every bot
process of every command starts through ``Sandbox.popen``, which also hands bubblewrap
the seccomp filter of ``referee.seccomp``.

>>> Sandbox("none").wrap(["bot"], Plan(Path("/w/bot"), "ipc:///tmp/r/router"))
['bot']
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee import seccomp

SANDBOXES = ("auto", "none", "bwrap")
# What the SDK host (referee.sdkhost) imports: the games' packages (referee.games) decode
# views and parse actions.
SDK_PACKAGES = ("protocol", "evaluator", "referee")
SDK_LIBRARIES = ("zmq", "msgpack", "numpy")  # and the installed libraries it imports
SDK_MOUNT = Path("/opt/referee")
KERNELS_MOUNT = Path("/opt/kernels")  # compiled evaluator kernels (referee.kernelcache)
SCRATCH = Path("/tmp")
HOME = SCRATCH / "home"
# What an interpreter may need of /etc (the loader's cache, Debian's alternatives links).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
SYSTEM_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
# What of /proc counts for the whole machine (memory, CPU time, load, interrupts, open
# files): a sender's use shows in it, so two sandboxes could signal through it. Masked
# where this kernel has it (reading it is refused); the seccomp filter refuses sysinfo(2).
PROC_MASKS = ("meminfo", "stat", "loadavg", "vmstat", "uptime", "diskstats", "interrupts",
              "softirqs", "zoneinfo", "buddyinfo", "pagetypeinfo", "schedstat", "pressure",
              "sys")


class SandboxError(ValueError):
    """A sandbox that is unknown or cannot be used on this machine."""


@dataclass(frozen=True)
class Plan:
    """What one bot process gets in its sandbox."""

    bot_dir: Path                 # bound read-only; the working directory
    endpoint: str                 # the referee's endpoint; its directory is bound read-only
    disk_bytes: int = 64 << 20    # size of the private /tmp (HOME, TMPDIR)
    uid: int | None = None        # the host uid to become (the referee must be root)
    hide: tuple[Path, ...] = field(default=())  # paths under bot_dir to mask (other bots)
    token: str = field(default="", repr=False)
    game: str = ""                # the run's game (REFEREE_GAME: the SDK loads it early)
    kernels: Path | None = None   # compiled kernels, bound read-only at KERNELS_MOUNT ...
    compile_kernels: bool = False  # ... or writable, as the process's own numba cache
    seccomp_fd: int | None = None  # referee.seccomp's filter, for bubblewrap to install

    def env(self) -> dict[str, str]:
        """The whole environment of a sandboxed bot."""
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
               "HOME": str(HOME), "TMPDIR": str(SCRATCH), "LANG": "C.UTF-8",
               "PYTHONPATH": str(SDK_MOUNT), "PYTHONUNBUFFERED": "1",
               "NUMBA_CACHE_DIR": str(HOME / ".numba"),
               "REFEREE_ENDPOINT": self.endpoint, "REFEREE_TOKEN": self.token,
               "REFEREE_GAME": self.game}
        if self.kernels is not None:  # the SDK copies them into its cache (referee.sdkhost)
            env["NUMBA_CACHE_DIR" if self.compile_kernels else "REFEREE_KERNELS"] = \
                str(KERNELS_MOUNT)
        return env


# A trial start slower than this means a machine that is stuck, not one without
# bubblewrap: the command stops (fails closed) rather than run the bots unsandboxed.
PROBE_TIMEOUT_S = 300
# What bubblewrap's last line says where this kernel or machine cannot give it what it
# needs (user namespaces, mounts, seccomp): only then may ``auto`` run without it.
_CANNOT_WORK = ("namespace", "not permitted", "permission denied", "invalid argument",
                "not implemented", "not supported")


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox a bot on this machine, or None if it can (tried
    once). SandboxError when the trial failed for another reason (it was killed, the
    system was out of processes or memory, it took longer than PROBE_TIMEOUT_S): that
    says nothing of what this machine can do, so no one may fall back on it."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is missing: a root referee needs it to drop bots' rights"
    try:
        seccomp.program()
    except seccomp.SeccompUnsupported as exc:
        return str(exc)
    plan = Plan(Path("/usr"), "tcp://127.0.0.1:1", uid=65534 if os.geteuid() == 0 else None)
    unsandboxed = "the bots are not run unsandboxed: try again, or give --sandbox none to " \
        "trust them"
    try:
        probe = Sandbox("bwrap").popen(["/bin/true"], plan, env={}, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        raise SandboxError(f"bubblewrap's trial start failed: {exc}; {unsandboxed}") from None
    with probe:
        try:
            _, err = probe.communicate(timeout=PROBE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            probe.kill()
            raise SandboxError(f"bubblewrap's trial start took over {PROBE_TIMEOUT_S} s (is "
                               f"the machine overloaded?); {unsandboxed}") from None
    if probe.returncode == 0:
        return None
    last = (err.strip().splitlines() or [f"exit code {probe.returncode}"])[-1]
    if probe.returncode > 0 and any(w in last.lower() for w in _CANNOT_WORK):
        return f"bubblewrap does not work here: {last}"
    raise SandboxError(f"bubblewrap's trial start failed ({last}); {unsandboxed}")


def resolve(kind: str) -> tuple[str, str | None]:
    """``--sandbox`` -> (the sandbox that runs, why ``auto`` fell back to none or None)."""
    if kind not in SANDBOXES:
        raise SandboxError(f"unknown sandbox {kind!r}: use {', '.join(SANDBOXES)}")
    if kind == "none":
        return kind, None
    problem = bwrap_problem()
    if problem is None:
        return "bwrap", None
    if kind == "bwrap":
        raise SandboxError(f"--sandbox bwrap: {problem}")
    return "none", problem


def masks(bot: Path, bots: list[Path], run_dir: Path) -> tuple[Path, ...]:
    """What a bot must not see in its own directory: the other bots' files, and, if the
    run directory lies there, the directory in it that holds the run (``runs/``, with
    every other run in it).

    >>> masks(Path("/b/a.py"), [Path("/b/a.py"), Path("/b/c.py"), Path("/x/d.py")],
    ...       Path("/b/runs/r1"))
    (PosixPath('/b/c.py'), PosixPath('/b/runs'))
    """
    home = bot.parent
    hidden = [p for p in dict.fromkeys(bots) if p != bot and p.is_relative_to(home)]
    run_dir = run_dir.resolve()
    if run_dir.is_relative_to(home) and run_dir != home:
        hidden.append(home / run_dir.relative_to(home).parts[0])
    return tuple(hidden)


def _ro_bind(src: Path, dest: Path | None = None) -> list[str]:
    return ["--ro-bind", str(src), str(dest or src)]


def _dirs_for(dest: Path, made: set[Path]) -> list[str]:
    """World-searchable directories leading to ``dest`` (bubblewrap would make them 0700,
    closed to a bot that is not root)."""
    args: list[str] = []
    for parent in reversed(dest.parents):
        if parent != Path("/") and parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def interpreter_dirs() -> list[Path]:
    """The referee's Python outside /usr (a virtual environment, a Python of its own)."""
    dirs: list[Path] = []
    for d in (sys.prefix, sys.base_prefix, sys.exec_prefix,
              Path(sys.executable).resolve().parent.parent):
        p = Path(d).resolve()
        if p != Path("/") and not p.is_relative_to("/usr") and p not in dirs:
            dirs.append(p)
    return dirs


def sdk_packages() -> list[Path]:
    """The directories of the packages the SDK host imports."""
    dirs = []
    for name in SDK_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SandboxError(f"package {name} of the bot SDK is not importable")
        dirs.append(Path(list(spec.submodule_search_locations)[0]).resolve())
    return dirs


def hosting_paths() -> list[Path]:
    """What a bot hosted by the SDK reads: this Python, the SDK's packages and the
    libraries they import."""
    paths = [Path(sys.executable), *sdk_packages()]
    for name in SDK_LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            paths.append(Path(spec.origin))
    return paths


@dataclass(frozen=True)
class Sandbox:
    kind: str = "none"

    def wrap(self, command: list[str], plan: Plan) -> list[str]:
        """The command that runs ``command`` in this sandbox."""
        if self.kind == "none":
            return command
        made: set[Path] = set()
        args = [shutil.which("bwrap") or "bwrap", "--unshare-ipc", "--unshare-pid",
                "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "bot",
                "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
        for name in SYSTEM_DIRS:
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                args += _ro_bind(host)
        args += ["--perms", "0755", "--dir", "/etc"]
        for name in ETC_FILES:
            if (Path("/etc") / name).exists():
                args += _ro_bind(Path("/etc") / name)
        args += ["--proc", "/proc"]
        for name in PROC_MASKS:
            host = Path("/proc") / name
            if host.is_dir():
                args += ["--tmpfs", str(host)]
            elif host.exists():
                args += ["--ro-bind", "/dev/null", str(host)]
        args += ["--dev", "/dev",
                 "--perms", "1777", "--size", str(plan.disk_bytes), "--tmpfs", str(SCRATCH),
                 "--perms", "0777", "--dir", str(HOME)]
        for d in interpreter_dirs():
            args += _dirs_for(d, made) + _ro_bind(d)
        args += _dirs_for(SDK_MOUNT / "x", made)
        for d in sdk_packages():
            args += _ro_bind(d, SDK_MOUNT / d.name)
        if plan.kernels is not None:
            bind = "--bind" if plan.compile_kernels else "--ro-bind"
            args += _dirs_for(KERNELS_MOUNT, made) + [bind, str(plan.kernels), str(KERNELS_MOUNT)]
        args += _dirs_for(plan.bot_dir, made) + _ro_bind(plan.bot_dir)
        for p in plan.hide:
            args += ["--ro-bind", "/dev/null", str(p)] if p.is_file() else ["--tmpfs", str(p)]
        if plan.endpoint.startswith("ipc://"):
            ipc_dir = Path(plan.endpoint.removeprefix("ipc://")).parent
            args += _dirs_for(ipc_dir, made) + _ro_bind(ipc_dir)
        args += ["--chdir", str(plan.bot_dir)]
        if plan.seccomp_fd is not None:
            args += ["--seccomp", str(plan.seccomp_fd)]
        if os.geteuid() == 0:
            if plan.uid is None:
                raise SandboxError("a root referee must give each sandboxed bot a uid")
            # bubblewrap (root) builds the mounts; the bot then drops to its uid for good.
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                     "setpriv", f"--reuid={plan.uid}", f"--regid={plan.uid}",
                     "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                     "--no-new-privs"]
        else:
            args += ["--unshare-user", "--disable-userns"]
        return [*args, "--", *command]

    def popen(self, command: list[str], plan: Plan, **popen: Any) -> subprocess.Popen:
        """Start ``command`` in this sandbox (``popen``: subprocess.Popen's arguments; the
        environment is the caller's to give, ``plan.env()`` for a sandboxed bot)."""
        if self.kind == "none":
            return subprocess.Popen(command, **popen)
        fd = seccomp.filter_fd()
        try:
            plan = replace(plan, seccomp_fd=fd)
            return subprocess.Popen(self.wrap(command, plan), pass_fds=(fd,), **popen)
        finally:
            os.close(fd)
