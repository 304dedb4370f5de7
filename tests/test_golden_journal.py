"""The journal of a fixed seed and deal secret is what it was before the speed work
(issue 20): a digest of every game's record and transcript, as the readers see them,
recorded with the code before that work. Timing fields and decision times are left
out (they differ between any two plays), and so is the transcript's schema version
(the stored form of a transcript may change; what ``read_transcripts`` returns may not).

A digest that changes means a game is played differently: the deal, a bot's random
numbers, the engine, the fault policy or the journal's content. If that is intended
(a rules fix), record the new digest and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboards.report import VOLATILE_FIELDS
from referee.journal import read_games, read_transcripts, untimed

REFEREE = Path(sys.executable).parent / "referee"
ROOT = Path(__file__).resolve().parents[1]
SECRET = bytes(range(32))

# (arguments of ``referee run``, digest of its journal)
RUNS = {
    "polish-in-process": (
        ["--in-process", "--players", "4", "--games", "16", "--bots",
         "bots/polish_poker/caller.py", "bots/polish_poker/random_bot.py",
         "bots/polish_poker/statistician.py", "r2=bots/polish_poker/random_bot.py"],
        "d63f6faa5dfebe9629889dd54bca71edf479788d27baa76b880a655e44d3c5a3"),
    "polacco-in-process": (
        ["--in-process", "--rules", "polacco", "--players", "3", "--games", "6", "--bots",
         "bots/polish_poker/caller.py", "bots/polish_poker/random_bot.py",
         "bots/polish_poker/statistician.py"],
        "95be820661d2a21f38274362798c5895072d57700e978cceeb6e6da322cd3d11"),
    "turkish-in-process": (
        ["--in-process", "--game", "turkish-poker", "--param", "hands=20", "--games", "4",
         "--bots", "bots/turkish_poker/random_bot.py", "bots/turkish_poker/rules_bot.py"],
        "11adac8d049f5da5086a75fc3e327bef65725a2f0e4e28a0405eaeda17f41767"),
    "golf-in-process": (
        ["--in-process", "--game", "six-card-golf", "--games", "4", "--bots",
         "bots/six_card_golf/random_bot.py", "bots/six_card_golf/greedy_bot.py"],
        "24c377553dbc10026686cd4888e1e1c9680c3c263d1c2a5be9845ec29db64e0f"),
    "polish-sockets": (
        ["--sandbox", "none", "--move-time", "10s", "--players", "3", "--games", "6",
         "--bots", "bots/polish_poker/caller.py", "bots/polish_poker/random_bot.py",
         "bots/polish_poker/statistician.py"],
        "38d2436d3ff34485df13b5bf41553705bdc9aa5e6c8745a1d2867ccc26c01cd6"),
}


def journal_digest(run: Path) -> str:
    """sha256 of the run's records (without timing) and transcripts (without times and
    schema version), in game order."""
    records = sorted(read_games(run), key=lambda r: r["game"])
    transcripts = read_transcripts(run)
    doc = []
    for rec in records:
        t = {k: v for k, v in untimed(transcripts[rec["game"]]).items()
             if k != "schema_version"}
        doc.append([{k: v for k, v in rec.items() if k not in VOLATILE_FIELDS}, t])
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def play(tmp_path: Path, name: str) -> Path:
    secret = tmp_path / "secret.key"
    secret.write_bytes(SECRET)
    out = tmp_path / name
    args, _ = RUNS[name]
    res = subprocess.run([str(REFEREE), "run", *args, "--seed", "20261203", "--secret-file",
                          str(secret), "--out", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return out


@pytest.mark.parametrize("name", sorted(RUNS))
def test_journal_unchanged(tmp_path: Path, name: str) -> None:
    assert journal_digest(play(tmp_path, name)) == RUNS[name][1]
