"""``referee check`` sends what a real run sends (SPEC.md section 4): a bot that reads
``places[seat]`` and ``order`` at the game's end, and its notices, complies; and a
failing answer is printed as the bot sent it, not as Python sees it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent

STRICT = '''
import json, os

OUT = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ends.jsonl"), "a")
NOTICES = []


def act(view):
    return view["legal"][0]


def on_notice(notice):
    NOTICES.append(notice)


def on_game_end(info):
    OUT.write(json.dumps({"seat": info.seat, "players": info.players,
                          "place": info.places[info.seat], "order": list(info.order),
                          "scores": info.scores, "notices": len(NOTICES)}) + "\\n")
    OUT.flush()
'''

WRONG = '''
def act(view):
    return {"kind": "discard"}
'''


def check(bot: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "referee"), "check", "--game", "six-card-golf",
                           str(bot), "--out", str(tmp_path / "logs"),
                           "--sandbox", "none"], cwd=tmp_path,  # its bots write beside them
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "200"})


def test_a_bot_that_reads_the_game_end_as_the_spec_says_complies(tmp_path: Path) -> None:
    bot = tmp_path / "strict" / "strict.py"
    bot.parent.mkdir()
    bot.write_text(STRICT)
    res = check(bot, tmp_path)
    assert res.returncode == 0 and "strict: complies" in res.stdout, res.stdout + res.stderr
    ends = [json.loads(x) for x in (bot.parent / "ends.jsonl").read_text().splitlines()]
    assert len(ends) == 5  # one per scripted turn
    for end in ends:
        assert end["place"] == 1 and end["order"][0] == end["seat"]
        assert sorted(end["order"]) == list(range(end["players"]))
        assert len(end["scores"]) == end["players"] and end["notices"] > 0
    assert 'played {"kind": "take", "from": "stock"}' in res.stdout


def test_a_refused_answer_is_printed_as_the_bot_sent_it(tmp_path: Path) -> None:
    bot = tmp_path / "wrong.py"
    bot.write_text(WRONG)
    res = check(bot, tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    # The first turn: a card must be taken before anything else.
    assert 'turn 1 of 5: illegal action {"kind": "discard"}: take a card first' in res.stdout
    assert "Discard()" not in res.stdout
