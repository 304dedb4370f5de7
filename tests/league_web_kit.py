"""What the league's web tests share: a real league directory made by the commands, its
games played by a real ``referee league serve``, a real uvicorn server on 127.0.0.1
serving it from a thread, HTTP requests with ``urllib``, and zips made to order."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REFEREE = str(BIN / "referee")
CALLER, RANDOM = (ROOT / "bots" / "polish_poker" / f"{b}.py" for b in ("caller", "random_bot"))
ILLEGAL = ROOT / "tests" / "bots" / "illegal.py"
CRASH_LATE = ROOT / "tests" / "bots" / "crash_late.py"  # passes the check, crashes in play
WAIT_S = 90  # for games on a loaded machine; a healthy batch takes a few seconds
# A bot in a folder: its entry imports a module beside it, relatively (a package).
PACKAGE = {"__init__.py": b"", "helper.py": b"import random\n\n\ndef choose(view):\n"
           b"    options = list(view.legal_raises())\n    if view.can_call:\n"
           b"        options.append('call')\n    return random.choice(options)\n",
           "bot.py": b"from .helper import choose\n\n\ndef act(view):\n"
                     b"    return choose(view)\n"}


def referee(*args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "200"}
    return subprocess.run([REFEREE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class League:
    home: Path
    alice: str  # authors' tokens
    bob: str
    admin: str


def make_league(home: Path) -> League:
    """A polish-poker league: authors alice (with caller and random_bot in the pool) and
    bob (none yet), and an admin token."""
    from referee.league import db
    from referee.league.access import issue_admin_token
    from referee.league.submit import submit

    done = referee("league", "init", home, "--move-time", "3s")
    assert done.returncode == 0, done.stderr
    # What add-author, admin-token and add-bot do (test_league.py runs the commands),
    # without a start of the command each.
    con = db.connect(home)
    try:
        alice, bob, admin = db.add_author(con, "alice"), db.add_author(con, "bob"), \
            issue_admin_token(con)
        for bot in (CALLER, RANDOM):
            submit(con, home, db.author_of(con, alice), bot.name, bot.read_bytes())
    finally:
        con.close()
    return League(home, alice, bob, admin)


def play(home: Path, games: int) -> None:
    """Play at least ``games`` games with the real ``serve`` (two tables at once)."""
    done = referee("league", "serve", home, "--port", free_port(), "--workers", "2",
                   "--once-games", games, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr


@contextmanager
def serving(home: Path) -> Iterator[str]:
    """The real ``referee league serve`` (one table at a time, until stopped) on a free
    port; its base URL once it answers."""
    port = free_port()
    server = subprocess.Popen([REFEREE, "league", "serve", str(home), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(url) or server.poll() is not None, 30)
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        yield url
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the server and its bots
        server.wait()


def _answers(url: str) -> bool:
    try:
        return request(f"{url}/api/leaderboard").status == 200
    except OSError:
        return False


@contextmanager
def web_server(home: Path) -> Iterator[str]:
    """The league's web app alone (no game played) on a real uvicorn server on
    127.0.0.1, in a thread; its base URL."""
    import uvicorn

    from referee.league.web import create_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(home), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(url: str, data: bytes | None = None, token: str | None = None,
            headers: dict[str, str] | None = None, method: str | None = None) -> Answer:
    """One request (POST with ``data``), whatever its status; no redirect followed."""
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(url, data=data, headers=sent,
                                 method=method or ("POST" if data is not None else "GET"))
    try:
        with opener.open(req, timeout=60) as resp:
            return Answer(resp.status, {k.lower(): v for k, v in resp.headers.items()},
                          resp.read())
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())


def zip_of(files: dict[str, bytes], links: dict[str, str] | None = None,
           modes: dict[str, int] | None = None) -> bytes:
    """A zip of ``files`` (name -> bytes, names as given, unchecked), with ``links``
    (name -> target) stored as symbolic links and ``modes`` (name -> file type and mode)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return out.getvalue()


def wait_for(what, timeout: float = WAIT_S):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"not within {timeout} s")
