"""The report's sums in the league's database (``leaderboards.sums``): each game's
cluster (its duplicate group), the clusters counted, and the sums, kept in the
transaction that records the game (``referee.league.db.record_games``), so that the
leaderboard is fitted without reading the games again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from leaderboards.sums import (
    DIGEST_MOD,
    BotSums,
    GroupSums,
    Shape,
    ShapeSums,
    Sums,
    check_settings,
    cluster_key,
    cluster_size,
    group_sums,
)


def note_cluster(con: sqlite3.Connection, rec: Mapping[str, Any]) -> None:
    con.execute("INSERT INTO game_clusters VALUES (?, ?, ?)",
                (rec["game"], cluster_key(rec), cluster_size(rec)))


def count_if_complete(con: sqlite3.Connection, cluster: str, size: int) -> None:
    """Add the cluster to the sums if all its games are in and it is not counted yet."""
    have = con.execute("SELECT COUNT(*) FROM game_clusters WHERE cluster = ?",
                       (cluster,)).fetchone()[0]
    if have < size or not con.execute("INSERT OR IGNORE INTO sums_clusters VALUES (?)",
                                      (cluster,)).rowcount:
        return
    records = [json.loads(r) for (r,) in con.execute(
        "SELECT g.record FROM games g JOIN game_clusters c ON c.game = g.game "
        "WHERE c.cluster = ? ORDER BY g.game", (cluster,))]
    _add(con, group_sums(records))


def _add(con: sqlite3.Connection, group: GroupSums) -> None:
    meta = dict(con.execute("SELECT key, value FROM sums_meta"))
    settings = check_settings(json.loads(meta["settings"]) if "settings" in meta else None,
                              group)
    records = int(meta.get("records", 0)) + group.records
    digest = (int(meta.get("digest", "0"), 16) + group.digest) % DIGEST_MOD
    con.executemany("INSERT OR REPLACE INTO sums_meta VALUES (?, ?)",
                    [("settings", json.dumps(settings)), ("records", str(records)),
                     ("digest", f"{digest:x}")])
    con.executemany(
        "INSERT INTO sums_bots VALUES (?,?,?,?,?,?) ON CONFLICT (bot) DO UPDATE SET "
        "games = games + excluded.games, wins = wins + excluded.wins, shared_wins = "
        "shared_wins + excluded.shared_wins, place_sum = place_sum + excluded.place_sum, "
        "score_sum = score_sum + excluded.score_sum",
        [(bot, s.games, s.wins, s.shared_wins, s.place_sum, s.score_sum)
         for bot, s in group.bots.items()])
    con.executemany(
        "INSERT INTO sums_pairs VALUES (?,?,?,?,?) ON CONFLICT (a, b) DO UPDATE SET "
        "together = together + excluded.together, a_ahead = a_ahead + excluded.a_ahead, "
        "b_ahead = b_ahead + excluded.b_ahead",
        [(a, b, *counts) for (a, b), counts in group.ahead.items()])
    con.executemany(
        "INSERT INTO sums_faults VALUES (?,?,?) ON CONFLICT (bot, label) DO UPDATE SET "
        "n = n + excluded.n", [(bot, label, n) for (bot, label), n in group.faults.items()])
    # A shape as text: its bots' labels (no spaces: identifiers and dots) and its games
    # per pair, split faster than JSON is parsed when the report loads them all.
    shape = (" ".join(group.shape.bots), ",".join(map(str, group.shape.together)))
    w = np.array(group.results)
    row = con.execute("SELECT clusters, sw, sww FROM sums_shapes WHERE bots = ? AND "
                      "together = ?", shape).fetchone()
    clusters, sw, sww = (0, 0.0, 0.0) if row is None else \
        (row[0], np.frombuffer(row[1]), np.frombuffer(row[2]))
    con.execute("INSERT OR REPLACE INTO sums_shapes VALUES (?,?,?,?,?)",
                (*shape, clusters + 1, (sw + w).tobytes(),
                 (sww + np.outer(w, w).ravel()).tobytes()))


def report_sums(con: sqlite3.Connection) -> tuple[Sums, int]:
    """The report's sums as recorded, and the games recorded in all (those of groups not
    yet whole included)."""
    meta = dict(con.execute("SELECT key, value FROM sums_meta"))
    sums = Sums(
        bots={r[0]: BotSums(*r[1:]) for r in con.execute("SELECT * FROM sums_bots")},
        ahead={(r[0], r[1]): (r[2], r[3], r[4]) for r in con.execute(
            "SELECT * FROM sums_pairs")},
        faults={(r[0], r[1]): r[2] for r in con.execute("SELECT * FROM sums_faults")},
        settings=json.loads(meta["settings"]) if "settings" in meta else None,
        records=int(meta.get("records", 0)), digest=int(meta.get("digest", "0"), 16))
    for labels, together, clusters, sw, sww in con.execute("SELECT * FROM sums_shapes"):
        games = tuple(map(int, together.split(",")))
        sums.shapes[Shape(tuple(labels.split(" ")), games)] = ShapeSums(
            clusters, np.frombuffer(sw), np.frombuffer(sww).reshape(len(games), len(games)))
    recorded = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return sums, recorded


def unfinished_records(con: sqlite3.Connection) -> list[dict[str, Any]]:
    """The records of the duplicate groups not yet whole (a stop cut them short)."""
    return [json.loads(r) for (r,) in con.execute(
        "SELECT g.record FROM games g JOIN game_clusters c ON c.game = g.game "
        "WHERE c.cluster NOT IN (SELECT cluster FROM sums_clusters) ORDER BY g.game")]


SUMS_TABLES = ("game_clusters", "sums_clusters", "sums_bots", "sums_pairs", "sums_faults",
               "sums_shapes", "sums_meta")


def rebuild_sums(con: sqlite3.Connection) -> None:
    """The sums made again from the games recorded (one transaction): they are kept in
    the transaction that records each game, so this is only for a database changed by
    other means."""
    with con:
        con.execute("BEGIN IMMEDIATE")
        for table in SUMS_TABLES:
            con.execute(f"DELETE FROM {table}")  # noqa: S608 - our own table names
        backfill(con)


def backfill(con: sqlite3.Connection) -> None:
    """The sums of every game recorded, into empty sums tables (schema 3's migration,
    ``rebuild_sums``)."""
    sizes: dict[str, int] = {}
    for (text,) in con.execute("SELECT record FROM games ORDER BY game").fetchall():
        rec = json.loads(text)
        note_cluster(con, rec)
        sizes[cluster_key(rec)] = cluster_size(rec)
    for cluster, size in sizes.items():
        count_if_complete(con, cluster, size)


def whole_games(con: sqlite3.Connection, games: Iterable[int]) -> set[int]:
    """Of ``games``, those whose duplicate group is all recorded."""
    wanted = sorted(set(games))
    if not wanted:
        return set()
    marks = ",".join("?" * len(wanted))
    return {g for (g,) in con.execute(
        "SELECT c.game FROM game_clusters c WHERE c.game IN (" + marks + ") AND c.size <= "
        "(SELECT COUNT(*) FROM game_clusters d WHERE d.cluster = c.cluster)", wanted)}
