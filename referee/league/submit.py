"""A submission: a bot (a file, or a zipped folder) that enters the league's pool only if
it passes its check.

The bot is checked as a copy in the league directory (``referee check``'s path:
``referee.check.run_check``, in the league's sandbox under its limits); a copy that
passes is kept, content-addressed and read-only, in ``bots/<tree hash>/``
(``referee.bottree``'s hash of its files' paths, modes and bytes): a file alone, a folder
(``referee.league.botzip``) with its entry file at its top; so what the games run is what
was checked. The database keeps the entry file's path and sha256 (as ``config.json``
records it). The same for the command line (``add-bot``) and the web
(``POST /api/bots``).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path, PurePosixPath

from rich.console import Console

from referee.bottree import TreeFile, tree_hash
from referee.check import run_check
from referee.games import load_game
from referee.league import db
from referee.league.botzip import TooLarge, is_zip, read_zip
from referee.process import BotLimits, BotNotRunnable, bot_spec

CHECK_MOVE_MS = 2000  # per scripted turn of the check a bot passes to enter the pool
MAX_BOT_BYTES = 1 << 20  # of an uploaded file (a zip: botzip.MAX_ZIP_BYTES)


class Refused(Exception):
    """The bot failed its check; ``output`` is the check's report."""

    def __init__(self, output: str):
        super().__init__(output)
        self.output = output


def check_names(file_name: str, bot_name: str) -> None:
    """LeagueError unless both are plain names (no path, no markup to fear)."""
    if not file_name or file_name != Path(file_name).name or file_name.startswith(".") \
            or not file_name.isprintable():
        raise db.LeagueError(f"file name {file_name!r}: give a plain file name")
    if not bot_name.isidentifier():
        raise db.LeagueError(f"bot name {bot_name!r}: use letters, digits and '_' only")


def bot_files(file_name: str, data: bytes, entry: str | None = None
              ) -> tuple[tuple[TreeFile, ...], str]:
    """An upload as (its files, its entry file's path): a zip is a folder
    (``botzip.read_zip``), anything else the one file ``file_name``. LeagueError (BadZip)
    for an upload the league does not take."""
    if is_zip(file_name):
        return read_zip(data, entry)
    if entry is not None:
        raise db.LeagueError("entry names a zipped folder's entry file: give a .zip")
    if len(data) > MAX_BOT_BYTES:
        raise TooLarge(f"the file has {len(data)} bytes; the most is {MAX_BOT_BYTES}")
    mode = 0o444 if file_name.endswith(".py") else 0o555
    return (TreeFile(file_name, mode, data),), file_name


def submit(con: sqlite3.Connection, league: Path, author: tuple[int, str], file_name: str,
           data: bytes, bot_name: str | None = None, entry: str | None = None) -> db.BotRow:
    """Enter ``data`` (a bot file called ``file_name``, or a zipped folder if it ends in
    .zip, whose entry file is ``entry``, default ``bot.py``) as the token's author's bot
    ``bot_name`` (default: the file's name without .py or .zip) of ``author`` (id, name:
    ``db.author_of``): LeagueError for a bad request (TooLarge: over a size bound),
    Refused if it fails its check."""
    author_id, author_name = author
    name = bot_name or (Path(file_name).stem if file_name else "")
    check_names(file_name, name)
    files, entry_path = bot_files(file_name, data, entry)
    digest = tree_hash(files)
    home = league.resolve() / db.BOTS_DIR / digest
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=league / db.BOTS_DIR))
    try:
        _write_tree(staging, files)
        spec_path = staging / entry_path
        _check(con, league, name, spec_path, digest)
        if not home.exists():  # else the same bot is there already
            # The staging folder is in bots/, as its home: the rename moves no folder
            # to another parent (which a read-only folder would refuse).
            try:
                staging.rename(home)
            except OSError:
                if not home.is_dir():
                    raise
                # else the same bot, uploaded at the same time, was put there first
    finally:
        _remove(staging)
    entry_sha = next(hashlib.sha256(f.data).hexdigest() for f in files if f.path == entry_path)
    return db.add_bot(con, author_id, author_name, name, home / entry_path, entry_sha)


def _check(con: sqlite3.Connection, league: Path, name: str, path: Path, digest: str) -> None:
    """Refused unless the bot at ``path`` passes ``referee check`` in the league's sandbox."""
    s = db.get_settings(con)
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)
    try:
        spec = bot_spec(name, path)
    except BotNotRunnable as exc:
        raise Refused(f"FAIL start and hello: {exc}\n") from None
    code = run_check(spec, load_game(s["game"], s["params"]), CHECK_MOVE_MS,
                     s["start_timeout_ms"], console, league / "checks" / digest / "logs",
                     s["sandbox"], BotLimits(**s["limits"]))
    if code != 0:
        raise Refused(out.getvalue())


def _write_tree(root: Path, files: tuple[TreeFile, ...]) -> None:
    """Write the files under ``root`` (new files only, never through a link), then make
    the whole tree read-only: files as their mode says, folders 0o555 (the bot's own
    user, under ``--run-as``, reads them)."""
    folders = {root}
    for f in files:
        rel = PurePosixPath(f.path)
        target = root.joinpath(*rel.parts)
        for depth in range(1, len(rel.parts)):
            folder = root.joinpath(*rel.parts[:depth])
            if folder not in folders:
                folder.mkdir()
                folders.add(folder)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(f.data)
        target.chmod(f.mode)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        folder.chmod(0o555)


def _remove(root: Path) -> None:
    """Remove a staging tree that ``_write_tree`` made read-only (if it is still there)."""
    if not root.exists():
        return
    for top, dirs, _ in os.walk(root):
        os.chmod(top, 0o700)
        for d in dirs:
            os.chmod(os.path.join(top, d), 0o700)
    shutil.rmtree(root, ignore_errors=True)
