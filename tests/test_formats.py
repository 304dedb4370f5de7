"""The formats through ``referee run``: round robin with duplicate deals, gauntlet, and the
multi-table tournament, with their journals, leaderboards, brackets and resumes."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from referee.bracket import Tables
from referee.config import RunConfig
from referee.inprocess import LocalRunner, load_local_bots
from referee.journal import read_games
from referee.process import resolve_bots
from referee.verify import verify_run

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import good, referee  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOTS = {name: str(ROOT / "bots" / "polish_poker" / f"{name}.py")
        for name in ("caller", "random_bot", "statistician")}
SEVEN = [BOTS["statistician"], BOTS["caller"], BOTS["caller"], BOTS["random_bot"],
         BOTS["random_bot"], BOTS["random_bot"], BOTS["caller"]]


def test_duplicate_groups_replay_one_deal_with_the_seats_rotated(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = referee("run", "--in-process", "--bots", BOTS["caller"], BOTS["random_bot"],
                  BOTS["statistician"], "--games", "10", "--seed", "2", "--out", str(out),
                  cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    records = read_games(out)
    assert len(records) == 12  # 10, rounded up to whole groups of 6 (every seat order)
    groups = defaultdict(list)
    for rec in records:
        groups[rec["group"]].append(rec)
    assert len(groups) == 2
    for games in groups.values():
        assert len(games) == games[0]["group_size"] == 6
        assert len({g["seed"] for g in games}) == 1
        assert len({tuple(g["seats"]) for g in games}) == 6  # every seating once
    assert verify_run(out).games == 12


def test_gauntlet_puts_one_candidate_at_each_table_and_the_baseline_at_zero(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    caller, rnd = good(tmp_path, "caller.py", "random_bot.py")
    res = referee("run", "--format", "gauntlet", "--bots", f"cand={caller}", rnd,
                  f"field2={rnd}", "--games", "8", "--seed", "3", "--out", str(out),
                  cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    records = read_games(out)
    assert len(records) == 8
    assert all(rec["seats"].count("cand") == 1 for rec in records)
    doc = json.loads((out / "leaderboard.json").read_text())
    assert doc["settings"]["anchor"] == ["random_bot", 0.0]
    assert {r["bot"]: r["elo"] for r in doc["rows"]}["random_bot"] == 0.0
    assert verify_run(out).games == 8


def test_tables_tournament_prints_and_writes_its_bracket(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = referee("run", "--in-process", "--format", "tables", "--bots", *SEVEN,
                  "--games", "4", "--seed", "5", "--out", str(out), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    bracket = json.loads((out / "bracket.json").read_text())
    assert bracket["schema_version"] == 1
    champion = bracket["champion"]
    assert f"Champion: {champion}" in res.stdout
    assert (out / "bracket.txt").read_text().strip() in res.stdout
    records = read_games(out)
    final_stage = max(r["stage"] for r in records)
    finals = [r for r in records if r["stage"] == final_stage]
    assert final_stage >= 1 and all(r["order"][0] for r in finals)
    assert champion in finals[0]["seats"]
    # Stage 0 seats everyone once; the final seats only players who advanced.
    first = {b for r in records if r["stage"] == 0 for b in r["seats"]}
    assert len(first) == 7
    assert set(finals[0]["seats"]) < first
    assert len({r["players"] for r in records}) > 1  # tables of 4 and 3, a final of 4
    assert verify_run(out).games == len(records)
    rated = referee("rate", str(out), "--out", str(tmp_path / "rated"), cwd=tmp_path)
    assert rated.returncode == 0, rated.stderr
    assert json.loads((tmp_path / "rated" / "leaderboard.json").read_text())["rows"] == \
        json.loads((out / "leaderboard.json").read_text())["rows"]


def tables_config(out: Path, specs: list) -> RunConfig:
    return RunConfig(bots=tuple(specs), params={"ruleset": "official"}, players=6, games=4, seed=8,
                     move_ms=1000, bank_ms=5000, concurrency=1, max_faults=3,
                     start_timeout_ms=0, out=out, format="tables", duplicate=True,
                     in_process=True)


def test_tables_resume_recomputes_the_later_stages(tmp_path: Path) -> None:
    specs = resolve_bots(SEVEN)
    whole = LocalRunner(tables_config(tmp_path / "whole", specs), load_local_bots(specs))
    whole.run()
    whole_records = read_games(tmp_path / "whole")

    def stop_early(runner: LocalRunner, record: dict) -> None:
        if runner.played == 9:  # inside the first stage
            runner.interrupt()

    cut = tmp_path / "cut"
    first = LocalRunner(tables_config(cut, specs), load_local_bots(specs), stop_early)
    first.run()
    assert len(read_games(cut)) == 9
    again = LocalRunner(tables_config(cut, specs), load_local_bots(specs), resume=True)
    again.run()
    again_records = read_games(cut)
    outcome = [(r["game"], r["stage"], r["table"], r["seats"], r["places"])
               for r in sorted(read_games(cut), key=lambda r: r["game"])]
    assert outcome == [(r["game"], r["stage"], r["table"], r["seats"], r["places"])
                       for r in sorted(whole_records, key=lambda r: r["game"])]
    assert isinstance(again.format, Tables)
    assert again.format.bracket(again_records).champion == \
        whole.format.bracket(whole_records).champion


@pytest.mark.parametrize("args, why", [
    (["--format", "ladder", "--bots", BOTS["caller"], BOTS["random_bot"]], "unknown format"),
    (["--format", "tables", "--bots", BOTS["caller"], BOTS["random_bot"], BOTS["caller"]],
     "7"),
    (["--format", "gauntlet", "--candidates", "2", "--bots", BOTS["caller"],
      BOTS["random_bot"]], "--candidates"),
    (["--format", "gauntlet", "--baseline", "nobody", "--bots", BOTS["caller"],
      BOTS["random_bot"]], "--baseline"),
])
def test_bad_format_options_are_one_clear_line(tmp_path: Path, args: list[str],
                                                why: str) -> None:
    res = referee("run", *args, "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and why in err[0] and "Traceback" not in res.stderr, res.stderr


def test_a_tables_run_of_a_game_with_shared_places_advances_resumes_and_verifies(
        tmp_path: Path) -> None:
    """Golf (equal totals share a place) at tables of 4 of 8 bots: shared places advance
    through the bracket, a stopped run resumes to the same bracket, and it verifies."""
    specs = resolve_bots([str(ROOT / "bots" / "six_card_golf" / "greedy_bot.py")] * 8)

    def config(out: Path) -> RunConfig:
        return RunConfig(bots=tuple(specs), params={"target": 20}, players=4, games=2,
                         seed=1, move_ms=1000, bank_ms=5000, concurrency=1, max_faults=3,
                         start_timeout_ms=0, out=out, game="six-card-golf",
                         format="tables", duplicate=True, in_process=True)

    whole = LocalRunner(config(tmp_path / "whole"), load_local_bots(specs))
    whole.run()
    records = read_games(tmp_path / "whole")
    assert any(len(set(r["places"])) < len(r["places"]) for r in records)  # a shared place
    assert {r["stage"] for r in records} == {0, 1}

    def stop_early(runner: LocalRunner, record: dict) -> None:
        if runner.played == 5:
            runner.interrupt()

    cut = tmp_path / "cut"
    LocalRunner(config(cut), load_local_bots(specs), stop_early).run()
    again = LocalRunner(config(cut), load_local_bots(specs), resume=True)
    again.run()
    assert again.format.bracket(read_games(cut)) == whole.format.bracket(records)
    assert verify_run(cut).games == len(records)
