"""`referee sprt` end to end: real bot processes, the verdict as the exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from referee.journal import read_transcripts, untimed

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "polish_poker"
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
    result = json.loads((tmp_path / "run" / "sprt.json").read_text())
    assert result["verdict"] == "H1" and result["llr"] >= result["bounds"][1]
    assert result["candidate"] == "statistician" and result["baseline"] == "caller"
    assert result["test"] == {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05,
                              "max_games": 20000}
    outcomes = result["outcomes"]
    assert sum(outcomes.values()) == result["pairs"] == result["decided_at_pairs"]
    history = result["llr_history"]
    assert [h["pairs"] for h in history] == list(range(1, result["pairs"] + 1))
    assert history[-1]["llr"] == result["llr"]
    assert all(h["llr"] < result["bounds"][1] for h in history[:-1])  # it stopped at once
    assert result["elo"]["low"] < result["elo"]["elo"] < result["elo"]["high"]
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
    # Its journal checks out against the pairs schedule; resuming it plays nothing more
    # and gives the same verdict.
    check = subprocess.run([REFEREE, "verify", str(tmp_path / "run")], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    before = json.loads((tmp_path / "run" / "sprt.json").read_text())
    again = subprocess.run([REFEREE, "resume", str(tmp_path / "run")], capture_output=True,
                           text=True, timeout=60)
    assert again.returncode == 2 and "inconclusive after 12 games" in again.stdout, again
    assert len(games(tmp_path)) == 12
    assert json.loads((tmp_path / "run" / "sprt.json").read_text()) == before


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


def pair_results(recs: list[dict], candidate: str) -> list[str]:
    """W, D or L of each complete pair, in the order of the pairs."""
    by_pair: dict[int, list[dict]] = {}
    for r in recs:
        by_pair.setdefault(r["game"] // 2, []).append(r)
    return ["LDW"[sum(r["order"][0] == candidate for r in pair)]
            for _, pair in sorted(by_pair.items()) if len(pair) == 2]


def test_self_play_is_a_coin_not_a_mirror(tmp_path: Path) -> None:
    """Two copies of one bot: their random streams differ, so the seat swap of a pair
    does not replay the same game (which made every pair a draw, and forced H0)."""
    res = sprt(tmp_path, "--candidate", str(BOTS / "random_bot.py"),
               "--baseline", str(BOTS / "random_bot.py"), "--max-games", "60")
    assert res.returncode in (1, 2), res.stderr  # H0 (equal bots) or undecided
    recs = games(tmp_path)
    results = pair_results(recs, "random_bot")
    counts = Counter(results)
    assert counts["W"] and counts["L"], results  # decisive pairs, both ways
    longest = max(len(run) for run in "".join(results).replace("W", " W ").replace(
        "L", " L ").split() if run)
    assert longest < 10, results
    transcripts = {}
    for game, t in read_transcripts(tmp_path / "run").items():
        transcripts[game] = [e for e in t["events"] if e["type"] == "declared"]
    mirrored = sum(transcripts[2 * p] == transcripts[2 * p + 1] for p in range(len(results)))
    assert mirrored < len(results) / 2, (mirrored, len(results))


def test_the_same_seed_gives_the_same_games(tmp_path: Path) -> None:
    for run in ("a", "b"):
        res = subprocess.run([REFEREE, "sprt", "--seed", "3", "--out", str(tmp_path / run),
                              "--candidate", str(BOTS / "random_bot.py"), "--baseline",
                              str(BOTS / "random_bot.py"), "--max-games", "10"],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode in (1, 2), res.stderr
    texts = [sorted(json.dumps(untimed(t)) for t in read_transcripts(tmp_path / run).values())
             for run in ("a", "b")]
    assert texts[0] == texts[1] and len(texts[0]) == 10


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_a_stopped_sprt_is_resumed_from_its_journal(tmp_path: Path, how: int) -> None:
    """Stopped after some games (Ctrl-C, or kill -9), ``referee resume`` goes on with the
    same test: the journal ends with every game played once, and ``sprt.json`` holds the
    verdict the journal gives."""
    out = tmp_path / "run"
    args = [REFEREE, "sprt", "--seed", "5", "--out", str(out), "--candidate",
            str(BOTS / "random_bot.py"), "--baseline", str(BOTS / "random_bot.py"),
            "--max-games", "40"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = out / "games.jsonl"
    deadline = time.monotonic() + 120
    while not (journal.exists() and journal.read_text().count("\n") >= 6):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    if how == signal.SIGINT:
        assert proc.returncode == 130, err
        assert f"referee resume {out}" in err
        stopped = json.loads((out / "sprt.json").read_text())
        assert stopped["games"] == len(games(tmp_path))
    done_before = len(games(tmp_path))
    assert done_before < 40
    res = subprocess.run([REFEREE, "resume", str(out)], capture_output=True, text=True,
                         timeout=300)
    recs = games(tmp_path)
    indices = [r["game"] for r in recs]
    assert len(indices) == len(set(indices)) > done_before
    result = json.loads((out / "sprt.json").read_text())
    verdict = {0: "H1", 1: "H0", 2: "inconclusive"}[res.returncode]
    assert result["verdict"] == verdict, (res.stdout, res.stderr)
    assert result["games"] == len(recs)
    # The result is the journal's: W/D/L of its pairs, up to the decision.
    results = pair_results(sorted(recs, key=lambda r: r["game"]), "random_bot")
    assert sum(result["outcomes"].values()) == result["pairs"] <= len(results)
    if verdict == "inconclusive":
        assert len(recs) == 40 and Counter(results) == Counter(result["outcomes"])
    verify = subprocess.run([REFEREE, "verify", str(out)], capture_output=True, text=True,
                            timeout=60)
    assert verify.returncode == 0, verify.stderr
