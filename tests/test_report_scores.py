"""Leaderboards of games with shared places and scores (journal schema 2): old and new
records rate alike, shared firsts and half wins in every table, the game's metric with its
interval in every format, clustering by duplicate group, and records that cannot be
rated."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from leaderboards import (
    ReportError,
    build_report,
    cluster_keys,
    columns,
    estimate_ratio,
    fit_elo,
    rich_table,
    table_cells,
    to_csv,
    to_html,
    to_json,
    to_markdown,
    write_reports,
)
from leaderboards.writers import COLUMNS
from referee.games.api import Metric

SETTINGS = {"move_ms": 1000, "bank_ms": 5000, "runs": 1}
CHIPS = Metric("chips won", "antes", "hand", scale=1 / 2)
POINTS = Metric("points", "", "round", higher_is_better=False)


def record(game: int, seats: Sequence[str], places: Sequence[int],
           scores: Sequence[float] | None = None, units: int = 10,
           group: int | None = None, group_size: int = 1) -> dict[str, Any]:
    """A schema-2 ``games.jsonl`` line: no ``order`` or ``rules``, ``scores`` and ``units``."""
    return {
        "schema_version": 2, "game": game, "seed": 100 + (game if group is None else group),
        "group": group, "group_size": group_size, "stage": 0, "table": None,
        "game_type": "toy-game", "params": {"target": 150}, "players": len(seats),
        "seats": list(seats), "places": list(places),
        "scores": None if scores is None else list(scores), "units": units, "faults": [],
        "timing": [], "started_at": 1.7e9 + game, "duration_s": 0.1,
    }


def duplicate_pairs() -> list[dict[str, Any]]:
    """Six groups of two games (one deal, seats swapped) between a and b, ante 2:
    a's chips per group are +12, +4, -2, +6, 0 (a tie) and +8 over 20 hands."""
    a_chips = [(10, 2), (6, -2), (-4, 2), (8, -2), (0, 0), (4, 4)]
    recs = []
    for grp, chips in enumerate(a_chips):
        for k, c in enumerate(chips):
            seats = ["a", "b"] if k == 0 else ["b", "a"]
            mine = [c, -c] if k == 0 else [-c, c]
            places = [1 if x > 0 else 2 if x < 0 else 1 for x in mine]
            recs.append(record(2 * grp + k, seats, places, mine, group=grp, group_size=2))
    return recs


# --------------------------------------------------------------------------- old and new


