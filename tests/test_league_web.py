"""The league's web app and uploads: a real league directory (real SQLite), games played
by the real ``referee league serve`` with real bots in the real sandbox, and the web app
on a real uvicorn server on 127.0.0.1, asked with ``urllib``. Hostile zips are refused
before anything is written."""

from __future__ import annotations

import base64
import gzip
import json
import re
import sqlite3
import stat
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from league_web_kit import (  # noqa: E402
    CRASH_LATE,
    ILLEGAL,
    PACKAGE,
    RANDOM,
    League,
    make_league,
    play,
    referee,
    request,
    web_server,
    zip_of,
)

from referee.league.botzip import (  # noqa: E402
    MAX_TREE_BYTES,
    MAX_TREE_FILES,
    MAX_ZIP_BYTES,
    BadZip,
    TooLarge,
    read_zip,
)
from referee.league.web_data import REFRESH_S  # noqa: E402

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


def nul_named_zip() -> bytes:
    """A zip whose member's name holds a NUL (zipfile cannot write one: patched in)."""
    return zip_of({"bot.pyXevil": b"x"}).replace(b"bot.pyXevil", b"bot.py\0evil")


@pytest.mark.parametrize(("data", "why"), [
    (zip_of({"../bot.py": b"x"}), "'..'"),
    (zip_of({"bot.py": b"x", "/etc/cron.d/x": b"x"}), "absolute"),
    (zip_of({"bot.py": b"x", "a/../../x": b"x"}), "'..'"),
    (zip_of({"bot.py": b"x", "..\\x": b"x"}), "backslash"),
    (nul_named_zip(), "NUL"),
    (zip_of({"bot.py": b"x"}, links={"data": "/etc/passwd"}), "symbolic link"),
    (zip_of({"bot.py": b"x", "dev": b""}, modes={"dev": stat.S_IFCHR | 0o644}), "special"),
    (zip_of({"bot.py": b"x", "bot.py/": b""}), "twice"),
    (zip_of({"bot.py": b"x", "a": b"x", "a/b": b"x"}), "both a file and a folder"),
    (zip_of({"main.py": b"x"}), "no bot.py"),
    (b"PK\x03\x04 not really a zip", "not a zip"),
])
def test_hostile_zips_are_refused(data: bytes, why: str) -> None:
    with pytest.raises(BadZip, match=why):
        read_zip(data)


def test_zip_bombs_are_cut_off() -> None:
    bomb = zip_of({"bot.py": b"x", "zeros": bytes(MAX_TREE_BYTES + 1)})
    assert len(bomb) < MAX_ZIP_BYTES // 10  # small as sent...
    with pytest.raises(TooLarge, match="unpacks to more than"):
        read_zip(bomb)  # ...refused unpacked
    many = zip_of({"bot.py": b"x", **{f"f{i}": b"" for i in range(MAX_TREE_FILES)}})
    with pytest.raises(TooLarge, match="members"):
        read_zip(many)
    with pytest.raises(TooLarge, match="bytes"):
        read_zip(bytes(MAX_ZIP_BYTES + 1))


def test_a_zipped_folder_is_its_files_at_the_top() -> None:
    data = zip_of({f"mybot/{k}": v for k, v in PACKAGE.items()}
                  | {"mybot/__pycache__/helper.cpython-311.pyc": b"stale",
                     "mybot/run": b"#!/bin/sh\n"},
                  modes={"mybot/run": stat.S_IFREG | 0o755})
    files, entry = read_zip(data)
    assert entry == "bot.py"
    assert sorted(f.path for f in files) == ["__init__.py", "bot.py", "helper.py", "run"]
    assert {f.path: f.mode for f in files}["run"] == 0o555  # executable, read-only
    assert read_zip(data, entry="run")[1] == "run"
    with pytest.raises(BadZip, match="plain name"):
        read_zip(data, entry="../run")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    """alice's caller and random_bot, bob's crash_late (a crash fault in play); games."""
    made = make_league(tmp_path_factory.mktemp("league") / "L")
    done = referee("league", "add-bot", made.home, CRASH_LATE, "--token", made.bob)
    assert done.returncode == 0, done.stdout + done.stderr
    play(made.home, 4)
    return made


