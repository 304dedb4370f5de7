"""Every kit bot, built as its README says, passes ``referee check``; then, per game, the
JavaScript and C bots play a short sandboxed run together with a bundled bot, with no
fault, and the run verifies.

50 games each (no duplicate deals), Turkish poker 5 hands a game and golf to 40
points to keep CI within its budget; each is a whole game
over real sockets in bubblewrap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sandbox import bwrap_problem

ROOT = Path(__file__).resolve().parents[2]
REFEREE = str(Path(sys.executable).parent / "referee")
KITS = ("js", "c")
GAMES = {  # bot -> the game's options, the bundled bot it meets, games
    "official": (["--game", "polish-poker"], "bots/polish_poker/statistician.py", 50),
    "polacco": (["--game", "polish-poker", "--rules", "polacco"],
                "bots/polish_poker/statistician.py", 50),
    "turkish": (["--game", "turkish-poker", "--param", "hands=5"],
                "bots/turkish_poker/rules_bot.py", 50),
    "golf": (["--game", "six-card-golf", "--param", "target=40"],
             "bots/six_card_golf/greedy_bot.py", 50),
}


def referee(*args: str, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([REFEREE, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"bwrap: {bwrap_problem()}")
@pytest.mark.parametrize("name", list(GAMES))
def test_kit_bots_check_play_and_verify(kit_bot, tmp_path, name):
    options, field, games = GAMES[name]
    bots, missing = [], []
    for kit in KITS:
        try:
            bots.append(str(kit_bot(kit, name)))
        except pytest.skip.Exception as exc:  # this kit's toolchain is missing
            missing.append(str(exc))
    if not bots:
        pytest.skip("; ".join(missing))
    for bot in bots:
        checked = referee("check", *options, bot, "--out", str(tmp_path / "check"))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "FAIL" not in checked.stdout
    out = tmp_path / "run"
    ran = referee("run", *options, "--bots", *bots, field, "--games", str(games),
                  "--no-duplicate", "--sandbox", "bwrap", "--out", str(out))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == games
    assert {seat for r in records for seat in r["seats"]} >= {Path(b).stem for b in bots}
    assert [f for r in records for f in r["faults"]] == []
    verified = referee("verify", str(out))
    assert verified.returncode == 0, verified.stdout + verified.stderr
