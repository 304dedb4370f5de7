"""A game's compiled kernels for sandboxed bots, compiled once per machine.

numba compiles a kernel the first time a process calls it (the evaluator's take about
6 s of CPU) and keeps it in a cache directory. A sandboxed bot's cache lies in its
private ``/tmp`` and goes with the process, so every bot process that used the evaluator
compiled them again, and a duplicate-deal run starts one process per deal.

So the referee has the kernels the game names (``Game.kernels``: functions that compile
them) compiled once: a process that runs only those (``python -m referee.kernelwarm``,
nothing of any bot) in a sandbox laid out as the bots' are (numba's cache holds only
for the paths it was compiled at) writes them into ``~/.cache/referee/kernels/<key>``.
Each bot's sandbox gets that directory read-only, and the SDK copies it into the bot's
own cache before it loads the bot (numba reads a cache only from a directory it can
write). A bot cannot write to it, so it cannot plant code
that another bot would run. The key covers what makes the cache valid: the functions
named and the files of their packages, the interpreter, numba's version and the
sandbox's layout.

Where the kernels cannot be compiled this way (no home directory, a failure), bots
compile them themselves, as before: nothing else changes.

>>> cache_root({"XDG_CACHE_HOME": "/c", "HOME": "/h"})
PosixPath('/c/referee/kernels')
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from referee.sandbox import SDK_MOUNT, Plan, Sandbox, sdk_packages

WARM_TIMEOUT_S = 300  # compiling takes ~10 s on a busy machine; far beyond is a hang


def cache_root(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where compiled kernels are kept for this user, or None without a home."""
    base = environ.get("XDG_CACHE_HOME") or (
        f"{environ['HOME']}/.cache" if environ.get("HOME") else "")
    return Path(base) / "referee" / "kernels" if base else None


def cache_key(sandbox: Sandbox, kernels: Sequence[str]) -> str:
    """What the compiled kernels depend on, hashed: the functions that compile them, the
    files of their packages (by name, size and time), the interpreter, numba's version
    and where the sandbox puts the SDK."""
    tops = {name.partition(".")[0] for name in kernels}
    h = hashlib.sha256()
    for item in (sys.executable, sys.version, importlib.metadata.version("numba"),
                 sandbox.kind, str(SDK_MOUNT), *kernels):
        h.update(item.encode() + b"\0")
    for package in (d for d in sdk_packages() if d.name in tops):
        h.update(str(package).encode() + b"\0")
        for f in sorted(package.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:24]


def sandbox_kernels(sandbox: Sandbox, uid: int | None,
                    kernels: Sequence[str]) -> Path | None:
    """The directory of the kernels that the functions ``kernels`` (``Game.kernels``)
    compile, for bots in ``sandbox`` (bubblewrap only), compiled now if this machine has
    none yet; None where they cannot be, or the game has none. ``uid``: who the
    compiling process runs as (a root referee drops every sandboxed process's rights)."""
    root = cache_root()
    if sandbox.kind != "bwrap" or root is None or not kernels:
        return None
    done = root / cache_key(sandbox, kernels)
    if done.is_dir():
        return done
    work = root / f".{done.name}-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        root.mkdir(parents=True, exist_ok=True)
        work.mkdir(mode=0o777)
        work.chmod(0o777)  # whatever the umask: the compiling uid writes here
        plan = Plan(work, "tcp://127.0.0.1:1", uid=uid, kernels=work, compile_kernels=True)
        command = sandbox.wrap([sys.executable, "-m", "referee.kernelwarm", *kernels], plan)
        res = subprocess.run(command, env=plan.env(), cwd=work, capture_output=True,
                             timeout=WARM_TIMEOUT_S, start_new_session=True)
        if res.returncode != 0:
            return None
        work.chmod(0o755)
        try:
            work.rename(done)  # whole or not at all; another referee may have won
        except OSError:
            pass
        return done if done.is_dir() else None
    except (OSError, subprocess.TimeoutExpired):
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
