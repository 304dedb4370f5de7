"""Every kit bot, built as its README says, passes ``referee check`` and plays a short
sandboxed run against a bundled bot with no fault, and the run verifies.

A short run per bot keeps CI within its budget: 2 games (no duplicate deals), Turkish
poker 5 hands a game, golf to 60 points; each is a whole game over real sockets in
bubblewrap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sandbox import bwrap_problem

ROOT = Path(__file__).resolve().parents[2]
REFEREE = str(Path(sys.executable).parent / "referee")
GAMES = {  # bot -> the game's options and the bundled bots it meets
    "official": (["--game", "polish-poker"], ["bots/statistician.py"]),
    "polacco": (["--game", "polish-poker", "--rules", "polacco"],
                ["bots/statistician.py", "bots/caller.py"]),
    "turkish": (["--game", "turkish-poker", "--param", "hands=5"],
                ["bots/turkish_poker/rules_bot.py"]),
    "golf": (["--game", "six-card-golf", "--param", "target=60"],
             ["bots/six_card_golf/greedy_bot.py"]),
}


def referee(*args: str, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([REFEREE, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bwrap: {bwrap_problem()}")
@pytest.mark.parametrize("kit", ["js", "c"])
@pytest.mark.parametrize("name", list(GAMES))
def test_kit_bot_checks_plays_and_verifies(kit_bot, tmp_path, kit, name):
    bot = str(kit_bot(kit, name))
    options, field = GAMES[name]
    checked = referee("check", *options, bot, "--out", str(tmp_path / "check"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "FAIL" not in checked.stdout
    out = tmp_path / "run"
    ran = referee("run", *options, "--bots", bot, *field, "--games", "2", "--no-duplicate",
                  "--sandbox", "bwrap", "--out", str(out))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    assert [f for r in records for f in r["faults"]] == []
    verified = referee("verify", str(out))
    assert verified.returncode == 0, verified.stdout + verified.stderr
