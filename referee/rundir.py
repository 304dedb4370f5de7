"""The run directory on disk: how its files are opened, read and written.

A run directory may come from a stranger (a run to ``resume``, ``verify``, ``show`` or
``rate``), so every file in it is opened through ``open_in``: below the directory only,
without following a symbolic link at any step (``openat`` one component at a time with
``O_NOFOLLOW``), regular files only (not a FIFO that would block nor a device), and never
written through a second hard link. What is read of one is JSON parsed by ``load_json``,
capped in size and nesting depth. Any of these is a ``RunFileError``: one line that names
the file (and line) and quotes at most ``QUOTE_CHARS`` of what was wrong.

Before a run starts, ``referee.runsetup.check_out`` makes sure that ``--out`` is a
directory the referee can write (``file_system``, ``RUN_FILES``). During a run, a
write that fails (a full disk, a quota, a file system gone read-only) is a
``StorageError``: the run stops with one line saying what could not be written; the
journal is kept whole (``referee.journal``), so ``referee resume`` finishes the run once
there is room again. ``write_text`` writes a whole file or leaves the old one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import IO, Any

from leaderboards.inert import brief
from leaderboards.wholefile import replacing

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
TRANSCRIPTS_FILE = "transcripts.jsonl"
RUN_FILES = (CONFIG_FILE, GAMES_FILE, TRANSCRIPTS_FILE)
# File systems that hold no files of ours (kernel interfaces).
PSEUDO_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "securityfs", "debugfs", "tracefs",
    "configfs", "bpf", "pstore", "mqueue", "fusectl", "binfmt_misc", "efivarfs"})
# A write that fails with one of these failed for want of room or of a writable disk.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO})
# What a reader takes of a run directory's JSON: nesting far deeper than any record has
# (a transcript is about 6 deep) but far below Python's recursion limit, and lines far
# larger than the referee writes (a transcript of a long game is well under 1 MiB).
MAX_DEPTH = 32
MAX_LINE_BYTES = {GAMES_FILE: 1 << 20, TRANSCRIPTS_FILE: 64 << 20}
MAX_FILE_BYTES = 16 << 20  # a whole-file document: config.json, sprt.json
_STRING = re.compile(rb'"[^"]*"')  # once escapes are gone
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_INNERMOST = re.compile(rb"[\[{][\]}]")


class RunFileError(ValueError):
    """A file of a run directory that cannot be taken as it is: a symbolic link, not a
    regular file, not JSON, too large or too deeply nested; the message says which."""


class StorageError(Exception):
    """A file of the run directory that could not be written (a full disk, a file
    system gone read-only): the run stops; what the journal holds stays whole."""


def open_in(root: Path, path: Path, flags: int, mode: int = 0o600,
            make_dirs: bool = False) -> int:
    """A descriptor of ``path``, a regular file below ``root`` (the run directory, taken
    as given), reached without following a symbolic link at any step; ``make_dirs``
    creates the folders on the way. RunFileError if a step is a link or the file is not a
    regular one, or (for writing) has another hard link; OSError for the rest."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        raise RunFileError(f"{path} is not inside {root}") from None
    if not parts or any(p in (".", "..") for p in parts):
        raise RunFileError(f"{path} is not a file inside {root}")
    here = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, part in enumerate(parts[:-1]):
            if make_dirs:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=here)
            step = _step(here, part, os.O_RDONLY | os.O_DIRECTORY, 0, root, parts[:i + 1])
            os.close(here)
            here = step
        # Not blocking: opening a FIFO for reading would wait for a writer.
        fd = _step(here, parts[-1], flags | os.O_NONBLOCK, mode, root, parts)
    finally:
        os.close(here)
    info = os.fstat(fd)
    writes = flags & (os.O_WRONLY | os.O_RDWR)
    why = ("is not a regular file" if not stat.S_ISREG(info.st_mode) else
           "has another hard link: writing it would change another file"
           if writes and info.st_nlink > 1 else None)
    if why:
        os.close(fd)
        raise RunFileError(f"{root.joinpath(*parts)} {why}; refused")
    os.set_blocking(fd, True)
    return fd


