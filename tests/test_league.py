"""The league (``referee league``): the commands as subprocesses, a real SQLite file,
real bot processes in the real sandbox, a real uvicorn server on 127.0.0.1, and a
``kill -9`` of it mid-run."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.journal import read_games
from referee.league import db, sumstore
from referee.league.matchmaker import (
    BotState,
    Matchmaker,
    NotEnoughBots,
    unfinished_groups,
)
from referee.league.play import League, PlayOptions, current_report
from referee.league.submit import MAX_BOT_BYTES
from referee.verify import verify_run

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
REFEREE = str(BIN / "referee")
CALLER, RANDOM = (ROOT / "bots" / "polish_poker" / f"{b}.py" for b in ("caller", "random_bot"))
ILLEGAL = ROOT / "tests" / "bots" / "illegal.py"
WAIT_S = 90  # for games on a loaded machine; a healthy run takes a few seconds


def referee(*args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "200"}
    return subprocess.run([REFEREE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def db_games(league: Path) -> list[int]:
    con = sqlite3.connect(league / "league.db")
    try:
        return [g for (g,) in con.execute("SELECT game FROM games ORDER BY game")]
    finally:
        con.close()


def journal_games(league: Path) -> list[int]:
    return [r["game"] for r in read_games(league / "run")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
        return resp.read()


def upload(port: int, token: str, file_name: str, data: bytes, status: int
           ) -> dict[str, Any]:
    """POST a bot file; its JSON answer, which must come with ``status``."""
    return fetch(port, f"/api/bots?file={urllib.parse.quote(file_name)}", token, status,
                 data)


def fetch(port: int, path: str, token: str, status: int, data: bytes | None = None
          ) -> dict[str, Any]:
    """A request with the token (POST with ``data``); its JSON answer, which must come
    with ``status``."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data,
        headers={"Authorization": f"Bearer {token}"} if token else {},
        method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            code, body = resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        code, body = exc.code, exc.read()
    assert code == status, body
    return json.loads(body)


