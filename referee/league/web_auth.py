"""Who a web request comes from, and the sign-in and sign-out pages.

A request names its sender by ``Authorization: Bearer TOKEN`` (``curl``) or by the
session cookie sign-in sets (``HttpOnly``, ``SameSite=Strict``, ``Path=/``; ``Secure``
when served over https). A request that changes anything and comes by the cookie must
also carry the session's CSRF token (the ``X-CSRF-Token`` header, or the form's
``csrf`` field), and any POST whose ``Origin`` is another site is refused: SameSite
alone would trust an old browser.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from referee.league import db
from referee.league.access import Session, Sessions, Who, identify

COOKIE = "league_session"
MAX_FORM_BYTES = 4096  # of a sign-in or sign-out form


class Auth:
    """Identifies requests against the league's authors, admin and sessions."""

    def __init__(self, league: Path, sessions: Sessions):
        self.league = league
        self.sessions = sessions

    def _connect(self) -> sqlite3.Connection:
        return db.connect(self.league)

    def session(self, request: Request) -> Session | None:
        """The request's signed-in session, if its cookie carries a valid one."""
        con = self._connect()
        try:
            return self.sessions.read(con, request.cookies.get(COOKIE))
        finally:
            con.close()

    def who(self, request: Request, changes: bool = False) -> Who | None:
        """Who sent the request: by its bearer token (401 for an unknown one), else by its
        session (for a request that ``changes`` something, 403 without the session's
        CSRF token); None for nobody."""
        header = request.headers.get("authorization")
        if header is not None:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise HTTPException(401, "give the token as 'Authorization: Bearer TOKEN'")
            con = self._connect()
            try:
                return identify(con, token.strip())
            except db.UnknownToken as exc:
                raise HTTPException(401, str(exc)) from None
            finally:
                con.close()
        session = self.session(request)
        if session is None:
            return None
        if changes and request.headers.get("x-csrf-token") != session.csrf:
            raise HTTPException(403, "this request lacks the page's CSRF token: reload the "
                                     "page and try again")
        return session.who

    def required(self, request: Request, changes: bool = False) -> Who:
        who = self.who(request, changes)
        if who is None:
            raise HTTPException(401, "sign in first (or give the token as 'Authorization: "
                                     "Bearer TOKEN')")
        return who


def same_origin(request: Request) -> None:
    """403 for a request whose ``Origin`` header names another site than this one."""
    origin = request.headers.get("origin")
    if origin is None:
        return  # curl, or a browser old enough not to send it (SameSite still holds)
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin != own:
        raise HTTPException(403, f"a request from another site ({origin}) is refused")


DRAIN_TIMES = 4  # an oversized body up to this many times the bound is read to its end


async def read_body(request: Request, limit: int, what: str) -> bytes:
    """The request's body; 413 past ``limit`` bytes. An oversized body is read on (and
    dropped) up to DRAIN_TIMES the bound, so that the client, still sending, gets the
    answer rather than a reset connection; a larger one is answered at once."""
    too_big = HTTPException(413, f"{what} is over {limit} bytes")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit()
                                 or int(declared) > DRAIN_TIMES * limit):
        raise too_big
    body = bytearray()
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > DRAIN_TIMES * limit:
            break
        if seen <= limit:
            body += chunk
    if seen > limit:
        raise too_big
    return bytes(body)


async def read_form(request: Request) -> dict[str, str]:
    """A small urlencoded form: 415 for another type, 413 past MAX_FORM_BYTES, 400 for a
    field twice or undecodable."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise HTTPException(415, "send the form as application/x-www-form-urlencoded")
    body = await read_body(request, MAX_FORM_BYTES, "the form")
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                          max_num_fields=8)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "the form cannot be read") from None
    if any(len(v) != 1 for v in fields.values()):
        raise HTTPException(400, "a form field is given twice")
    return {k: v[0] for k, v in fields.items()}


def signed_in(request: Request, sessions: Sessions, who: Who, to: str) -> Response:
    """A redirect to ``to`` that sets a new session cookie for ``who``."""
    response = RedirectResponse(to, status_code=303)
    response.set_cookie(COOKIE, sessions.cookie(who), httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")
    return response


def signed_out(to: str) -> Response:
    response = RedirectResponse(to, status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
