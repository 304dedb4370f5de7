"""Cards and declarations: notation, errors, counts, strength order and the raise rule.

Everything here is checked against RULES.md (the referee's rulebook), not against the
implementation: counts and orders are written out by hand from its tables.
"""

from __future__ import annotations

from collections import Counter

import pytest

import evaluator
from evaluator import (
    Card,
    CardError,
    Declaration,
    DeclarationError,
    RulesetError,
    deck,
    declarations,
    is_raise,
    ladder,
    parse_card,
    parse_cards,
    parse_declaration,
    raise_error,
)

RULESETS = ("official", "polacco")

# --------------------------------------------------------------------------- cards


def test_decks_have_the_rulebook_cards() -> None:
    official = deck("official")
    assert len(official) == 25
    assert official[-1] == "Jk"
    assert set(official[:-1]) == {r + s for r in "9TJQKA" for s in "cdhs"}
    polacco = deck("polacco")
    assert len(polacco) == 52
    assert set(polacco) == {r + s for r in "23456789TJQKA" for s in "cdhs"}
    assert "Jk" not in polacco


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_card_round_trips(ruleset: str) -> None:
    for text in deck(ruleset):
        card = parse_card(text)
        assert str(card) == text
        assert parse_card(card.id) == card
        assert parse_card(card) is card
        assert parse_card(text.lower()) == card
        assert parse_card(text.upper()) == card


def test_every_card_id_round_trips() -> None:
    for i in range(53):
        card = Card(i)
        assert parse_card(str(card)).id == i


def test_card_text_table_matches_the_cards() -> None:
    assert len(evaluator.CARD_TEXT) == 53
    for i, text in enumerate(evaluator.CARD_TEXT):
        assert str(Card(i)) == text and parse_card(text) == Card(i)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("10d", "Td"), ("td", "Td"), ("TD", "Td"), ("10D", "Td"), ("JK", "Jk"), ("jk", "Jk"),
     ("Jk", "Jk"), ("AH", "Ah"), ("ah", "Ah"), ("9c", "9c"), ("qS", "Qs"), (" Kd ", "Kd")],
)
def test_accepted_card_spellings(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


def test_card_rank_and_suit() -> None:
    ah = parse_card("Ah")
    assert (ah.rank, ah.suit, ah.is_joker) == (14, 2, False)
    assert ah.id == 4 * (14 - 2) + 2
    jk = parse_card("Jk")
    assert (jk.rank, jk.suit, jk.is_joker, jk.id) == (0, -1, True, 52)
    assert parse_card("2c").id == 0


def test_parse_cards_text_and_iterables() -> None:
    assert [str(c) for c in parse_cards("Ah 10d, jk")] == ["Ah", "Td", "Jk"]
    assert parse_cards(["Ah", 0, Card(52)]) == (Card(50), Card(0), Card(52))
    assert parse_cards("") == ()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Zz", "unknown card 'Zz'"), ("A", "unknown card 'A'"), ("Ax", "unknown suit"),
     ("1h", "unknown rank"), ("11h", "unknown rank"), ("", "unknown card ''"),
     ("Jokerr", "unknown card")],
)
def test_unknown_card_errors(text: str, fragment: str) -> None:
    with pytest.raises(CardError, match=fragment):
        parse_card(text)


def test_card_id_and_type_errors() -> None:
    with pytest.raises(CardError, match="out of range 0..52"):
        parse_card(53)
    with pytest.raises(CardError, match="out of range"):
        Card(-1)
    with pytest.raises(CardError, match="not a card"):
        parse_card(True)  # type: ignore[arg-type]
    with pytest.raises(CardError, match="not a card"):
        parse_card(1.5)  # type: ignore[arg-type]


