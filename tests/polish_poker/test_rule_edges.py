"""The rules at their edges (issue 12): fives below aces, the opener after a forfeit, the
raise rule whole. Every test drives the real engine (``set_hands`` fixes the cards) and,
where it says so, the real ``Match`` fault policy and the replay of its transcript.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator import ladder, legal_raises, parse_declaration, raise_error
from referee.deals import Deals
from referee.games import load_game
from referee.games.polish_poker.adapter import round_results
from referee.games.polish_poker.engine import (
    Called,
    Dealt,
    Declared,
    Eliminated,
    NotARaise,
    PolishPoker,
    Revealed,
    RoundLost,
)
from referee.games.polish_poker.replay import ReplayMismatch, replay
from referee.journal import read_transcripts
from referee.match import Match
from referee.schedule import ScheduledGame

FIVES = ["five 9", "five T", "five J", "five Q", "five K", "five A"]


def texts(decls) -> list[str]:
    return [str(d) for d in decls]


def transcript(game: PolishPoker) -> list[dict]:
    return [e.to_dict() for e in game.events]


# ------------------------------------------------------------------ fives


def test_the_fives_top_the_official_ladder_in_rank_order() -> None:
    lad = ladder("official")
    assert texts(lad[-6:]) == FIVES
    assert [d.id for d in lad[-6:]] == list(range(83, 89))
    assert str(lad[82]) == "royal-flush s" and lad[82] < lad[83]
    assert all(a < b for a, b in zip(lad[-6:], lad[-5:], strict=False))


@pytest.mark.parametrize("five", FIVES[:-1])
def test_a_five_below_aces_is_answered_like_any_declaration(five: str) -> None:
    # Seat 3 declares `five X` (the run that found the bug: five T, which existed).
    game = PolishPoker("official", 4, seed=1)
    game.set_hands(["9c", "Tc", "Td", "Th"], "Jk")
    new = game.apply("pair 9") + game.apply("pair T") + game.apply("three T")
    new += game.apply(five)
    assert not any(isinstance(e, Called | Revealed | RoundLost) for e in new)
    assert game.current_seat == 0 and game.round == 1
    higher = FIVES[FIVES.index(five) + 1:]
    # The engine, the SDK's view and the evaluator agree: raise to a higher five, or call.
    assert texts(game.legal_declarations()) == higher
    view = game.view(0)
    assert view.can_call and texts(view.legal_raises()) == higher
    assert all(view.is_raise(h) for h in higher) and not view.is_raise(five)
    # Raising to the next five is accepted, and that is not called automatically either
    # unless it is five A.
    nxt = higher[0]
    new = game.apply(nxt)
    if nxt == "five A":
        assert new[1] == Called(1, 1, True) and game.round == 2
    else:
        assert new == [Declared(1, 0, parse_declaration(nxt, "official"))]
        assert game.current_seat == 1 and game.can_call


@pytest.mark.parametrize("five", FIVES[:-1])
def test_calling_a_five_below_aces_resolves_normally(five: str) -> None:
    rank = five.split()[1]
    game = PolishPoker("official", 3, seed=2)
    # Four of the rank and the joker are in the pool: the five exists, the caller loses.
    game.set_hands([f"{rank}c", f"{rank}d", f"{rank}h"], f"{rank}s")
    game.apply("pair 9")
    game.apply(five)
    new = game.apply("call")
    decl = parse_declaration(five, "official")
    assert new[:3] == [Called(1, 2, False), Revealed(1, decl, False), RoundLost(1, 1, "bluff")]
    # Three of the rank and the joker are not five either.
    game = PolishPoker("official", 3, seed=2)
    game.set_hands([f"{rank}c", f"{rank}d", "Jk"], f"{rank}h")
    game.apply("pair 9")
    game.apply(five)
    with pytest.raises(NotARaise):
        game.apply(five)  # not higher than itself
    new = game.apply("call")
    assert new[1:3] == [Revealed(1, decl, False), RoundLost(1, 1, "bluff")]


def test_five_of_a_kind_exists_with_four_and_the_joker_and_the_caller_loses() -> None:
    game = PolishPoker("official", 3, seed=3)
    game.fault(1, "timeout")  # seat 1 holds 2 cards from round 2
    game.set_hands(["Tc", "Td Th", "Ts"], "Jk")
    game.apply("five T")  # seat 1 opens round 2
    assert game.current_seat == 2
    new = game.apply("call")
    assert new[1:3] == [Revealed(2, parse_declaration("five T", "official"), True),
                        RoundLost(2, 2, "wrong-call")]


@pytest.mark.parametrize("opener_declares", [True, False])
def test_only_five_aces_is_called_automatically(opener_declares: bool) -> None:
    game = PolishPoker("official", 3, seed=4)
    game.set_hands(["Ac", "Ad", "Ah"], "As")
    if not opener_declares:
        game.apply("five K")
    new = game.apply("five A")
    seat = 0 if opener_declares else 1
    nxt = seat + 1
    assert new[:4] == [Declared(1, seat, parse_declaration("five A", "official")),
                       Called(1, nxt, True),
                       Revealed(1, parse_declaration("five A", "official"), False),
                       RoundLost(1, seat, "bluff")]
    assert isinstance(new[4], Dealt) and game.round == 2


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32))
def test_automatic_calls_follow_five_aces_and_nothing_else(players: int, seed: int) -> None:
    rng = random.Random(seed)
    game = PolishPoker("official", players, seed)
    while not game.is_over:
        legal = game.legal_declarations()
        if game.can_call and (rng.random() < 0.3 or not legal):
            game.apply("call")
        else:
            # Biased to the top of the ladder, so that fives come up often.
            game.apply(legal[-rng.randint(1, min(8, len(legal)))])
    events = game.events
    for i, e in enumerate(events):
        if isinstance(e, Declared):
            auto = isinstance(events[i + 1], Called) and events[i + 1].automatic
            assert auto == (str(e.declaration) == "five A"), (i, e)


# ---------------------------------------------------------- forfeit openers


def start(ruleset: str, players: int, faults: list[int] = ()) -> PolishPoker:
    """A game after a fault by each seat of ``faults``, in order."""
    game = PolishPoker(ruleset, players, seed=9)
    for seat in faults:
        game.fault(seat, "timeout")
    return game


# (ruleset, players, faults before, declarations this round, forfeiting seat, next opener)
FORFEITS = [
    # official: the next active seat after this round's opener, whoever forfeits
    ("official", 4, [], 0, 0, 1),          # the opener, before any declaration
    ("official", 4, [], 1, 0, 1),          # the opener, after declaring
    ("official", 4, [], 1, 1, 2),          # the seat to act, which is the next seat
    ("official", 4, [], 2, 2, 1),          # the seat to act, not the next seat
    ("official", 4, [], 2, 1, 2),          # a seat that declared; the next one left
    ("official", 4, [], 1, 3, 1),          # a seat still to act
    ("official", 4, [0], 0, 1, 2),         # round 2, opened by seat 1, which forfeits
    ("official", 4, [0, 0, 0], 2, 1, 0),   # round 4 opened by 3; wraps to seat 0
    ("official", 2, [], 1, 1, None),       # two players: the game ends
    # polacco: the next active seat after the forfeiting one
    ("polacco", 4, [], 0, 0, 1),
    ("polacco", 4, [], 1, 0, 1),
    ("polacco", 4, [], 1, 1, 2),
    ("polacco", 4, [], 2, 2, 3),
    ("polacco", 4, [], 1, 3, 0),           # wraps
    ("polacco", 4, [2], 1, 1, 2),          # round 2 opened by the loser, seat 2
    ("polacco", 5, [3], 3, 3, 4),          # seat 3 opened round 2 and forfeits
    ("polacco", 3, [], 2, 2, 0),
]


@pytest.mark.parametrize(("ruleset", "players", "faults", "declared", "seat", "opener"),
                         FORFEITS)
def test_a_forfeit_is_a_round_lost_by_the_forfeiting_seat(
        ruleset: str, players: int, faults: list[int], declared: int, seat: int,
        opener: int | None) -> None:
    game = start(ruleset, players, faults)
    rnd, counts = game.round, game.counts
    for _ in range(declared):
        game.apply(game.legal_declarations()[0])
    new = game.forfeit(seat, "crash")
    assert new[0] == Eliminated(rnd, seat, players, "forfeit:crash")
    assert game.counts == tuple(0 if s == seat else c for s, c in enumerate(counts))
    if opener is None:
        assert game.is_over and game.round == rnd
        return
    assert isinstance(new[1], Dealt) and new[1].round == rnd + 1
    assert game.opener == opener == new[1].opener and game.current_seat == opener
    # The round result every seat is told: the forfeiting seat lost it and is out.
    result = round_results(game.events, len(game.events) - 2)
    assert [(r["round"], r["loser"], r["reason"], r["eliminated"]) for r in result] \
        == [(rnd, seat, "forfeit:crash", True)]
    # The transcript replays, and a transcript written under the old rule (the same
    # opener dealt again) does not, with a message that says why.
    assert transcript(replay(ruleset, players, 9, transcript(game))) == transcript(game)


def test_an_old_rule_transcript_names_the_opener_it_disagrees_on() -> None:
    game = start("official", 4)
    game.apply("pair 9")
    game.forfeit(2, "crash")
    events = transcript(game)
    assert events[-1]["opener"] == 1
    events[-1]["opener"] = 0  # what journals before the change hold
    with pytest.raises(ReplayMismatch, match="opener") as info:
        replay("official", 4, 9, events)
    assert info.value.index == len(events) - 1 and "JOURNAL.md" in str(info.value)


def test_an_old_automatic_call_after_a_lower_five_is_named() -> None:
    game = PolishPoker("official", 3, seed=9)
    game.apply("five T")
    events = transcript(game) + [{"type": "called", "round": 1, "seat": 1, "automatic": True}]
    with pytest.raises(ReplayMismatch, match="only five A is called automatically") as info:
        replay("official", 3, 9, events)
    assert info.value.index == 2


def test_forfeits_round_by_round_to_the_end_in_both_rulesets() -> None:
    # official 5: openers rotate from seat 0 whoever forfeits
    game = start("official", 5)
    openers = [game.opener]
    for seat in (2, 1, 4):
        game.forfeit(seat, "crash")
        openers.append(game.opener)
    assert openers == [0, 1, 3, 0] and game.round == 4
    game.forfeit(3, "crash")
    assert game.is_over and game.finishing_order == (0, 3, 4, 1, 2)
    # polacco 6: the next after each forfeiting seat
    game = start("polacco", 6)
    openers = [game.opener]
    for seat in (4, 5, 0, 2):
        game.forfeit(seat, "crash")
        openers.append(game.opener)
    assert openers == [0, 5, 0, 1, 3] and game.round == 5


def match(ruleset: str, players: int, max_faults: int = 3) -> Match:
    game = ScheduledGame(0, tuple(range(players)), 9, 0, 1)
    return Match(game, [f"b{s}" for s in range(players)],
                 load_game("polish-poker", {"ruleset": ruleset}),
                 move_ms=100, bank_ms=0, max_faults=max_faults, deals=Deals())


@pytest.mark.parametrize(("ruleset", "opener_after", "crashing", "opener_last"),
                         [("official", 0, 1, 3), ("polacco", 3, 0, 1)])
def test_the_fault_policy_forfeits_with_the_same_opener_rule(
        ruleset: str, opener_after: int, crashing: int, opener_last: int) -> None:
    m = match(ruleset, 4, max_faults=2)
    e = m.engine.game  # the PolishPoker behind the Engine protocol
    m.malformed(2, "not an action", 1.0)  # round 1: seat 2 loses the round
    assert e.round == 2 and e.counts[2] == 2
    m.answer(e.current_seat, e.legal_declarations()[0], 1.0)
    m.answer(e.current_seat, "call", 1.0)  # round 2: seat 2 acts legally, then a call
    assert e.round == 3 and m.streak[2] == 0
    m.malformed(2, "not an action", 1.0)  # round 3: streak 1, a lost round
    m.malformed(2, "still not", 1.0)      # round 4: streak 2, forfeit
    out = [x for x in e.events if isinstance(x, Eliminated)]
    assert [(x.round, x.seat, x.reason) for x in out] == [(4, 2, "forfeit:faults")]
    assert [f["label"] for f in m.faults] == ["malformed"] * 3
    assert e.round == 5 and e.opener == opener_after
    # A crash of a seat that is not the opener: the same rule, through Match.crash.
    m.crash(crashing, "process exited with code 1")
    assert e.round == 6 and e.opener == opener_last and not e.active[crashing]
    assert m.record()["units"] == 6
    assert replay(ruleset, 4, 9, transcript(e)).events == e.events


# --------------------------------------------------------------- the raise rule


def rule(new, history, ruleset) -> bool:
    """RULES.md's raise rule, written from the rulebook's words, not from the code."""
    if not history:
        return True
    last = history[-1]
    if new.strength > last.strength:
        return True
    suited = ("flush", "straight-flush", "royal-flush")
    if ruleset == "official" and new.category in suited and new.category == last.category:
        return all(not (h.category == new.category and h.suit == new.suit) for h in history)
    return False


histories = st.sampled_from(["official", "polacco"]).flatmap(lambda r: st.tuples(
    st.just(r),
    st.lists(st.integers(0, len(ladder(r)) - 1), max_size=5),
    st.integers(0, len(ladder(r)) - 1)))


@settings(max_examples=400, deadline=None)
@given(histories)
def test_the_evaluator_implements_the_rulebooks_raise_rule(case) -> None:
    ruleset, ids, new_id = case
    lad = ladder(ruleset)
    # A history that could have happened: each declaration a raise over those before.
    history: list = []
    for i in ids:
        if rule(lad[i], history, ruleset):
            history.append(lad[i])
    new = lad[new_id]
    assert (raise_error(new, history, ruleset) is None) == rule(new, history, ruleset)
    assert texts(legal_raises(history, ruleset)) == texts(
        d for d in lad if rule(d, history, ruleset))


def test_official_suits_in_any_order_then_a_higher_category() -> None:
    for order in (["flush h", "flush c", "flush s", "flush d"],
                  ["straight-flush s", "straight-flush c", "straight-flush d",
                   "straight-flush h"]):
        for i in range(1, 4):
            assert raise_error(order[i], order[:i], "official") is None
        assert raise_error(order[1], order, "official") is not None
        nxt = legal_raises(order, "official")[0]
        assert nxt.category != order[0].split()[0]
    # A suit used earlier for a lower category does not block the same suit higher up.
    assert raise_error("straight-flush h", ["flush h", "four 9"], "official") is None
    # A suit declared for one category is used for that category only, even after a
    # higher category came in between: back down is never a raise.
    assert raise_error("flush d", ["flush h", "four 9"], "official") is not None
    # Ids are no order of strength across suits: flush c (65) raises flush s (68).
    assert raise_error("flush c", ["flush s"], "official") is None


def test_polacco_equal_flushes_of_other_suits_are_no_raise() -> None:
    assert raise_error("flush s A", ["flush h A"], "polacco") is not None
    assert raise_error("flush c K", ["flush s Q"], "polacco") is None
    assert raise_error("straight-flush c 9", ["straight-flush h 9"], "polacco") is not None
    assert "flush c A" not in texts(legal_raises(["flush h A"], "polacco"))


# ------------------------------------------------- through the real referee command

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MIN_RAISER = str(ROOT / "tests" / "bots" / "min_raiser.py")
CALLER = str(ROOT / "bots" / "polish_poker" / "caller.py")
CRASHER = str(ROOT / "tests" / "bots" / "crash_mid_game.py")


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "referee"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200",
                               "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})


def test_referee_check_accepts_a_raise_over_a_five_below_aces() -> None:
    res = referee("check", MIN_RAISER)
    assert res.returncode == 0, res.stdout + res.stderr
    # The fourth official turn: five T answered; a higher five (or a call) is legal. The
    # line shows what the bot sent.
    five_j = parse_declaration("five J", "official").id
    assert "PASS polish-poker, scripted turn 4 of 4: played " \
           f'{{"kind": "raise", "declaration": {five_j}}}' in res.stdout


def run_transcripts(tmp_path: Path, rules: str, players: int, games: int,
                    *bots: str) -> list[list[dict]]:
    out = tmp_path / "run"
    res = referee("run", "--rules", rules, "--players", str(players), "--games", str(games),
                  "--seed", "5", "--out", str(out), "--bots", *bots)
    assert res.returncode == 0, res.stdout + res.stderr
    res = referee("verify", str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    return [t["events"] for t in read_transcripts(out).values()]


def test_a_real_run_raises_through_every_five_and_calls_only_five_aces(tmp_path: Path):
    # Two bots that always make the weakest raise climb the whole ladder every round.
    for events in run_transcripts(tmp_path, "official", 2, 2, MIN_RAISER, MIN_RAISER):
        for i, e in enumerate(events):
            if e["type"] == "declared" and e["declaration"].startswith("five"):
                nxt = events[i + 1]
                auto = nxt["type"] == "called" and nxt["automatic"]
                assert auto == (e["declaration"] == "five A"), events[i - 1:i + 2]
        declared = [e["declaration"] for e in events if e["type"] == "declared"]
        assert declared[:89] == [str(d) for d in ladder("official")]


@pytest.mark.parametrize(("rules", "players"), [("official", 3), ("polacco", 3)])
def test_a_real_run_opens_the_round_after_a_crash_by_the_ruleset_rule(
        tmp_path: Path, rules: str, players: int) -> None:
    forfeits = 0
    for events in run_transcripts(tmp_path, rules, players, 3, CRASHER, CALLER, CALLER):
        opener = None
        for i, e in enumerate(events):
            if e["type"] == "dealt":
                opener = e["opener"]
            if e["type"] == "eliminated" and e["reason"] == "forfeit:crash" \
                    and events[i + 1]["type"] == "dealt":
                forfeits += 1
                active = [s for s, c in enumerate(events[i + 1]["counts"]) if c]
                after = opener if rules == "official" else e["seat"]
                expect = next(s for k in range(1, players + 1)
                              if (s := (after + k) % players) in active)
                assert events[i + 1]["opener"] == expect
                assert events[i + 1]["round"] == e["round"] + 1
    assert forfeits >= 2


def test_seq_is_drawn_at_random_for_every_message(tmp_path: Path) -> None:
    """SPEC.md section 4: a ``seq`` is not a count (a reply that echoes it proves its bot
    saw the request), and stays below 2^53 in every process of the bot."""
    bot = str(ROOT / "tests" / "bots" / "seq_crasher")
    run_transcripts(tmp_path, "official", 2, 4, bot, CALLER)
    # Every process of the bot (the pool starts more than one per slot: see referee.pool)
    log = "\n".join(p.read_text() for p in
                    sorted((tmp_path / "run" / "logs").glob("seq_crasher.*.stderr.log")))
    lines = " ".join(ln for ln in log.splitlines()
                     if not ln.startswith("[referee]")).split()  # the referee's game marks
    seqs: dict[str, list[int]] = {}
    for pid, seq in zip(lines[1::4], lines[3::4], strict=True):
        seqs.setdefault(pid, []).append(int(seq))
    # Four games, each forfeited on the process's 2nd decision: four processes.
    assert len(seqs) == 4 and all(len(s) == 2 for s in seqs.values()), seqs
    every = [s for found in seqs.values() for s in found]
    assert len(set(every)) == 8 and all(0 < s < 2**53 for s in every), seqs
    # Eight draws of 53 bits: all below 2^40 with probability 2^-104.
    assert max(every) >= 2**40, seqs
