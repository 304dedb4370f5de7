"""Hidden information: no face-down card and no other seat's stock card reaches a seat
before the round ends, checked on every view and notice of random games.

Two checks. Structural: what each view and notice shows is exactly the face-up cards
(and the held card where the seat may see it). By substitution: shuffling every card a
seat cannot see (face-down cards, the stock, another seat's stock card) changes neither
its view nor what it is told about the next decision, except what that decision reveals.
"""

from __future__ import annotations

import copy
import json
import random

import msgpack
import pytest

from evaluator.golf import BOTTOM, POSITIONS
from referee.games.six_card_golf.actions import PILE, STOCK, parse_action
from referee.games.six_card_golf.engine import SixCardGolf


def hidden_slots(g: SixCardGolf, seat: int) -> list[tuple[str, int, int]]:
    """Where the cards ``seat`` cannot see lie: ("grid", owner, position), ("stock", i, 0),
    ("held", 0, 0)."""
    slots = [("grid", s, p) for s in range(g.players) for p in range(len(g.grids[s]))
             if not g.face_up[s][p]]
    slots += [("stock", i, 0) for i in range(len(g.stock))]
    if g.drawn is not None and g.drawn_from == STOCK and seat != g.current_seat:
        slots.append(("held", 0, 0))
    return slots


def substituted(g: SixCardGolf, seat: int, rng: random.Random) -> SixCardGolf:
    """A copy of ``g`` whose cards hidden from ``seat`` are shuffled among themselves."""
    twin = copy.deepcopy(g)
    slots = hidden_slots(twin, seat)

    def get(slot):
        kind, a, b = slot
        return twin.grids[a][b] if kind == "grid" else twin.stock[a] if kind == "stock" \
            else twin.drawn

    def put(slot, card):
        kind, a, b = slot
        if kind == "grid":
            twin.grids[a][b] = card
        elif kind == "stock":
            twin.stock[a] = card
        else:
            twin.drawn = card

    cards = [get(s) for s in slots]
    rng.shuffle(cards)
    for slot, c in zip(slots, cards, strict=True):
        put(slot, c)
    return twin


def check_view(g: SixCardGolf, seat: int, view: dict) -> None:
    for s, shown in enumerate(view["grids"]):
        if not g.grids[s]:
            assert shown is None
            continue
        assert list(shown) == list(POSITIONS)
        for p, name in enumerate(POSITIONS):
            assert shown[name] == (g.grids[s][p] if g.face_up[s][p] else None)
    may_see = g.drawn is not None and (seat == g.current_seat or g.drawn_from == PILE)
    assert view["drawn"] == (g.drawn if may_see else None)
    assert view["discard"] == g.discard and view["stock"] == len(g.stock)
    assert (view["legal"] != []) == (seat == g.current_seat)
    assert msgpack.unpackb(msgpack.packb(view)) == view == json.loads(json.dumps(view))


def check_notice(seat: int, notice: dict) -> None:
    if notice["type"] == "dealt":
        for shown in notice["grids"]:
            assert shown is None or all(shown[POSITIONS[p]] is None for p in BOTTOM)
    if notice["type"] == "took" and notice["from"] == STOCK and notice["seat"] != seat:
        assert notice["card"] is None


def masked(notices: list[dict], seat: int, was_down: bool, was_held: bool) -> list[dict]:
    """The notices of one decision up to the end of a round, without what that decision
    rightly reveals: a face-down card it replaced, another seat's stock card it placed or
    discarded, the card ``seat`` itself drew."""
    out = []
    for n in notices:
        if n["type"] == "round_ended":
            break
        n = dict(n)
        if n["type"] == "placed" and was_down:
            n["replaced"] = None
        if n["type"] in ("placed", "discarded") and was_held:
            n["card"] = None
        if n["type"] == "took" and n["seat"] == seat:
            n["card"] = None
        out.append(n)
    return out


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (8, 4)])
def test_views_and_notices_never_show_a_hidden_card(players, seed):
    rng = random.Random(seed)
    g = SixCardGolf(players, seed, target=100)
    for s in range(players):
        for _, n in g.notices(0):
            check_notice(s, n)
    steps = 0
    while not g.is_over:
        for s in range(players):
            check_view(g, s, g.view(s))
        to_act = g.current_seat
        action = parse_action(rng.choice(g.view(to_act)["legal"]))
        watcher = rng.randrange(players)
        if steps % 3 == 0:
            twin = substituted(g, watcher, rng)
            assert twin.view(watcher) == g.view(watcher)
            was_down = (getattr(action, "position", None) is not None
                        and not g.face_up[to_act][action.position])
            was_held = g.drawn_from == STOCK and watcher != to_act
            mark = len(g.events)
            g.apply(to_act, action)
            twin.apply(to_act, action)
            ours = [n for s, n in g.notices(mark) if s == watcher]
            theirs = [n for s, n in twin.notices(mark) if s == watcher]
            assert (masked(ours, watcher, was_down, was_held)
                    == masked(theirs, watcher, was_down, was_held))
        else:
            mark = len(g.events)
            g.apply(to_act, action)
        for s, n in g.notices(mark):
            check_notice(s, n)
        steps += 1
    assert steps > 50