@pytest.fixture(scope="module")
def web(league: League):  # noqa: ANN201 - Iterator[str]
    with web_server(league.home) as url:
        yield url


def upload(web: str, file_name: str, data: bytes, token: str | None, status: int,
           query: str = "", headers: dict[str, str] | None = None) -> dict:
    answer = request(f"{web}/api/bots?file={quote(file_name)}{query}", data, token, headers)
    assert answer.status == status, answer.body
    assert answer.headers["content-type"] == "application/json"
    return answer.json()


def test_uploads_checked_refused_and_played(league: League, web: str) -> None:
    """Each bad upload gets its status and a one-line reason; a zipped package bot enters
    the pool, plays, and shows on the leaderboard."""
    pkg = zip_of(PACKAGE)
    assert "unknown token" in upload(web, "pkg.zip", pkg, "not-a-token", 401)["error"]
    assert "sign in" in upload(web, "pkg.zip", pkg, None, 401)["error"]
    assert "over" in upload(web, "pkg.zip", bytes(MAX_ZIP_BYTES + 1), league.bob, 413)["error"]
    bomb = zip_of({"bot.py": b"x", "zeros": bytes(MAX_TREE_BYTES + 1)})
    assert "unpacks" in upload(web, "bomb.zip", bomb, league.bob, 413)["error"]
    assert "not a zip" in upload(web, "x.zip", b"PK\x03\x04junk", league.bob, 400)["error"]
    evil = zip_of({**PACKAGE, "../../escape.py": b"x"})
    assert "'..'" in upload(web, "evil.zip", evil, league.bob, 400)["error"]
    assert "symbolic link" in upload(web, "l.zip", zip_of(PACKAGE, links={"k": "/etc"}),
                                     league.bob, 400)["error"]
    assert "plain file name" in upload(web, "../x.py", b"x", league.bob, 400)["error"]
    assert "admin has no bots" in upload(web, "pkg.zip", pkg, league.admin, 403)["error"]
    refused = upload(web, "illegal.py", ILLEGAL.read_bytes(), league.bob, 422)
    assert "FAIL" in refused["check"] and "illegal action" in refused["check"]
    assert not (league.home / "escape.py").exists() and not any(
        p.name.startswith(".incoming") for p in (league.home / "bots").iterdir())

    added = upload(web, "pkg.zip", pkg, league.bob, 201)
    assert added == {"bot": "bob.pkg.v1", "version": 1}
    con = sqlite3.connect(league.home / "league.db")
    path = Path(con.execute("SELECT path FROM bots WHERE label = 'bob.pkg.v1'").fetchone()[0])
    con.close()
    assert path.name == "bot.py" and path.is_absolute()
    assert sorted(p.name for p in path.parent.iterdir()) == ["__init__.py", "bot.py",
                                                             "helper.py"]
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o555  # read-only, as checked
    assert stat.S_IMODE(path.stat().st_mode) == 0o444

    play(league.home, 2)  # the newest bot has the fewest games: it plays first
    rows = request(f"{web}/api/leaderboard").json()["leaderboard"]["rows"]
    assert any(r["bot"] == "bob.pkg.v1" and r["games"] >= 2 for r in rows)
    page = request(f"{web}/").body.decode()
    assert "bob.pkg.v1" in page and 'href="/signin"' in page


def test_add_bot_takes_a_zip_and_refuses_a_bad_one(league: League, tmp_path: Path) -> None:
    good, bad = tmp_path / "folder.zip", tmp_path / "evil.zip"
    good.write_bytes(zip_of({f"folder/{k}": v for k, v in PACKAGE.items()}))
    bad.write_bytes(zip_of({"bot.py": b"x", "/abs.py": b"x"}))
    done = referee("league", "add-bot", league.home, good, "--token", league.bob)
    assert done.returncode == 0 and "bob.folder.v1" in done.stdout, done.stderr
    done = referee("league", "add-bot", league.home, bad, "--token", league.bob)
    assert done.returncode == 2 and "absolute" in done.stderr
    assert "Traceback" not in done.stderr


