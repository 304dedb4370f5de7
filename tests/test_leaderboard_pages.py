"""The leaderboard a person reads: an 80-column terminal keeps every bot's name and Elo, a
tables run shows its bracket and champion on the pages, and ``referee rate`` writes the
same pages from the journal. Real in-process runs of the bundled bots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from leaderboards import build_report, rich_table, table_cells
from referee.gameopts import records_metric
from referee.journal import read_results

ROOT = Path(__file__).resolve().parents[1]
REFEREE = str(Path(sys.executable).parent / "referee")
BOTS = {name: str(ROOT / "bots" / "polish_poker" / f"{name}.py")
        for name in ("caller", "random_bot", "statistician")}
SEVEN = [BOTS["statistician"], BOTS["caller"], BOTS["caller"], BOTS["random_bot"],
         BOTS["random_bot"], BOTS["random_bot"], BOTS["caller"]]
LONG = "a-bot-with-a-rather-long-name-that-fills-the-table"


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run([REFEREE, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env)


def test_an_80_column_terminal_keeps_names_and_elo(tmp_path: Path) -> None:
    out = tmp_path / "run"
    turkish = ROOT / "bots" / "turkish_poker"
    res = referee("run", "--in-process", "--game", "turkish-poker", "--param", "hands=5",
                  "--bots", f"{LONG}={turkish / 'equity_bot.py'}",
                  str(turkish / "random_bot.py"), str(turkish / "rules_bot.py"),
                  "--games", "12", "--seed", "8", "--out", str(out), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    records = read_results(out)
    report = build_report(records, {}, metric=records_metric(records))
    assert report.metric is not None  # chips won per hand: two more columns
    rows, _ = table_cells(report)

    narrow = Console(width=80, record=True)
    narrow.print(rich_table(report, 80))
    text = narrow.export_text()
    assert max(map(len, text.splitlines())) <= 80
    assert LONG in text  # whole, on one line
    for cells in rows:
        assert f" {cells[2]} " in text  # each Elo, whole
    assert "not shown at this width: LOS next %" in text

    wide = Console(width=250, record=True)
    wide.print(rich_table(report, 250))
    everything = wide.export_text()
    assert "not shown" not in everything and "chips won/hand" in everything


def test_a_tables_run_shows_its_bracket_and_champion_on_the_pages(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = referee("run", "--in-process", "--format", "tables", "--bots", *SEVEN,
                  "--games", "4", "--seed", "5", "--out", str(out), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    champion = json.loads((out / "bracket.json").read_text())["champion"]
    md, html = (out / "leaderboard.md").read_text(), (out / "leaderboard.html").read_text()
    assert "## Bracket" in md and f"**Champion: {champion}**" in md
    assert md.count("### Stage") == 2  # the tables, then the final
    assert f'<p class="champion">Champion: {champion}</p>' in html
    assert 'class="history-chart"' in html and 'href="replay.html#bot=' in html

    rated = referee("rate", str(out), "--out", str(tmp_path / "rated"), cwd=tmp_path)
    assert rated.returncode == 0, rated.stderr
    again = (tmp_path / "rated" / "leaderboard.md").read_text()
    assert again == md  # the same page, from the journal
    rated_html = (tmp_path / "rated" / "leaderboard.html").read_text()
    assert f"Champion: {champion}" in rated_html and 'class="history-chart"' in rated_html
    assert "replay.html" not in rated_html  # no replays beside a page written elsewhere
