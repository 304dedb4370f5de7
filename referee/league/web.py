"""The league's web app (Starlette): pages, their JSON, uploads, and errors.

Starlette because it is small (one dependency, no ORM or templates we would not use),
well kept (the base of FastAPI), ASGI (served by uvicorn, in the same process as the
league's loop) and testable against a real server. The pages are ``web_pages``, what they
show ``web_data``, who asks ``web_auth``. Every refusal is one line: JSON
``{"error": ...}`` under ``/api/``, an HTML page elsewhere, with its status (docs/league.md);
anything unforeseen is logged and answered 500 with one line, never a traceback.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.journal import StorageError
from referee.league import db
from referee.league import web_pages as pages
from referee.league.access import Sessions, identify, load_key
from referee.league.botzip import MAX_ZIP_BYTES, TooLarge
from referee.league.submit import Refused, submit
from referee.league.web_auth import (
    Auth,
    read_body,
    read_form,
    same_origin,
    signed_in,
    signed_out,
)
from referee.league.web_data import GameInPlay, Replays, Snapshots, using_db
from referee.process import BotFileError, file_label
from referee.rundir import RunFileError, open_read
from referee.show.select import ShowError

LOG_TAIL_BYTES = 64 << 10  # of each log file, in an author's view of their bot's logs
MAX_QUERY_CHARS = 1024
log = logging.getLogger("referee.league.web")


def create_app(league: Path) -> Starlette:
    """The app for the league in ``league`` (its session key made on first use)."""
    snapshots, replays = Snapshots(league), Replays(league)
    sessions = Sessions(load_key(league))
    auth = Auth(league, sessions)

    def leaderboard_page(request: Request) -> Response:
        return pages.leaderboard_page(snapshots.get(), auth.session(request))

    def leaderboard(request: Request) -> Response:
        return Response(snapshots.get().leaderboard_json, media_type="application/json")

    def games_page(request: Request) -> Response:
        return pages.games_page(snapshots.get(), auth.session(request))

    def games(request: Request) -> Response:
        snap = snapshots.get()
        return JSONResponse({"games": snap.games, "recent": [
            {"game": r["game"], "seats": r["seats"], "places": r["places"],
             "faults": [f.get("label") for f in r["faults"]], "group": r.get("group"),
             "replay": r["game"] in snap.whole} for r in snap.recent]})

    async def replay(request: Request) -> Response:
        game = _int(request.path_params["game"], "game")
        try:
            path = await run_in_threadpool(lambda: replays.page(snapshots.get(), game))
        except KeyError:
            raise HTTPException(404, f"no game {game} recorded in this league") from None
        except GameInPlay as exc:
            raise HTTPException(409, str(exc)) from None
        except (ShowError, StorageError) as exc:
            log.warning("replay of game %s: %s", game, exc)
            raise HTTPException(503, f"the replay of game {game} cannot be built now; try "
                                     "again shortly") from None
        return FileResponse(path, media_type="text/html")

    def bot_page(request: Request) -> Response:
        snap = snapshots.get()
        bot = _bot(snap.bots, request.path_params["bot"])
        return pages.bot_page(snap, bot, snapshots.rating_history(bot.id),
                              auth.session(request))

    def bot_logs_page(request: Request) -> Response:
        session = auth.session(request)
        if session is None:
            return RedirectResponse("/signin", status_code=303)
        bot = _visible(auth, request, snapshots.get().bots)
        return pages.logs_page(bot, bot_logs(league / db.RUN_DIR, bot.label), session)

    def me(request: Request) -> Response:
        session = auth.session(request)
        if session is None:
            return RedirectResponse("/signin", status_code=303)
        return pages.me_page(snapshots.get(), session)

    def signin_form(request: Request) -> Response:
        return pages.signin_page(auth.session(request))

    async def signin(request: Request) -> Response:
        same_origin(request)
        token = (await read_form(request)).get("token", "").strip()
        try:
            who = using_db(league, lambda con: identify(con, token))
        except db.UnknownToken as exc:
            return pages.signin_page(None, str(exc), 401)
        return signed_in(request, sessions, who, "/me")

    async def signout(request: Request) -> Response:
        same_origin(request)
        form = await read_form(request)
        session = auth.session(request)
        if session is not None and form.get("csrf") != session.csrf:
            raise HTTPException(403, "this form lacks the page's CSRF token: reload the page")
        return signed_out("/")

    async def upload(request: Request) -> Response:
        """``POST /api/bots?file=NAME[&name=BOT][&entry=FILE]``, the file (or zip) as the
        body, by an author's token or signed-in session (with its CSRF token)."""
        same_origin(request)
        who = auth.required(request, changes=True)
        if who.admin:
            raise HTTPException(403, "the admin has no bots: upload with an author's token")
        body = await read_body(request, MAX_ZIP_BYTES, "the upload")
        query = request.query_params
        try:
            row = await run_in_threadpool(
                _submit, league, (who.author_id, who.name), query.get("file", ""), bytes(body),
                query.get("name") or None, query.get("entry") or None)
        except TooLarge as exc:
            raise HTTPException(413, str(exc)) from None
        except (db.LeagueError, BotFileError) as exc:
            raise HTTPException(400, str(exc)) from None
        except Refused as exc:
            return JSONResponse({"error": "refused: the bot failed `referee check`",
                                 "check": exc.output}, status_code=422)
        snapshots.invalidate()  # the new bot is listed at once
        return JSONResponse({"bot": row.label, "version": row.version}, status_code=201)

    def logs(request: Request) -> Response:
        """``GET /api/bots/{bot}/logs``: a bot's logs, for its author and the admin."""
        bot = _visible(auth, request, snapshots.get().bots)
        return JSONResponse({"bot": bot.label, "logs": bot_logs(league / db.RUN_DIR,
                                                                bot.label)})

    def faults(request: Request) -> Response:
        """``GET /api/bots/{bot}/faults``: a bot's faults with their details, newest first,
        for its author and the admin."""
        snap = snapshots.get()
        bot = _visible(auth, request, snap.bots)
        return JSONResponse({"bot": bot.label, "faults": snap.faults_of(bot)})

    def script(request: Request) -> Response:
        return Response(pages.upload_script(), media_type="text/javascript")

    routes = [
        Route("/", leaderboard_page), Route("/api/leaderboard", leaderboard),
        Route("/games", games_page), Route("/api/games", games),
        Route("/games/{game}", replay),
        Route("/replay.html", lambda r: RedirectResponse("/games", status_code=303)),
        Route("/bots/{bot}", bot_page), Route("/bots/{bot}/logs", bot_logs_page),
        Route("/me", me), Route("/signin", signin_form), Route("/signin", signin,
                                                               methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/api/bots", upload, methods=["POST"]),
        Route("/api/bots/{bot}/logs", logs), Route("/api/bots/{bot}/faults", faults),
        Route("/assets/upload.js", script)]

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":  # the router's own
            message = f"no page {request.url.path[:80]!r} here"
        elif exc.status_code == 405 and message == "Method Not Allowed":
            message = f"{request.method[:10]} is not taken at {request.url.path[:80]!r}"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=exc.status_code,
                                headers=exc.headers)
        return pages.error_page(exc.status_code, message)

    async def failed(request: Request, exc: Exception) -> Response:
        log.error("%s %s: %s", request.method, request.url.path, exc, exc_info=exc)
        message = "the server failed on this request (its log says why)"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=500)
        return PlainTextResponse(message, status_code=500)

    return Starlette(routes=routes, middleware=[Middleware(_Guard)],
                     exception_handlers={HTTPException: refused, Exception: failed})