def test_logs_and_faults_for_their_author_and_the_admin(league: League, web: str) -> None:
    mine = "/api/bots/alice.random_bot.v1"
    logs = request(f"{web}{mine}/logs", token=league.alice)
    assert logs.status == 200 and any(n.endswith(".stderr.log") for n in logs.json()["logs"])
    assert request(f"{web}{mine}/logs", token=league.bob).status == 403
    assert request(f"{web}{mine}/faults", token=league.bob).status == 403
    assert request(f"{web}{mine}/logs", token=league.admin).status == 200
    link = league.home / "run" / "logs" / "alice.random_bot.v1.99.stderr.log"
    link.symlink_to("/etc/passwd")  # a link among the logs is not followed
    try:
        shown = request(f"{web}{mine}/logs", token=league.alice).json()["logs"][link.name]
    finally:
        link.unlink()
    assert shown.startswith("(not shown:") and "root:" not in shown
    faults = request(f"{web}{mine}/faults", token=league.admin).json()
    assert faults["bot"] == "alice.random_bot.v1" and isinstance(faults["faults"], list)
    assert request(f"{web}{mine}/logs").status == 401
    assert request(f"{web}{mine}/logs", headers={"Authorization": "Basic x"}).status == 401
    assert request(f"{web}/api/bots/nobody.x.v1/logs", token=league.bob).status == 404


