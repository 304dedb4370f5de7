"""A game's compiled kernels for sandboxed bots, compiled once per machine.

numba compiles a kernel the first time a process calls it (the evaluator's take about
6 s of CPU) and keeps it in a cache directory. A sandboxed bot's cache lies in its
private ``/tmp`` and goes with the process, so every bot process that used the evaluator
compiled them again, and a duplicate-deal run starts one process per deal.

So the referee has the kernels the game names (``Game.kernels``: functions that compile
them) compiled once: a process that runs only those (``python -m referee.kernelwarm``,
nothing of any bot) in a sandbox laid out as the bots'
are (numba's cache holds only for the paths it was compiled at) writes them into a
private directory; the referee itself then stores them in
``~/.cache/referee/kernels/<key>`` (its own files, mode 644, in its own directories)
with a manifest of their SHA-256 hashes. The key covers what makes the cache valid: the
functions named and the files of their packages, the interpreter, numba's version and
the sandbox's layout.

numba's cache files are pickles: whoever can change them runs code in every process
that loads them. So nothing is bound into a sandbox from the cache itself: each command
reads an entry, checks every file against the manifest, and writes what it checked to
a directory of its own, which its bots' sandboxes get read-only (the SDK copies it into
the bot's own cache before it loads the bot; numba reads a cache only from a directory
it can write). An entry that differs from its manifest is removed and compiled again.
Sandboxed bots cannot write the cache, nor can bots run as other users (``--run-as``);
bots that are trusted (``--sandbox none``) run with the referee's rights and could
rewrite files and manifest together, so while they run the cache is watched
(``CacheWatch``): whatever changed or appeared in it by their end is removed.

Where the kernels cannot be compiled this way (no home directory, a failure), bots
compile them themselves, as before: nothing else changes.

>>> cache_root({"XDG_CACHE_HOME": "/c", "HOME": "/h"})
PosixPath('/c/referee/kernels')
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    # the interpreter by its real file: `python -m referee` and `referee` share the entry
    for item in (CACHE_FORMAT, os.path.realpath(sys.executable), sys.version,
                 importlib.metadata.version("numba"),
                 sandbox.kind, str(SDK_MOUNT), *kernels):
        h.update(item.encode() + b"\0")
    for package in (d for d in sdk_packages() if d.name in tops):
        h.update(str(package).encode() + b"\0")
        for f in sorted(package.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:24]


CACHE_FORMAT = "manifest-1"  # entries of an earlier format (no manifest) are not used
MANIFEST = "MANIFEST.json"  # relative path -> sha256 of every file of an entry
MAX_BYTES = 64 << 20  # of one entry: the evaluator's kernels take about 400 kB


class Tampered(ValueError):
    """A cache entry that is not what the referee wrote."""


def _files(entry: Path) -> dict[str, bytes]:
    """Every file under ``entry`` by relative path; Tampered for anything but plain
    files and directories (a link, a device) or more than MAX_BYTES."""
    files: dict[str, bytes] = {}
    total = 0
    for p in sorted(entry.rglob("*")):
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            raise Tampered(f"{p} is not a plain file")
        if p.is_file():
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                files[str(p.relative_to(entry))] = data = f.read(MAX_BYTES + 1)
            total += len(data)
            if total > MAX_BYTES:
                raise Tampered(f"{entry} holds more than {MAX_BYTES} bytes")
    return files


def _digests(files: Mapping[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def verified(entry: Path) -> dict[str, bytes]:
    """The kernels of a cache entry, each file checked against the entry's manifest
    (its hashes, written by the referee with the files); Tampered if any differs."""
    try:
        if entry.is_symlink():
            raise Tampered(f"{entry} is a link")
        files = _files(entry)
        manifest = json.loads(files.pop(MANIFEST, b"null"))
    except (OSError, ValueError) as exc:
        raise Tampered(f"{entry}: {exc}") from None
    if manifest != _digests(files):
        raise Tampered(f"{entry}: its files are not the ones the referee compiled")
    return files


def _write(files: Mapping[str, bytes], into: Path) -> None:
    """Write ``files`` under the new directory ``into``: the referee's, readable by all."""
    into.mkdir(mode=0o755)
    for name, data in files.items():
        target = into / name
        for d in reversed(target.relative_to(into).parents[:-1]):
            (into / d).mkdir(mode=0o755, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    for p in (into, *into.rglob("*")):
        p.chmod(0o755 if p.is_dir() else 0o644)  # whatever the umask


def _compile(sandbox: Sandbox, uid: int | None, kernels: Sequence[str]) -> dict[str, bytes] | None:
    """Compile the kernels in a sandbox of their own that runs nothing of any bot, in a
    private directory (not the cache: no one else sees it before it is stored); what it
    wrote, or None if it failed."""
    private = tempfile.mkdtemp(prefix="referee-compile-")
    work = Path(private) / "kernels"
    try:
        work.mkdir(mode=0o777)
        work.chmod(0o777)  # whatever the umask: the compiling uid writes here
        plan = Plan(work, "tcp://127.0.0.1:1", uid=uid, kernels=work, compile_kernels=True)
        with sandbox.popen([sys.executable, "-m", "referee.kernelwarm", *kernels], plan,
                           env=plan.env(), cwd=work, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True) as proc:
            try:
                code = proc.wait(WARM_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                return None
        return _files(work) if code == 0 else None
    except (OSError, Tampered):
        return None
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _store(files: Mapping[str, bytes], root: Path, entry: Path) -> None:
    """Keep ``files`` as ``entry``, written by the referee with their manifest, whole or
    not at all (another referee may have stored it first)."""
    part = root / f".store-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        _write({**files, MANIFEST: json.dumps(_digests(files)).encode()}, part)
        part.rename(entry)
    except OSError:
        pass
    finally:
        shutil.rmtree(part, ignore_errors=True)


def sandbox_kernels(sandbox: Sandbox, uid: int | None, into: Path,
                    kernels: Sequence[str]) -> tuple[Path | None, str | None]:
    """The kernels that the functions ``kernels`` (``Game.kernels``) compile, for bots
    in ``sandbox`` (bubblewrap only), compiled now if
    this machine has none yet, checked against their manifest and written to the new
    directory ``into`` (the command's own: what its bots' sandboxes get); None where they
    cannot be. Then what the command must say, if anything: a cache entry that was not
    the referee's, removed and compiled again. ``uid``: who the compiling process runs
    as (a root referee drops every sandboxed process's rights)."""
    root = cache_root()
    if sandbox.kind != "bwrap" or root is None or not kernels:
        return None, None
    entry = root / cache_key(sandbox, kernels)
    note = None
    files = None
    if entry.exists() or entry.is_symlink():
        try:
            files = verified(entry)
        except Tampered as exc:
            if entry.exists() or entry.is_symlink():  # else another referee removed it
                note = f"kernel cache: {exc}; removed, and compiled again"
                _remove(entry)
    try:
        root.mkdir(parents=True, exist_ok=True)
        if files is None:
            files = _compile(sandbox, uid, kernels)
            if files is None:
                return None, note
            _store(files, root, entry)
        _write(files, into)
    except OSError:
        return None, note
    return into, note


def _remove(path: Path) -> None:
    """Take ``path`` out of the cache at once (a rename), then delete it: a referee
    reading the entry meanwhile finds it gone, not half deleted and so "tampered"."""
    if path.is_dir() and not path.is_symlink():
        doomed = path.with_name(f".remove-{os.getpid()}-{secrets.token_hex(3)}")
        try:
            path.rename(doomed)
        except OSError:
            return  # gone already: another referee removed it
        shutil.rmtree(doomed, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class CacheWatch:
    """What the kernel cache held when bots that are trusted (``--sandbox none``: they
    run with the referee's rights and could write it) started; ``check`` removes every
    entry that changed or appeared since."""

    root: Path | None
    before: Mapping[str, str]  # entry -> digest of all it holds

    @staticmethod
    def _state(root: Path | None) -> dict[str, str]:
        if root is None or not root.is_dir():
            return {}
        state = {}
        for entry in root.iterdir():
            if entry.name.startswith("."):  # being stored by a referee: never read
                continue
            try:
                files = {} if entry.is_symlink() or not entry.is_dir() else _files(entry)
                digest = hashlib.sha256(json.dumps(_digests(files), sort_keys=True).encode())
                state[entry.name] = f"{entry.is_symlink()}:{digest.hexdigest()}"
            except (OSError, Tampered):
                state[entry.name] = "unreadable"
        return state

    @classmethod
    def start(cls) -> CacheWatch:
        root = cache_root()
        return cls(root, cls._state(root))

    def check(self) -> str | None:
        """Remove what changed since ``start``; a line saying so, or None."""
        changed = sorted(name for name, digest in self._state(self.root).items()
                         if self.before.get(name) != digest)
        if not changed:
            return None
        assert self.root is not None
        for name in changed:
            _remove(self.root / name)
        return (f"kernel cache: the trusted bots changed {', '.join(changed)} in {self.root}; "
                "removed (a sandboxed run compiles the kernels again)")
