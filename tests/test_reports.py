"""Leaderboard reports from journal records: every column on a hand-computable case, the Elo
reference case, bound marks in every format, the self-contained HTML, the JSON document,
the inputs hash, merging runs, and the errors for records that cannot make one report."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from leaderboards import (
    ReportError,
    build_report,
    caption,
    merge_settings,
    rich_table,
    table_cells,
    to_csv,
    to_html,
    to_json,
    to_markdown,
    write_reports,
)
from leaderboards.bracket_rank import rank_by_bracket
from leaderboards.elo import ELO_PER_NAT
from leaderboards.writers import COLUMNS, FILES

SETTINGS = {"move_ms": 1000, "bank_ms": 5000, "seed": 7, "runs": 1}
# The ten 4-player games of tests/test_elo.py and their reference Elos.
REFERENCE_ORDERS = [[0, 1, 2, 3], [0, 2, 1, 3], [1, 0, 3, 2], [2, 0, 1, 3], [0, 1, 3, 2],
                    [3, 0, 1, 2], [1, 2, 0, 3], [0, 3, 2, 1], [2, 1, 3, 0], [1, 0, 2, 3]]
REFERENCE_ELO = {"0": 115.7277, "1": 56.9273, "2": -36.9338, "3": -135.7213}


def record(game: int, order: Sequence[str], faults: Sequence[tuple[str, str]] = (),
           rules: str = "official", run: int = 0) -> dict[str, Any]:
    """A ``games.jsonl`` line for a finishing order (seats rotate with the game index, so
    seats and order differ); ``faults`` as (bot, label); ``run`` makes start times differ."""
    n = len(order)
    seats = [order[(i + game) % n] for i in range(n)]
    return {
        "schema_version": 1, "game": game, "seed": 1000 * run + game,
        "game_type": "polish-poker", "rules": rules, "players": n, "seats": seats,
        "order": list(order), "places": [order.index(bot) + 1 for bot in seats], "rounds": 9,
        "faults": [{"round": 1, "seat": seats.index(bot), "bot": bot, "label": label,
                    "detail": "test"} for bot, label in faults],
        "timing": [{"bot": bot, "decisions": 5, "mean_ms": 1.5, "max_ms": 3.0,
                    "total_ms": 7.5} for bot in seats],
        "started_at": 1.7e9 + 3600 * run + game, "duration_s": 0.25,
    }


def games(orders: Sequence[Sequence[Any]], run: int = 0, **kw: Any) -> list[dict[str, Any]]:
    return [record(g, [str(b) for b in order], run=run, **kw) for g, order in enumerate(orders)]


def two_bots() -> list[dict[str, Any]]:
    """a ahead of b in 3 games of 4; a faults twice by timeout and once illegally, b crashes."""
    recs = games([["a", "b"]] * 3 + [["b", "a"]])
    recs[0]["faults"] = record(0, ["a", "b"], [("a", "timeout"), ("b", "crash")])["faults"]
    recs[3]["faults"] = record(3, ["b", "a"], [("a", "illegal"), ("a", "timeout")])["faults"]
    return recs


def ordered_chain() -> list[dict[str, Any]]:
    """a > b > c in every game: a's Elo is a lower bound, c's an upper one, b's open."""
    return games([["a", "b", "c"]] * 3)


# --------------------------------------------------------------------------- columns


def test_two_bots_every_column() -> None:
    report = build_report(two_bots(), SETTINGS)
    a, b = report.rows
    diff = 400 * math.log10(3)  # 190.85: a finished ahead in 3 of 4
    assert (a.rank, a.bot, b.rank, b.bot) == (1, "a", 2, "b")
    assert a.elo == pytest.approx(diff / 2) and b.elo == pytest.approx(-diff / 2)
    se = ELO_PER_NAT / (2 * math.sqrt(4 * 0.75 * 0.25))  # binomial variance of logit(3/4)
    assert a.se == pytest.approx(se) and a.ci95 == pytest.approx(1.96 * se)
    assert a.los_next == pytest.approx(NormalDist().cdf(diff / (2 * se)))
    assert b.los_next is None
    assert (a.games, a.wins, a.score, a.mean_place) == (4, 3, 0.75, 1.25)
    assert (b.games, b.wins, b.score, b.mean_place) == (4, 1, 0.25, 1.75)
    assert a.faults == {"illegal": 1, "timeout": 2} and b.faults == {"crash": 1}
    assert a.bound is b.bound is None and a.note is b.note is None
    assert report.head_to_head.names == ("a", "b")
    assert report.head_to_head.matrix == (((0, 0), (4, 3)), ((4, 1), (0, 0)))
    assert report.n_games == 4

    rows, notes = table_cells(report)
    assert rows == [("1", "a", "95.4", "196.6", "4", "75.0", "1.25", "3", "82.9",
                     "illegal 1, timeout 2"),
                    ("2", "b", "-95.4", "196.6", "4", "25.0", "1.75", "1", "-", "crash 1")]
    assert notes == []


