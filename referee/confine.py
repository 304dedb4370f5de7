"""What holds a command's bots, set up once per command: its sandbox (resolved once, at
the start: a command never changes it), the bots' limits, the cgroups of their process
trees, the compiled kernels their sandboxes get, and, where the bots are trusted, the
watch on the kernel cache (``referee.kernelcache``).

Every command that starts bot processes (``run``, ``resume``, ``sprt``, ``check``, and
the worker processes of ``--workers``) opens one and starts each bot through
``Confinement.start``, so no command runs a bot another way.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.cgroup import RunCgroups
from referee.kernelcache import CacheWatch, sandbox_kernels
from referee.logs import LogPump
from referee.process import BotLimits, BotProcess, BotSpec
from referee.reaper import Reaper
from referee.sandbox import Sandbox


@dataclass
class Confinement:
    """One command's way of holding its bots; ``close`` undoes what ``open`` made."""

    sandbox: Sandbox
    limits: BotLimits
    cgroups: RunCgroups | None = None
    reaper: Reaper | None = None  # ends the bots in the cgroups if this process is killed
    kernels: Path | None = None   # the command's own verified copy, bound read-only
    watch: CacheWatch | None = None  # trusted bots: what the kernel cache was before them
    notes: list[str] = field(default_factory=list)  # what the command must say
    _private: str | None = None   # the directory of the kernels' copy

    @classmethod
    def open(cls, sandbox: str, limits: BotLimits,
             kernels: Sequence[str] = ()) -> Confinement:
        """Make the cgroups (and their reaper) and, for sandboxed bots, a copy of the
        kernels that the functions ``kernels`` compile (``Game.kernels``); for trusted
        bots, start watching the kernel cache."""
        made = cls(Sandbox(sandbox), limits, RunCgroups.create(limits.turns))
        if made.cgroups is not None:
            try:
                made.reaper = Reaper(made.cgroups.all_dirs)
            except OSError:  # the next run's sweep is left (``referee.cgroup.sweep``)
                pass
        if sandbox == "none":
            made.watch = CacheWatch.start()
            return made
        try:
            made._private = tempfile.mkdtemp(prefix="referee-kernels-")
        except OSError:  # no room for them: the bots compile the kernels themselves
            return made
        ids = limits.ids_for(0, sandboxed=True)
        made.kernels, note = sandbox_kernels(made.sandbox, ids and ids[0],
                                             Path(made._private) / "kernels", kernels)
        made.notes += [note] if note else []
        return made

    def start(self, spec: BotSpec, endpoint: str, token: str, log_dir: Path, label: str,
              logs: LogPump, *, instance: int = 0, hide: tuple[Path, ...] = (),
              game: str = "", start_timeout_ms: int = 0) -> BotProcess:
        """Start one bot process (``referee.process.BotProcess``) as this command holds
        them."""
        return BotProcess(spec, endpoint, token, log_dir, label, self.limits, logs,
                          self.sandbox, instance=instance, hide=hide, cgroups=self.cgroups,
                          game=game, kernels=self.kernels, start_timeout_ms=start_timeout_ms)

    def close(self) -> list[str]:
        """Remove the cgroups and the kernels' copy; what the command must still say (a
        kernel cache that trusted bots changed, and that is therefore removed)."""
        if self.cgroups is not None:
            self.cgroups.remove()
            self.cgroups = None
        if self.reaper is not None:
            self.reaper.close()
            self.reaper = None
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None
        if self.watch is not None:
            note, self.watch = self.watch.check(), None
            self.notes += [note] if note else []
        notes, self.notes = self.notes, []
        return notes