def test_duplicate_card_error() -> None:
    with pytest.raises(CardError, match="duplicate card Ah"):
        parse_cards("Ah Kd ah")
    with pytest.raises(CardError, match="duplicate card Td"):
        parse_cards(["10d", "Td"])
    with pytest.raises(CardError, match="duplicate card Jk"):
        parse_cards("Jk 9c JK")


def test_card_outside_the_deck_and_unknown_ruleset() -> None:
    with pytest.raises(RulesetError, match="card 2c is not in the official deck"):
        evaluator.exists("pair A", "2c Ah", "official")
    with pytest.raises(RulesetError, match="card Jk is not in the polacco deck"):
        evaluator.exists("pair A", "Jk Ah", "polacco")
    with pytest.raises(RulesetError, match="unknown ruleset 'turkish'"):
        deck("turkish")
    with pytest.raises(RulesetError, match="unknown ruleset"):
        parse_declaration("pair A", "Official")


# --------------------------------------------------------------------------- declarations


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_declaration_round_trips(ruleset: str) -> None:
    lad = ladder(ruleset)
    assert declarations(ruleset) == lad
    texts = [str(d) for d in lad]
    assert len(set(texts)) == len(texts)
    for i, d in enumerate(lad):
        assert d.id == i
        assert d.ruleset == ruleset
        text = str(d)
        parsed = parse_declaration(text, ruleset)
        assert parsed == d
        assert parsed.id == i
        assert str(parsed) == text
        assert parse_declaration(text.upper(), ruleset) == d
        assert parse_declaration(f"  {text.lower()}  ", ruleset) == d
        assert parse_declaration(i, ruleset) is d
        assert parse_declaration(d, ruleset) is d
        assert evaluator.from_id(i, ruleset) is d


@pytest.mark.parametrize("ruleset", RULESETS)
def test_looked_up_text_equals_the_composed_text(ruleset: str) -> None:
    # str() of a ladder declaration is a table lookup; one built by hand (not from the
    # ladder, whatever its id) composes its words.
    for d in ladder(ruleset):
        assert str(d) == d._compose_text()
        twin = Declaration(d.ruleset, d.category, d.ranks, d.suit, d.id)
        assert twin == d and twin is not d and str(twin) == str(d)
        assert str(Declaration(d.ruleset, d.category, d.ranks, d.suit)) == str(d)


@pytest.mark.parametrize(
    ("ruleset", "text", "canonical"),
    [("official", "pair 10", "pair T"), ("official", "Full-House 9 t", "full-house 9 T"),
     ("official", "STRAIGHT BIG", "straight big"), ("official", "flush H", "flush h"),
     ("official", "two-pair  A   K", "two-pair A K"), ("polacco", "straight 5", "straight 5"),
     ("polacco", "flush S a", "flush s A"), ("polacco", "straight-flush c 10",
                                             "straight-flush c T")],
)
def test_accepted_declaration_spellings(ruleset: str, text: str, canonical: str) -> None:
    assert str(parse_declaration(text, ruleset)) == canonical


