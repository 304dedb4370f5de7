"""Adding a game is adding its package and one registry line: a throwaway game defined
here ("higher card wins", two players) is plugged in through ``REFEREE_GAMES`` and runs
end to end through ``run`` (real bot processes over ZeroMQ), ``check``, ``verify``,
``resume`` after ``kill -9``, ``--in-process``, ``show`` and the leaderboard."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import REFEREE, assert_nothing_left, no_traceback  # noqa: E402

from referee.journal import decode_transcript  # noqa: E402

GAME_SOURCE = '''
"""Higher card: two players each hold one card of 52; in turn each may stay or switch it
for the next card of the deck; the higher rank wins, equal ranks share the first place."""

import random

from referee.games.api import Card, CheckTurn, Game, IllegalAction, Outcome, SeatView, Step

GAME_PARAMS = ()
KINDS = ("stay", "switch")


def code(card):
    return "23456789TJQKA"[card // 4] + "cdhs"[card % 4]


class Event:
    def __init__(self, **fields):
        self.fields = fields

    def to_dict(self):
        return dict(self.fields)


class Engine:
    def __init__(self, seed):
        self.players = 2
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        self.deck, self.cards = deck[2:], [deck[0], deck[1]]
        self.current_seat, self.is_over, self.active = 0, False, [True, True]
        self.events = [Event(type="dealt", cards=list(self.cards))]
        self.loser = None

    def view(self, seat):
        return {"seat": seat, "players": 2, "card": self.cards[seat], "legal": list(KINDS)}

    def legal_actions(self):
        return [] if self.is_over else list(KINDS)

    def apply(self, seat, action):
        if seat != self.current_seat:
            raise IllegalAction(f"seat {seat} is not to act")
        if action not in KINDS:
            raise IllegalAction(f"{action!r} is not stay or switch")
        if action == "switch":
            self.cards[seat] = self.deck.pop(0)
        self.events.append(Event(type="acted", seat=seat, kind=action,
                                 card=self.cards[seat]))
        self._next(seat)

    def fault(self, seat, label):
        self.events.append(Event(type="fault", seat=seat, label=label))
        self.loser = seat  # a fault loses the game
        self._end()

    def forfeit(self, seat, label):
        self.active[seat] = False
        self.events.append(Event(type="forfeit", seat=seat, label=label))
        self.loser = seat
        self._end()

    def _next(self, seat):
        if seat == 0:
            self.current_seat = 1
        else:
            self._end()

    def _end(self):
        self.current_seat, self.is_over = None, True
        self.events.append(Event(type="over", places=list(self.outcome().places),
                                 cards=list(self.cards)))

    def notices(self, since):
        out = []
        for e in self.events[since:]:
            d = e.to_dict()
            for seat in range(2):
                if d["type"] == "dealt":
                    out.append((seat, {"type": "dealt", "card": d["cards"][seat]}))
                elif d["type"] == "acted" and d["seat"] != seat:
                    out.append((seat, {"type": "acted", "seat": d["seat"], "kind": d["kind"]}))
                else:
                    out.append((seat, d))
        return out

    def outcome(self):
        if self.loser is not None:
            places = (2, 1) if self.loser == 0 else (1, 2)
        else:
            a, b = (c // 4 for c in self.cards)
            places = (1, 1) if a == b else (1, 2) if a > b else (2, 1)
        scores = tuple(1.0 if p == 1 and places != (1, 1) else 0.0 if p == 1 else -1.0
                       for p in places)
        return Outcome(places, scores, 1)


class HigherCard(Game):
    """Only what differs from the base class: the rest is its defaults."""

    name = "higher-card"
    seats = range(2, 3)

    def new_game(self, players, seed):
        return Engine(seed)

    def parse_action(self, payload):
        if not isinstance(payload, dict) or set(payload) != {"kind"} \\
                or payload["kind"] not in KINDS:
            raise ValueError(f"not an action: {payload!r}")
        return payload["kind"]

    def parse_local_action(self, value):
        return value if value in KINDS else self.parse_action(value)

    def encode_action(self, action):
        return {"kind": action}

    def drive(self, engine, event):
        if event["type"] == "acted":
            engine.apply(event["seat"], event["kind"])
        elif event["type"] in ("fault", "forfeit"):
            getattr(engine, event["type"])(event["seat"], event["label"])
        else:
            return False
        return True

    def steps(self, players, events):
        """A step per event but the end, which is in the step of what ended the game;
        each card is its holder's alone until the end shows both."""
        cards, out = list(events[0]["cards"]), []
        for i, e in enumerate(events):
            result, actor, text = None, e.get("seat"), "each player is dealt a card"
            if e["type"] == "acted":
                cards[e["seat"]] = e["card"]
                text = f"<{e['seat']}> {e['kind']}s"
            elif e["type"] in ("fault", "forfeit"):
                text = f"<{e['seat']}> {e['type']}s: {e['label']}"
            elif e["type"] == "over":
                won = [f"<{s}>" for s, p in enumerate(e["places"]) if p == 1]
                result = " and ".join(won) + (" share first place" if len(won) > 1 else " wins")
                actor, text = out[-1].actor, out.pop().text
            seats = tuple(SeatView(((Card(code(c), None if result else (s,)),),))
                          for s, c in enumerate(cards))
            out.append(Step(i, actor, text, seats, result=result))
        return out

    def check_turns(self):
        return [CheckTurn(Engine(0), {"kind": "stay"}, {"kind": "fly"})]

    def rules_text(self):
        return "# Higher card\\n\\nStay or switch; the higher rank wins."


