"""The steps replay.html builds itself from a transcript (a game's ``steps.js``, run by
node here as the page runs it) are the steps the game's ``steps.py`` makes, card for card
(who sees it) and text for text: on random games with faults and forfeits and on the
golden transcripts of each game that has a ``steps.js``. And the steps of a game the page
is given built (Polish Poker), as ``referee.show.html`` writes them, are the game's steps
once filled in as the page fills them in."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from referee.games import load_game, package
from referee.games.api import Card, Step
from referee.show.html import STEPS_SCRIPT, _steps_json

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
from golf.test_golf_steps import play as play_golf  # noqa: E402
from turkish.test_steps import play as play_turkish  # noqa: E402

NODE = shutil.which("node")
# Loads the page's step library and the games' scripts as the page does, then prints the
# steps of each {game_type, players, events} read from stdin.
BUILD = """const fs = require("fs");
for (const f of process.argv.slice(1)) (0, eval)(fs.readFileSync(f, "utf8"));
const docs = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map((d) =>
  globalThis.replayGames[d.game_type](globalThis.replayStepLib)(d.players, d.events))));
"""


def card(c: Card) -> Any:
    return c.code if c.seen_by is None else [c.code, list(c.seen_by)]


def drawn(s: Step) -> list[Any]:
    """A step as the page draws it (``referee/show/assets/steps.js`` says the form)."""
    return [s.event, s.actor, s.text,
            [[[[card(c) for c in row] for row in v.rows], v.status, v.info] for v in s.seats],
            [[p.label, [card(c) for c in p.cards], p.info] for p in s.piles],
            list(s.history), s.result]


def games() -> list[tuple[str, dict[str, Any], int, list[dict[str, Any]]]]:
    """(game, params, players, events): random games of each game with a steps.js, with
    faults and forfeits, and the golden transcripts."""
    out = []
    for seed in range(12):
        players, trouble = 2 + seed % 4, (0.0, 0.02, 0.1)[seed % 3]
        g, _ = play_turkish(players, seed, trouble)
        out.append(("turkish-poker", {"hands": 3}, players,
                    [e.to_dict() for e in g.events]))
        g, _ = play_golf(players, seed, trouble)
        out.append(("six-card-golf", {"target": 40, "turn_cap": 6, "round_cap": 6}, players,
                    [e.to_dict() for e in g.events]))
    for path in sorted((TESTS / "golden").glob("*.json")):
        golden = json.loads(path.read_text())
        out.append((golden["game"], golden["params"], golden["players"], golden["events"]))
    return out


def scripts(names: set[str]) -> list[str]:
    found = [files(package(n).__name__) / STEPS_SCRIPT for n in sorted(names)]
    return [str(p) for p in found if p.is_file()]


@pytest.mark.skipif(NODE is None, reason="no node to run the page's scripts")
def test_the_page_builds_the_steps_the_game_makes() -> None:
    chosen = [g for g in games() if g[0] in ("turkish-poker", "six-card-golf")]
    assert len({g[0] for g in chosen}) == 2 and any(
        e["type"] in ("fault", "forfeit") for g in chosen for e in g[3])
    docs = [{"game_type": name, "players": players, "events": json.loads(json.dumps(events))}
            for name, _, players, events in chosen]
    library = str(files("referee.show") / "assets" / "steps.js")
    done = subprocess.run([str(NODE), "-e", BUILD, library,
                           *scripts({name for name, *_ in chosen})],
                          input=json.dumps(docs), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    built = json.loads(done.stdout)
    for (name, params, players, events), page in zip(chosen, built, strict=True):
        steps = load_game(name, params).steps(players, events)
        want = json.loads(json.dumps([drawn(s) for s in steps]))
        assert len(page) == len(want), name
        for k, (got, step) in enumerate(zip(page, want, strict=True)):
            assert got == step, f"{name}, {players} players, step {k}"


def filled_in(written: list[list[Any]]) -> list[list[Any]]:
    """What the page's ``fillIn`` (referee/show/assets/replay.js) makes of the steps the
    writer gives it built: a seat or the piles written 0 as in the step before, the
    history [n, *new] as the step before's first n lines, then the new ones."""
    steps: list[list[Any]] = []
    for event, actor, text, seats, piles, lines, result in written:
        before = steps[-1] if steps else [0, 0, "", [], [], []]
        steps.append([event, actor, text,
                      [before[3][n] if v == 0 else v for n, v in enumerate(seats)],
                      before[4] if piles == 0 else piles,
                      before[5][:lines[0]] + lines[1:], result])
    return steps


def test_built_steps_are_written_so_the_page_fills_in_the_same_steps() -> None:
    for name, params, players, events in games():
        steps = load_game(name, params).steps(players, events)
        assert filled_in(json.loads(_steps_json(steps))) == json.loads(json.dumps(
            [drawn(s) for s in steps])), name
