"""What a CI job uses, end to end through the real CLI: ``--max-time`` ends ``run`` (exit
124) and ``sprt`` (exit 2, inconclusive) cleanly and leaves a run that goes on;
``summary.md`` says what happened; ``--out DIR --resume`` starts, goes on with this very
run, and refuses another."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from referee.sprt import load_result

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "polish_poker"
REFEREE = str(Path(sys.executable).with_name("referee"))
THREE = [str(BOTS / b) for b in ("random_bot.py", "caller.py", "statistician.py")]


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "COLUMNS": "200"}
    return subprocess.run([REFEREE, *args], capture_output=True, text=True, env=env,
                          timeout=300)


def journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def test_run_max_time_summary_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = ["run", "--bots", *THREE, "--games", "100000", "--in-process", "--seed", "3",
           "--out", str(out), "--resume", "--event", "Club <b>night</b>"]
    first = referee(*run, "--max-time", "2s")
    assert first.returncode == 124, first.stderr
    assert "--max-time 2s ran out" in first.stderr and f"referee resume {out}" in first.stderr
    played = len(journal(out))
    assert 0 < played < 100000
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Club &lt;b>night&lt;/b>\n")  # a title, never markup
    assert f"**stopped: --max-time 2s ran out** after {played} of " in summary
    assert "| rank | bot | Elo |" in summary and "statistician" in summary

    again = referee(*run, "--max-time", "2s")  # the same command goes on with it
    assert again.returncode == 124, again.stderr
    recs = journal(out)
    assert len(recs) > played and len({r["game"] for r in recs}) == len(recs)

    other = referee(*[a if a != "100000" else "99999" for a in run], "--max-time", "2s")
    assert other.returncode == 2 and "holds another run (its games differ" in other.stderr
    assert len(journal(out)) == len(recs)  # nothing played, nothing lost

    fresh = tmp_path / "fresh"  # --resume on an empty --out starts the run, to its end
    done = referee("run", "--bots", *THREE, "--games", "6", "--in-process", "--out",
                   str(fresh), "--resume")
    assert done.returncode == 0, done.stderr
    assert "**finished**: 6 games" in (fresh / "summary.md").read_text()
    assert (fresh / "leaderboard.md").is_file() and (fresh / "replay.html").is_file()


def test_sprt_max_time_is_inconclusive_and_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "sprt"
    # A bot against itself: a fair coin, so the test cannot decide within the budget.
    sprt = ["sprt", "--candidate", f"a={BOTS / 'random_bot.py'}", "--baseline",
            f"b={BOTS / 'random_bot.py'}", "--seed", "5", "--out", str(out), "--resume",
            "--max-time", "2s"]
    first = referee(*sprt)
    assert first.returncode == 2, first.stderr
    assert "inconclusive after" in first.stdout and "--max-time 2s ran out" in first.stdout
    result = load_result(out)  # a loaded machine may not finish a game in 2 s: it need not
    assert result["verdict"] == "inconclusive" and result["games"] == len(journal(out))
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# SPRT: a vs b\n")
    assert "**inconclusive** (--max-time 2s ran out) (exit 2)" in summary
    assert f"| LLR | {result['llr']:+.2f} (bounds -2.94, +2.94) |" in summary
    assert ("| pentanomial (pair score 0, 1/4, 1/2, 3/4, 1) | "
            + ", ".join(map(str, result["pentanomial"])) + " |") in summary
    assert f"| pairs | {result['pairs']} (W {result['outcomes']['W']}," in summary
    assert "| faults | none |" in summary and f"`referee resume {out}`" in summary

    before = journal(out)
    again = referee(*sprt)
    assert again.returncode == 2, again.stderr
    assert "resuming SPRT" in again.stdout
    recs = journal(out)
    assert recs[:len(before)] == before and len({r["game"] for r in recs}) == len(recs)
    assert load_result(out)["games"] == len(recs)

    other = referee(*sprt, "--elo1", "20")
    assert other.returncode == 5 and "sprt elo1" in other.stderr


def test_an_old_sprt_json_reads_continue_as_inconclusive(tmp_path: Path) -> None:
    (tmp_path / "sprt.json").write_text(json.dumps({"verdict": "continue", "llr": 0.1}))
    assert load_result(tmp_path)["verdict"] == "inconclusive"
