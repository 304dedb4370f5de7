"""Control groups for bot processes: one cgroup per bot process tree, so that its memory
is capped for the whole tree together, its tasks are capped (a fork bomb stops there), and
ending the bot ends everything in it, whatever left its session or wiped its environment.

Layout: under the referee's own cgroup, one directory per run (``referee-<pid>-<hex>``)
and in it one per bot process (``<label>``). A referee removes its own when it ends;
one that was killed leaves them, and the next run's referee removes them.

cgroup v1 (a ``memory`` and a ``pids`` hierarchy, both writable):
``memory.limit_in_bytes`` (and ``memory.memsw.limit_in_bytes`` where swap is accounted)
and ``pids.max``. Where the ``cpu`` hierarchy is writable too, CPU is shared by bot, not
by process: each bot weighs as much as any one process group (the referee's own,
under the kernel's autogroups), its processes sharing one group (``<run>/<bot>/<label>``;
the run's weight is that of its bots together). So a bot that keeps cores busy
(spinning children in every process of its pool) takes its own share only, neither the
referee's nor the other bots': without it, each of its process trees weighs as much as
the whole referee. The bots together are not weighed as one: on a busy machine that
would starve them (each bot getting a fraction of one process's share).
cgroup v2: only where the referee's cgroup already delegates the
``memory`` and ``pids`` controllers to its children (``cgroup.subtree_control``); then
``memory.max``, ``memory.swap.max`` and ``pids.max``.
Anywhere else there is no cgroup, and memory is capped per process only (RLIMIT_AS).
"""

from __future__ import annotations

import atexit
import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TASKS = 1024  # tasks (processes and threads) of one bot's tree when --limit-procs 0
CPU_PERIOD_US = 100_000  # of a bot's CPU quota (--limit-cores): the kernel's default
BOT_CPU_SHARES = 1024  # the kernel's default weight of a cgroup, and of one autogroup
MAX_CPU_SHARES = 262_144  # the kernel's largest cpu.shares


class CgroupError(OSError):
    """A cgroup that could not be made, joined or removed."""


@dataclass(frozen=True)
class Support:
    """Where this machine lets the referee make cgroups: the directories that will hold
    the runs' cgroups (one per hierarchy: memory first), or none."""

    version: str  # "v1", "v2" or "" (none)
    parents: tuple[Path, ...] = ()  # v1: memory, pids, and cpu where it is writable

    @property
    def cpu(self) -> bool:
        """Whether the bots' CPU is shared by bot (a writable v1 ``cpu`` hierarchy)."""
        return self.version == "v1" and len(self.parents) == 3

    def describe(self) -> str:
        if not self.version:
            return "per process only (no writable memory cgroup here)"
        cpu = ", each bot's CPU weighed as one process" if self.cpu else ""
        return f"whole process tree (cgroup {self.version}){cpu}"


