"""The league's database: one SQLite file (WAL) in the league directory.

The schema is versioned (``schema_version``) and migrated by ``MIGRATIONS``, in order,
each in its own transaction: a database opened by a newer referee is refused rather than
guessed at. Author tokens are stored as SHA-256 hashes only: a token is shown once.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboards.sums import cluster_key, cluster_size
from referee.league import sumstore

DB_FILE = "league.db"
RUN_DIR = "run"  # the league's run directory: config.json, the journal, logs
BOTS_DIR = "bots"  # the bots, content-addressed: bots/<tree hash>/ (referee.league.submit)

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE authors (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_sha256 TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL);
    CREATE TABLE bots (
        id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id),
        name TEXT NOT NULL, version INTEGER NOT NULL, label TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL, sha256 TEXT NOT NULL, active INTEGER NOT NULL,
        added_at REAL NOT NULL, UNIQUE (author_id, name, version));
    CREATE TABLE games (
        game INTEGER PRIMARY KEY, record TEXT NOT NULL, recorded_at REAL NOT NULL);
    CREATE TABLE game_seats (
        game INTEGER NOT NULL REFERENCES games(game), seat INTEGER NOT NULL,
        bot_id INTEGER NOT NULL REFERENCES bots(id), PRIMARY KEY (game, seat));
    CREATE INDEX game_seats_bot ON game_seats(bot_id);
    CREATE TABLE ratings (
        bot_id INTEGER PRIMARY KEY REFERENCES bots(id), elo REAL, lo REAL, hi REAL,
        games INTEGER NOT NULL, refitted_at REAL NOT NULL);
    """,
    """
    CREATE TABLE rating_history (
        fit_games INTEGER NOT NULL, bot_id INTEGER NOT NULL REFERENCES bots(id),
        elo REAL, lo REAL, hi REAL, games INTEGER NOT NULL, refitted_at REAL NOT NULL,
        PRIMARY KEY (bot_id, fit_games));
    """,
    # The report's sufficient statistics (``leaderboards.sums``), kept as games are
    # recorded: each game's cluster, the clusters counted (once complete), and the sums.
    """
    CREATE TABLE game_clusters (
        game INTEGER PRIMARY KEY REFERENCES games(game), cluster TEXT NOT NULL,
        size INTEGER NOT NULL);
    CREATE INDEX game_clusters_cluster ON game_clusters(cluster);
    CREATE TABLE sums_clusters (cluster TEXT PRIMARY KEY);
    CREATE TABLE sums_bots (
        bot TEXT PRIMARY KEY, games INTEGER NOT NULL, wins INTEGER NOT NULL,
        shared_wins INTEGER NOT NULL, place_sum INTEGER NOT NULL, score_sum REAL NOT NULL);
    CREATE TABLE sums_pairs (
        a TEXT NOT NULL, b TEXT NOT NULL, together INTEGER NOT NULL, a_ahead INTEGER NOT NULL,
        b_ahead INTEGER NOT NULL, PRIMARY KEY (a, b));
    CREATE TABLE sums_faults (
        bot TEXT NOT NULL, label TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (bot, label));
    CREATE TABLE sums_shapes (
        bots TEXT NOT NULL, together TEXT NOT NULL, clusters INTEGER NOT NULL,
        sw BLOB NOT NULL, sww BLOB NOT NULL, PRIMARY KEY (bots, together));
    CREATE TABLE sums_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
# Python steps of a migration, by the schema version they complete (after its SQL).
BACKFILLS = {3: sumstore.backfill}


class LeagueError(Exception):
    """A league directory or request that cannot be used as it is; the message says why."""


class UnknownToken(LeagueError):
    """A token no author holds."""


@dataclass(frozen=True)
class BotRow:
    id: int
    author: str
    name: str
    version: int
    label: str  # the bot's name in the journal: author/name has a '/', so author.name.vN
    path: Path
    sha256: str
    active: bool


def connect(league: Path, create: bool = False) -> sqlite3.Connection:
    """The league's database, migrated to SCHEMA_VERSION; LeagueError if ``league`` is not
    a league directory (unless ``create``) or was made by a newer referee."""
    path = league / DB_FILE
    if not create and not path.is_file():
        raise LeagueError(f"{league} is not a league directory (no {DB_FILE}): "
                          "make one with `referee league init`")
    con = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")  # a committed game survives a power cut too
    con.execute("PRAGMA foreign_keys=ON")
    migrate(con)
    return con


def migrate(con: sqlite3.Connection) -> None:
    con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = con.execute("SELECT version FROM schema_version").fetchone()
    version = row[0] if row else 0
    if version > SCHEMA_VERSION:
        raise LeagueError(f"the league database has schema {version}; this referee knows "
                          f"up to {SCHEMA_VERSION}: upgrade the referee")
    for number in range(version, SCHEMA_VERSION):
        con.execute("BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    con.execute(statement)
            if number + 1 in BACKFILLS:
                BACKFILLS[number + 1](con)
            con.execute("DELETE FROM schema_version")
            con.execute("INSERT INTO schema_version VALUES (?)", (number + 1,))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def get_settings(con: sqlite3.Connection) -> dict[str, Any]:
    return {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM settings")}


def put_settings(con: sqlite3.Connection, values: Mapping[str, Any]) -> None:
    with con:
        con.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?)",
                        [(k, json.dumps(v)) for k, v in values.items()])


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def add_author(con: sqlite3.Connection, name: str) -> str:
    """Register ``name``; the new token (only its hash is kept)."""
    if not name or not name.isidentifier():
        raise LeagueError(f"author name {name!r}: use letters, digits and '_' only")
    token = secrets.token_urlsafe(24)
    try:
        with con:
            con.execute("INSERT INTO authors (name, token_sha256, created_at) VALUES (?,?,?)",
                        (name, token_hash(token), time.time()))
    except sqlite3.IntegrityError:
        raise LeagueError(f"author {name!r} is already registered") from None
    return token


def author_of(con: sqlite3.Connection, token: str) -> tuple[int, str]:
    row = con.execute("SELECT id, name FROM authors WHERE token_sha256 = ?",
                      (token_hash(token),)).fetchone()
    if row is None:
        raise UnknownToken("unknown token: use the one `referee league add-author` printed")
    return row[0], row[1]


def add_bot(con: sqlite3.Connection, author_id: int, author: str, name: str, path: Path,
            sha256: str) -> BotRow:
    """A new version of the author's bot ``name``; the earlier versions leave the pool
    (their games stay)."""
    with con:
        con.execute("BEGIN IMMEDIATE")
        last = con.execute("SELECT MAX(version) FROM bots WHERE author_id = ? AND name = ?",
                           (author_id, name)).fetchone()[0]
        version = (last or 0) + 1
        con.execute("UPDATE bots SET active = 0 WHERE author_id = ? AND name = ?",
                    (author_id, name))
        label = f"{author}.{name}.v{version}"
        cur = con.execute(
            "INSERT INTO bots (author_id, name, version, label, path, sha256, active, "
            "added_at) VALUES (?,?,?,?,?,?,1,?)",
            (author_id, name, version, label, str(path), sha256, time.time()))
    return BotRow(cur.lastrowid or 0, author, name, version, label, path, sha256, True)


def bots(con: sqlite3.Connection, active_only: bool = False) -> list[BotRow]:
    """Every bot version, in the order they were added (their index in the run's config)."""
    rows = con.execute(
        "SELECT b.id, a.name, b.name, b.version, b.label, b.path, b.sha256, b.active "
        "FROM bots b JOIN authors a ON a.id = b.author_id "
        + ("WHERE b.active = 1 " if active_only else "") + "ORDER BY b.id")
    return [BotRow(r[0], r[1], r[2], r[3], r[4], Path(r[5]), r[6], bool(r[7])) for r in rows]


def record_games(con: sqlite3.Connection, records: Iterable[Mapping[str, Any]]) -> int:
    """Insert journalled games not yet in the database (a game is keyed by its index, so
    recording one twice is a no-op); how many were new. A duplicate group made whole by
    them is added to the report's sums in the same transaction (``leaderboards.sums``)."""
    ids = {b.label: b.id for b in bots(con)}
    new = 0
    touched: dict[str, int] = {}
    with con:
        con.execute("BEGIN IMMEDIATE")
        for rec in records:
            if _insert_game(con, rec, ids):
                new += 1
                touched[cluster_key(rec)] = cluster_size(rec)
        for cluster, size in touched.items():
            sumstore.count_if_complete(con, cluster, size)
    return new


def _insert_game(con: sqlite3.Connection, rec: Mapping[str, Any], ids: Mapping[str, int]
                 ) -> bool:
    cur = con.execute("INSERT OR IGNORE INTO games VALUES (?, ?, ?)",
                      (rec["game"], json.dumps(rec), time.time()))
    if not cur.rowcount:
        return False
    con.executemany("INSERT INTO game_seats VALUES (?, ?, ?)",
                    [(rec["game"], s, ids[n]) for s, n in enumerate(rec["seats"])])
    sumstore.note_cluster(con, rec)
    return True


def next_game(con: sqlite3.Connection) -> int:
    return (con.execute("SELECT MAX(game) FROM games").fetchone()[0] or -1) + 1


@dataclass(frozen=True)
class RatingPoint:
    """A bot's rating after one refit (``fit_games``: games in the league at that fit)."""
    fit_games: int
    elo: float | None
    lo: float | None
    hi: float | None
    games: int
    refitted_at: float


def store_ratings(con: sqlite3.Connection, rows: Iterable[tuple[str, float | None,
                  float | None, float | None, int]], fit_games: int) -> None:
    """Replace the ratings (bot label, Elo, interval low, high, games) and add them to
    each bot's history as the fit of ``fit_games`` games."""
    ids = {b.label: b.id for b in bots(con)}
    now = time.time()
    values = [(ids[label], elo, lo, hi, n, now) for label, elo, lo, hi, n in rows
              if label in ids]
    with con:
        con.execute("BEGIN IMMEDIATE")
        con.execute("DELETE FROM ratings")
        con.executemany("INSERT INTO ratings VALUES (?,?,?,?,?,?)", values)
        con.executemany("INSERT OR REPLACE INTO rating_history VALUES (?,?,?,?,?,?,?)",
                        [(fit_games, *v) for v in values])


def rating_history(con: sqlite3.Connection, bot_id: int) -> list[RatingPoint]:
    """The bot's rating after each refit, oldest first."""
    return [RatingPoint(*r) for r in con.execute(
        "SELECT fit_games, elo, lo, hi, games, refitted_at FROM rating_history "
        "WHERE bot_id = ? ORDER BY fit_games", (bot_id,))]



def game_record(con: sqlite3.Connection, game: int) -> dict[str, Any] | None:
    row = con.execute("SELECT record FROM games WHERE game = ?", (game,)).fetchone()
    return None if row is None else json.loads(row[0])


def latest_records(con: sqlite3.Connection, limit: int, bot_id: int | None = None
                   ) -> list[dict[str, Any]]:
    """The latest ``limit`` game records (of one bot's games, with ``bot_id``), newest
    first."""
    if bot_id is None:
        rows = con.execute("SELECT record FROM games ORDER BY game DESC LIMIT ?", (limit,))
    else:
        rows = con.execute(
            "SELECT record FROM games WHERE game IN (SELECT game FROM game_seats WHERE "
            "bot_id = ?) ORDER BY game DESC LIMIT ?", (bot_id, limit))
    return [json.loads(r) for (r,) in rows]


def records_with_faults(con: sqlite3.Connection, bot_id: int) -> list[dict[str, Any]]:
    """The records of the bot's games that hold a fault (anyone's), newest first."""
    # record_games writes json.dumps's default form: a game without faults has this text
    return [json.loads(r) for (r,) in con.execute(
        "SELECT record FROM games WHERE game IN (SELECT game FROM game_seats WHERE "
        "bot_id = ?) AND instr(record, '\"faults\": []') = 0 ORDER BY game DESC",
        (bot_id,))]