def _step(here: int, name: str, flags: int, mode: int, root: Path,
          parts: tuple[str, ...]) -> int:
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=here)
    except OSError as exc:
        link = exc.errno in (errno.ELOOP, errno.ENOTDIR) and \
            stat.S_ISLNK(os.lstat(name, dir_fd=here).st_mode)
        if link:
            raise RunFileError(f"{root.joinpath(*parts)} is a symbolic link; a run directory "
                               "holds none (refused)") from None
        if exc.errno == errno.ENOTDIR:
            raise RunFileError(f"{root.joinpath(*parts)} is not a directory") from None
        exc.filename = str(root.joinpath(*parts))
        raise


def open_read(root: Path, path: Path) -> IO[bytes]:
    """``path`` below ``root`` opened for reading (``open_in``)."""
    return os.fdopen(open_in(root, path, os.O_RDONLY), "rb")


def open_append(root: Path, path: Path, mode: int = 0o644) -> IO[bytes]:
    """``path`` below ``root`` opened for appending, created (with its folders) if need
    be; unbuffered, so that a failed write fails at once (``open_in``)."""
    fd = open_in(root, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode, make_dirs=True)
    return os.fdopen(fd, "ab", buffering=0)


def load_json(data: bytes, where: str, max_bytes: int = MAX_FILE_BYTES,
              what: str = "JSON") -> Any:
    """``data`` parsed as JSON, or a RunFileError naming ``where`` (a file, or file:line)
    if it is larger than ``max_bytes``, nested deeper than MAX_DEPTH, or not JSON (``not
    {what}``)."""
    if len(data) > max_bytes:
        raise RunFileError(f"{where}: longer than a reader takes ({max_bytes} bytes)")
    if _depth_over(data, MAX_DEPTH):
        raise RunFileError(f"{where}: nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise RunFileError(f"{where}: not {what} ({brief(str(exc))})") from None


def _depth_over(data: bytes, limit: int) -> bool:
    """Whether the JSON text ``data`` nests more than ``limit`` deep: with the strings
    taken out, each pass removes the innermost brackets; at C speed, no recursion."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    # Escaped backslashes go first, so that what is left of a backslash before a quote
    # escapes it; then only brackets and quotes: the strings left are short to find.
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    rest = _STRING.sub(b"", data.translate(None, _NOT_STRUCTURE))
    for _ in range(limit):
        rest, n = _INNERMOST.subn(b"", rest)
        if not n:
            return False
    return bool(rest)


def read_json(root: Path, name: str) -> Any:
    """The JSON document ``root/name`` (``open_in``, ``load_json``)."""
    path = root / name
    with open_read(root, path) as f:
        return load_json(f.read(MAX_FILE_BYTES + 1), str(path))


def read_config(run_dir: Path) -> dict[str, Any]:
    """The configuration ``config.json`` records (its ``config``); {} if the run has no
    ``config.json``. RunFileError if it is not a run's configuration."""
    try:
        doc = read_json(run_dir, CONFIG_FILE)
    except FileNotFoundError:
        return {}
    config = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(config, dict):
        raise RunFileError(f"{run_dir / CONFIG_FILE}: not a run's configuration (no "
                           "'config' object)")
    return config


def check_tree(run_dir: Path) -> None:
    """RunFileError naming the first thing in ``run_dir`` that is neither a regular file
    nor a folder (a symbolic link, a FIFO, a device, a socket): the referee makes none."""
    for folder, dirs, files in os.walk(run_dir):  # links to folders are listed, not entered
        for name in dirs + files:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
                raise RunFileError(f"{path} is {what}; a run directory holds only files and "
                                   "folders (refused)")


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


