"""A bot process never plays two games of one deal (``referee.pool``).

Every round ends with every hand revealed, and duplicate deals replay one deal with the
seats rotated, so a process that remembered game 1 of a group would know every card of
game 2. ``rememberer.py`` keeps every revealed deal and looks for a repeat (by the cards
of a round-1 reveal, and by the group its game id falls in), plays to win when it finds
one, and otherwise plays exactly like ``caller``. Against two callers it must recognise
nothing and win exactly as often as each of them, with one slot, several, several
worker processes, a resumed run and a gauntlet (whose candidates replay the field's
deals). In-process bots are functions the referee keeps for the whole run: there the
rememberer does recognise the deals, which shows the attack is real (and is why
in-process bots are trusted, SECURITY.md).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    REFEREE,
    assert_nothing_left,
    bot_dir,
    good,
    no_traceback,
    referee,
)

from referee.journal import read_games  # noqa: E402
from referee.verify import verify_run  # noqa: E402

HOSTILE = Path(__file__).resolve().parent
PLAYING = re.compile(r"^game (\d+): playing in process (\d+)$")
GAMES = ["--games", "36", "--move-time", "5s", "--sandbox", "none"]


def bots(tmp_path: Path, *field: str) -> list[str]:
    d = bot_dir(tmp_path)
    shutil.copy(HOSTILE / "rememberer.py", d / "rememberer.py")
    caller = good(tmp_path, "caller.py")[0]
    return ["--bots", *field, str(d / "rememberer.py"), caller, f"caller2={caller}"]


def memories(out: Path) -> tuple[str, dict[int, list[int]]]:
    """The rememberer's logs, and the games each of its processes played."""
    text = "".join(p.read_text() for p in sorted((out / "logs").glob("rememberer.*.stderr.log")))
    played: dict[int, list[int]] = defaultdict(list)
    for line in text.splitlines():
        m = PLAYING.match(line)
        if m:
            played[int(m[2])].append(int(m[1]))
    return text, played


def check_no_repeat(out: Path, games: int) -> dict[str, int]:
    """No process played two games of one deal, the rememberer recognised nothing, and
    every game verifies; the wins per bot."""
    assert verify_run(out).games == games
    records = {r["game"]: r for r in read_games(out)}
    text, played = memories(out)
    assert "recognised" not in text and "predicted" not in text, text
    # (A game abandoned by a kill is played again on resume, by another process.)
    assert {g for gs in played.values() for g in gs} == {
        g for g, r in records.items() if "rememberer" in r["seats"]}
    for pid, gs in played.items():
        seeds = [records[g]["seed"] for g in gs]
        assert len(seeds) == len(set(seeds)), (pid, gs)
    return Counter(r["order"][0] for r in records.values())


@pytest.mark.parametrize("how", [["--concurrency", "1"], ["--concurrency", "3"],
                                 ["--concurrency", "2", "--workers", "2"]],
                         ids=["one slot", "three slots", "two workers"])
def test_no_process_meets_a_deal_twice(tmp_path: Path, how: list[str]) -> None:
    res = referee("run", *bots(tmp_path), *GAMES, *how, "--out", str(tmp_path / "run"),
                  cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    no_traceback(res)
    wins = check_no_repeat(tmp_path / "run", 36)
    # Three identical strategies on every seat of every deal: equal wins, to the game.
    assert wins == {"rememberer": 12, "caller": 12, "caller2": 12}, wins
    if how == ["--concurrency", "1"]:  # a group of 6 games: 6 processes of each bot
        assert len(list((tmp_path / "run" / "logs").glob("rememberer.*.stderr.log"))) == 6
    assert_nothing_left(tmp_path)


def test_no_process_meets_a_deal_twice_across_a_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [str(REFEREE), "run", *bots(tmp_path), *GAMES, "--concurrency", "2",
            "--out", str(out)]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    journal = out / "games.jsonl"
    while not (journal.exists() and journal.read_text().count("\n") >= 9):
        assert proc.poll() is None
        time.sleep(0.01)
    # Ctrl-C in the middle of a group (a kill -9 would also lose the log lines the
    # referee had not copied yet, which this test reads).
    os.kill(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    assert_nothing_left(tmp_path)
    res = referee("resume", str(out), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    wins = check_no_repeat(out, 36)
    assert wins == {"rememberer": 12, "caller": 12, "caller2": 12}, wins
    assert_nothing_left(tmp_path)


def test_a_gauntlet_replays_deals_to_fresh_processes(tmp_path: Path) -> None:
    """Two candidates play the same tables on the same deals: the field's processes meet
    each deal 12 times, more than the pool keeps (1 slot + 6 - 1), so some are replaced
    by new ones, and still none plays a deal twice."""
    caller = good(tmp_path, "caller.py")[0]
    res = referee("run", *bots(tmp_path, f"cand1={caller}", f"cand2={caller}"),
                  "--format", "gauntlet", "--candidates", "2", "--players", "3",
                  *GAMES, "--out", str(tmp_path / "run"), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    check_no_repeat(tmp_path / "run", 36)
    _, played = memories(tmp_path / "run")
    assert len(played) > 6  # processes were replaced
    assert_nothing_left(tmp_path)


def test_in_process_bots_do_remember(tmp_path: Path) -> None:
    """The control: one function plays every game in-process, and recognises the deals
    it has seen, predicts every hand and wins more than its fair share."""
    # One seed: how much more than its share a player who knows the cards wins depends
    # on the deals (over random deals of 36 games it fell to 16, the bound, about one
    # run in seven)
    res = referee("run", *bots(tmp_path), *GAMES, "--in-process", "--seed", "1", "--out",
                  str(tmp_path / "run"), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    recognised = re.findall(r"game (\d+): recognised the deal of game (\d+)", res.stderr)
    assert len(recognised) == 30  # games 2 to 6 of each of the 6 groups
    assert all(int(a) // 6 == int(b) // 6 for a, b in recognised)
    assert "predicted right" in res.stderr and "predicted wrong" not in res.stderr
    wins = Counter(r["order"][0] for r in read_games(tmp_path / "run"))
    assert wins["rememberer"] > 12 + 4 and wins["rememberer"] > 1.5 * max(
        wins["caller"], wins["caller2"]), wins
