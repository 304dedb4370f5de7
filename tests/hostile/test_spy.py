"""A spy at the table: what the referee tells one seat, checked against the deal.

``spy_bot`` plays legally and records every message it is sent. After the run, the
deals of every round are rebuilt from the run's ``transcripts.jsonl`` (the ``dealt``
events), and each message to the spy is checked against them: before a round's
reveal the spy is shown its own cards and the community card, nothing else (no other
seat's card, no undealt card, no field beyond its SPEC); its ``history`` is
exactly the declarations made before it in that round; and round results reach it
only for rounds that have ended, each once, in order, on its next message.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    BIN,
    assert_nothing_left,
    bot_dir,
    check_run,
    good,
    hostile,
    play,
    read_jsonl,
)

from evaluator import parse_card, parse_declaration  # noqa: E402
from referee.journal import read_games, read_transcripts  # noqa: E402

VIEW_KEYS = {"ruleset", "seat", "players", "round", "cap", "hand", "community", "counts",
             "active", "opener", "history"}
KEYS = {
    "welcome": {"type", "protocol", "name", "limits", "options"},
    "game_start": {"type", "seq", "game", "game_id", "seat", "players", "seed", "params",
                   "time"},
    "act": {"type", "seq", "view", "results", "deadline_ms", "time"},
    "game_end": {"type", "seq", "order", "places", "scores", "results"},
    "bye": {"type", "seq"},
}
RESULT_KEYS = {"round", "hands", "community", "declaration", "exists", "loser", "reason",
               "eliminated"}


@pytest.fixture(autouse=True)
def _this_python_first(monkeypatch):
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def _card(text: str | None) -> int | None:
    return None if text is None else parse_card(text).id


class Game:
    """One game as the transcript tells it, with the spy's seat in it."""

    def __init__(self, record: dict, transcript: dict, spy: str):
        rules = record["params"]["ruleset"]
        self.seat = record["seats"].index(spy)
        self.deals: dict[int, dict] = {}
        self.declared: dict[int, list[list[int]]] = {}
        self.lost: dict[int, tuple[int, str]] = {}
        self.spy_turns: list[tuple[int, list[list[int]]]] = []  # (round, history then)
        self.order: list[int] = []
        for e in transcript["events"]:
            kind = e.get("type")
            if kind == "dealt":
                self.deals[e["round"]] = {
                    "hands": [sorted(_card(c) for c in h) for h in e["hands"]],
                    "community": _card(e["community"]), "counts": e["counts"],
                    "opener": e["opener"], "cap": e["cap"]}
                self.declared[e["round"]] = []
            elif kind == "declared":
                if e["seat"] == self.seat:
                    self.spy_turns.append((e["round"], list(self.declared[e["round"]])))
                self.declared[e["round"]].append(
                    [e["seat"], parse_declaration(e["declaration"], rules).id])
            elif kind == "called" and not e["automatic"] and e["seat"] == self.seat:
                self.spy_turns.append((e["round"], list(self.declared[e["round"]])))
            elif kind == "round_lost" or (kind == "eliminated"
                                          and e["reason"].startswith("forfeit:")):
                self.lost.setdefault(e["round"], (e["seat"], e["reason"]))
            elif kind == "game_over":
                self.order = e["order"]
        # Every dealt round ended (the game did); the spy is told about those it played.
        assert set(self.lost) == set(self.deals)
        self.spy_rounds = [r for r, d in sorted(self.deals.items()) if d["hands"][self.seat]]


def _check_results(game: Game, results: list[dict], delivered: list[int],
                   before: int | None) -> None:
    """Round results: only ended rounds (before round ``before``, when given), each
    exactly as dealt and lost, each told once and in order."""
    for res in results:
        assert set(res) == RESULT_KEYS, res
        r = res["round"]
        assert before is None or r < before, (r, before)  # ended before this round began
        deal = game.deals[r]
        assert [sorted(h) for h in res["hands"]] == deal["hands"], res
        assert res["community"] == deal["community"], res
        assert (res["loser"], res["reason"]) == game.lost[r], res
        delivered.append(r)
    expected = [r for r in game.spy_rounds if before is None or r < before]
    assert delivered == expected, (delivered, expected)


