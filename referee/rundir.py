"""The run directory on disk: whether a run may use it, and what a failed write means.

Before a run starts, ``check_out`` makes sure that ``--out`` is a directory the referee
can write (not a file, not a read-only or pseudo file system such as ``/proc``) and,
for a new run, not a run directory already (that is ``referee resume``'s). During a
run, a write that fails (a full disk, a quota, a file system gone read-only) is a
``StorageError``: the run stops with one line saying what could not be written; the
journal is kept whole (``referee.journal``), so ``referee resume`` finishes the run once
there is room again. ``write_text`` writes a whole file or leaves the old one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from referee.config import ConfigError
from referee.journal import GAMES_FILE, STORAGE_ERRNOS, TRANSCRIPTS_FILE, StorageError

CONFIG_FILE = "config.json"
RUN_FILES = (CONFIG_FILE, GAMES_FILE, TRANSCRIPTS_FILE)
# File systems that hold no files of ours (kernel interfaces).
PSEUDO_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "securityfs", "debugfs", "tracefs",
    "configfs", "bpf", "pstore", "mqueue", "fusectl", "binfmt_misc", "efivarfs"})


def check_out(out: Path, new_run: bool) -> None:
    """ConfigError unless a run can write into ``out`` (created if need be); for a
    ``new_run``, also unless ``out`` is free of another run's files."""
    fs = file_system(out)
    if fs in PSEUDO_FILE_SYSTEMS:
        raise ConfigError(f"--out {out} is on a {fs} file system, which cannot hold a run")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory")
    if new_run and any((out / name).exists() for name in RUN_FILES):
        raise ConfigError(f"--out {out} already holds a run: go on with it with "
                          f"`referee resume {out}`, or give another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".referee-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(f"{'--out ' if new_run else ''}{out} cannot be written: "
                          f"{exc.strerror or exc}") from None


def file_system(path: Path) -> str | None:
    """The type of the file system ``path`` is (or would be) on; None if unknown."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            mounts = [line.split()[1:3] for line in f if len(line.split()) > 2]
    except OSError:
        return None
    where = str(path.absolute())
    best, kind = "", None
    for mount, fs in mounts:
        mount = mount.replace("\\040", " ")
        inside = where == mount or where.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, fs
    return kind


def storage_error(exc: BaseException, out: Path) -> StorageError | None:
    """``exc`` as a StorageError if it is a failed write of the run directory (or one
    for want of room anywhere); None if it is something else."""
    if isinstance(exc, StorageError):
        return exc
    if not isinstance(exc, OSError):
        return None
    name = exc.filename
    inside = name is not None and Path(os.fsdecode(name)).absolute().is_relative_to(
        out.absolute())
    if exc.errno in STORAGE_ERRNOS or (inside and exc.errno in (errno.EACCES, errno.EPERM)):
        return StorageError(f"cannot write {os.fsdecode(name) if name else out}: "
                            f"{exc.strerror or exc}")
    return None


def write_text(path: Path, text: str) -> None:
    """Write ``path`` whole (through a temporary file renamed over it), or raise a
    StorageError and leave what was there."""
    try:
        with replacing(path) as f:
            f.write(text)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None


@contextmanager
def replacing(path: Path, mode: int = 0o600) -> Iterator[IO[str]]:
    """A new text file that takes the place of ``path`` whole when the block ends; if
    the block raises (an OSError, a full disk), the file is removed and what was at
    ``path`` stays. ``mode``: the file's permissions."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
