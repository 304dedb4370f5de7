"""What went wrong in a run, per bot: the lines printed at its end.

The leaderboard's faults column says how often; a bot's author also needs what and
where to look. For each bot with faults: the count of each label, the text of its first
fault (earliest game, then round) and the log of the process it happened in; a bot given
up on (``start-failure``) is named as such. Computed from the journal's records alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIVEN_UP = "start-failure"


@dataclass(frozen=True)
class BotFaults:
    """One bot's faults over a run."""

    bot: str
    labels: tuple[tuple[str, int], ...]  # (label, count), most frequent first
    games: int        # games with at least one fault of it
    first_game: int
    first: Mapping[str, Any]  # its first fault, as journalled

    @property
    def given_up(self) -> bool:
        return any(label == GIVEN_UP for label, _ in self.labels)


def bot_faults(records: Iterable[Mapping[str, Any]]) -> list[BotFaults]:
    """Per bot with faults, in order of name."""
    labels: dict[str, Counter[str]] = {}
    games: Counter[str] = Counter()
    first: dict[str, tuple[int, int, Mapping[str, Any]]] = {}
    for rec in records:
        seen = set()
        for f in rec["faults"]:
            bot = f["bot"]
            labels.setdefault(bot, Counter())[f["label"]] += 1
            seen.add(bot)
            key = (rec["game"], _position(f))
            if bot not in first or key < first[bot][:2]:
                first[bot] = (*key, f)
        games.update(seen)
    return [BotFaults(bot, tuple(labels[bot].most_common()), games[bot], first[bot][0],
                      first[bot][2]) for bot in sorted(labels)]


def _position(fault: Mapping[str, Any]) -> int:
    """Where in its game a fault happened: the transcript events before it (a journal of
    schema 1 gave its round instead)."""
    return fault["event"] if "event" in fault else fault["round"]


def render(faults: list[BotFaults], run_dir: Path) -> list[str]:
    """The summary as lines of plain text (a bot's text in them is data, not markup)."""
    if not faults:
        return []
    lines = ["faults (every one is in games.jsonl):"]
    for b in faults:
        counts = ", ".join(f"{label} {n}" for label, n in b.labels)
        lines.append(f"  {b.bot}: {counts}, in {b.games} game{'s' * (b.games != 1)}"
                     + ("; given up on: it could not be started" if b.given_up else ""))
        detail = str(b.first.get("detail", "")).splitlines() or [""]
        where = "event" if "event" in b.first else "round"
        lines.append(f"    first, game {b.first_game} {where} {_position(b.first)} "
                     f"({b.first['label']}): {detail[0]}")
        lines += [f"      {line}" for line in detail[1:]]
        if b.first.get("log"):
            lines.append(f"    log: {run_dir / b.first['log']}")
    return lines