def test_reference_case_gives_the_reference_elo() -> None:
    report = build_report(games(REFERENCE_ORDERS), SETTINGS)
    assert [r.bot for r in report.rows] == ["0", "1", "2", "3"]
    for r in report.rows:
        assert r.elo == pytest.approx(REFERENCE_ELO[r.bot], abs=1e-3)
        assert r.games == 10
    assert sum(r.wins for r in report.rows) == 10
    assert caption(report) == (
        "polish-poker official, 4 players, move 1000 ms + bank 5000 ms | 10 games from 1 run "
        "| Elo 0 = pool mean")


def test_anchor_and_unrated_bots() -> None:
    report = build_report(games(REFERENCE_ORDERS), SETTINGS, anchor=("3", 1500.0),
                          bots=["0", "1", "2", "3", "newcomer"])
    rows = {r.bot: r for r in report.rows}
    assert rows["3"].elo == 1500.0 and rows["3"].se == 0.0
    assert rows["0"].elo == pytest.approx(1500 + REFERENCE_ELO["0"] - REFERENCE_ELO["3"])
    assert report.settings["anchor"] == ("3", 1500.0)
    assert caption(report).endswith("| Elo 1500 = 3")
    new = report.rows[-1]
    assert (new.bot, new.rank, new.elo, new.ci95, new.games, new.score) == \
        ("newcomer", None, None, None, 0, None)
    assert table_cells(report)[0][-1] == ("-", "newcomer", "-", "-", "0", "-", "-", "0", "-",
                                          "-")
    assert "nan" not in to_html(report).lower() and "NaN" not in json.dumps(to_json(report))


# --------------------------------------------------------------------------- formats


def test_bounds_are_marked_in_every_format() -> None:
    report = build_report(ordered_chain(), SETTINGS)
    assert [(r.bot, r.bound) for r in report.rows] == [("a", "lower"), ("b", "open"),
                                                        ("c", "upper")]
    rows, notes = table_cells(report)
    elo = [cells[COLUMNS.index("Elo")] for cells in rows]
    assert elo[0].startswith(">= ") and elo[1].startswith("~ ") and elo[2].startswith("<= ")
    # A bound is shown as one, with no interval and one short note for every mark.
    assert all("[" not in cell for cell in elo)
    assert [cells[COLUMNS.index("+/-95%")] for cells in rows] == ["-", "-", "-"]
    assert notes == ["Elo >= <= ~: a bound, not an estimate, so no interval (>= always ahead "
                     "of the bots rated with an interval; <= always behind them; ~ only its "
                     "order is known)"]

    md, csv_text, html = to_markdown(report), to_csv(report), to_html(report)
    for cell in elo:
        assert f"| {cell} |" in md
        assert f",{cell}," in csv_text
        assert cell.replace(">", "&gt;").replace("<", "&lt;") in html
    assert "a bound, not an estimate" in md and "a bound, not an estimate" in html
    assert csv_text.splitlines()[0].endswith(",note")
    assert "lower bound" in csv_text.splitlines()[1]

    doc = to_json(report)
    assert [r["bound"] for r in doc["rows"]] == ["lower", "open", "upper"]
    assert all(r["note"] for r in doc["rows"])

    console = Console(record=True, width=250)
    console.print(rich_table(report))
    text = console.export_text()
    assert ">= " in text and "<= " in text and "a bound, not an estimate" in text