def load(params):
    from referee.games.api import resolve_params
    return HigherCard(resolve_params(GAME_PARAMS, params))
'''

SWITCHER = '''
def act(view):
    return "switch" if view["card"] // 4 < 6 else {"kind": "stay"}
'''
STAYER = '''
def act(view):
    return "stay"
'''
BAD = '''
def act(view):
    return {"kind": "fly"}
'''


@pytest.fixture()
def plugged(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "higher_card.py").write_text(GAME_SOURCE)
    for name, text in (("switcher", SWITCHER), ("stayer", STAYER), ("bad", BAD)):
        (tmp_path / f"{name}.py").write_text(text)
    (tmp_path / "secret.bin").write_bytes(bytes(range(32)))
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "REFEREE_GAMES": "higher-card=higher_card",
            "COLUMNS": "200"}


def referee(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(REFEREE), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def run_args(tmp_path: Path, out: str, games: int) -> list[str]:
    return ["run", "--game", "higher-card", "--bots", str(tmp_path / "switcher.py"),
            str(tmp_path / "stayer.py"), "--games", str(games), "--seed", "7",
            "--secret-file", str(tmp_path / "secret.bin"), "--sandbox", "none",
            "--out", str(tmp_path / out)]


def results(run: Path) -> list[tuple]:
    recs = [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]
    return sorted((r["game"], r["seed"], tuple(r["seats"]), tuple(r["places"]),
                   tuple(r["scores"]), r["units"], len(r["faults"])) for r in recs)


def test_a_game_plugged_in_runs_end_to_end(tmp_path: Path, plugged: dict[str, str]) -> None:
    listed = referee(plugged, tmp_path, "games")
    assert listed.returncode == 0 and "higher-card: 2-2 players" in listed.stdout

    res = referee(plugged, tmp_path, *run_args(tmp_path, "full", 60))
    assert res.returncode == 0, res.stdout + res.stderr
    no_traceback(res)
    recs = [json.loads(line) for line in (tmp_path / "full/games.jsonl").read_text().splitlines()]
    assert len(recs) == 60 and {r["game_type"] for r in recs} == {"higher-card"}
    assert all(r["params"] == {} and r["faults"] == [] and r["schema_version"] == 2
               for r in recs)
    assert any(r["places"] == [1, 1] for r in recs)  # equal ranks share the first place
    transcript = decode_transcript(
        json.loads((tmp_path / "full/transcripts.jsonl").read_text().splitlines()[0]))
    assert transcript["game_type"] == "higher-card" and transcript["events"][0]["type"] == "dealt"
    assert "switcher" in res.stdout and "stayer" in res.stdout  # the leaderboard

    ok = referee(plugged, tmp_path, "verify", str(tmp_path / "full"))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: 60 games"), ok.stdout + ok.stderr
    rated = referee(plugged, tmp_path, "rate", str(tmp_path / "full"))
    assert rated.returncode == 0 and (tmp_path / "full/leaderboard.json").is_file()

    # ``referee show`` draws the game from its steps: names, both cards, who won.
    t = transcript
    shown = referee(plugged, tmp_path, "show", str(tmp_path / "full"), str(t["game"]))
    assert shown.returncode == 0, shown.stderr
    codes = ["23456789TJQKA"[c // 4] + "cdhs"[c % 4] for c in t["events"][-1]["cards"]]
    for seat, name in enumerate(t["seats"]):
        assert f"{name} (seat {seat}): {codes[seat]}" in shown.stdout
    assert ("wins" in shown.stdout or "share first place" in shown.stdout) and " ms" in shown.stdout

    local = referee(plugged, tmp_path, *run_args(tmp_path, "local", 60), "--in-process")
    assert local.returncode == 0, local.stderr
    assert results(tmp_path / "local") == results(tmp_path / "full")

    # Tampering with a place is caught by the game's replay.
    lines = (tmp_path / "full/games.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["places"] = [2, 1] if first["places"] != [2, 1] else [1, 2]
    (tmp_path / "full/games.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    bad = referee(plugged, tmp_path, "verify", str(tmp_path / "full"))
    assert bad.returncode == 1 and "game 0: places" in bad.stderr
    assert_nothing_left(tmp_path)


def test_a_plugged_in_game_resumes_after_kill_9(tmp_path: Path,
                                                 plugged: dict[str, str]) -> None:
    whole = referee(plugged, tmp_path, *run_args(tmp_path, "whole", 400))
    assert whole.returncode == 0, whole.stderr
    proc = subprocess.Popen([str(REFEREE), *run_args(tmp_path, "cut", 400)], cwd=tmp_path,
                            env=plugged, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = tmp_path / "cut" / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.is_file() and journal.read_text().count("\n") >= 50:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = journal.read_text().count("\n")
    assert 0 < done < 400, done
    resumed = referee(plugged, tmp_path, "resume", str(tmp_path / "cut"))
    assert resumed.returncode == 0, resumed.stderr
    assert results(tmp_path / "cut") == results(tmp_path / "whole")
    assert referee(plugged, tmp_path, "verify", str(tmp_path / "cut")).returncode == 0
    assert_nothing_left(tmp_path)


def test_check_plays_the_plugged_in_games_turns(tmp_path: Path,
                                                plugged: dict[str, str]) -> None:
    good = referee(plugged, tmp_path, "check", "--game", "higher-card",
                   str(tmp_path / "stayer.py"), "--out", str(tmp_path / "c1"), "--sandbox", "none")
    assert good.returncode == 0 and "stayer: complies" in good.stdout, good.stdout
    bad = referee(plugged, tmp_path, "check", "--game", "higher-card",
                  str(tmp_path / "bad.py"), "--out", str(tmp_path / "c2"), "--sandbox", "none")
    assert bad.returncode == 1 and "FAIL higher-card, scripted turn 1 of 1" in bad.stdout
    rules = referee(plugged, tmp_path, "rules", "higher-card")
    assert rules.returncode == 0 and "the higher rank wins" in rules.stdout
    unknown = referee(plugged, tmp_path, "run", "--game", "higher-card", "--param", "x=1",
                      "--bots", str(tmp_path / "stayer.py"), str(tmp_path / "stayer.py"))
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == ("error: higher-card: unknown parameter 'x': this game's "
                                      "parameters: none")
    assert_nothing_left(tmp_path)