def wait_for(what, timeout: float = WAIT_S):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = what()
        except OSError:  # the server is not listening yet
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A polish-poker league with alice's two bots in the pool; (dir, alice's token)."""
    home = tmp_path_factory.mktemp("league") / "L"
    done = referee("league", "init", home, "--move-time", "3s")
    assert done.returncode == 0, done.stderr
    token = referee("league", "add-author", home, "alice").stdout.strip()
    for bot in (CALLER, RANDOM):
        done = referee("league", "add-bot", home, bot, "--token", token)
        assert done.returncode == 0, done.stdout + done.stderr
    return home, token


def test_init_refuses_a_used_directory(league: tuple[Path, str]) -> None:
    done = referee("league", "init", league[0])
    assert done.returncode == 2 and "not empty" in done.stderr


def test_init_takes_runs_limits(tmp_path: Path) -> None:
    done = referee("league", "init", tmp_path / "L", "--limit-memory", "512M",
                   "--limit-files", "64", "--log-cap", "64K", "--limit-disk", "16M")
    assert done.returncode == 0, done.stderr
    con = db.connect(tmp_path / "L")
    limits = db.get_settings(con)["limits"]
    con.close()
    assert (limits["memory_mb"], limits["files"], limits["log_bytes"], limits["disk_mb"]) \
        == (512, 64, 64 << 10, 16)
    done = referee("league", "init", tmp_path / "M", "--limit-memory", "512")
    assert done.returncode == 2 and "give a unit" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "M").exists()


def test_authors_tokens_and_a_broken_bot(league: tuple[Path, str]) -> None:
    home, token = league
    con = sqlite3.connect(home / "league.db")
    stored = [h for (h,) in con.execute("SELECT token_sha256 FROM authors")]
    assert token not in stored and len(stored) == 1  # only the hash is kept
    done = referee("league", "add-author", home, "alice")
    assert done.returncode == 2 and "already registered" in done.stderr
    done = referee("league", "add-bot", home, CALLER, "--token", "not-a-token")
    assert done.returncode == 2 and "unknown token" in done.stderr
    done = referee("league", "add-bot", home, ILLEGAL, "--token", token)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL" in done.stdout and "illegal action" in done.stdout  # the check's output
    assert "refused" in done.stderr
    names = [n for (n,) in con.execute("SELECT name FROM bots")]
    assert names == ["caller", "random_bot"]
    con.close()


def test_a_new_version_retires_the_old(league: tuple[Path, str]) -> None:
    home, token = league
    done = referee("league", "add-bot", home, CALLER, "--token", token)
    assert done.returncode == 0 and "alice.caller.v2" in done.stdout
    con = sqlite3.connect(home / "league.db")
    active = dict(con.execute("SELECT label, active FROM bots"))
    con.close()
    assert active == {"alice.caller.v1": 0, "alice.random_bot.v1": 1, "alice.caller.v2": 1}
    stored = sorted((home / "bots").iterdir())
    assert len(stored) == 2 and not any(p.name.startswith(".") for p in stored)


def test_serve_kill_restart_export(league: tuple[Path, str], tmp_path: Path) -> None:
    """Games are played and shown; a kill -9 mid-run loses no finished game, and the
    restart counts none twice; the export verifies and rates."""
    home, token = league
    bob = referee("league", "add-author", home, "bob").stdout.strip()
    port = free_port()
    server = subprocess.Popen([REFEREE, "league", "serve", str(home), "--port", str(port),
                               "--workers", "2"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, start_new_session=True)
    try:
        doc = wait_for(lambda: (d := json.loads(get(port, "/api/leaderboard")))["games"]
                       >= 2 and d)
        rated = {row["bot"] for row in doc["leaderboard"]["rows"] if row["games"]}
        active = {b["bot"] for b in doc["bots"] if b["active"]}
        assert "alice.random_bot.v1" in rated and len(active) == 2 and active <= rated
        upload(port, "not-a-token", "x.py", b"", 401)
        upload(port, token, "big.py", b"#" * (MAX_BOT_BYTES + 1), 413)
        upload(port, token, "../up.py", RANDOM.read_bytes(), 400)  # no path in a name
        refused = upload(port, token, "illegal.py", ILLEGAL.read_bytes(), 422)
        assert "illegal action" in refused["check"]
        assert upload(port, token, "up.py", RANDOM.read_bytes(), 201)["bot"] == "alice.up.v1"
        wait_for(lambda: any(r["bot"] == "alice.up.v1" and r["games"] for r in json.loads(
            get(port, "/api/leaderboard"))["leaderboard"]["rows"]))  # it plays, and shows
        own = fetch(port, "/api/bots/alice.random_bot.v1/logs", token, 200)["logs"]
        assert any(n.endswith(".stderr.log") for n in own)
        fetch(port, "/api/bots/alice.random_bot.v1/logs", bob, 403)  # not bob's
        fetch(port, "/api/bots/alice.random_bot.v1/logs", "", 401)
        fetch(port, "/api/bots/nobody.x.v1/logs", bob, 404)
        second = referee("league", "serve", home, "--port", free_port())
        assert second.returncode == 2 and "another" in second.stderr  # one writer
        page = get(port, "/").decode()
        assert "alice.random_bot.v1" in page and "<script" not in page.split("<body")[0]
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the server and its bots, mid-game
        server.wait()
    journalled, recorded = journal_games(home), db_games(home)
    assert recorded and set(recorded) <= set(journalled)
    # The window a kill can hit: a game journalled, not yet in the database.
    con = db.connect(home)
    with con:
        con.execute("DELETE FROM game_seats WHERE game = ?", (recorded[-1],))
        con.execute("DELETE FROM game_clusters WHERE game = ?", (recorded[-1],))
        con.execute("DELETE FROM games WHERE game = ?", (recorded[-1],))
    sumstore.rebuild_sums(con)  # as they were before that game
    con.close()
    done = subprocess.run([REFEREE, "league", "serve", str(home), "--port",
                           str(free_port()), "--once-games", "2"],
                          capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 0, done.stderr
    journalled = journal_games(home)
    assert max(Counter(journalled).values()) == 1  # no game journalled twice
    assert db_games(home) == sorted(journalled)  # every game, once
    assert len(journalled) >= len(recorded) + 2
    con = sqlite3.connect(home / "league.db")
    seats = con.execute("SELECT COUNT(*) FROM game_seats").fetchone()[0]
    con.close()
    assert seats == 2 * len(journalled)
    groups = Counter(r["group"] for r in read_games(home / "run"))
    sizes = {r["group"]: r["group_size"] for r in read_games(home / "run")}
    assert groups == sizes  # a group the kill cut short was completed on restart

    out = tmp_path / "export"
    done = referee("league", "export", home, out)
    assert done.returncode == 0, done.stderr
    assert (out / "leaderboard.html").is_file()
    report = verify_run(out, complete=True)
    assert report.games == len(journalled)
    done = referee("rate", out)
    assert done.returncode == 0, done.stderr
    board = json.loads((out / "leaderboard.json").read_text())
    # The live leaderboard, fitted from the sums the database keeps, is rate's.
    con = db.connect(home)
    live = current_report(con)
    con.close()
    assert live is not None and live.n_games == board["n_games"]
    rated = [(r.bot, r.elo, r.ci95, r.games, r.score) for r in live.rows if r.games]
    assert rated == [(r["bot"], pytest.approx(r["elo"], abs=1e-6),
                      pytest.approx(r["ci95"], abs=1e-6), r["games"],
                      pytest.approx(r["score"])) for r in board["rows"]]
    assert {"alice.caller.v1", "alice.random_bot.v1"} <= {r["bot"] for r in board["rows"]} \
        or {"alice.caller.v2", "alice.random_bot.v1"} <= {r["bot"] for r in board["rows"]}


def test_serve_on_a_local_dask_cluster(league: tuple[Path, str]) -> None:
    """``serve --cluster local:2``: the games are played on Dask workers and recorded as
    those played in this process are."""
    pytest.importorskip("distributed")
    home, _ = league
    before = len(journal_games(home))
    done = subprocess.run([REFEREE, "league", "serve", str(home), "--port", str(free_port()),
                           "--cluster", "local:2", "--once-games", "4"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    journalled = journal_games(home)
    assert len(journalled) >= before + 4 and db_games(home) == sorted(journalled)
    records = read_games(home / "run")
    assert Counter(r["group"] for r in records) == {r["group"]: r["group_size"]
                                                    for r in records}


def seats_per_bot(maker: Matchmaker, bots: dict[int, BotState], tables: int) -> Counter:
    """Seats each bot took, and (as pairs of ids) how often each pair met, at
    ``tables`` tables."""
    seats: Counter = Counter()
    for _ in range(tables):
        table = maker.table(bots)
        seats.update(table)
        seats.update(tuple(sorted(p)) for p in itertools.combinations(table, 2))
    return seats


def test_matchmaker_gives_seats_where_they_tell_most() -> None:
    """A new bot plays more than settled ones; a close pair meets more than a settled
    pair far apart; every bot keeps playing; the same seed, the same tables."""
    settled = {1: BotState(400, 0.0, 10.0), 2: BotState(400, 5.0, 10.0),
               3: BotState(400, 800.0, 10.0), 4: BotState(400, 805.0, 10.0)}
    seats = seats_per_bot(Matchmaker(2, 7, random.Random(1)), settled, 400)
    assert seats[(1, 2)] > 4 * seats[(1, 3)] and seats[(3, 4)] > 4 * seats[(2, 4)]
    assert seats[(1, 3)] + seats[(2, 4)] > 0  # a settled pair still meets now and then
    assert min(seats[b] for b in settled) > 150  # an even share: 200 each
    bots = {**settled, 5: BotState()}  # 5: just submitted, no game yet
    seats = seats_per_bot(Matchmaker(2, 7, random.Random(1)), bots, 400)
    assert seats[5] > 2 * max(seats[b] for b in settled)  # the newcomer plays most
    assert min(seats[b] for b in settled) > 40  # and everyone keeps playing
    again = seats_per_bot(Matchmaker(2, 7, random.Random(1)), bots, 400)
    assert again == seats
    big = {b: BotState(400, 10.0 * b, 20.0) for b in range(40)}
    seats = seats_per_bot(Matchmaker(4, 7, random.Random(1)), {**big, 99: BotState()}, 400)
    assert seats[99] > 3 * max(seats[b] for b in big)
    assert min(seats[b] for b in big) >= 0.25 * 4 * 400 / 41 * 0.5  # the floor, roughly
    # A wide interval is a need too: 2 is no longer settled.
    wide = {**settled, 2: BotState(40, 5.0, 80.0)}
    seats = seats_per_bot(Matchmaker(2, 7, random.Random(2)), wide, 400)
    assert seats[2] > seats[1] and seats[2] > 2 * max(seats[3], seats[4])


def test_matchmaker_groups_are_duplicate_deals() -> None:
    maker = Matchmaker(3, 5, random.Random(3))
    bots = {10: BotState(), 11: BotState(), 12: BotState(), 13: BotState()}
    games = maker.group(bots, {10: 0, 11: 1, 12: 2, 13: 3}, first_game=7)
    assert [g.index for g in games] == list(range(7, 13))  # every order of 3 seats
    assert {g.group for g in games} == {7} and {g.group_size for g in games} == {6}
    assert len({g.seed for g in games}) == 1 and len({g.seating for g in games}) == 6
    assert len({frozenset(g.seating) for g in games}) == 1
    with pytest.raises(NotEnoughBots):
        Matchmaker(2, 5, random.Random(3)).table({10: BotState()})


def test_unfinished_groups_are_completed_on_their_deal() -> None:
    index = {"a": 0, "b": 1, "c": 2, "d": 3}
    records = [
        {"game": 0, "group": 0, "group_size": 2, "seed": 5, "seats": ["a", "b"]},
        {"game": 1, "group": 0, "group_size": 2, "seed": 5, "seats": ["b", "a"]},
        {"game": 2, "group": 2, "group_size": 4, "seed": 6, "seats": ["d", "a", "c", "b"]},
        {"game": 3, "group": 2, "group_size": 4, "seed": 6, "seats": ["a", "c", "b", "d"]},
    ]
    games = unfinished_groups(records, index, first_game=4)
    assert [(g.index, g.seating, g.seed, g.group, g.group_size) for g in games] == [
        (4, (2, 1, 3, 0), 6, 2, 4), (5, (1, 3, 0, 2), 6, 2, 4)]  # the missing rotations


def test_one_runner_plays_on_while_the_pool_is_unchanged(tmp_path: Path) -> None:
    """The matchmaker's groups are played by one runner, asked for as it goes; a runner
    that has scheduled ``runner_games`` hands over to a fresh one; every group whole."""
    home = tmp_path / "L"
    assert referee("league", "init", home, "--move-time", "3s").returncode == 0
    token = referee("league", "add-author", home, "carol").stdout.strip()
    for bot in (CALLER, RANDOM):
        assert referee("league", "add-bot", home, bot, "--token", token).returncode == 0
    loop = League(home, PlayOptions(workers=2, once_games=10, refit_s=0.2))
    loop.run()
    assert loop.error is None and loop.runners == 1 and loop.played >= 10
    loop = League(home, PlayOptions(workers=1, once_games=6, runner_games=2))
    loop.run()
    assert loop.runners >= 3 and loop.played >= 6
    records = read_games(home / "run")
    assert Counter(r["group"] for r in records) == {r["group"]: 2 for r in records}
    con = db.connect(home)
    ratings = dict(con.execute("SELECT b.label, r.games FROM ratings r JOIN bots b "
                               "ON b.id = r.bot_id"))
    con.close()
    assert ratings == {"carol.caller.v1": len(records), "carol.random_bot.v1": len(records)}


def test_schema_is_versioned_and_a_newer_one_refused(tmp_path: Path) -> None:
    con = db.connect(tmp_path, create=True)
    assert con.execute("SELECT version FROM schema_version").fetchall() == \
        [(db.SCHEMA_VERSION,)]
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.execute("UPDATE schema_version SET version = ?", (db.SCHEMA_VERSION + 1,))
    con.close()
    with pytest.raises(db.LeagueError, match="upgrade the referee"):
        db.connect(tmp_path)
    with pytest.raises(db.LeagueError, match="not a league directory"):
        db.connect(tmp_path / "elsewhere")