class _Guard:
    """Refuses an overlong query string (414) and adds headers that keep pages from
    being framed or sniffed into another type."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope.get("query_string", b"")) > MAX_QUERY_CHARS:
            response = JSONResponse({"error": f"the query is over {MAX_QUERY_CHARS} "
                                              "characters"}, status_code=414)
            await response(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"],
                                      (b"x-content-type-options", b"nosniff"),
                                      (b"x-frame-options", b"DENY"),
                                      (b"referrer-policy", b"same-origin")]
            await send(message)

        await self.app(scope, receive, send_guarded)


def _int(text: str, what: str) -> int:
    if not text.isdigit() or len(text) > 12:
        raise HTTPException(400, f"{what} {text[:40]!r}: give a number")
    return int(text)


def _bot(bots: tuple[db.BotRow, ...], label: str) -> db.BotRow:
    bot = next((b for b in bots if b.label == label), None)
    if bot is None:
        raise HTTPException(404, f"no bot {label[:80]!r} in this league")
    return bot


def _visible(auth: Auth, request: Request, bots: tuple[db.BotRow, ...]) -> db.BotRow:
    """The bot the path names, if the sender may see its logs and faults (401, 404, 403)."""
    who = auth.required(request)
    bot = _bot(bots, request.path_params["bot"])
    if not who.may_see(bot.author):
        raise HTTPException(403, "a bot's logs and faults are for its author (and the "
                                 "admin) only")
    return bot


def bot_logs(run_dir: Path, label: str) -> dict[str, str]:
    """The stdout and stderr logs of a bot's processes in the latest batch (file name ->
    its last LOG_TAIL_BYTES, as text), read without following links."""
    named = re.compile(re.escape(file_label(label)) + r"\.\d+(\.\d+)?\.std(err|out)\.log")
    out: dict[str, str] = {}
    if not (run_dir / "logs").is_dir():  # no game yet
        return out
    for name in sorted(os.listdir(run_dir / "logs")):
        if named.fullmatch(name):
            try:
                with open_read(run_dir, run_dir / "logs" / name) as f:
                    size = os.fstat(f.fileno()).st_size
                    f.seek(max(0, size - LOG_TAIL_BYTES))
                    out[name] = f.read().decode(errors="replace")
            except (RunFileError, OSError) as exc:  # a link there is not followed
                out[name] = f"(not shown: {exc})"
    return out


def _submit(league: Path, author: tuple[int, str], file_name: str, data: bytes,
            bot_name: str | None, entry: str | None) -> db.BotRow:
    return using_db(league, lambda con: submit(con, league, author, file_name, data,
                                               bot_name, entry))
