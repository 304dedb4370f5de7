"""Sandboxes for untrusted bots: how a bot's command is wrapped before it is started.

``none`` runs the bot as it is (trusted local development). ``bwrap`` runs it under
bubblewrap: no network (a network namespace of its own, not even loopback), its own
process-id namespace (ending the sandbox ends everything in it), a read-only view of
the whole file system, and one writable directory of its own (its ``HOME`` and
``TMPDIR``). The referee's ipc endpoint directory is bound in, so the bot
can still connect to it.

>>> Sandbox("none").wrap(["bot"], Path("/w"), "ipc:///tmp/r/router")
['bot']
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

SANDBOXES = ("none", "bwrap")


class SandboxError(ValueError):
    """A sandbox that is unknown or cannot be used on this machine."""


@dataclass(frozen=True)
class Sandbox:
    kind: str = "none"

    def check(self) -> None:
        """Raise SandboxError if this sandbox cannot run here."""
        if self.kind not in SANDBOXES:
            raise SandboxError(f"unknown sandbox {self.kind!r}: use {' or '.join(SANDBOXES)}")
        if self.kind == "bwrap" and shutil.which("bwrap") is None:
            raise SandboxError("--sandbox bwrap needs bubblewrap, which is not installed "
                               "(Debian/Ubuntu: apt-get install bubblewrap)")

    def env(self, workdir: Path) -> dict[str, str]:
        """Environment variables the bot gets inside the sandbox."""
        if self.kind == "none":
            return {}
        return {"HOME": str(workdir), "TMPDIR": str(workdir),
                "NUMBA_CACHE_DIR": str(workdir / ".numba")}

    def wrap(self, command: list[str], workdir: Path, endpoint: str) -> list[str]:
        """The command that runs ``command`` in this sandbox, writable ``workdir``
        created beforehand."""
        if self.kind == "none":
            return command
        binds = ["--bind", str(workdir), str(workdir)]
        if endpoint.startswith("ipc://"):
            ipc_dir = str(Path(endpoint.removeprefix("ipc://")).parent)
            binds += ["--bind", ipc_dir, ipc_dir]
        return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                *binds, "--unshare-net", "--unshare-pid", "--unshare-ipc",
                "--unshare-uts", "--die-with-parent", "--", *command]
