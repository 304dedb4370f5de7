"""Our betting, pots, side pots, draws and payouts against PokerKit's on random hands.

Each case: 2-5 seats with random unequal stacks (so all-ins for less and side pots
happen), a random limit and rake, the first seat opening, then random legal actions and
draws. Before every decision the legal raise range and the amount to call must be
PokerKit's; at the end every seat's chips must be what PokerKit paid it, less the rake
of the pots it won (PokerKit plays unraked: it rakes antes apart from bets).
"""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("pokerkit")

from evaluator.turkish import card_text  # noqa: E402
from referee.games.turkish_poker import events as ev  # noqa: E402
from referee.games.turkish_poker.betting import LIMITS  # noqa: E402
from referee.games.turkish_poker.engine import DRAW, Action, TurkishPoker  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pokerkit_model as pkm  # noqa: E402


def opened_engine(rng: random.Random, players: int, **kw) -> TurkishPoker:
    """An engine whose first seat may open (searching seeds from a random one)."""
    for seed in itertools.count(rng.randrange(10**9)):
        engine = TurkishPoker(players, seed, hands=1, **kw)
        if any(a["kind"] == "open" for a in engine.legal(engine.current_seat)):
            return engine
    raise AssertionError("unreachable")


def pick(rng: random.Random, legal: list[dict]) -> Action:
    entry = rng.choice(legal)
    kind = entry["kind"]
    if kind in ("open", "raise"):
        lo, hi = entry["min"], entry["max"]
        amount = rng.choice([lo, hi, rng.randint(lo, hi)])
        return Action(kind, amount)
    return Action(kind)


def play_against_pokerkit(case: int) -> dict[str, int]:
    rng = random.Random(case)
    players = rng.randint(2, 5)
    limit = rng.choice(LIMITS)
    stacks = [rng.randint(20, 80) for _ in range(players)]
    rake, cap = rng.choice([(0.0, 0), (0.05, 0), (0.1, 2)])
    engine = opened_engine(rng, players, limit=limit, stacks=stacks, rake=rake, rake_cap=cap)
    order = [(engine.dealer + 1 + i) % players for i in range(players)]
    index = {s: i for i, s in enumerate(order)}
    state = pkm.new_state(limit, [stacks[s] for s in order], engine.low_rank)
    for s in order:
        pkm.deal(state, index[s], [card_text(c) for c in engine.cards[s]])
    seen = {"decisions": 0, "side_pots": 0, "all_ins": 0}
    first = True
    draws: list[tuple[int, list[str], list[str]]] = []
    while not engine.is_over:
        seat = engine.current_seat
        if engine.phase == DRAW:
            hand = engine.cards[seat]
            out = tuple(rng.sample(hand, rng.randint(0, 4)))
            start = len(engine.events)
            engine.apply(seat, Action("draw", cards=out))
            drew = next(e for e in engine.events[start:] if isinstance(e, ev.Drew))
            draws.append((index[seat], list(drew.discarded), list(drew.received)))
            if engine.phase != DRAW:
                pkm.draw(state, draws)
            continue
        legal = engine.legal(seat)
        assert state.actor_index == index[seat]
        ours = next(((a["min"], a["max"]) for a in legal if a["kind"] in ("open", "raise")),
                    None)
        assert ours == pkm.raise_range(state), (case, legal)
        call = next((a["amount"] for a in legal if a["kind"] == "call"), 0)
        assert call == state.checking_or_calling_amount, (case, legal)
        # PokerKit does not model a fold when a check is free (it warns "no reason to
        # fold" and its payout can fail), so these hands fold only facing a bet.
        choices = [a for a in legal if a["kind"] != "fold" or call]
        action = pick(rng, [a for a in legal if a["kind"] == "open"] if first else choices)
        first = False
        engine.apply(seat, action)
        pkm.act(state, action.kind, action.amount)
        seen["decisions"] += 1
    pots = [e for e in engine.events if isinstance(e, ev.PotWon)]
    seen["side_pots"] += len(pots) - 1
    seen["all_ins"] += sum(1 for e in engine.events if isinstance(e, ev.Acted) and e.all_in)
    ended = next(e for e in engine.events if isinstance(e, ev.HandEnded))
    paid = [0] * players
    for p in pots:
        assert len(p.winners) == 1, case  # two hands of one deal are never equal
        paid[p.winners[0]] += p.rake
    assert [n + r for n, r in zip(ended.net, paid, strict=True)] == \
        [state.stacks[index[s]] - stacks[s] for s in range(players)], case
    return seen


def test_random_hands_match_pokerkit() -> None:
    totals = {"decisions": 0, "side_pots": 0, "all_ins": 0}
    for case in range(1000):
        for k, v in play_against_pokerkit(case).items():
            totals[k] += v
    # The cases reach what they are for.
    assert totals["side_pots"] > 50 and totals["all_ins"] > 100, totals
