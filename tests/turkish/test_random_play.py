"""Random play on the Turkish poker engine: chips are conserved (rake included), stacks
never go negative, only legal actions are accepted, and a refused action changes
nothing."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.games.api import IllegalAction
from referee.games.turkish_poker import events as ev
from referee.games.turkish_poker.betting import LIMITS
from referee.games.turkish_poker.engine import Action, TurkishPoker

WILD = [Action("fold"), Action("pass"), Action("call"), Action("open", 1), Action("open", 500),
        Action("raise", 3), Action("raise", 10_000), Action("draw", cards=(0, 1)),
        Action("draw", cards=(51, 50, 49, 48, 47))]


def legal_move(rng: random.Random, engine: TurkishPoker, seat: int) -> Action:
    entry = rng.choice(engine.legal(seat))
    kind = entry["kind"]
    if kind in ("open", "raise"):
        return Action(kind, rng.choice([entry["min"], entry["max"],
                                        rng.randint(entry["min"], entry["max"])]))
    if kind == "draw":
        return Action("draw", cards=tuple(rng.sample(engine.cards[seat], rng.randint(0, 4))))
    return Action(kind)


def is_listed(engine: TurkishPoker, seat: int, action: Action) -> bool:
    for entry in engine.legal(seat):
        if entry["kind"] != action.kind:
            continue
        if action.kind in ("open", "raise"):
            return entry["min"] <= action.amount <= entry["max"]
        if action.kind == "draw":
            return set(action.cards) <= set(engine.cards[seat]) and len(action.cards) <= 4
        return True
    return False


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 5), limit=st.sampled_from(LIMITS), seed=st.integers(0, 2**32),
       unequal=st.booleans(), rake=st.sampled_from([0.0, 0.05, 0.25]),
       cap=st.sampled_from([0, 2]), moves=st.integers(0, 2**32))
# A forfeit left chips above every seat still in (all of them all in): a pot nobody could win
@example(players=5, limit="no-limit", seed=3, unequal=True, rake=0.0, cap=0, moves=1)
def test_random_play_keeps_the_invariants(players, limit, seed, unequal, rake, cap, moves):
    rng = random.Random(moves)
    stacks = tuple(rng.randint(20, 90) for _ in range(players)) if unequal else None
    engine = TurkishPoker(players, seed, limit=limit, hands=4, rake=rake, rake_cap=cap,
                          stacks=stacks)
    while not engine.is_over:
        seat = engine.current_seat
        if rng.random() < 0.02:
            engine.forfeit(rng.randrange(players), "crash")
            continue
        if rng.random() < 0.3:
            wild = rng.choice(WILD)
            before = len(engine.events)
            try:
                engine.apply(seat, wild)
            except IllegalAction:
                assert len(engine.events) == before and not is_listed(engine, seat, wild)
            else:
                continue
        if rng.random() < 0.2:
            other = (seat + 1) % players
            try:
                engine.apply(other, Action("fold"))
                raise AssertionError("a seat acted out of turn")
            except IllegalAction:
                pass
        engine.apply(seat, legal_move(rng, engine, seat))
        assert min(engine.stacks) >= 0
        if not engine.is_over:      # in a hand, every chip is in a stack or in the pot
            in_play = sum(engine.stacks) + sum(engine.contributed)
            assert in_play == sum(engine.starting[s] for s in engine.seated)
    rake_total = sum(p.rake for p in engine.events if isinstance(p, ev.PotWon))
    scores = engine.outcome().scores
    assert sum(scores) + rake_total == 0
    for ended in (e for e in engine.events if isinstance(e, ev.HandEnded)):
        assert all(n >= -max(engine.starting) for n in ended.net)
