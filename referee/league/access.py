"""Who is asking: an author (by the token ``add-author`` printed), the admin (by the
token ``admin-token`` printed), or nobody; and the web sessions that carry either.

Tokens are kept as SHA-256 hashes only (the admin's in the settings, under
``ADMIN_KEY``). A session is a cookie signed with HMAC-SHA256 under a key kept in the
league directory (``web.key``, 32 random bytes, mode 0600, made on first use): it names
who signed in, the first hex digits of their token's hash (so a token replaced ends its
sessions), when it ends, and a random nonce from which the session's CSRF token is
derived. No table holds sessions: signing out clears the cookie.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from referee.league import db

ADMIN_KEY = "admin_token_sha256"  # in the settings table
KEY_FILE = "web.key"
SESSION_S = 7 * 24 * 3600
_PIN_CHARS = 16  # of a token's hash, in a session


@dataclass(frozen=True)
class Who:
    """Someone signed in: an author (``author_id``, ``name``) or the admin (id None)."""

    author_id: int | None
    name: str
    pin: str  # the first _PIN_CHARS hex digits of their token's SHA-256

    @property
    def admin(self) -> bool:
        return self.author_id is None

    def may_see(self, author: str) -> bool:
        """Whether they may read the logs and faults of ``author``'s bots."""
        return self.admin or self.name == author


def issue_admin_token(con: sqlite3.Connection) -> str:
    """A new admin token (only its hash is kept; it replaces any earlier one)."""
    token = secrets.token_urlsafe(24)
    db.put_settings(con, {ADMIN_KEY: db.token_hash(token)})
    return token


def identify(con: sqlite3.Connection, token: str) -> Who:
    """Whose token this is; UnknownToken if nobody's."""
    digest = db.token_hash(token)
    admin = db.get_settings(con).get(ADMIN_KEY)
    if admin is not None and hmac.compare_digest(admin, digest):
        return Who(None, "admin", digest[:_PIN_CHARS])
    author_id, name = db.author_of(con, token)
    return Who(author_id, name, digest[:_PIN_CHARS])


def _current_pin(con: sqlite3.Connection, author_id: int | None) -> str | None:
    if author_id is None:
        admin = db.get_settings(con).get(ADMIN_KEY)
        return None if admin is None else admin[:_PIN_CHARS]
    row = con.execute("SELECT token_sha256 FROM authors WHERE id = ?", (author_id,)).fetchone()
    return None if row is None else row[0][:_PIN_CHARS]


def load_key(league: Path) -> bytes:
    """The league's session key, made (0600, never through a link) on first use."""
    path = league / KEY_FILE
    bad = (f"{path} is not a session key (remove it: a new one is made, and every session "
           "ends)")
    try:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                key = f.read(64)
            if len(key) < 32:
                raise db.LeagueError(bad) from None
            return key
        key = secrets.token_bytes(32)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
        return key
    except OSError as exc:  # a link there (ELOOP), no right to read or write...
        raise db.LeagueError(f"{bad}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class Session:
    """A signed-in session: who, and its CSRF token (for forms and the upload script)."""

    who: Who
    csrf: str


class Sessions:
    """Makes and reads the session cookie under the league's key."""

    def __init__(self, key: bytes):
        self._key = key

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def cookie(self, who: Who, now: float | None = None) -> str:
        """The cookie's value for a new session of ``who``."""
        body = json.dumps({"a": who.author_id, "n": who.name, "p": who.pin,
                           "e": int((now or time.time()) + SESSION_S),
                           "r": secrets.token_hex(16)}, separators=(",", ":")).encode()
        payload = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{payload}.{self._sign(payload.encode())}"

    def read(self, con: sqlite3.Connection, value: str | None) -> Session | None:
        """The session a cookie's value carries; None for none, a forged or expired one,
        or one whose token has since been replaced."""
        if not value or len(value) > 1024 or "." not in value:
            return None
        payload, _, signature = value.rpartition(".")
        if not hmac.compare_digest(signature, self._sign(payload.encode())):
            return None
        try:
            doc = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            who = Who(doc["a"], str(doc["n"]), str(doc["p"]))
            expires, nonce = float(doc["e"]), str(doc["r"])
        except (ValueError, KeyError, TypeError):
            return None
        if expires < time.time() or _current_pin(con, who.author_id) != who.pin:
            return None
        return Session(who, self._sign(f"csrf:{nonce}".encode()))
