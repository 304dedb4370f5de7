"""The kits' Polish Poker helpers agree with the referee: the ladder (each id's
declaration, and which are equally strong), and a declaration lacks no card in a pool
exactly when the evaluator finds it there."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.cards import deck_cards
from evaluator.declarations import ladder
from evaluator.evaluate import exists

ROOT = Path(__file__).resolve().parents[2]
RULESETS = ("official", "polacco")
POOLS = 60


def referee_ladder(ruleset: str) -> list[tuple[str, list[int], int, int]]:
    """(category, ranks, suit or -1, strength rank) of each id."""
    strengths = sorted({d.strength for d in ladder(ruleset)})
    return [(d.category, list(d.ranks), -1 if d.suit is None else d.suit,
             strengths.index(d.strength)) for d in ladder(ruleset)]


def pools(ruleset: str) -> list[list[int]]:
    rng = random.Random(ruleset)
    deck = [c.id for c in deck_cards(ruleset)]
    return [rng.sample(deck, rng.randint(1, 12)) for _ in range(POOLS)]


def lacks_nothing(ruleset: str, pool: list[int]) -> list[bool]:
    return [exists(d, pool, ruleset) for d in ladder(ruleset)]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("ruleset", RULESETS)
def test_js_ladder_and_missing_agree_with_the_referee(ruleset):
    script = (f"const p = require({json.dumps(str(ROOT / 'kits/js/lib/polish.js'))});"
              f"const l = p.ladder({json.dumps(ruleset)});"
              f"const pools = {json.dumps(pools(ruleset))};"
              "console.log(JSON.stringify([l.map(d => [d.category, d.ranks, d.suit, d.strength]),"
              f" pools.map(k => l.map(d => p.missing({json.dumps(ruleset)}, d, k)))]));")
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ids, missing = json.loads(done.stdout)
    assert [tuple(x) for x in ids] == referee_ladder(ruleset)
    for pool, lacks in zip(pools(ruleset), missing, strict=True):
        assert [n == 0 for n in lacks] == lacks_nothing(ruleset, pool), pool


@pytest.mark.skipif(shutil.which("cc") is None or subprocess.run(
    ["pkg-config", "--exists", "msgpack"]).returncode != 0, reason="needs cc and msgpack-c")
@pytest.mark.parametrize("ruleset", RULESETS)
def test_c_ladder_and_missing_agree_with_the_referee(tmp_path, ruleset):
    kit = ROOT / "kits" / "c"
    flags = subprocess.run(["pkg-config", "--cflags", "msgpack"], capture_output=True,
                           text=True).stdout.split()
    exe = tmp_path / "ladder_dump"
    built = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", *flags, f"-I{kit}", "-o",
                            str(exe), str(Path(__file__).with_name("ladder_dump.c")),
                            str(kit / "lib/polish.c"), str(kit / "lib/cards.c"),
                            str(kit / "lib/referee.c"),
                            *subprocess.run(["pkg-config", "--libs", "libzmq", "msgpack"],
                                            capture_output=True, text=True).stdout.split()],
                           capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    given = "\n".join(" ".join(map(str, p)) for p in pools(ruleset)) + "\n"
    done = subprocess.run([str(exe), ruleset], input=given, capture_output=True, text=True,
                          timeout=60)
    lines = done.stdout.splitlines()
    n = len(ladder(ruleset))
    rows = [line.split() for line in lines[:n]]
    assert [(c, [int(a), int(b)][:int(k)], int(s), int(st)) for c, k, a, b, s, st in rows] \
        == referee_ladder(ruleset)
    for pool, line in zip(pools(ruleset), lines[n:], strict=True):
        assert [int(x) == 0 for x in line.split()] == lacks_nothing(ruleset, pool), pool