def test_html_is_self_contained_with_one_chart_row_per_bot() -> None:
    report = build_report(games(REFERENCE_ORDERS), SETTINGS, bots=["late <b>bot</b>"])
    html = to_html(report)
    for banned in ("http://", "https://", "<script", "<link", "@import", "url("):
        assert banned not in html
    assert html.count("<svg") == 1 and html.count("</svg>") == 1
    svg = html[html.index("<svg"):html.index("</svg>")]
    assert svg.count('<g class="row') == len(report.rows) == 5
    assert 'class="axis-label"' in svg and svg.count('class="grid"') >= 3  # an axis, ticks
    assert "late &lt;b&gt;bot&lt;/b&gt;" in html and "<b>" not in html
    assert html.count("<table>") == 1  # the leaderboard
    assert html.count('<table class="heat">') == 1  # and the head-to-head heat map
    assert caption(report).replace("'", "&#x27;") in html


def test_markdown_escapes_names_and_has_the_head_to_head() -> None:
    recs = games([["x|y", "z"], ["z", "x|y"], ["x|y", "z"]])
    md = to_markdown(build_report(recs, SETTINGS))
    table = [line for line in md.splitlines() if line.startswith("| 1 |")]
    # 2 of 3: gap 400 log10 2 = 120.4, SE 173.7 / (2 sqrt(3 * 2/9)) = 106.4, LOS Phi(0.566)
    assert table == ["| 1 | x\\|y | 60.2 | 208.5 | 3 | 66.7 | 1.33 | 2 | 71.4 | - |"]
    assert "| x\\|y |  | 67% of 3 |" in md and "| z | 33% of 3 |  |" in md


def test_json_document_and_written_files(tmp_path: Path) -> None:
    report = build_report(games(REFERENCE_ORDERS), SETTINGS)
    doc = to_json(report)
    assert doc["schema_version"] == 1 and doc["kind"] == "elo"
    assert doc["settings"]["rules"] == "official" and doc["settings"]["players"] == 4
    assert doc["settings"]["move_ms"] == 1000 and doc["settings"]["anchor"] is None
    assert doc["caption"] == caption(report) and doc["n_games"] == 10
    assert doc["inputs_hash"] == report.inputs_hash and len(doc["inputs_hash"]) == 64
    cov = np.array(doc["covariance"]["matrix"])
    assert doc["covariance"]["names"] == ["0", "1", "2", "3"] and cov.shape == (4, 4)
    assert np.allclose(cov, cov.T)
    assert doc["head_to_head"]["names"] == ["0", "1", "2", "3"]
    assert doc["head_to_head"]["matrix"][0][1] == [10, 6]  # bot 0 ahead of 1 in 6 of 10
    assert [r["bot"] for r in doc["rows"]] == ["0", "1", "2", "3"]
    assert set(doc["rows"][0]) == {"rank", "bot", "elo", "ci95", "se", "games", "score",
                                   "mean_place", "wins", "los_next", "faults", "bound", "note",
                                   "shared_wins", "metric"}

    paths = write_reports(report, tmp_path / "board")
    assert [p.name for p in paths] == list(FILES)
    assert json.loads(paths[0].read_text()) == json.loads(json.dumps(doc))
    assert paths[1].read_text() == to_csv(report)
    assert paths[2].read_text() == to_markdown(report)
    assert paths[3].read_text() == to_html(report)


# --------------------------------------------------------------------------- inputs


def test_inputs_hash_is_stable_under_reordering_and_sensitive_to_content() -> None:
    run_a, run_b = games(REFERENCE_ORDERS[:6]), games(REFERENCE_ORDERS[6:], run=1)
    base = build_report(run_a + run_b, SETTINGS)
    for recs in (run_b + run_a, (run_a + run_b)[::-1],
                 json.loads(json.dumps(run_b + run_a))):  # as read back from games.jsonl
        assert build_report(recs, SETTINGS).inputs_hash == base.inputs_hash
    changed = json.loads(json.dumps(run_a + run_b))
    changed[4]["faults"] = [{"round": 1, "seat": 0, "bot": "0", "label": "timeout",
                             "detail": "late"}]
    assert build_report(changed, SETTINGS).inputs_hash != base.inputs_hash


