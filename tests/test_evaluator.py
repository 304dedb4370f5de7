"""Does a declaration exist in a pool: hand-written cases, an independent brute-force
oracle, the numba kernels against their Python twins, the classic 5-card table, and the
array API's contract."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaluator
from evaluator import (
    CATEGORIES,
    DeclarationError,
    PoolArrayError,
    best,
    best_many,
    deck,
    deck_cards,
    exists,
    exists_bits,
    exists_many,
    ladder,
    parse_cards,
    parse_declaration,
    pool_array,
    pool_bits,
    reference,
)

RULESETS = ("official", "polacco")

# --------------------------------------------------------------------------- hand-written


@pytest.mark.parametrize(
    ("declaration", "cards", "expected"),
    [
        # the joker is wild: it stands for any one card the declaration needs
        ("high A", "Jk", True),
        ("high A", "9c", False),
        ("high 9", "9c", True),
        ("pair K", "Kd Jk", True),
        ("pair K", "Kd", False),
        ("pair K", "Kd Qd", False),
        ("pair K", "Kd Ks", True),
        ("three Q", "Qc Qd Jk", True),
        ("three Q", "Qc Jk", False),
        ("four A", "Ac Ad Ah Jk", True),
        ("four A", "Ac Ad Jk", False),
        # five A is four aces AND the joker
        ("five A", "Ac Ad Ah As Jk", True),
        ("five A", "Ac Ad Ah As", False),
        ("five A", "Ac Ad Ah Jk", False),
        ("five A", "Ac Ad Ah As Kc Kd Kh Ks", False),
        ("five 9", "9c 9d 9h 9s Jk", True),
        ("five 9", "9c 9d 9h 9s Ac Ad Ah As Jk", True),
        # straights: small 9-K, big T-A, any suits; the joker fills one gap
        ("straight small", "9c Td Jh Qs Kc", True),
        ("straight big", "9c Td Jh Qs Kc", False),
        ("straight big", "Td Jh Qs Kc Ac", True),
        ("straight small", "Td Jh Qs Kc Ac", False),
        ("straight small", "9c Td Jh Qs Jk", True),
        ("straight small", "9c Td Qs Kc Jk", True),
        ("straight small", "9c Td Jh Jk", False),
        ("straight small", "Td Jh Qs Kc Jk", True),
        ("straight big", "Td Jh Qs Kc Jk", True),
        ("straight big", "9c Td Jh Qs Jk", False),
        ("straight big", "Jh Qs Kc Ac Jk", True),
        # two pair: two of each rank; the joker makes one of the pairs
        ("two-pair A K", "Ac Ad Kh Ks", True),
        ("two-pair A K", "Ac Ad Kh Jk", True),
        ("two-pair A K", "Ac Kh Ks Jk", True),
        ("two-pair A K", "Ac Kh Jk", False),
        ("two-pair A K", "Ac Jk", False),
        ("two-pair A K", "Ac Ad Ah Kh", False),
        ("two-pair A K", "Ac Ad Ah Kh Jk", True),
        ("two-pair T 9", "Tc Td 9h 9s Ac Ad", True),
        # full house: three of the first rank and two of the second
        ("full-house 9 T", "9c 9d 9h Tc Ts", True),
        ("full-house T 9", "9c 9d 9h Tc Ts", False),
        ("full-house 9 T", "9c 9d Tc Ts Jk", True),
        ("full-house T 9", "9c 9d Tc Ts Jk", True),
        ("full-house 9 T", "9c 9d 9h Ts Jk", True),
        ("full-house T 9", "9c 9d 9h Ts Jk", False),
        ("full-house 9 T", "9c 9d Ts Jk", False),
        # flush: five cards of the suit
        ("flush h", "9h Th Jh Qh Ah", True),
        ("flush h", "9h Th Jh Qh Jk", True),
        ("flush h", "9h Th Jh Jk Ac", False),
        ("flush s", "9h Th Jh Qh Ah", False),
        # straight flush 9-K of the suit, royal flush T-A of the suit
        ("straight-flush h", "9h Th Jh Qh Kh", True),
        ("straight-flush h", "9h Th Jh Qh Jk", True),
        ("straight-flush h", "9h Th Jh Qh Kd", False),
        ("straight-flush h", "9h Th Jh Qh Kd Jk", True),
        ("royal-flush h", "9h Th Jh Qh Jk", False),
        ("royal-flush h", "Th Jh Qh Kh Ah", True),
        ("royal-flush h", "Th Jh Qh Kh Jk", True),
        ("straight-flush h", "Th Jh Qh Kh Jk", True),
        ("royal-flush c", "Th Jh Qh Kh Ah", False),
    ],
)
def test_official_exists_cases(declaration: str, cards: str, expected: bool) -> None:
    assert exists(declaration, cards, "official") is expected
    assert exists(declaration, cards) is expected  # official is the default


@pytest.mark.parametrize(
    ("declaration", "cards", "expected"),
    [
        ("pair 7", "7c 7d", True),
        ("pair 7", "7c 8d", False),
        ("two-pair K 5", "Kc Kd 5h 5s", True),
        ("two-pair K 5", "Kc Kd Kh 5s", False),
        ("three 9", "9c 9d 9h 2c", True),
        # flush: five cards of the suit whose highest is the named card
        ("flush h A", "Ah Kh 9h 4h 2h", True),
        ("flush h K", "Ah Kh 9h 4h 2h", False),  # below Kh only 9h 4h 2h: four cards
        ("flush h K", "Ah Kh Qh 9h 4h 2h", True),
        ("flush h 9", "Ah Kh 9h 4h 2h", False),
        ("flush h A", "Ah Kh 9h 4h", False),
        ("flush h A", "Ah Kh 9h 4h 2d", False),
        ("flush s A", "Ah Kh 9h 4h 2h", False),
        ("flush h K", "Kh 9h 4h 3h 2h", True),
        ("flush h 6", "2h 3h 4h 5h 6h", True),
        ("flush h A", "Ah 2h 3h 4h 5h", True),
        ("flush h 5", None, None),  # not a declaration; see test_declaration_errors
        # straights: named by the top card; straight 5 is A-2-3-4-5
        ("straight 5", "Ac 2d 3h 4s 5c", True),
        ("straight 6", "Ac 2d 3h 4s 5c", False),
        ("straight A", "Ac 2d 3h 4s 5c", False),
        ("straight 6", "2d 3h 4s 5c 6d", True),
        ("straight 5", "2d 3h 4s 5c 6d", False),
        ("straight 5", "2d 3h 4s 5c Kd", False),
        ("straight 5", "Kc Ac 2d 3h 4s", False),  # no wrap-around
        ("straight A", "Kc Ac 2d 3h 4s", False),
        ("straight A", "Tc Jd Qh Ks As", True),
        ("straight K", "Tc Jd Qh Ks As", False),
        ("straight K", "9c Tc Jd Qh Ks As", True),
        # full house, four, straight flush
        ("full-house 9 4", "9c 9d 9h 4c 4s", True),
        ("full-house 4 9", "9c 9d 9h 4c 4s", False),
        ("four 9", "9c 9d 9h 9s", True),
        ("straight-flush s K", "9s Ts Js Qs Ks", True),
        ("straight-flush s K", "9s Ts Js Qs Kd", False),
        ("straight-flush s 5", "As 2s 3s 4s 5s", True),
        ("straight-flush s 6", "As 2s 3s 4s 5s", False),
        ("straight-flush s A", "Ts Js Qs Ks As", True),
    ],
)
def test_polacco_exists_cases(declaration: str, cards: str | None, expected: bool | None) -> None:
    if cards is None:
        with pytest.raises(DeclarationError, match="top card of a flush in polacco is 6..A"):
            exists(declaration, "2h 3h 4h 5h 6h", "polacco")
        return
    assert exists(declaration, cards, "polacco") is expected


@pytest.mark.parametrize(
    ("ruleset", "cards", "expected"),
    [
        ("official", "9c 9d Tc Ts Jk", "full-house T 9"),
        ("official", "Jk", "high A"),
        ("official", "9c", "high 9"),
        ("official", "Ac Ad Ah As Jk", "five A"),
        ("official", "9c Td Jh Qs Kc", "straight small"),
        ("official", "9h Th Jh Qh Kh Ah", "royal-flush h"),
        ("official", "9h Th Jh Qh Ah Ac", "flush h"),
        ("polacco", "Ah Ad", "pair A"),
        ("polacco", "Ah Kh 9h 4h 2h", "flush h A"),
        ("polacco", "As 2s 3s 4s 5s", "straight-flush s 5"),
        ("polacco", "Ac 2d 3h 4s 5c", "straight 5"),
        ("polacco", "Ac Ad Ah Kc Kd Ks", "full-house A K"),
    ],
)
def test_best_cases(ruleset: str, cards: str, expected: str) -> None:
    got = best(cards, ruleset)
    assert got is not None and str(got) == expected
    assert best_many(ruleset, pool_array([cards], ruleset)).tolist() == [got.id]


@pytest.mark.parametrize(
    ("ruleset", "cards"),
    [("polacco", "Ah"), ("polacco", "Ah Kd 9c 5s 2h"), ("polacco", ""), ("official", "")],
)
def test_best_is_none_when_nothing_exists(ruleset: str, cards: str) -> None:
    assert best(cards, ruleset) is None
    assert best_many(ruleset, pool_array([cards], ruleset)).tolist() == [-1]


def test_exists_accepts_every_form() -> None:
    d = parse_declaration("two-pair A K", "official")
    cards = "Ah As Kd Jk"
    for decl in ("two-pair A K", d, d.id):
        assert exists(decl, cards, "official")
        assert exists(decl, cards.split(), "official")
        assert exists(decl, evaluator.parse_cards(cards), "official")
        assert exists(decl, [c.id for c in evaluator.parse_cards(cards)], "official")


def test_exists_card_forms_and_spellings() -> None:
    ids = [evaluator.parse_card(c).id for c in ("Ah", "Ad", "Jk")]
    for cards in ("ah AD jk", "Ah,Ad,Jk", ["Ah", "AD", "jk"], ids, tuple(ids),
                  iter(["Ah", "Ad", "Jk"]), (c for c in ids),
                  ["Ah", ids[1], evaluator.parse_card("Jk")], evaluator.parse_cards("Ah Ad Jk")):
        assert exists("three A", cards, "official"), cards
        assert not exists("four A", cards, "official"), cards
    for _ in range(2):  # the second time a spelling is known
        assert exists("pair T", "10d Td".replace("Td", "10h"), "official")
        assert exists("pair T", ["10D", "tH"], "official")
    assert exists("pair A", "", "official") is False
    assert exists("pair A", [], "polacco") is False


def test_exists_declaration_forms() -> None:
    d = parse_declaration("pair A", "official")
    built = evaluator.Declaration("official", "pair", (14,))  # by hand: no id
    assert built.id == -1 and built == d
    for decl in ("pair A", "PAIR a", d, d.id, built):
        assert exists(decl, "Ah Jk", "official")
        assert not exists(decl, "Kh Jk", "official")
    with pytest.raises(DeclarationError, match="belongs to polacco, not official"):
        exists(parse_declaration("pair A", "polacco"), "Ah Ad", "official")
    with pytest.raises(evaluator.RulesetError, match="unknown ruleset"):
        exists("pair A", "Ah Ad", "turkish")
    with pytest.raises(evaluator.RulesetError, match="unknown ruleset"):
        exists(d, "Ah Ad", "turkish")


@pytest.mark.parametrize(
    ("cards", "error", "fragment"),
    [
        ("Ah Ah Zz", evaluator.CardError, "unknown card 'Zz'"),  # unknown before duplicate
        ("Zz 2c", evaluator.CardError, "unknown card 'Zz'"),  # unknown before deck
        ("2c 2c", evaluator.CardError, "duplicate card 2c"),  # duplicate before deck
        ("Ah Kd ah", evaluator.CardError, "duplicate card Ah"),
        (["Ah", 50], evaluator.CardError, "duplicate card Ah"),
        ("Ah 2c 3c", evaluator.RulesetError, "card 2c is not in the official deck"),
        ([50, 99], evaluator.CardError, "card id 99 out of range"),
        ([50, -1], evaluator.CardError, "card id -1 out of range"),
        ([50, 10**30], evaluator.CardError, "out of range"),
        ([True], evaluator.CardError, "not a card"),
        ([np.int64(50)], evaluator.CardError, "not a card"),
        ([parse_declaration("pair 9", "official")], evaluator.CardError, "not a card"),
        ([None], evaluator.CardError, "not a card"),
    ],
)
def test_exists_card_errors(cards: object, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        exists("pair A", cards, "official")  # type: ignore[arg-type]
    with pytest.raises(error, match=fragment):
        best(cards, "official")  # type: ignore[arg-type]


def test_exists_errors() -> None:
    with pytest.raises(evaluator.CardError, match="duplicate card Ah"):
        exists("pair A", "Ah Ah", "official")
    with pytest.raises(evaluator.RulesetError, match="not in the polacco deck"):
        exists("pair A", "Ah Jk", "polacco")
    with pytest.raises(DeclarationError, match="five is not a declaration in polacco"):
        exists("five A", "Ah", "polacco")


# --------------------------------------------------------------------------- brute force oracle
#
# Written from RULES.md without the evaluator's requirement tuples: enumerate every
# sub-hand of 1..5 cards (the joker replaced by each card it could stand for, including
# a copy of a card already in the pool, which is how five of a kind is made) and name
# every declaration that exactly that sub-hand shows.

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


def _straight_top(ranks: list[int], ruleset: str) -> int | None:
    """Top card of the straight the five ranks make, or None."""
    rs = sorted(ranks)
    if len(set(rs)) != 5:
        return None
    if ruleset == "polacco" and rs == [2, 3, 4, 5, 14]:
        return 5
    if rs[4] - rs[0] == 4:
        return rs[4]
    return None


def _shown(hand: tuple[tuple[int, int], ...], ruleset: str) -> set[str]:
    """Texts of the declarations this exact sub-hand of (rank, suit) cards shows."""
    rc = RANK_CHARS
    ranks = [r for r, _ in hand]
    counts = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    shape = [n for n, _ in counts]
    out: set[str] = set()
    if len(hand) == 1 and ruleset == "official":
        out.add(f"high {rc[ranks[0] - 2]}")
    elif len(hand) == 2 and shape == [2]:
        out.add(f"pair {rc[ranks[0] - 2]}")
    elif len(hand) == 3 and shape == [3]:
        out.add(f"three {rc[ranks[0] - 2]}")
    elif len(hand) == 4 and shape == [4]:
        out.add(f"four {rc[ranks[0] - 2]}")
    elif len(hand) == 4 and shape == [2, 2]:
        hi, lo = max(ranks), min(ranks)
        out.add(f"two-pair {rc[hi - 2]} {rc[lo - 2]}")
    elif len(hand) == 5:
        if shape == [5] and ruleset == "official":
            out.add(f"five {rc[ranks[0] - 2]}")
        if shape == [3, 2]:
            out.add(f"full-house {rc[counts[0][1] - 2]} {rc[counts[1][1] - 2]}")
        top = _straight_top(ranks, ruleset)
        suits = {s for _, s in hand}
        flush = len(suits) == 1
        suit = SUIT_CHARS[next(iter(suits))]
        if ruleset == "official":
            name = {13: "small", 14: "big"}.get(top or 0)
            if name:
                out.add(f"straight {name}")
            if flush:
                out.add(f"flush {suit}")
                if top == 13:
                    out.add(f"straight-flush {suit}")
                if top == 14:
                    out.add(f"royal-flush {suit}")
        else:
            if top:
                out.add(f"straight {rc[top - 2]}")
            if flush:
                out.add(f"flush {suit} {rc[max(ranks) - 2]}")
                if top:
                    out.add(f"straight-flush {suit} {rc[top - 2]}")
    return out


def oracle(cards: list[str], ruleset: str) -> set[str]:
    """Every declaration (as text) that exists among the cards, by brute force."""
    real = [(RANK_CHARS.index(c[0]) + 2, SUIT_CHARS.index(c[1])) for c in cards if c != "Jk"]
    has_joker = "Jk" in cards
    lowest = 9 if ruleset == "official" else 2
    stand_ins = [(r, s) for r in range(lowest, 15) for s in range(4)]
    pools = [real + [x] for x in stand_ins] if has_joker else [real]
    out: set[str] = set()
    for pool in pools:
        for k in range(1, 6):
            for hand in itertools.combinations(pool, k):
                out |= _shown(hand, ruleset)
    return out


def test_oracle_sanity() -> None:
    assert oracle(["Ac", "Ad", "Ah", "As", "Jk"], "official") >= {"five A", "four A", "pair A",
                                                                "high 9", "high A"}
    assert "flush h K" not in oracle("Ah Kh 9h 4h 2h".split(), "polacco")
    assert "straight 5" in oracle("Ac 2d 3h 4s 5c".split(), "polacco")
    assert oracle([], "polacco") == set()


def _check_against_oracle(cards: list[str], ruleset: str) -> None:
    want = oracle(cards, ruleset)
    got = {str(d) for d in ladder(ruleset) if exists(d, cards, ruleset)}
    assert got == want, (cards, sorted(got - want), sorted(want - got))
    b = best(cards, ruleset)
    strongest = max((parse_declaration(t, ruleset) for t in want), key=lambda d: d.id,
                    default=None)
    assert b == strongest


def _random_pools(ruleset: str, n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    cards = list(deck(ruleset))
    ordinary = [c for c in cards if c != "Jk"]
    out = []
    for _ in range(n):
        size = rng.randint(0, 9)
        pool = rng.sample(ordinary, size)
        if ruleset == "official" and rng.random() < 0.5:
            pool.append("Jk")
        rng.shuffle(pool)
        out.append(pool)
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_exists_matches_brute_force_on_random_pools(ruleset: str) -> None:
    for cards in _random_pools(ruleset, 120, seed=7 + len(ruleset)):
        _check_against_oracle(cards, ruleset)


def _rich_pools(ruleset: str, n: int, seed: int) -> list[list[str]]:
    """Pools drawn from few ranks or one suit, where the strong hands live."""
    rng = random.Random(seed)
    ordinary = [c for c in deck(ruleset) if c != "Jk"]
    out = []
    for _ in range(n):
        if rng.random() < 0.5:
            suit = rng.choice(SUIT_CHARS)
            source = [c for c in ordinary if c[1] == suit or rng.random() < 0.1]
        else:
            ranks = rng.sample(sorted({c[0] for c in ordinary}), rng.randint(2, 6))
            source = [c for c in ordinary if c[0] in ranks]
        pool = rng.sample(source, min(len(source), rng.randint(3, 8)))
        if ruleset == "official" and rng.random() < 0.5:
            pool.append("Jk")
        out.append(pool)
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_exists_matches_brute_force_on_rich_pools(ruleset: str) -> None:
    for cards in _rich_pools(ruleset, 120, seed=11 + len(ruleset)):
        _check_against_oracle(cards, ruleset)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_exists_matches_brute_force_hypothesis(data: st.DataObject) -> None:
    ruleset = data.draw(st.sampled_from(RULESETS))
    cards = data.draw(st.lists(st.sampled_from(deck(ruleset)), max_size=8, unique=True))
    _check_against_oracle(cards, ruleset)


# --------------------------------------------------------------------------- kernels vs twins


def _column_ids(ruleset: str) -> list[int]:
    return [c.id for c in deck_cards(ruleset)]


@st.composite
def pools_and_ids(draw: st.DrawFn) -> tuple[str, np.ndarray, np.ndarray]:
    ruleset = draw(st.sampled_from(RULESETS))
    width = len(deck(ruleset))
    n_decl = len(ladder(ruleset))
    rows = draw(st.lists(st.one_of(
        st.sets(st.integers(0, width - 1), max_size=10),
        st.sets(st.integers(0, width - 1), max_size=width),
    ), max_size=12))
    pools = np.zeros((len(rows), width), dtype=np.uint8)
    for i, row in enumerate(rows):
        pools[i, sorted(row)] = 1
    ids = draw(st.one_of(
        st.just(list(range(n_decl))),
        st.lists(st.integers(0, n_decl - 1), max_size=40),
    ))
    return ruleset, pools, np.array(ids, dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(case=pools_and_ids())
def test_exists_many_kernel_equals_python_twin(case: tuple[str, np.ndarray, np.ndarray]) -> None:
    ruleset, pools, ids = case
    got = exists_many(ruleset, ids, pools)
    assert got.dtype == np.bool_
    assert got.shape == (pools.shape[0], ids.size)
    reqs = [ladder(ruleset)[i].requirement for i in ids]
    want = reference.exists_many(reqs, pools.tolist(), _column_ids(ruleset))
    assert got.tolist() == want


@settings(max_examples=150, deadline=None)
@given(case=pools_and_ids())
def test_best_many_kernel_equals_python_twin(case: tuple[str, np.ndarray, np.ndarray]) -> None:
    ruleset, pools, _ = case
    got = best_many(ruleset, pools)
    assert got.dtype == np.int64
    assert got.shape == (pools.shape[0],)
    reqs = [d.requirement for d in ladder(ruleset)]
    want = reference.best_many(reqs, pools.tolist(), _column_ids(ruleset))
    assert got.tolist() == want
    # and the single-pool best() agrees
    for row, b in zip(pools, want, strict=True):
        cards = [deck(ruleset)[j] for j in np.flatnonzero(row)]
        d = best(cards, ruleset)
        assert (-1 if d is None else d.id) == b


@pytest.mark.parametrize("ruleset", RULESETS)
def test_kernels_equal_python_twins_over_many_blocks(ruleset: str) -> None:
    """Hundreds of pools (many blocks of the kernels, a partial last block), every
    declaration, in ladder order and shuffled with repeats."""
    rng = np.random.default_rng(len(ruleset))
    width = len(deck(ruleset))
    n = 7 * 32 + 5
    sizes = rng.integers(0, width + 1, n)
    sizes[:40] = rng.integers(0, 8, 40)
    order = np.argsort(rng.random((n, width)), axis=1)
    pools = np.zeros((n, width), dtype=np.uint8)
    np.put_along_axis(pools, order, (np.arange(width) < sizes[:, None]).astype(np.uint8), 1)
    n_decl = len(ladder(ruleset))
    column_ids = _column_ids(ruleset)
    reqs = [d.requirement for d in ladder(ruleset)]
    rows = pools.tolist()
    for ids in (np.arange(n_decl), rng.integers(0, n_decl, 2 * n_decl)):
        got = exists_many(ruleset, ids, pools)
        assert got.tolist() == reference.exists_many([reqs[i] for i in ids], rows, column_ids)
    got_best = best_many(ruleset, pools)
    assert got_best.tolist() == reference.best_many(reqs, rows, column_ids)
    # best is the last declaration that exists
    full = exists_many(ruleset, np.arange(n_decl), pools)
    for i in range(n):
        hits = np.flatnonzero(full[i])
        assert got_best[i] == (hits[-1] if hits.size else -1)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_exists_many_equals_exists_on_random_pools(ruleset: str) -> None:
    pools = _random_pools(ruleset, 60, seed=3) + _rich_pools(ruleset, 60, seed=4)
    arr = pool_array(pools, ruleset)
    got = exists_many(ruleset, np.arange(len(ladder(ruleset))), arr)
    for i, cards in enumerate(pools):
        assert got[i].tolist() == [exists(d, cards, ruleset) for d in ladder(ruleset)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_exists_bits_equals_exists_on_random_pools(ruleset: str) -> None:
    pools = _random_pools(ruleset, 60, seed=5) + _rich_pools(ruleset, 60, seed=6)
    for cards in pools:
        parsed = parse_cards(cards)
        # the same pool split into groups (hands and a community card) in any way
        groups = [parsed[:2], (), parsed[2:]]
        bits = pool_bits(groups)
        assert bits == sum(1 << c.id for c in parsed)
        for d in ladder(ruleset):
            assert exists_bits(d, bits) == exists(d, cards, ruleset), (str(d), cards)


def test_exists_bits_takes_a_declaration_built_by_hand() -> None:
    pair = parse_declaration("pair K", "official")
    by_hand = evaluator.Declaration("official", "pair", (13,))
    bits = pool_bits([parse_cards("Kd Jk")])
    assert exists_bits(by_hand, bits) and exists_bits(pair, bits)
    assert not exists_bits(by_hand, pool_bits([parse_cards("Kd Qd")]))


# --------------------------------------------------------------------------- array API


def test_exists_many_accepts_every_declaration_form() -> None:
    ruleset = "official"
    pools = pool_array(["Ah As Kd Jk", "9c Td Jh Qs Kc", "", "Ac Ad Ah As Jk"], ruleset)
    texts = ["two-pair A K", "straight small", "five A", "high 9"]
    objs = [parse_declaration(t, ruleset) for t in texts]
    ids = [d.id for d in objs]
    want = [[True, False, False, True], [False, True, False, True],
            [False, False, False, False], [False, False, True, True]]
    for decls in (texts, objs, ids, tuple(ids), [texts[0], objs[1], ids[2], texts[3]],
                  np.array(ids), np.array(ids, dtype=np.int32), np.array(ids, dtype=np.uint8)):
        assert exists_many(ruleset, decls, pools).tolist() == want, decls
    # pools as bool and as other integer dtypes
    for p in (pools.astype(bool), pools.astype(np.int64), pools.tolist()):
        assert exists_many(ruleset, ids, p).tolist() == want


def test_exists_many_empty_shapes() -> None:
    width = len(deck("polacco"))
    assert exists_many("polacco", [], np.zeros((3, width), np.uint8)).shape == (3, 0)
    assert exists_many("polacco", ["pair A"], np.zeros((0, width), np.uint8)).shape == (0, 1)
    assert best_many("polacco", np.zeros((0, width), np.uint8)).shape == (0,)


def test_pool_array_columns_follow_the_deck() -> None:
    arr = pool_array(["9c Jk", "As"], "official")
    assert arr.dtype == np.uint8 and arr.shape == (2, 25)
    assert arr[0].nonzero()[0].tolist() == [0, 24]
    assert arr[1].nonzero()[0].tolist() == [deck("official").index("As")]
    full = pool_array([deck("polacco")], "polacco")
    assert full.tolist() == [[1] * 52]
    with pytest.raises(evaluator.RulesetError, match="card 2c is not in the official deck"):
        pool_array(["2c"], "official")
    with pytest.raises(evaluator.CardError, match="duplicate card"):
        pool_array(["Ah Ah"], "polacco")


@pytest.mark.parametrize(
    ("ruleset", "pools", "fragment"),
    [
        ("official", np.zeros((2, 24), np.uint8), r"shape \(n_pools, 25\) for official"),
        ("official", np.zeros((2, 52), np.uint8), r"shape \(n_pools, 25\)"),
        ("polacco", np.zeros((2, 25), np.uint8), r"shape \(n_pools, 52\) for polacco"),
        ("polacco", np.zeros(52, np.uint8), r"got \(52,\)"),
        ("polacco", np.zeros((1, 2, 52), np.uint8), r"shape \(n_pools, 52\)"),
        ("official", np.full((2, 25), 2, np.uint8), "only 0 and 1"),
        ("official", np.full((1, 25), -1, np.int64), "only 0 and 1"),
        ("polacco", np.eye(52, dtype=np.int32) * 2, "only 0 and 1"),
    ],
)
def test_pool_array_errors(ruleset: str, pools: np.ndarray, fragment: str) -> None:
    with pytest.raises(PoolArrayError, match=fragment):
        exists_many(ruleset, ["pair A"], pools)
    with pytest.raises(PoolArrayError, match=fragment):
        best_many(ruleset, pools)


def test_declaration_errors_in_exists_many() -> None:
    pools = np.zeros((1, 52), np.uint8)
    with pytest.raises(PoolArrayError, match=r"declaration ids out of range 0..358"):
        exists_many("polacco", np.array([359]), pools)
    with pytest.raises(PoolArrayError, match="out of range"):
        exists_many("polacco", np.array([-1]), pools)
    with pytest.raises(DeclarationError, match="five is not a declaration in polacco"):
        exists_many("polacco", ["five A"], pools)
    with pytest.raises(DeclarationError, match="out of range 0..358"):
        exists_many("polacco", [359], pools)


# --------------------------------------------------------------------------- the classic table


def test_classic_five_card_table() -> None:
    """Every 5-card hand of the 52-card deck, by its best polacco declaration."""
    n = 2_598_960
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(52), 5)),
                       dtype=np.uint8, count=5 * n)
    pools = np.zeros((n, 52), dtype=np.uint8)
    np.put_along_axis(pools, flat.reshape(n, 5).astype(np.intp), 1, axis=1)
    del flat
    assert int(pools.sum()) == 5 * n
    ids = best_many("polacco", pools)
    del pools
    cats = CATEGORIES["polacco"]
    cat_of_id = np.array([cats.index(d.category) for d in ladder("polacco")], dtype=np.int64)
    counts = np.bincount(cat_of_id[ids[ids >= 0]], minlength=len(cats))
    table = dict(zip(cats, counts.tolist(), strict=True))
    table["none"] = int((ids < 0).sum())
    assert table == {
        "straight-flush": 40,
        "four": 624,
        "full-house": 3_744,
        "flush": 5_108,
        "straight": 10_200,
        "three": 54_912,
        "two-pair": 123_552,
        "pair": 1_098_240,
        "none": 1_302_540,
    }
    # finer: 4 royal flushes, one steel wheel per suit, C(12, 4) - 2 ace-high flushes per
    # suit (less the royal flush and the wheel), 4 * 6 full houses aces over kings
    by_id = np.bincount(ids[ids >= 0], minlength=len(ladder("polacco")))
    assert sum(by_id[parse_declaration(f"straight-flush {s} A", "polacco").id]
               for s in SUIT_CHARS) == 4
    assert by_id[parse_declaration("straight-flush h 5", "polacco").id] == 1
    assert sum(by_id[parse_declaration(f"flush {s} A", "polacco").id]
               for s in SUIT_CHARS) == 4 * (495 - 2)
    assert by_id[parse_declaration("full-house A K", "polacco").id] == 4 * 6


# --------------------------------------------------------------------------- packaging


def test_importing_evaluator_does_not_import_numba() -> None:
    code = (
        "import evaluator, sys\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "assert 'evaluator.kernels' not in sys.modules\n"
        "evaluator.exists('pair A', 'Ah Ad', 'official')\n"
        "evaluator.best('Ah Ad', 'polacco')\n"
        "assert 'numba' not in sys.modules, 'numba imported by exists/best'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_kernels_are_cached_on_disk() -> None:
    from numba.core.caching import FunctionCache
    from numba.core.registry import CPUDispatcher

    from evaluator import kernels

    dispatchers = {name: obj for name, obj in vars(kernels).items()
                   if isinstance(obj, CPUDispatcher)}
    assert {"exists_many", "best_many"} <= set(dispatchers)
    for name, dispatcher in dispatchers.items():
        assert isinstance(dispatcher._cache, FunctionCache), name
        assert dispatcher.targetoptions["nopython"] is True, name


def test_kernel_constants_match_the_twins() -> None:
    from evaluator import kernels

    assert kernels._SUIT_BITS.tolist() == list(reference.SUIT_BITS)
    assert int(kernels._NIBBLE_COUNTS) == reference.NIBBLE_COUNTS
    assert [(reference.NIBBLE_COUNTS >> 4 * x) & 15 for x in range(16)] == [
        x.bit_count() for x in range(16)]
    assert int(kernels._CARD_BITS) == reference.CARD_BITS
    assert reference.CARD_BITS | (1 << evaluator.JOKER_ID) == sum(1 << i for i in range(53))
