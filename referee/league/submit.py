"""A submission: a bot file that enters the league's pool only if it passes its check.

The file is checked as a copy in the league directory (``referee check``'s path:
``referee.check.run_check``, in the league's sandbox under its limits); a copy that
passes is kept, content-addressed (``bots/<sha256>/<file name>``, read-only), so the
file the games run is the file that was checked. The same for the command line
(``add-bot``) and the web (``POST /api/bots``).
"""

from __future__ import annotations

import hashlib
import io
import shutil
import sqlite3
import tempfile
from pathlib import Path

from rich.console import Console

from referee.check import run_check
from referee.games import load_game
from referee.league import db
from referee.process import BotLimits, BotNotRunnable, bot_spec

CHECK_MOVE_MS = 2000  # per scripted turn of the check a bot passes to enter the pool
MAX_BOT_BYTES = 1 << 20  # of an uploaded file


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


def submit(con: sqlite3.Connection, league: Path, token: str, file_name: str, data: bytes,
           bot_name: str | None = None) -> db.BotRow:
    """Enter ``data`` (a bot file called ``file_name``) as the token's author's bot
    ``bot_name`` (default: the file's name without .py): LeagueError for a bad request,
    Refused if it fails its check."""
    author_id, author = db.author_of(con, token)
    name = bot_name or Path(file_name).stem
    check_names(file_name, name)
    if len(data) > MAX_BOT_BYTES:
        raise db.LeagueError(f"the file has {len(data)} bytes; the most is {MAX_BOT_BYTES}")
    digest = hashlib.sha256(data).hexdigest()
    home = league / db.BOTS_DIR / digest
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=league / db.BOTS_DIR))
    try:
        (staging / file_name).write_bytes(data)
        (staging / file_name).chmod(0o444 if file_name.endswith(".py") else 0o555)
        staging.chmod(0o755)  # the bot's own user (--run-as) reads it
        s = db.get_settings(con)
        out = io.StringIO()
        console = Console(file=out, width=100, color_system=None, highlight=False)
        try:
            spec = bot_spec(name, staging / file_name)
        except BotNotRunnable as exc:
            raise Refused(f"FAIL start and hello: {exc}\n") from None
        code = run_check(spec, load_game(s["game"], s["params"]), CHECK_MOVE_MS,
                         s["start_timeout_ms"], console, league / "checks" / digest / "logs",
                         s["sandbox"], BotLimits(**s["limits"]))
        if code != 0:
            raise Refused(out.getvalue())
        target = home / file_name
        if not target.exists():  # else the same file is there already
            home.mkdir(mode=0o755, exist_ok=True)
            (staging / file_name).rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return db.add_bot(con, author_id, author, name, target, digest)