def sign_in(web: str, token: str) -> str:
    """The session cookie sign-in sets (checked: HttpOnly, SameSite=Strict)."""
    answer = request(f"{web}/signin", f"token={quote(token)}".encode(),
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status == 303 and answer.headers["location"] == "/me"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    return cookie.split(";")[0]


def test_sessions_csrf_and_sign_out(league: League, web: str) -> None:
    cookie = sign_in(web, league.alice)
    me = request(f"{web}/me", headers={"Cookie": cookie})
    assert me.status == 200 and b"alice.caller.v1" in me.body and b"bob.pkg" not in me.body
    csrf = me.body.decode().split('name="csrf-token" content="')[1].split('"')[0]
    own = request(f"{web}/bots/alice.caller.v1/logs", headers={"Cookie": cookie})
    assert own.status == 200 and b"Logs of alice.caller.v1" in own.body
    other = request(f"{web}/bots/bob.pkg.v1/logs", headers={"Cookie": cookie})
    assert other.status == 403 and b"author" in other.body
    body = RANDOM.read_bytes()
    upload(web, "r.py", body, None, 403, headers={"Cookie": cookie})  # no CSRF token
    upload(web, "r.py", body, None, 403, headers={"Cookie": cookie, "X-CSRF-Token": csrf,
                                                  "Origin": "http://evil.example"})
    assert upload(web, "r.py", body, None, 201, headers={
        "Cookie": cookie, "X-CSRF-Token": csrf, "Origin": web})["bot"] == "alice.r.v1"
    forged = cookie[:-4] + ("0000" if not cookie.endswith("0000") else "1111")
    assert request(f"{web}/me", headers={"Cookie": forged}).status == 303  # to sign-in
    wrong = request(f"{web}/signin", b"token=nope",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert wrong.status == 401 and b"unknown token" in wrong.body
    out = request(f"{web}/signout", f"csrf={csrf}".encode(),
                  headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    assert out.status == 303 and "league_session=" in out.headers["set-cookie"]
    admin = sign_in(web, league.admin)
    assert b"bob.pkg.v1" in request(f"{web}/me", headers={"Cookie": admin}).body
    # A new admin token ends the old one's sessions.
    assert referee("league", "admin-token", league.home).returncode == 0
    assert request(f"{web}/me", headers={"Cookie": admin}).status == 303


def test_bad_requests_get_one_line(web: str) -> None:
    for path, status in [("/nope", 404), ("/games/abc", 400), ("/games/99999", 404),
                         ("/bots/nobody.x.v1", 404), ("/api/nope", 404),
                         ("/?" + "x" * 5000, 414)]:
        answer = request(f"{web}{path}")
        assert answer.status == status, path
        assert b"Traceback" not in answer.body
    assert request(f"{web}/api/bots").status == 405
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert request(f"{web}/signin", b"t" * 5000, headers=form).status == 413
    assert request(f"{web}/signin", b"token=x", headers={"Content-Type": "text/plain"}
                   ).status == 415
    answer = request(f"{web}/signin", b"token=x", headers={**form, "Origin": "http://evil"})
    assert answer.status == 403
    assert answer.headers["x-frame-options"] == "DENY"


def replay_games(page: bytes) -> list[dict]:
    """The games a replay page carries (gzip, base64, JSON in script elements)."""
    return [json.loads(gzip.decompress(base64.b64decode(blob))) for blob in re.findall(
        r'<script type="application/gzip-base64" id="g-\d+">([^<]*)<', page.decode())]


def test_a_crash_detail_is_for_its_author_not_the_replay(league: League, web: str) -> None:
    """crash_late's fault quotes its stderr: bob (its author) and the admin read it;
    alice and the public replay of the game do not."""
    faults = request(f"{web}/api/bots/bob.crash_late.v1/faults", token=league.bob).json()
    crash = next(f for f in faults["faults"] if f["label"] == "crash")
    assert "a line of its author's stderr" in crash["detail"]
    assert request(f"{web}/api/bots/bob.crash_late.v1/faults", token=league.alice
                   ).status == 403
    replay = request(f"{web}/games/{crash['game']}")
    assert replay.status == 200 and b"stderr" not in replay.body
    (game,) = replay_games(replay.body)
    assert [f["label"] for f in game["faults"]] == ["crash"]
    assert "stderr" not in json.dumps(game) and "on its author's page" in json.dumps(game)
    cookie = sign_in(web, league.bob)
    mine = request(f"{web}/bots/bob.crash_late.v1", headers={"Cookie": cookie}).body
    assert b"a line of its author&#x27;s stderr" in mine
    public = request(f"{web}/bots/bob.crash_late.v1").body
    assert b"stderr" not in public

def test_bot_page_and_replays_wait_for_their_deal(league: League, web: str) -> None:
    page = request(f"{web}/bots/alice.caller.v1")
    text = page.body.decode()
    assert page.status == 200 and "Rating history" in text and 'class="h2h"' in text
    assert text.count("<tr>") >= 3  # history and head-to-head rows
    recent = request(f"{web}/api/games").json()["recent"]
    shown = next(g for g in recent if g["replay"])
    replay = request(f"{web}/games/{shown['game']}")
    assert replay.status == 200 and b"<script" in replay.body
    assert shown["seats"][0].encode() in replay.body
    # A deal still in play: the last group, one of its games not recorded (as a kill -9
    # of the server leaves it). Its other game's replay would show that deal's cards.
    con = sqlite3.connect(league.home / "league.db")
    last = max(recent, key=lambda g: g["game"])
    sibling = next(g for g in recent if g["group"] == last["group"] and g is not last)
    with con:
        for table in ("game_seats", "game_clusters", "games"):
            con.execute(f"DELETE FROM {table} WHERE game = ?", (last["game"],))
    con.close()
    held = request(f"{web}/games/{sibling['game']}")
    assert held.status == 409 and b"still being played" in held.body
    assert request(f"{web}/games/{last['game']}").status == 404
    deadline = time.monotonic() + 10 * REFRESH_S  # the games list is rebuilt every 2 s
    while "deal in play" not in (listed := request(f"{web}/games").body.decode()) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert f'data-game="{sibling["game"]}"' in listed and "deal in play" in listed
    # A record the database should not hold (damaged by hand): the pages fail with one
    # line, and the server goes on.
    con = sqlite3.connect(league.home / "league.db")
    with con:
        con.execute("INSERT INTO games VALUES (?, ?, 0)", (10**6, json.dumps({"game": 10**6})))
    con.close()
    deadline = time.monotonic() + 10 * REFRESH_S  # read at the next rebuild
    while (broken := request(f"{web}/api/games")).status == 200 \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert broken.status == 500 and list(broken.json()) == ["error"]
    page = request(f"{web}/games")
    assert page.status == 500 and b"Traceback" not in page.body and page.body.count(b"\n") == 0
    assert request(f"{web}/signin").status == 200


def test_serve_refuses_a_bad_session_key(tmp_path: Path) -> None:
    home = tmp_path / "L"
    assert referee("league", "init", home).returncode == 0
    (home / "web.key").write_bytes(b"short")
    done = referee("league", "serve", home, "--port", "1")
    assert done.returncode == 2 and "not a session key" in done.stderr
    assert "Traceback" not in done.stderr