def check_spy(out: Path, log: Path, spy: str) -> int:
    """Check every message in the spy's log; returns how many ``act`` it got."""
    records = {r["game"]: r for r in read_games(out)}
    transcripts = read_transcripts(out)
    games = {g: Game(records[g], transcripts[g], spy) for g in records}
    entries = read_jsonl(log)
    assert all(e["frames"] == 1 for e in entries)  # one frame, one map (SPEC section 2)
    msgs = [e["msg"] for e in entries]
    assert msgs[0]["type"] == "welcome" and msgs[0]["name"] == spy
    assert msgs[-1]["type"] == "bye"
    seqs = [m["seq"] for m in msgs[1:]]  # drawn at random, never a count (SPEC section 4)
    assert len(set(seqs)) == len(seqs) and all(0 < s < 2**53 for s in seqs), seqs
    assert all(b != a + 1 for a, b in zip(seqs, seqs[1:], strict=False)), seqs
    game: Game | None = None
    turn, acts, delivered, played = 0, 0, [], []
    for m in msgs:
        kind = m["type"]
        assert set(m) == KEYS[kind], m
        if kind == "game_start":
            assert game is None
            game = games[int(m["game_id"])]
            played.append(int(m["game_id"]))
            assert m["seat"] == game.seat
            turn, delivered = 0, []
        elif kind == "act":
            assert game is not None
            acts += 1
            v = m["view"]
            assert set(v) == VIEW_KEYS, v
            r = v["round"]
            deal = game.deals[r]
            own, community = deal["hands"][game.seat], deal["community"]
            # The only cards in a view: the seat's own hand, as dealt, and the
            # community card. No other seat's card, no undealt card.
            assert v["seat"] == game.seat and v["hand"] == own and own, (v, deal)
            assert v["community"] == community, (v, deal)
            others = {c for s, h in enumerate(deal["hands"]) if s != game.seat for c in h}
            for c in [*v["hand"], *([v["community"]] if v["community"] is not None else [])]:
                assert c in own or c == community, (c, v)
                assert c not in others, (c, v)
            assert (v["counts"], v["opener"], v["cap"]) == (
                deal["counts"], deal["opener"], deal["cap"]), (v, deal)
            assert v["active"] == [n > 0 for n in deal["counts"]], v
            # Its turns in the transcript, in order: this round, this history so far.
            assert (r, v["history"]) == game.spy_turns[turn], (v, game.spy_turns[turn])
            turn += 1
            _check_results(game, m["results"], delivered, before=r)
        elif kind == "game_end":
            assert game is not None and turn == len(game.spy_turns)
            assert m["order"] == game.order and m["scores"] is None
            assert [m["order"].index(s) + 1 for s in range(len(m["order"]))] == m["places"]
            _check_results(game, m["results"], delivered, before=None)
            game = None
    assert sorted(played) == sorted(games) and game is None
    return acts


@pytest.mark.parametrize("rules,players,games", [
    ("official", 3, 3), ("official", 4, 4), ("polacco", 4, 4)])
def test_spy_is_told_only_its_own_cards(tmp_path, rules, players, games):
    others = good(tmp_path, "caller.py", "random_bot.py")
    bots = [hostile(tmp_path, "spy_bot"), *others, *others[1:] * (players - 3)]
    runner, out = play(tmp_path, bots, rules=rules, players=players, games=games, seed=3,
                       sandbox="none")  # the spy writes what it is told beside it
    labels, forfeits, _ = check_run(out, None, games)
    assert not labels and not forfeits
    logs = list(bot_dir(tmp_path).glob("spy.*.jsonl"))
    assert len(logs) == 1  # one spy process the whole run
    acts = check_spy(out, logs[0], "spy_bot")
    assert acts >= 3 * games
    assert_nothing_left(tmp_path)
