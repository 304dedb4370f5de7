"""The league's web app (Starlette): the live leaderboard page, its JSON, and uploads.

Starlette because it is small (one dependency, no ORM or templates we would not use),
well kept (the base of FastAPI), ASGI (served by uvicorn, in the same process as the
league's loop) and testable against a real server. Every page is built by the existing
leaderboard code (``leaderboards.html``), which makes everything a bot named or wrote
inert text: data, never markup. The report is rebuilt only when the number of recorded
games has changed.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from leaderboards import inert
from leaderboards.html import to_html
from leaderboards.report import Report
from leaderboards.writers import to_json
from referee.league import db
from referee.league.play import current_report
from referee.league.submit import MAX_BOT_BYTES, Refused, submit
from referee.process import BotFileError, file_label
from referee.rundir import open_read

API_SCHEMA_VERSION = 1
LOG_TAIL_BYTES = 64 << 10  # of each log file, in an author's view of their bot's logs


class _Reports:
    """The last report built, by the number of games it rates."""

    def __init__(self, league: Path):
        self.league = league
        self._lock = threading.Lock()
        self._cached: tuple[int, Report | None, list[db.BotRow]] | None = None

    def get(self) -> tuple[int, Report | None, list[db.BotRow]]:
        with self._lock:
            con = db.connect(self.league)
            try:
                games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                bots = db.bots(con)
                if self._cached is None or self._cached[0] != games \
                        or self._cached[2] != bots:
                    self._cached = (games, current_report(con), bots)
                return self._cached
            finally:
                con.close()


def create_app(league: Path) -> Starlette:
    reports = _Reports(league)

    def page(request: Request) -> Response:
        _, report, bots = reports.get()
        if report is None:
            listed = "".join(f"<li>{inert.html(b.label)}</li>" for b in bots if b.active)
            return HTMLResponse(f"<!doctype html><title>League</title><h1>No game yet"
                                f"</h1><p>Bots in the pool:</p><ul>{listed}</ul>")
        return HTMLResponse(to_html(report))

    def leaderboard(request: Request) -> Response:
        games, report, bots = reports.get()
        doc: dict[str, Any] = {
            "schema_version": API_SCHEMA_VERSION, "games": games,
            "bots": [{"bot": b.label, "author": b.author, "name": b.name,
                      "version": b.version, "active": b.active} for b in bots],
            "leaderboard": None if report is None else to_json(report)}
        return JSONResponse(doc)

    async def upload(request: Request) -> Response:
        """``POST /api/bots?file=NAME[&name=BOT]``, the file as the body, the author's
        token as ``Authorization: Bearer TOKEN``."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return _error(401, "give the author's token as 'Authorization: Bearer TOKEN'")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BOT_BYTES:
                return _error(413, f"the file is over {MAX_BOT_BYTES} bytes")
        file_name = request.query_params.get("file", "")
        bot_name = request.query_params.get("name") or None
        try:
            row = await run_in_threadpool(_submit, league, token, file_name, bytes(body),
                                          bot_name)
        except db.UnknownToken as exc:
            return _error(401, str(exc))
        except (db.LeagueError, BotFileError) as exc:
            return _error(400, str(exc))
        except Refused as exc:
            return JSONResponse({"error": "refused: the bot failed `referee check`",
                                 "check": exc.output}, status_code=422)
        return JSONResponse({"bot": row.label, "version": row.version}, status_code=201)

    def logs(request: Request) -> Response:
        """``GET /api/bots/{bot}/logs``: the logs of one's own bot (its label), for its
        author's token only."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return _error(401, "give the author's token as 'Authorization: Bearer TOKEN'")
        label = request.path_params["bot"]
        con = db.connect(league)
        try:
            _, author = db.author_of(con, token)
            bots = {b.label: b for b in db.bots(con)}
        except db.UnknownToken as exc:
            return _error(401, str(exc))
        finally:
            con.close()
        if label not in bots:
            return _error(404, f"no bot {label!r} in this league")
        if bots[label].author != author:
            return _error(403, "a bot's logs are for its author only")
        return JSONResponse({"bot": label, "logs": bot_logs(league / db.RUN_DIR, label)})

    return Starlette(routes=[Route("/", page), Route("/api/leaderboard", leaderboard),
                             Route("/api/bots", upload, methods=["POST"]),
                             Route("/api/bots/{bot}/logs", logs)])


def bot_logs(run_dir: Path, label: str) -> dict[str, str]:
    """The stdout and stderr logs of a bot's processes in the latest batch (file name ->
    its last LOG_TAIL_BYTES, as text), read without following links."""
    named = re.compile(re.escape(file_label(label)) + r"\.\d+(\.\d+)?\.std(err|out)\.log")
    out: dict[str, str] = {}
    if not (run_dir / "logs").is_dir():  # no game yet
        return out
    for name in sorted(os.listdir(run_dir / "logs")):
        if named.fullmatch(name):
            with open_read(run_dir, run_dir / "logs" / name) as f:
                size = os.fstat(f.fileno()).st_size
                f.seek(max(0, size - LOG_TAIL_BYTES))
                out[name] = f.read().decode(errors="replace")
    return out


def _submit(league: Path, token: str, file_name: str, data: bytes,
            bot_name: str | None) -> db.BotRow:
    con = db.connect(league)
    try:
        return submit(con, league, token, file_name, data, bot_name)
    finally:
        con.close()


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)
