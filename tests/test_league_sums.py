"""The league's leaderboard from sums kept as games are recorded (``leaderboards.sums``,
``referee.league.db``): the same report as ``build_report`` of the records (as ``referee
rate`` makes it), to rounding, on a real SQLite file."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from leaderboards.report import Report, build_report
from leaderboards.sums import record_digest, report_from_sums, set_digest, sums_of
from referee.league import db, sumstore
from referee.league.play import current_report, refit
from referee.schedule import table_seatings

SETTINGS = {"game": "synthetic", "players": 0, "move_ms": 1000, "bank_ms": 5000,
            "max_faults": 3}


def league_records(bots: int, groups: int, players: int, seed: int) -> list[dict[str, Any]]:
    """A league's journal records: duplicate groups of random tables, places from noisy
    strengths rounded (so places are often shared), a fault now and then."""
    rng = random.Random(seed)
    names = [f"alice.b{i}.v1" for i in range(bots)]
    skill = {b: rng.gauss(0, 1) for b in names}
    records, game = [], 0
    for group in range(groups):
        table = rng.sample(names, players)
        orders = table_seatings(tuple(range(players)))
        deal = rng.randrange(1 << 30)
        for order in orders:
            seats = [table[i] for i in order]
            perf = [round(skill[b] + rng.gauss(0, 1.5)) for b in seats]
            records.append({
                "schema_version": 2, "game": game, "game_type": "synthetic",
                "players": players, "seats": seats,
                "places": [1 + sum(q > p for q in perf) for p in perf],
                "faults": [{"bot": seats[-1], "label": "timeout"}] if rng.random() < 0.1
                else [], "group": group * 100, "group_size": len(orders),
                "seed": deal})
            game += 1
    return records


def assert_same(a: Report, b: Report) -> None:
    """The same leaderboard, to rounding (the inputs' hash aside)."""
    assert [r.bot for r in a.rows] == [r.bot for r in b.rows]
    for ra, rb in zip(a.rows, b.rows, strict=True):
        for f in ("elo", "ci95", "se", "score", "mean_place", "los_next"):
            x, y = getattr(ra, f), getattr(rb, f)
            assert (x is None and y is None) or x == pytest.approx(y, abs=1e-7), (ra.bot, f)
        assert (ra.rank, ra.games, ra.wins, ra.shared_wins, ra.faults, ra.bound, ra.note) \
            == (rb.rank, rb.games, rb.wins, rb.shared_wins, rb.faults, rb.bound, rb.note)
    assert np.allclose(a.fit.covariance, b.fit.covariance, atol=1e-7)
    assert a.head_to_head == b.head_to_head
    assert (a.n_games, a.n_left_out, a.settings) == (b.n_games, b.n_left_out, b.settings)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sums_give_the_report_of_the_records(players: int) -> None:
    records = league_records(10, 150, players, players)[:-1]  # the last group cut short
    settings = {**SETTINGS, "players": players}
    expected = build_report(records, settings, bots=["alice.new.v1"])
    got = report_from_sums(sums_of(records), settings, len(records), bots=["alice.new.v1"])
    assert_same(expected, got)
    assert got.n_left_out == len(table_seatings(tuple(range(players)))) - 1
    assert got.rows[-1].bot == "alice.new.v1" and got.rows[-1].elo is None
    counted = records[:got.n_games]
    assert got.inputs_hash == set_digest(sum(map(record_digest, counted)) % (1 << 256))


def a_league(path: Path, players: int, bots: int) -> sqlite3.Connection:
    """A league database whose pool is ``bots`` bots of alice's (the files are never run)."""
    con = db.connect(path, create=True)
    db.put_settings(con, {**SETTINGS, "players": players, "params": None})
    author, _ = db.author_of(con, db.add_author(con, "alice"))
    for i in range(bots):
        db.add_bot(con, author, "alice", f"b{i}", path / "none.py", "0" * 64)
    return con


def test_the_database_keeps_the_sums_as_games_come(tmp_path: Path) -> None:
    """Games recorded in batches of any size, in any order, some twice, and a database
    migrated from before the sums: the same report as ``build_report`` of the games."""
    records = league_records(8, 120, 4, 1)
    con = a_league(tmp_path, 4, 8)
    assert current_report(con) is None
    shuffled = records[:]
    random.Random(2).shuffle(shuffled)
    at = 0
    while at < len(shuffled):
        step = random.Random(at).randint(1, 9)
        db.record_games(con, shuffled[at:at + step])
        at += step
    assert db.record_games(con, records[:50]) == 0  # recorded already: nothing counts twice
    expected = build_report(records, {**SETTINGS, "players": 4, "params": None})
    assert_same(expected, current_report(con))
    stored = refit(con)
    assert stored is not None
    elos = dict(con.execute("SELECT b.label, r.elo FROM ratings r JOIN bots b "
                            "ON b.id = r.bot_id"))
    assert elos == pytest.approx({r.bot: r.elo for r in expected.rows})

    # A league made before the sums (schema 2): its games are summed when it is opened.
    for table in sumstore.SUMS_TABLES:
        con.execute(f"DROP TABLE {table}")
    con.execute("UPDATE schema_version SET version = 2")
    con.close()
    con = db.connect(tmp_path)
    assert_same(expected, current_report(con))
    con.close()


def test_an_unfinished_group_waits(tmp_path: Path) -> None:
    records = league_records(4, 3, 2, 3)
    con = a_league(tmp_path, 2, 4)
    db.record_games(con, records[:1])
    assert current_report(con) is None  # no group whole yet
    db.record_games(con, records[1:3])  # the second group is one game short
    assert [r["game"] for r in sumstore.unfinished_records(con)] == [2]
    report = current_report(con)
    assert report is not None and (report.n_games, report.n_left_out) == (2, 1)
    db.record_games(con, records[3:])
    assert sumstore.unfinished_records(con) == []
    assert_same(build_report(records, {**SETTINGS, "players": 2, "params": None}),
                current_report(con))
    con.close()