@pytest.mark.parametrize(
    ("ruleset", "text", "fragment"),
    [
        # declarations of the other ruleset
        ("polacco", "five A", "five is not a declaration in polacco"),
        ("polacco", "high A", "high is not a declaration in polacco"),
        ("polacco", "royal-flush s", "royal-flush is not a declaration in polacco"),
        ("polacco", "flush h", "write it like 'flush h A'"),
        ("polacco", "straight-flush d", "write it like 'straight-flush s K'"),
        ("polacco", "straight big", "'big' is not a rank"),
        ("official", "flush h A", "write it like 'flush h'"),
        ("official", "straight T", "an official straight is 'small' (9-K) or 'big' (T-A)"),
        ("official", "pair 2", "rank 2 is not in the official deck (9..A)"),
        ("official", "two-pair A 8", "rank 8 is not in the official deck"),
        # malformed
        ("official", "two-pair 9 9", "two-pair needs two different ranks"),
        ("polacco", "full-house 7 7", "full-house needs two different ranks"),
        ("official", "two-pair 9 K", "the higher pair comes first, 'two-pair K 9'"),
        ("polacco", "two-pair 2 3", "the higher pair comes first, 'two-pair 3 2'"),
        ("official", "pair", "write it like 'pair K'"),
        ("official", "pair K Q", "write it like 'pair K'"),
        ("official", "full-house 9", "write it like 'full-house 9 T'"),
        ("official", "pair Z", "'Z' is not a rank"),
        ("official", "flush x", "'x' is not a suit (c, d, h, s)"),
        ("official", "", "empty declaration"),
        ("polacco", "   ", "empty declaration"),
        ("polacco", "straight 4", "the top card of a straight in polacco is 5..A"),
        ("polacco", "flush h 5", "the top card of a flush in polacco is 6..A"),
        ("polacco", "straight-flush h 4", "the top card of a straight-flush in polacco is 5..A"),
        ("official", "quads A", "unknown category 'quads'"),
        ("polacco", "flush-house h", "unknown category 'flush-house'"),
    ],
)
def test_declaration_errors(ruleset: str, text: str, fragment: str) -> None:
    with pytest.raises(DeclarationError) as info:
        parse_declaration(text, ruleset)
    assert fragment in str(info.value)


def test_unknown_category_lists_the_ruleset_categories() -> None:
    with pytest.raises(DeclarationError, match="expected one of pair, two-pair, three"):
        parse_declaration("quads A", "polacco")


def test_declaration_id_and_object_errors() -> None:
    with pytest.raises(DeclarationError,
                       match=r"declaration id 89 out of range 0..88 for official"):
        parse_declaration(89, "official")
    with pytest.raises(DeclarationError, match=r"out of range 0..358 for polacco"):
        parse_declaration(-1, "polacco")
    with pytest.raises(DeclarationError, match="not a declaration"):
        parse_declaration(True, "official")  # type: ignore[arg-type]
    other = parse_declaration("pair A", "polacco")
    with pytest.raises(DeclarationError, match="belongs to polacco, not official"):
        parse_declaration(other, "official")


OFFICIAL_COUNTS = {
    "high": 6, "pair": 6, "two-pair": 15, "straight": 2, "three": 6, "full-house": 30,
    "flush": 4, "four": 6, "straight-flush": 4, "royal-flush": 4, "five": 6,
}
POLACCO_COUNTS = {
    "pair": 13, "two-pair": 78, "three": 13, "straight": 10, "flush": 36,
    "full-house": 156, "four": 13, "straight-flush": 40,
}


@pytest.mark.parametrize(
    ("ruleset", "counts", "total"),
    [("official", OFFICIAL_COUNTS, 89), ("polacco", POLACCO_COUNTS, 359)],
)
def test_counts_per_category(ruleset: str, counts: dict[str, int], total: int) -> None:
    lad = ladder(ruleset)
    assert len(lad) == total == sum(counts.values())
    assert Counter(d.category for d in lad) == counts
    # categories are contiguous blocks, in the rulebook's order
    order = list(dict.fromkeys(d.category for d in lad))
    assert order == list(counts)
    assert tuple(order) == evaluator.CATEGORIES[ruleset]


def test_official_ladder_ends() -> None:
    lad = [str(d) for d in ladder("official")]
    assert lad[:3] == ["high 9", "high T", "high J"]
    assert lad[-1] == "five A"
    assert lad[-6] == "five 9"
    assert lad.index("straight small") + 1 == lad.index("straight big")


def test_polacco_ladder_ends() -> None:
    lad = [str(d) for d in ladder("polacco")]
    assert lad[:2] == ["pair 2", "pair 3"]
    assert lad[-4:] == [f"straight-flush {s} A" for s in "cdhs"]
    assert lad.index("straight 5") < lad.index("straight 6")


def _d(text: str, ruleset: str) -> Declaration:
    return parse_declaration(text, ruleset)


