"""`referee sprt` end to end: real bot processes, the verdict as the exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
REFEREE = str(Path(sys.executable).with_name("referee"))


def sprt(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run([REFEREE, "sprt", "--seed", "7", "--out", str(tmp_path / "run"),
                           *args], capture_output=True, text=True, env=env, timeout=300)


def games(tmp_path: Path) -> list[dict]:
    lines = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_clearly_better_candidate_is_accepted(tmp_path: Path) -> None:
    res = sprt(tmp_path, "--candidate", str(BOTS / "statistician.py"),
               "--baseline", str(BOTS / "caller.py"), "--concurrency", "2")
    assert res.returncode == 0, res.stderr
    assert "H1 accepted" in res.stdout
    recs = games(tmp_path)
    # pairs: the same deal seed twice with the seats swapped
    by_pair: dict[int, list[dict]] = {}
    for r in recs:
        by_pair.setdefault(r["game"] // 2, []).append(r)
    complete = [p for p in by_pair.values() if len(p) == 2]
    assert len(complete) >= 10
    for a, b in complete:
        assert a["seed"] == b["seed"] and a["seats"] == b["seats"][::-1]


def test_a_worse_candidate_is_rejected(tmp_path: Path) -> None:
    res = sprt(tmp_path, "--candidate", str(BOTS / "random_bot.py"),
               "--baseline", str(BOTS / "statistician.py"))
    assert res.returncode == 1, res.stderr
    assert "H0 accepted" in res.stdout
    wins = Counter(r["order"][0] for r in games(tmp_path))
    assert wins["statistician"] > wins["random_bot"]


def test_inconclusive_at_max_games(tmp_path: Path) -> None:
    res = sprt(tmp_path, "--candidate", str(BOTS / "caller.py"),
               "--baseline", str(BOTS / "caller.py"), "--max-games", "12")
    assert res.returncode == 2, res.stderr
    assert "inconclusive after 12 games" in res.stdout
    assert len(games(tmp_path)) == 12
    # Its journal checks out against the pairs schedule; it cannot be resumed.
    check = subprocess.run([REFEREE, "verify", str(tmp_path / "run")], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    again = subprocess.run([REFEREE, "resume", str(tmp_path / "run")], capture_output=True,
                           text=True, timeout=60)
    assert again.returncode == 2 and "referee sprt" in again.stderr, again.stderr


@pytest.mark.parametrize("args", [
    ["--candidate", "missing.py", "--baseline", str(BOTS / "caller.py")],
    ["--candidate", str(BOTS / "caller.py"), "--baseline", str(BOTS / "caller.py"),
     "--elo0", "5", "--elo1", "5"],
    ["--candidate", str(BOTS / "caller.py"), "--baseline", str(BOTS / "caller.py"),
     "--no-such-option"],
])
def test_bad_usage_is_not_mistaken_for_a_verdict(tmp_path: Path, args: list[str]) -> None:
    res = sprt(tmp_path, *args)
    assert res.returncode == 5, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
