"""`referee run` writes the Elo leaderboard; `referee rate` recomputes and merges it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOTS = [str(ROOT / "bots" / "polish_poker" / b)
        for b in ("statistician.py", "caller.py", "random_bot.py")]
REFEREE = str(Path(sys.executable).with_name("referee"))
FILES = ("leaderboard.json", "leaderboard.csv", "leaderboard.md", "leaderboard.html")


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run([REFEREE, *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_run_then_rate_merges_runs_and_anchors(tmp_path: Path) -> None:
    runs = []
    for seed in (1, 2):
        out = tmp_path / f"run{seed}"
        # (no sandbox: each sandboxed statistician process compiles its numba kernels anew)
        res = referee("run", "--bots", *BOTS, "--games", "12", "--seed", str(seed),
                      "--sandbox", "none", "--out", str(out))
        assert res.returncode == 0, res.stderr
        assert all((out / f).is_file() for f in FILES)
        runs.append(out)
    one = json.loads((runs[0] / FILES[0]).read_text())
    assert one["schema_version"] == 1 and one["kind"] == "elo" and one["n_games"] == 12
    assert {r["bot"] for r in one["rows"]} == {"statistician", "caller", "random_bot"}
    assert "official, 3 players" in one["caption"]

    res = referee("rate", *map(str, runs), "--out", str(tmp_path / "merged"),
                  "--anchor", "caller=100")
    assert res.returncode == 0, res.stderr
    merged = json.loads((tmp_path / "merged" / FILES[0]).read_text())
    assert merged["n_games"] == 24 and merged["settings"]["runs"] == 2
    rows = {r["bot"]: r for r in merged["rows"]}
    assert rows["caller"]["elo"] == 100.0 and rows["caller"]["se"] == 0.0
    assert rows["statistician"]["rank"] == 1 and rows["statistician"]["wins"] >= 20
    html = (tmp_path / "merged" / "leaderboard.html").read_text()
    assert "<svg" in html and "http" not in html

    # rating one run again reproduces the leaderboard its run wrote, byte for byte
    again = referee("rate", str(runs[0]), "--out", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / FILES[0]).read_text() == (runs[0] / FILES[0]).read_text()


def test_rate_refuses_what_is_not_a_journal(tmp_path: Path) -> None:
    res = referee("rate", str(tmp_path))
    assert res.returncode == 2 and "not a run directory" in res.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "games.jsonl").write_text('{"schema_version": 1}\nnot json\n{"x": 1}\n')
    res = referee("rate", str(bad))
    assert res.returncode == 2 and "games.jsonl:2" in res.stderr
    assert "Traceback" not in res.stderr
