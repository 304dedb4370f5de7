"""A bot uploaded as a zipped folder: read, bounded and checked, before anything is written.

The folder is a bot as ``referee run`` takes one in a folder: its entry file (``bot.py``
unless the upload names another) lies at the folder's top, beside the modules and data
it reads; with an ``__init__.py`` there, it imports them relatively (README, "A bot file
in a package"); the sandbox shows the bot this folder only. A zip of the folder itself
(every member under one top folder, as ``zip -r bot.zip mybot/`` makes) is taken as that
folder's contents.

A zip is hostile until read: the compressed body, the files' total uncompressed bytes
and their count are bounded (a zip bomb is cut off when it passes the bound, whatever
its headers claim); absolute paths, ``..``, backslashes, NUL or other unprintable
characters in a name, a name twice, symbolic links, devices and other special files,
and encrypted members are refused. Nothing is written here: ``referee.league.submit``
writes the files it returns.
"""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import PurePosixPath

from referee.bottree import SKIPPED_DIRS, TreeFile
from referee.league.db import LeagueError

MAX_ZIP_BYTES = 4 << 20  # of an uploaded zip, as sent
MAX_TREE_BYTES = 32 << 20  # of its files, unpacked
MAX_TREE_FILES = 512  # members (files and folders)
DEFAULT_ENTRY = "bot.py"


class BadZip(LeagueError):
    """An upload that is not a zip the league takes; the message says why."""


class TooLarge(BadZip):
    """An upload over one of the size bounds (as sent, unpacked, or in members)."""


def is_zip(file_name: str) -> bool:
    return file_name.lower().endswith(".zip")


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath:
    """The member's path, refused unless it is a plain relative path."""
    raw = info.orig_filename  # before zipfile cuts the name at a NUL
    if "\0" in raw or "\\" in raw or not raw.isprintable():
        raise BadZip(f"a member's name {raw!r} has a NUL, a backslash or an unprintable "
                     "character")
    path = PurePosixPath(raw)
    if path.is_absolute() or raw.startswith("/") or not path.parts \
            or any(p in ("..", ".") for p in raw.rstrip("/").split("/")) \
            or (len(path.parts[0]) == 2 and path.parts[0][1] == ":"):
        raise BadZip(f"a member is named {raw!r}: only paths inside the folder are taken "
                     "(no absolute path, no '..')")
    return path


def _kind(info: zipfile.ZipInfo) -> str:
    """'dir' or 'file'; BadZip for links, devices and other special members."""
    mode = info.external_attr >> 16
    if info.flag_bits & 0x1:
        raise BadZip(f"member {info.filename!r} is encrypted")
    if info.is_dir() and (not mode or stat.S_ISDIR(mode)):
        return "dir"
    if not mode or stat.S_ISREG(mode):  # a zip made on Windows carries no Unix mode
        return "file"
    what = "a symbolic link" if stat.S_ISLNK(mode) else "a special file (device, FIFO...)"
    raise BadZip(f"member {info.filename!r} is {what}: only files and folders are taken")


def read_zip(data: bytes, entry: str | None = None) -> tuple[tuple[TreeFile, ...], str]:
    """The folder's files (paths under its top) and its entry file's path; BadZip for
    anything the module's docstring refuses, or a folder without its entry file."""
    if len(data) > MAX_ZIP_BYTES:
        raise TooLarge(f"the zip has {len(data)} bytes; the most is {MAX_ZIP_BYTES}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise BadZip(f"not a zip file ({exc})") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_TREE_FILES:
            raise TooLarge(f"the zip has {len(members)} members; the most is "
                           f"{MAX_TREE_FILES}")
        files: dict[str, TreeFile] = {}
        dirs: set[str] = set()
        budget = MAX_TREE_BYTES
        for info in members:
            path = _member_path(info)
            key = path.as_posix()
            if key in files or key in dirs:
                raise BadZip(f"the zip holds {key!r} twice")
            if _kind(info) == "dir":
                dirs.add(key)
                continue
            if any(p in SKIPPED_DIRS for p in path.parts):
                continue  # compiled caches: Python makes its own
            body = _read_bounded(archive, info, budget)
            budget -= len(body)
            files[key] = TreeFile(key, 0o555 if (info.external_attr >> 16) & 0o111 else 0o444,
                                  body)
    for key in files:  # a file that is also a folder of another member
        if any(other.startswith(key + "/") for other in (*files, *dirs)):
            raise BadZip(f"{key!r} is both a file and a folder in the zip")
    return _at_top(tuple(files.values()), entry or DEFAULT_ENTRY)


def _read_bounded(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes:
    """The member's bytes, BadZip once they pass ``budget`` (whatever the header says)."""
    if info.file_size > budget:
        raise TooLarge(f"the zip unpacks to more than {MAX_TREE_BYTES} bytes")
    try:
        with archive.open(info) as f:
            body = f.read(budget + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, ValueError,
            EOFError, OSError) as exc:  # a bad CRC, an unknown compression method...
        raise BadZip(f"member {info.filename!r} cannot be unpacked ({exc})") from None
    if len(body) > budget:
        raise TooLarge(f"the zip unpacks to more than {MAX_TREE_BYTES} bytes")
    return body


def _at_top(files: tuple[TreeFile, ...], entry: str) -> tuple[tuple[TreeFile, ...], str]:
    """The files with the one folder they all lie in taken off (a zip of the folder
    itself), and the entry file, which must lie at the top."""
    if not entry or entry != PurePosixPath(entry).name or entry.startswith(".") \
            or not entry.isprintable():
        raise BadZip(f"entry {entry!r}: give the plain name of a file at the folder's top")
    if not files:
        raise BadZip("the zip holds no file")
    tops = {PurePosixPath(f.path).parts[0] for f in files}
    if len(tops) == 1 and all(len(PurePosixPath(f.path).parts) > 1 for f in files):
        cut = len(tops.pop()) + 1
        files = tuple(TreeFile(f.path[cut:], f.mode, f.data) for f in files)
    if not any(f.path == entry for f in files):
        raise BadZip(f"the zip has no {entry} at its top: the bot's entry file (name "
                     "another with entry=NAME, or --entry NAME)")
    return files, entry
