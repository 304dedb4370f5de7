"""What the speed work changed in how the journal is held and stored, against the plain
forms: packed transcripts read back as schema 3 has them, compact records equal to the
lines they come from, a game's transcript found beside its line (a superseded one left
out), and the one-pass legal raises equal to asking the raise rule of each candidate."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bots.polish_poker import caller, random_bot
from evaluator import ladder
from evaluator.declarations import legal_raises, raise_error
from leaderboards.report import VOLATILE_FIELDS
from referee.inprocess import play_local
from referee.journal import (
    GAMES_FILE,
    TAIL_BLOCK,
    TRANSCRIPTS_FILE,
    games_with_transcripts,
    read_games,
    read_results,
    read_transcripts,
    repair_journal,
)


def test_packed_transcripts_read_back_as_plain_ones(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play_local({"c": caller, "r": random_bot}, games=4, seed=2, out=out)
    lines = [json.loads(line) for line in (out / TRANSCRIPTS_FILE).read_text().splitlines()]
    assert all("packed" in t and "events" not in t for t in lines)
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("games.jsonl", "config.json"):
        (plain / name).write_bytes((out / name).read_bytes())
    decoded = read_transcripts(out)
    (plain / TRANSCRIPTS_FILE).write_text("".join(
        json.dumps({**t, "schema_version": 3}) + "\n" for t in decoded.values()))
    again = read_transcripts(plain)
    assert {g: {**t, "schema_version": 3} for g, t in decoded.items()} == again
    assert all(t["events"] and t["decisions"] for t in again.values())


def test_compact_records_equal_their_lines(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play_local({"c": caller, "r": random_bot}, games=6, seed=3, out=out)
    plain = [{k: v for k, v in rec.items() if k not in VOLATILE_FIELDS}
             for rec in read_games(out)]
    compact = read_results(out)
    assert [dict(r) for r in compact] == plain and compact == plain
    assert compact[0]["params"] is compact[1]["params"]


def test_each_line_gets_its_games_last_transcript(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play_local({"c": caller, "r": random_bot}, games=4, seed=4, out=out)
    path = out / TRANSCRIPTS_FILE
    lines = path.read_text().splitlines(keepends=True)
    stale = json.loads(lines[2])
    stale["seed"] = -1  # a transcript whose game line never came: played again later
    path.write_text(lines[0] + json.dumps(stale, separators=(",", ":")) + "\n"
                    + "".join(lines[1:]))
    pairs = list(games_with_transcripts(out))
    assert [rec["game"] for rec, _ in pairs] == [rec["game"] for rec in read_games(out)]
    assert all(t is not None and t["game"] == rec["game"] and t["seed"] == rec["seed"]
               for rec, t in pairs)


def test_legal_raises_are_those_the_raise_rule_allows() -> None:
    rng = random.Random(5)
    for ruleset in ("official", "polacco"):
        everything = ladder(ruleset)
        for _ in range(400):
            history: list = []
            for _ in range(rng.randint(0, 6)):
                options = legal_raises(history, ruleset)
                if not options:
                    break
                history.append(rng.choice(options[:6]))
            assert legal_raises(history, ruleset) == tuple(
                d for d in everything if raise_error(d, history, ruleset) is None)


def test_repair_cuts_a_torn_line_longer_than_the_block_it_reads(tmp_path: Path) -> None:
    out = tmp_path / "run"
    play_local({"c": caller, "r": random_bot}, games=4, seed=2, out=out)
    whole = {name: (out / name).read_bytes() for name in (GAMES_FILE, TRANSCRIPTS_FILE)}
    torn = b'{"schema_version":5,"game":4,"events":"' + b"x" * (3 * TAIL_BLOCK)
    with (out / TRANSCRIPTS_FILE).open("ab") as f:
        f.write(torn)
    with (out / GAMES_FILE).open("ab") as f:
        f.write(b'{"game":')
    said: list[str] = []
    repair_journal(out, said.append)
    assert {name: (out / name).read_bytes() for name in whole} == whole
    assert len(said) == 2 and f"({len(torn)} bytes)" in said[1]
    (out / GAMES_FILE).write_bytes(b"x" * (TAIL_BLOCK + 7))  # no newline at all
    repair_journal(out)
    assert (out / GAMES_FILE).read_bytes() == b""