def test_old_and_new_records_rate_alike() -> None:
    orders = [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"], ["c", "b", "a"]]
    old = [{"schema_version": 1, "game": g, "game_type": "toy-game", "rules": "x",
            "players": 3, "seats": ["a", "b", "c"], "order": order,
            "places": [order.index(b) + 1 for b in "abc"], "faults": []}
           for g, order in enumerate(orders)]
    new = [record(g, ["a", "b", "c"], r["places"]) for g, r in enumerate(old)]
    a, b = build_report(old, SETTINGS), build_report(new, SETTINGS)
    assert [(r.bot, round(r.elo, 9), round(r.se, 9), r.wins, r.score) for r in a.rows] == \
        [(r.bot, round(r.elo, 9), round(r.se, 9), r.wins, r.score) for r in b.rows]
    assert a.settings["rules"] == "x" and "params" not in a.settings
    assert b.settings["params"] == {"target": 150} and "rules" not in b.settings
    assert columns(a) == columns(b) == COLUMNS  # no metric, no shared first


# --------------------------------------------------------------------------- shared places


def test_shared_places_are_half_wins_everywhere() -> None:
    # a and b tie for first twice; a wins outright twice; c is last every time.
    recs = [record(0, ["a", "b", "c"], [1, 1, 3]), record(1, ["c", "a", "b"], [3, 1, 1]),
            record(2, ["a", "b", "c"], [1, 2, 3]), record(3, ["b", "c", "a"], [2, 3, 1])]
    report = build_report(recs, SETTINGS)
    rows = {r.bot: r for r in report.rows}
    assert [r.bot for r in report.rows] == ["a", "b", "c"]
    assert (rows["a"].wins, rows["a"].shared_wins) == (2, 2)
    assert (rows["b"].wins, rows["b"].shared_wins) == (0, 2)
    assert rows["a"].score == pytest.approx((0.75 + 0.75 + 1 + 1) / 4)
    assert rows["b"].score == pytest.approx((0.75 + 0.75 + 0.5 + 0.5) / 4)
    # The Elo is the places' fit, ties as halves: a vs b scored 3 of 4.
    fit = fit_elo([dict(zip(r["seats"], r["places"], strict=True)) for r in recs])
    assert rows["a"].elo == pytest.approx(fit.ratings["a"].elo)
    assert report.head_to_head.matrix[0][1] == (4, 2)  # a ahead of b twice in 4

    cols = columns(report)
    assert cols[cols.index("wins") + 1] == "shared wins"
    cells = dict(zip(cols, table_cells(report)[0][0], strict=True))
    assert (cells["wins"], cells["shared wins"]) == ("2", "2")
    md = to_markdown(report)
    assert "| a |  | 75% of 4 | 100% of 4 |" in md  # a's score against b: (2 + 2/2) / 4
    assert "| b | 25% of 4 |  | 100% of 4 |" in md
    assert "shared wins" in to_csv(report).splitlines()[0]


def test_order_may_list_tied_bots_in_either_order() -> None:
    rec = {**record(0, ["a", "b", "c"], [1, 1, 3]), "order": ["b", "a", "c"]}
    assert build_report([rec], SETTINGS).n_games == 1
    bad = {**rec, "order": ["c", "a", "b"]}
    with pytest.raises(ReportError, match="disagree"):
        build_report([bad], SETTINGS)


# --------------------------------------------------------------------------- metric


def test_metric_is_clustered_by_duplicate_group() -> None:
    recs = duplicate_pairs()
    report = build_report(recs, SETTINGS, metric=CHIPS)
    rows = {r.bot: r for r in report.rows}
    # a per group: chips / 2 (antes) over 20 hands
    groups = [(chips / 2, 20) for chips in (12, 4, -2, 6, 0, 8)]
    want = estimate_ratio(groups)
    got = rows["a"].metric
    assert got is not None and got.groups == 6 and got.units == 120
    assert got.value == pytest.approx(want.value) and got.ci95 == pytest.approx(want.ci95)
    assert rows["b"].metric is not None
    assert rows["b"].metric.value == pytest.approx(-want.value)
    # The Elo's errors are clustered the same way.
    clustered = fit_elo([dict(zip(r["seats"], r["places"], strict=True)) for r in recs],
                        clusters=cluster_keys(recs))
    assert rows["a"].se == pytest.approx(clustered.ratings["a"].se)
    # Group 4's two games were ties (places [1, 1]): half a win each way.
    assert (rows["a"].shared_wins, rows["b"].shared_wins) == (2, 2)


def test_metric_column_in_every_format(tmp_path: Path) -> None:
    recs = duplicate_pairs()
    for r in recs:  # a hostile name: stays data in every format
        r["seats"] = ["=cmd|<b>x</b>" if s == "b" else s for s in r["seats"]]
    report = build_report(recs, SETTINGS, metric=CHIPS)
    label = "chips won/hand (antes)"
    cols = columns(report)
    assert cols[cols.index("+/-95%") + 1:cols.index("+/-95%") + 3] == \
        (label, f"{label} +/-95%")
    a = report.rows[0]
    assert a.bot == "a" and a.metric is not None and a.metric.ci95 is not None
    value, half = f"{a.metric.value:.2f}", f"{a.metric.ci95:.2f}"
    cells = dict(zip(cols, table_cells(report)[0][0], strict=True))
    assert (cells[label], cells[f"{label} +/-95%"]) == (value, half)

    table = list(csv.reader(io.StringIO(to_csv(report))))
    assert table[0][:6] == ["rank", "bot", "Elo", "+/-95%", label, f"{label} +/-95%"]
    assert table[1][4:6] == [value, half] and table[2][1] == "'=cmd|<b>x</b>"

    md = to_markdown(report)
    assert f"| {label} | {label} +/-95% |" in md and f"| {value} | {half} |" in md
    assert "<b>" not in md

    html = to_html(report)
    assert f"<th>{label}</th>" in html and f"<td>{value}</td><td>{half}</td>" in html
    assert "<b>" not in html

    doc = to_json(report)
    assert doc["metric"] == {"name": "chips won", "unit": "antes", "per": "hand",
                             "scale": 0.5, "higher_is_better": True, "label": label}
    assert doc["rows"][0]["metric"]["value"] == pytest.approx(a.metric.value)
    assert doc["rows"][0]["metric"]["groups"] == 6

    console = Console(record=True, width=300)
    console.print(rich_table(report))
    text = console.export_text()
    assert label in text and value in text and half in text

    written = write_reports(report, tmp_path)
    assert json.loads(written[0].read_text())["metric"]["label"] == label
    assert label in written[1].read_text() and label in written[2].read_text()


def test_lower_is_better_metric_is_labelled_and_elo_order_kept() -> None:
    # b takes fewer points per round but a finishes ahead more often: Elo decides order.
    recs = [record(0, ["a", "b"], [1, 2], [30, 40], units=3),
            record(1, ["a", "b"], [1, 2], [20, 25], units=2),
            record(2, ["a", "b"], [2, 1], [50, 0], units=2)]
    report = build_report(recs, SETTINGS, metric=POINTS)
    assert [r.bot for r in report.rows] == ["a", "b"]
    assert "points/round (lower is better)" in columns(report)
    metric = {r.bot: r.metric for r in report.rows}
    assert metric["a"] is not None and metric["a"].value == pytest.approx(100 / 7)
    assert metric["b"] is not None and metric["b"].value == pytest.approx(65 / 7)


def test_no_metric_shows_nothing() -> None:
    report = build_report(duplicate_pairs(), SETTINGS)
    assert report.metric is None and all(r.metric is None for r in report.rows)
    assert not any("chips" in c for c in columns(report)) and to_json(report)["metric"] is None


def test_unrated_bots_have_no_metric() -> None:
    report = build_report(duplicate_pairs(), SETTINGS, bots=["late"], metric=CHIPS)
    cols = columns(report)
    late = dict(zip(cols, table_cells(report)[0][-1], strict=True))
    assert late["bot"] == "late" and late["chips won/hand (antes)"] == "-"


# --------------------------------------------------------------------------- bad records


@pytest.mark.parametrize(("change", "message"), [
    ({"scores": None}, "game 0 has no scores"),
    ({"scores": [1.0]}, "not one number per seat"),
    ({"scores": [1.0, float("nan")]}, "not one number per seat"),
    ({"units": 0}, "units 0 is not a positive integer"),
    ({"places": [0, 1]}, "disagree"),
    ({"places": [1, 3]}, "disagree"),
])
def test_records_that_cannot_give_the_metric(change: dict[str, Any], message: str) -> None:
    recs = [{**record(0, ["a", "b"], [1, 2], [1.0, -1.0]), **change},
            record(1, ["b", "a"], [1, 2], [1.0, -1.0])]
    with pytest.raises(ReportError, match=message):
        build_report(recs, SETTINGS, metric=CHIPS)
