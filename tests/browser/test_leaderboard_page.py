"""leaderboard.html in a real headless Chromium, from a file:// URL: it loads with no console
error, draws its charts (Elo over the games, a line per bot; the head-to-head heat map with
the values of leaderboard.json; faults per bot), links each bot to its replays, keeps
axis labels clear of the tick labels, and shows a bot's name as text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFEREE = str(Path(sys.executable).parent / "referee")
FAULTY = ROOT / "tests" / "bots"
NAME = "<b>x<b> & co"  # markup in a name (a name has no "/"): shown as text, not markup


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run: three bundled bots (one named with markup) and one that times out."""
    tmp = tmp_path_factory.mktemp("leaderboard")
    out = tmp / "run"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    bots = ROOT / "bots" / "polish_poker"
    res = subprocess.run(
        [REFEREE, "run", "--in-process", "--bots", f"{NAME}="
         f"{bots / 'caller.py'}", str(bots / "random_bot.py"), str(bots / "statistician.py"),
         "--games", "60", "--seed", "11", "--out", str(out)],
        capture_output=True, text=True, cwd=tmp, timeout=300, env=env)
    assert res.returncode == 0, res.stderr
    return out


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return page.page.eval_on_selector_all(
        selector, "els => els.map(e => { const b = e.getBoundingClientRect(); "
                  "return {x: b.x, y: b.y, w: b.width, h: b.height}; })")


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def test_leaderboard_page_in_chromium(page: Any, run_dir: Path) -> None:
    doc = json.loads((run_dir / "leaderboard.json").read_text())
    names = [r["bot"] for r in doc["rows"]]
    name = NAME
    assert name in names
    page.open(run_dir / "leaderboard.html")
    tab = page.page
    assert page.errors == []

    # Elo over the games: one line per bot, each through several checkpoints.
    lines = tab.locator("svg.history-chart g.bot-history")
    assert lines.count() == len(names)
    assert sorted(lines.evaluate_all("gs => gs.map(g => g.dataset.bot)")) == sorted(names)
    points = tab.locator("svg.history-chart polyline.elo-line").evaluate_all(
        "ls => ls.map(l => l.points.numberOfItems)")
    assert all(n >= 5 for n in points)

    # The heat map: every cell of leaderboard.json's head-to-head, with its score.
    h2h = doc["head_to_head"]
    cells = tab.locator("table.heat td.h2h")
    assert cells.count() == sum(1 for i, row in enumerate(h2h["matrix"])
                                for j, (games, _) in enumerate(row) if i != j and games)
    got = tab.locator("table.heat tbody tr").evaluate_all(
        "rows => rows.map(r => [r.cells[0].textContent, "
        "[...r.querySelectorAll('td')].map(td => td.dataset.score || null)])")
    for i, (row_name, scores) in enumerate(got):
        assert row_name == h2h["names"][i]
        for j, score in enumerate(scores):
            games, ahead = h2h["matrix"][i][j]
            if i == j or not games:
                assert score is None
            else:
                want = (games + ahead - h2h["matrix"][j][i][1]) / (2 * games)
                assert float(score) == pytest.approx(want, abs=1e-4)

    # Faults per bot: none in this run, and the page says so.
    assert tab.locator("p.faults-none").is_visible()

    # Each bot links to its games in the replay viewer.
    hrefs = tab.locator("a.replays").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert sorted(hrefs) == sorted(f"replay.html#bot={quote(n, safe='')}" for n in names)

    # A name with markup is text: no <b> element made of it, the name shown as written.
    assert tab.locator("table b").count() == 0
    assert tab.get_by_text(name, exact=True).first.is_visible()

    # Axis labels sit clear of their tick labels, in both charts.
    for chart in ("svg.elo-chart", "svg.history-chart"):
        labels = boxes(page, f"{chart} text.axis-label")
        ticks = boxes(page, f"{chart} text.tick")
        assert labels and ticks
        assert not any(overlap(a, t) for a in labels for t in ticks), chart
    shot = page.shot("leaderboard")
    assert shot.stat().st_size > 0
    os.environ.get("REFEREE_KEEP_SHOT") and shot.replace(os.environ["REFEREE_KEEP_SHOT"])
    assert page.errors == []


def test_faults_per_bot_are_drawn_by_label(page: Any, tmp_path: Path) -> None:
    """Bots that time out and crash (tests/bots): their faults, by label, in the chart."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    out = tmp_path / "run"
    res = subprocess.run(
        [REFEREE, "run", "--bots", str(FAULTY / "slow.py"), str(FAULTY / "crash_mid_game.py"),
         str(ROOT / "bots" / "polish_poker" / "random_bot.py"), "--players", "3", "--games", "6",
         "--move-time", "100ms", "--time-bank", "0ms", "--sandbox", "none", "--seed", "2",
         "--out", str(out)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert res.returncode == 0, res.stderr
    doc = json.loads((out / "leaderboard.json").read_text())
    faults = {r["bot"]: r["faults"] for r in doc["rows"] if r["faults"]}
    assert faults["slow"].get("timeout") and faults["crash_mid_game"].get("crash")
    page.open(out / "leaderboard.html")
    for bot, counts in faults.items():
        bar = page.page.locator(f'svg.faults-chart g.bot-faults[data-bot="{bot}"] rect')
        assert bar.evaluate_all("rs => rs.map(r => [r.dataset.label, +r.dataset.count])") == \
            [[label, n] for label, n in counts.items()]
    assert page.page.locator("svg.faults-chart g.bot-faults").count() == 3
    page.shot("faults")
    assert page.errors == []


def test_twenty_bots_have_twenty_colours_and_a_line_comes_forward(
        page: Any, tmp_path: Path) -> None:
    from leaderboards import build_report, write_reports

    bots = [f"bot{k:02d}" for k in range(20)]
    records = []
    for g in range(120):  # 3-player games; seat order and winner vary
        seats = [bots[(g + j * 7) % 20] for j in range(3)]
        places = [1 + (j + g) % 3 for j in range(3)]
        records.append({"schema_version": 1, "game": g, "seed": g, "game_type": "polish-poker",
                        "rules": "official", "players": 3, "seats": seats,
                        "order": [s for _, s in sorted(zip(places, seats, strict=True))],
                        "places": places,
                        "rounds": 5, "faults": [], "started_at": 1.7e9 + g,
                        "duration_s": 0.1})
    report = build_report(records, {"move_ms": 1000, "bank_ms": 5000})
    write_reports(report, tmp_path, records)
    page.open(tmp_path / "leaderboard.html")
    tab = page.page
    strokes = tab.eval_on_selector_all(
        ".bot-history .elo-line", "ls => ls.map(l => getComputedStyle(l).stroke)")
    assert len(strokes) == 20 and len(set(strokes)) == 20
    keys = tab.locator(".history .legend .key")
    assert keys.count() == 20
    k = keys.nth(13).get_attribute("class").split()[1]  # "key k13": the bot's index
    keys.nth(13).hover()  # that bot's line alone in full, the others faded
    opacity = dict(tab.eval_on_selector_all(
        ".bot-history",
        "gs => gs.map(g => [g.classList[1], Number(getComputedStyle(g).opacity)])"))
    assert opacity.pop(k) == 1 and sorted(opacity.values()) == pytest.approx([0.12] * 19)
    assert page.errors == []