def _own_paths() -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path, from /proc/self/cgroup."""
    paths = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            paths[c] = path
    return paths


def _mounts() -> dict[str, Path]:
    """Controller (or "" for the v2 hierarchy) -> the mount point of its hierarchy."""
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        fstype, _, options = after.split(" ")[:3]
        point = Path(before.split(" ")[4].replace("\\040", " "))
        if fstype == "cgroup2":
            mounts.setdefault("", point)
        elif fstype == "cgroup":
            for opt in options.split(","):
                mounts.setdefault(opt, point)
    return mounts


def _writable_dir(parent: Path) -> bool:
    probe = parent / f"referee-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


@functools.cache
def detect() -> Support:
    """What this machine offers (looked at once per process)."""
    try:
        own, mounts = _own_paths(), _mounts()
    except (OSError, ValueError):
        return Support("")
    if "memory" in mounts and "pids" in mounts and "memory" in own and "pids" in own:
        parents = tuple(mounts[c] / own[c].lstrip("/") for c in ("memory", "pids"))
        if all(_writable_dir(p) for p in parents):
            if "cpu" in mounts and "cpu" in own:
                cpu = mounts["cpu"] / own["cpu"].lstrip("/")
                parents += (cpu,) if cpu not in parents and _writable_dir(cpu) else ()
            return Support("v1", parents)
    if "" in mounts and "" in own:
        parent = mounts[""] / own[""].lstrip("/")
        try:
            delegated = set((parent / "cgroup.subtree_control").read_text().split())
        except OSError:
            delegated = set()
        if {"memory", "pids"} <= delegated and _writable_dir(parent):
            return Support("v2", (parent,))
    return Support("")


@functools.cache
def freezer_parent() -> Path | None:
    """This process's cgroup in a writable v1 ``freezer`` hierarchy (for ``--cpu-turns``),
    or None."""
    try:
        own, mounts = _own_paths(), _mounts()
    except (OSError, ValueError):
        return None
    if "freezer" not in mounts or "freezer" not in own:
        return None
    parent = mounts["freezer"] / own["freezer"].lstrip("/")
    return parent if _writable_dir(parent) else None


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


@dataclass(frozen=True)
class BotCgroup:
    """The cgroup (one directory per hierarchy) of one bot process tree."""

    dirs: tuple[Path, ...]

    def join(self) -> None:
        """Move the calling process into this cgroup (in the child, before exec: all it
        starts is then inside)."""
        pid = str(os.getpid())
        for d in self.dirs:
            _write(d / "cgroup.procs", pid)

    def freeze(self, frozen: bool) -> None:
        """Stop (``frozen``) or let run again every process of the tree, where it has a
        freezer cgroup (``--cpu-turns``)."""
        for d in self.dirs:
            if (d / "freezer.state").exists():
                _write(d / "freezer.state", "FROZEN" if frozen else "THAWED")

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            try:
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return found

    def kill(self, timeout_s: float = 2.0) -> bool:
        """SIGKILL every process in the cgroup until none is left (what forks meanwhile
        is caught on the next pass; the task cap bounds how many there can be). False if
        some outlived ``timeout_s`` (stuck in the kernel)."""
        self.freeze(False)  # a frozen task dies only once it is thawed
        kill_file = self.dirs[0] / "cgroup.kill"
        if kill_file.exists():
            _write(kill_file, "1")
        deadline = time.monotonic() + timeout_s
        while pids := self.pids():
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def remove(self) -> None:
        """Kill what is left, then remove the directories (a cgroup whose processes are
        stuck stays, and ``RunCgroups.remove`` tries again at the end)."""
        if self.kill():
            for d in self.dirs:
                _rmdir(d)


def remove_tree(d: Path) -> None:
    """Kill what is in cgroup ``d`` and in the cgroups under it, and remove them all."""
    for child in d.iterdir() if d.exists() else ():
        if child.is_dir():
            remove_tree(child)
    BotCgroup((d,)).remove()


def _rmdir(d: Path) -> bool:
    """Remove a cgroup directory; an exited task leaves its cgroup a moment after it is
    seen dead, so try for a second."""
    for _ in range(100):
        try:
            d.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.01)
    return False


def sweep(support: Support) -> None:
    """End what the referees that are gone left in their run cgroups, and remove those.

    A bot dies with the referee process that started it, except one that was being
    started at that very moment (bubblewrap's sandboxed child asks to die with its parent
    a moment after it exists), which the run's reaper ends (``referee.reaper``); a
    reaper that could not start, or was killed too, leaves this to the next run."""
    freezer = freezer_parent()
    for parent in (*support.parents, *((freezer,) if freezer is not None else ())):
        for run in parent.glob("referee-*-*"):
            try:
                os.kill(int(run.name.split("-")[1]), 0)
                continue  # its referee still runs
            except ProcessLookupError:
                pass
            except (ValueError, PermissionError):
                continue
            remove_tree(run)


def sweep_here() -> None:
    """``sweep`` on this machine's cgroups, where it has any."""
    support = detect()
    if support.version:
        sweep(support)


def cpu_cap_problem(cores: float) -> str | None:
    """Why this machine cannot cap each bot at ``cores`` CPU cores (0: no cap), or None."""
    if cores == 0:
        return None
    if not cores * CPU_PERIOD_US >= 1000:  # the kernel's smallest quota (NaN too)
        return "give 0 (no cap) or at least 0.01 cores"
    if not detect().cpu:
        return "this machine has no writable cgroup v1 cpu hierarchy to cap bots in"
    return None


