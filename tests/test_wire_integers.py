"""Every integer a bot is sent, and every integer in a run directory's JSON, is within
±2^53, which JavaScript holds exactly (SPEC.md section 2, JOURNAL.md): a JavaScript bot or
journal reader never sees a seed rounded. The run seed, which may be larger, is written
as a string. Real ``referee run`` commands; ``spy_bot`` logs every message it is sent."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import BIN, assert_nothing_left, good, hostile, read_jsonl, referee  # noqa: E402

from referee.journal import decode_transcript  # noqa: E402

JS_SAFE = 2**53


@pytest.fixture(autouse=True)
def _this_python_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def integers(value: Any, where: str = "") -> Iterator[tuple[str, int]]:
    """Every integer in a decoded JSON or msgpack value, with where it is."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from integers(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from integers(item, f"{where}[{i}]")


def too_big(values: Iterator[tuple[str, int]]) -> list[tuple[str, int]]:
    return [(where, n) for where, n in values if abs(n) > JS_SAFE]


@pytest.mark.parametrize("seed", [None, str(2**70 + 12345)], ids=["drawn seed", "huge seed"])
def test_no_integer_beyond_2_53_on_the_wire_or_in_the_journal(tmp_path: Path,
                                                               seed: str | None) -> None:
    spy = hostile(tmp_path, "spy_bot")
    extra = ["--seed", seed] if seed else []
    out = tmp_path / "run"
    res = referee("run", "--bots", spy, *good(tmp_path, "caller.py", "random_bot.py"),
                  "--games", "12", "--move-time", "5s", "--sandbox", "none", *extra,
                  "--out", str(out), cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    received = [line["msg"] for log in Path(spy).parent.glob("spy.*.jsonl")
                for line in read_jsonl(log)]
    starts = [m for m in received if m.get("type") == "game_start"]
    assert len(starts) == 12 and len({m["seed"] for m in starts}) > 1
    assert too_big(integers(received)) == []
    records = [out / "games.jsonl", out / "transcripts.jsonl"]
    documents = ["config.json", "leaderboard.json", "counters.json"]
    found = [*(integers(decode_transcript(rec), p.name) for p in records
               for rec in read_jsonl(p)),
             *(integers(json.loads((out / d).read_text()), d) for d in documents)]
    assert [big for values in found for big in too_big(values)] == []
    config = json.loads((out / "config.json").read_text())["config"]
    assert isinstance(config["seed"], str) and (seed is None or config["seed"] == seed)
    assert_nothing_left(tmp_path)