@pytest.mark.parametrize(
    ("ruleset", "ascending"),
    [
        ("official", ["high A", "pair 9", "pair A", "two-pair T 9", "two-pair A 9",
                      "two-pair A K", "straight small", "straight big", "three 9", "three A",
                      "full-house 9 T", "full-house 9 A", "full-house T 9", "full-house A K",
                      "flush s", "four 9", "four A", "straight-flush h", "royal-flush c",
                      "five 9", "five A"]),
        ("polacco", ["pair 2", "pair A", "two-pair 3 2", "two-pair K Q", "two-pair A 2",
                     "three 2", "three A", "straight 5", "straight 6", "straight A",
                     "flush c 6", "flush h 7", "flush s A", "full-house 2 3",
                     "full-house 2 A", "full-house 3 2", "full-house A K", "four 2",
                     "four A", "straight-flush d 5", "straight-flush s 6",
                     "straight-flush c A"]),
    ],
)
def test_strength_order(ruleset: str, ascending: list[str]) -> None:
    decls = [_d(t, ruleset) for t in ascending]
    for lo, hi in zip(decls, decls[1:], strict=False):
        assert lo < hi, (str(lo), str(hi))
        assert hi > lo
        assert lo.id < hi.id


def test_category_orders_of_the_rulebook() -> None:
    # official: a short deck makes three rarer than a straight, a flush rarer than a full house
    o = [_d(t, "official") for t in ("straight big", "three 9", "full-house A K", "flush s",
                                      "four 9")]
    assert o == sorted(o)
    assert _d("three 9", "official") > _d("straight big", "official")
    assert _d("flush c", "official") > _d("full-house A K", "official")
    # polacco: the classic order
    p = [_d(t, "polacco") for t in ("three A", "straight 5", "flush h 6", "full-house 2 3")]
    assert p == sorted(p)
    assert _d("straight 5", "polacco") > _d("three A", "polacco")
    assert _d("full-house 2 3", "polacco") > _d("flush s A", "polacco")


def test_suits_never_decide_strength() -> None:
    for ruleset, a, b in [("official", "flush h", "flush s"),
                          ("official", "royal-flush c", "royal-flush d"),
                          ("polacco", "flush h A", "flush s A"),
                          ("polacco", "straight-flush c 9", "straight-flush s 9")]:
        x, y = _d(a, ruleset), _d(b, ruleset)
        assert x != y
        assert x.id != y.id
        assert not x < y and not y < x
        assert not x > y and not y > x
        assert x <= y and y <= x and x >= y and y >= x
        assert x.strength == y.strength


def test_same_declaration_text_differs_between_rulesets() -> None:
    assert _d("pair A", "official") != _d("pair A", "polacco")
    assert _d("pair A", "official").id == 11
    with pytest.raises(TypeError):
        _ = _d("pair A", "official") < _d("pair A", "polacco")
    assert _d("pair A", "polacco").id == 12


# --------------------------------------------------------------------------- raises


def test_empty_history_anything_opens() -> None:
    for ruleset in RULESETS:
        for d in ladder(ruleset):
            assert raise_error(d, [], ruleset) is None
            assert is_raise(str(d), (), ruleset)


def test_official_flush_suits_then_higher_category() -> None:
    history: list[str] = []
    for suit in "sdhc":
        new = f"flush {suit}"
        assert is_raise(new, history, "official"), (new, history)
        history.append(new)
    for suit in "sdhc":
        assert not is_raise(f"flush {suit}", history, "official")
    err = raise_error("flush s", history, "official")
    assert err is not None and "flush s was already declared this round" in err
    assert not is_raise("full-house A K", history, "official")
    assert is_raise("four 9", history, "official")
    assert is_raise("straight-flush s", history, "official")