def test_merging_two_runs_equals_one_run_with_all_records() -> None:
    run_a, run_b = games(REFERENCE_ORDERS[:6]), games(REFERENCE_ORDERS[6:], run=1)
    config = {"rules": "official", "players": 4, "move_ms": 1000, "bank_ms": 5000}
    merged_settings = merge_settings([{**config, "seed": 1}, {**config, "seed": 2}])
    assert merged_settings == {**config, "seed": (1, 2), "runs": 2}
    merged = build_report(run_b + run_a, merged_settings)
    whole = build_report(run_a + run_b, {**config, "seed": (1, 2), "runs": 2})
    assert to_json(merged) == to_json(whole)
    assert [r.elo for r in merged.rows] == pytest.approx(list(REFERENCE_ELO.values()),
                                                         abs=1e-3)
    assert "10 games from 2 runs" in caption(merged)


def test_mixed_settings_are_refused_unless_allowed() -> None:
    official, polacco = games([["a", "b"], ["b", "a"]]), games([["a", "b"]], rules="polacco")
    with pytest.raises(ReportError, match="mix rules"):
        build_report(official + polacco, SETTINGS)
    mixed = build_report(official + polacco, SETTINGS, allow_mixed=True)
    assert mixed.settings["rules"] == ("official", "polacco")
    assert caption(mixed).startswith("polish-poker official/polacco, 2 players,")
    with pytest.raises(ReportError, match="mix players"):
        build_report(official + games([["a", "b", "c"]], run=2), SETTINGS)

    with pytest.raises(ReportError, match="move_ms"):
        merge_settings([{"move_ms": 1000}, {"move_ms": 200}])
    assert merge_settings([{"move_ms": 1000}, {"move_ms": 200}], allow_mixed=True) == \
        {"move_ms": (200, 1000), "runs": 2}
    with pytest.raises(ReportError, match="settings say rules 'polacco'"):
        build_report(official, {**SETTINGS, "rules": "polacco"})


@pytest.mark.parametrize(("recs", "kw", "message"), [
    ([], {}, "no finished games"),
    (games([["a", "b"]]) * 2, {}, "appears twice"),
    (games([["a", "b"]]), {"anchor": ("c", 0.0)}, "anchor"),
    ([{**record(0, ["a", "b"]), "order": ["b", "a"]}], {}, "disagree"),
    ([{**record(0, ["a", "b"]), "schema_version": 3}], {}, "schema_version 3"),
    ([{k: v for k, v in record(0, ["a", "b"]).items() if k != "places"}], {}, "no places"),
])
def test_records_that_cannot_make_a_report(recs: list[dict[str, Any]], kw: dict[str, Any],
                                           message: str) -> None:
    with pytest.raises(ReportError, match=message):
        build_report(recs, SETTINGS, **kw)


# --------------------------------------------------------------------------- tables format


def test_a_tables_leaderboard_ranks_by_the_bracket_first() -> None:
    # x won its first-stage table and reached the final; z lost at its table. The Elo puts
    # z (who beat the champion once) above x (who never did): the bracket, second place
    # for x, must win.
    orders = [["y", "z"], ["z", "y"], ["y", "z"], ["x", "w"], ["w", "x"], ["x", "w"],
              ["y", "x"]]
    report = build_report(games(orders), SETTINGS)
    assert [r.bot for r in report.rows] == ["y", "z", "x", "w"]

    def table(n: int, standings: list[tuple[str, float]]) -> dict[str, Any]:
        return {"table": n, "standings": [{"place": k + 1, "bot": b, "score": s}
                                          for k, (b, s) in enumerate(standings)]}
    bracket = {"champion": "y", "stages": [
        {"stage": 1, "tables": [table(0, [("x", 0.67), ("w", 0.33)]),
                                table(1, [("y", 0.67), ("z", 0.33)])]},
        {"stage": 2, "tables": [table(0, [("y", 1.0), ("x", 0.0)])]}]}
    ranked = rank_by_bracket(report, bracket)
    # w and z: both second at a first-stage table on the same score; the Elo decides
    assert [(r.rank, r.bot) for r in ranked.rows] == [(1, "y"), (2, "x"), (3, "z"), (4, "w")]
    assert caption(ranked).endswith("ranked by the bracket")
    # y and x are in different groups of the fit (y always beat x): no LOS between them
    assert ranked.rows[0].los_next is None
    assert rank_by_bracket(report, None) is report
