"""The rules documents (referee/games/polish_poker/rules/) agree with the engine, and
``referee rules`` prints their summary, as plain text, before the ladder."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from typer.testing import CliRunner

import referee.games.polish_poker.rulebook
from evaluator import ladder
from referee.cli import app
from referee.games.polish_poker.engine import PLAYER_RANGE, PolishPoker
from referee.games.polish_poker.rulebook import document, summary

RULESETS = ("official", "polacco")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_declaration_table_counts_the_ladder(ruleset: str) -> None:
    rows = re.findall(r"^\| [a-z ]+ \((\d+)\) \| `([a-z-]+) ", document(ruleset), re.MULTILINE)
    assert {cat: int(n) for n, cat in rows} == Counter(d.category for d in ladder(ruleset))
    assert f"{len(ladder(ruleset))} in all" in document(ruleset)


def players_named(cell: str) -> set[int]:
    """The player counts a table cell names: "6", "3 or 4", "2 to 4"."""
    numbers = [int(n) for n in re.findall(r"\d+", cell)]
    return set(range(numbers[0], numbers[-1] + 1)) if " to " in cell else set(numbers)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_players_and_caps_are_the_engines(ruleset: str) -> None:
    lo, hi = PLAYER_RANGE[ruleset]
    assert summary(ruleset).startswith(f"- {lo} to {hi} players")
    lines = document(ruleset).splitlines()
    heads = next(line for line in lines if line.startswith("| players "))
    caps = lines[lines.index(heads) + 2]
    assert caps.startswith("| card cap |")
    named: set[int] = set()
    for cell, cap in zip(heads.split("|")[2:-1], caps.split("|")[2:-1], strict=True):
        for players in players_named(cell):
            # At the start of a game the players in are the table: both rules agree.
            assert PolishPoker(ruleset, players, 0).cap == int(cap), (cell, cap)
            named.add(players)
    assert named == set(range(lo, hi + 1))


def test_the_summary_is_the_documents_section() -> None:
    for ruleset in RULESETS:
        text = summary(ruleset)
        assert text in document(ruleset) and "## " not in text
        assert text.count("\n- ") >= 7  # one line per point, no heading, no next section


def referee_rules(ruleset: str) -> str:
    res = CliRunner().invoke(app, ["rules", "polish-poker", "--rules", ruleset],
                             env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("ruleset", RULESETS)
def test_referee_rules_prints_the_summary_before_the_ladder(ruleset: str) -> None:
    out = referee_rules(ruleset)
    head, ladder_part = out.split(f"{ruleset}: {len(ladder(ruleset))} declarations", 1)
    flat = " ".join(head.split())
    assert "Who opens: seat 0 in round 1" in flat
    assert ("five A: the next player is deemed to have called at once" in flat) \
        == (ruleset == "official")
    assert "`" not in head  # rendered, not the Markdown source
    rows = re.findall(r"^\s*(\d+)  (.+)$", ladder_part, re.MULTILINE)
    assert [t.rstrip() for _, t in rows] == [str(d) for d in ladder(ruleset)]
    assert not re.findall(r"^\s*(\d+)  (.+)$", head, re.MULTILINE)


def test_referee_rules_prints_brackets_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever the document says is printed as text: no Rich markup is interpreted.
    text = document("official").replace(
        "## Summary\n\n", "## Summary\n\n- Seats [bold]0[/bold] to [red]n-1[/] and :smile:.\n")
    monkeypatch.setattr(referee.games.polish_poker.rulebook, "document", lambda ruleset: text)
    out = referee_rules("official")
    assert "Seats [bold]0[/bold] to [red]n-1[/] and :smile:." in out


def test_an_unknown_game_or_ruleset_is_a_one_line_usage_error() -> None:
    res = CliRunner().invoke(app, ["rules", "texas"])
    assert res.exit_code == 2 and "unknown game 'texas'" in res.output
    res = CliRunner().invoke(app, ["rules", "polish-poker", "--rules", "texas"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "parameter ruleset: 'texas' is not allowed: expected one of official, polacco" \
        in res.output