def test_official_same_suit_is_not_a_raise() -> None:
    err = raise_error("flush h", ["flush h"], "official")
    assert err is not None and "already declared" in err
    assert not is_raise("royal-flush d", ["royal-flush d"], "official")
    assert is_raise("royal-flush s", ["royal-flush d"], "official")
    assert is_raise("straight-flush c", ["straight-flush d"], "official")
    # a lower category never raises, even in a fresh suit
    assert not is_raise("flush d", ["straight-flush s"], "official")


def test_official_suit_used_earlier_in_the_round_blocks_it() -> None:
    # flush h was used before the last declaration: still not a raise
    assert not is_raise("flush h", ["flush h", "flush s"], "official")
    assert is_raise("flush d", ["flush h", "flush s"], "official")
    # a suit used in another category does not block it
    assert is_raise("straight-flush h", ["flush h", "straight-flush s"], "official")


def test_rulebook_example_7_3_suit_over_suit() -> None:
    sequence = ["full-house 9 T", "flush s", "flush d", "flush h", "flush c", "four 9"]
    for i in range(1, len(sequence)):
        assert is_raise(sequence[i], sequence[:i], "official"), sequence[: i + 1]
    # ... and after all four flushes, another flush or a full house is not a raise
    assert not is_raise("flush d", sequence[:5], "official")
    assert not is_raise("full-house A K", sequence[:5], "official")
    # C calls: four 9 exists
    assert evaluator.exists("four 9", "9c 9d 9h 9s Ah", "official")
    assert evaluator.exists("four 9", "9c 9d 9h Jk", "official")


def test_official_plain_raises() -> None:
    assert is_raise("pair 9", ["high A"], "official")
    assert not is_raise("pair 9", ["pair 9"], "official")
    assert not is_raise("pair 9", ["pair T"], "official")
    assert is_raise("two-pair K 9", ["two-pair Q J"], "official")
    assert is_raise("two-pair K T", ["two-pair K 9"], "official")
    assert is_raise("full-house T 9", ["full-house 9 A"], "official")
    assert is_raise("straight big", ["straight small"], "official")
    assert not is_raise("straight small", ["straight big"], "official")
    err = raise_error("pair 9", ["pair T"], "official")
    assert err == "pair 9 is not higher than pair T"


def test_polacco_suits_are_equal() -> None:
    err = raise_error("flush s A", ["flush h A"], "polacco")
    assert err is not None and "flush s A is not higher than flush h A" in err
    assert not is_raise("flush h A", ["flush h A"], "polacco")
    assert not is_raise("flush s K", ["flush h A"], "polacco")
    assert is_raise("full-house 2 3", ["flush h A"], "polacco")
    assert is_raise("flush c A", ["flush h K"], "polacco")
    assert not is_raise("straight-flush s 9", ["straight-flush c 9"], "polacco")
    assert is_raise("straight-flush s T", ["straight-flush c 9"], "polacco")


def test_raise_history_accepts_ids_and_objects() -> None:
    h = [_d("flush s", "official").id, _d("flush d", "official")]
    assert is_raise("flush h", h, "official")
    assert not is_raise("flush s", h, "official")
    assert is_raise(_d("four 9", "official").id, h, "official")


def test_raise_with_a_bad_declaration_is_an_error() -> None:
    with pytest.raises(DeclarationError, match="five is not a declaration in polacco"):
        is_raise("five A", ["pair 2"], "polacco")
    with pytest.raises(DeclarationError, match="write it like 'flush h A'"):
        raise_error("pair 2", ["flush h"], "polacco")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_raise_matches_strength_for_every_pair(ruleset: str) -> None:
    lad = ladder(ruleset)
    for last in lad:
        for new in lad:
            expected = new > last or (
                ruleset == "official" and new.strength == last.strength
                and new.category in ("flush", "straight-flush", "royal-flush")
                and new.suit != last.suit
            )
            assert is_raise(new, [last], ruleset) == expected, (str(new), str(last))