class RunCgroups:
    """The cgroups of one run's bots; ``remove`` (also at exit) takes them all away."""

    def __init__(self, support: Support, turns: bool = False):
        """``turns``: each bot process gets a freezer cgroup too (``--cpu-turns``)."""
        self.support = support
        sweep(support)
        name = f"referee-{os.getpid()}-{secrets.token_hex(3)}"
        freezer = freezer_parent() if turns else None
        if turns and freezer is None:
            raise CgroupError("--cpu-turns: no writable cgroup v1 freezer hierarchy here")
        self.freezer = None if freezer is None else freezer / name
        self.dirs = tuple(p / name for p in support.parents)
        self._bots: dict[str, BotCgroup] = {}
        self._cpu_bots = 0  # bots with a CPU group: the run weighs as much as they
        try:
            for d in self.all_dirs:
                d.mkdir()
            if support.version == "v2":
                _write(self.dirs[0] / "cgroup.subtree_control", "+memory +pids")
        except OSError as exc:
            self._remove_dirs()
            raise CgroupError(f"cannot make cgroup {name}: {exc}") from None
        atexit.register(self.remove)

    @property
    def all_dirs(self) -> tuple[Path, ...]:
        """The run's directories, the freezer's first (what is frozen dies once thawed)."""
        return ((self.freezer,) if self.freezer is not None else ()) + self.dirs

    @classmethod
    def create(cls, turns: bool = False) -> RunCgroups | None:
        """The run's cgroups, or None where this machine offers none (CgroupError when
        ``turns`` asks for a freezer it does not offer)."""
        support = detect()
        if support.version:
            return cls(support, turns)
        if turns:
            raise CgroupError("--cpu-turns: no writable cgroup v1 hierarchies here")
        return None

    def bot(self, label: str, memory_bytes: int, tasks: int, bot: str,
            cores: float = 0.0) -> BotCgroup:
        """A new cgroup for one process tree of bot ``bot``: at most ``memory_bytes`` (0:
        no cap) and ``tasks`` processes and threads; where ``cores``, the bot's processes
        together use at most that many CPU cores (its CPU group's quota)."""
        if label in self._bots:
            self._bots.pop(label).remove()
        dirs = tuple(d / label for d in self.dirs[:2])
        if self.support.cpu:  # the bot's CPU group, then the process's in it
            dirs += (self.dirs[2] / bot / label,)
        try:
            if self.support.cpu and not dirs[2].parent.exists():
                dirs[2].parent.mkdir()
                self._cpu_bots += 1
                _write(self.dirs[2] / "cpu.shares",
                       str(min(MAX_CPU_SHARES, BOT_CPU_SHARES * self._cpu_bots)))
                if cores:
                    _write(dirs[2].parent / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                    _write(dirs[2].parent / "cpu.cfs_quota_us", str(round(cores * CPU_PERIOD_US)))
            for d in dirs:
                d.mkdir()
            if self.support.version == "v1":
                mem, pids = dirs[:2]
                if memory_bytes:
                    _write(mem / "memory.limit_in_bytes", str(memory_bytes))
                    if (mem / "memory.memsw.limit_in_bytes").exists():
                        _write(mem / "memory.memsw.limit_in_bytes", str(memory_bytes))
                _write(pids / "pids.max", str(tasks))
            else:
                (d,) = dirs
                if memory_bytes:
                    _write(d / "memory.max", str(memory_bytes))
                    if (d / "memory.swap.max").exists():
                        _write(d / "memory.swap.max", "0")
                _write(d / "pids.max", str(tasks))
        except OSError as exc:
            for d in dirs:
                if d.exists():
                    _rmdir(d)
            raise CgroupError(f"cannot set up cgroup {dirs[0]}: {exc}") from None
        if self.freezer is not None:
            try:
                (self.freezer / label).mkdir()
            except OSError as exc:
                BotCgroup(dirs).remove()
                raise CgroupError(f"cannot set up cgroup {self.freezer / label}: {exc}") from None
            dirs += (self.freezer / label,)
        group = BotCgroup(dirs)
        self._bots[label] = group
        return group

    def release(self, group: BotCgroup) -> None:
        """Kill what is left in a bot's cgroup and remove it."""
        for label, g in list(self._bots.items()):
            if g is group:
                del self._bots[label]
        group.remove()

    def remove(self) -> None:
        """Remove every bot's cgroup and the run's own (idempotent; what cannot be removed,
        because a process in it is stuck in the kernel, stays)."""
        for group in self._bots.values():
            group.remove()
        self._bots.clear()
        for d in self.all_dirs:
            remove_tree(d)
        atexit.unregister(self.remove)

    def _remove_dirs(self) -> None:
        for d in self.all_dirs:
            if d.exists():
                _rmdir(d)
