"""The tables format: stage plans for 7 to 40 entrants, seating, the standings' tie-breaks
on hand-built results, whole tournaments on random results, partial brackets, and the
bracket's text and JSON."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards.bracket_view import bracket_html, bracket_markdown
from referee.bracket import (
    Tables,
    bracket_to_dict,
    plan_stages,
    render_bracket,
)
from referee.schedule import ScheduledGame, table_seatings

OFFICIAL = range(2, 7)
POLACCO = range(3, 9)


def names(n: int) -> list[str]:
    return [f"bot{i}" for i in range(n)]


def record(game: ScheduledGame, places: list[int], n: int) -> dict:
    """The journal record of ``game``, as the runner writes it."""
    return {"game": game.index, "seats": [names(n)[b] for b in game.seating],
            "places": places, "players": len(game.seating), "group": game.group,
            "group_size": game.group_size, "stage": game.stage, "table": game.table}


def random_records(games: list[ScheduledGame], n: int, rng: random.Random) -> list[dict]:
    out = []
    for g in games:
        places = list(range(1, len(g.seating) + 1))
        rng.shuffle(places)
        out.append(record(g, places, n))
    return out


def scripted(games: list[ScheduledGame], bots: tuple[int, ...],
             script: list[tuple[int, ...]], n: int) -> list[dict]:
    """Records in which bot ``bots[i]`` finishes ``script[j][i]`` in the table's j-th game."""
    out = []
    for g, places in zip(games, script, strict=True):
        place_of = dict(zip(bots, places, strict=True))
        out.append(record(g, [place_of[b] for b in g.seating], n))
    return out


def by_table(games: list[ScheduledGame]) -> dict[int, list[ScheduledGame]]:
    out: dict[int, list[ScheduledGame]] = {}
    for g in games:
        out.setdefault(g.table, []).append(g)
    return out


# --------------------------------------------------------------------------- plans


@pytest.mark.parametrize(("entrants", "final"), [
    *[(n, 4) for n in range(7, 13)],    # 2 tables, 2 each
    *[(n, 3) for n in range(13, 19)],   # 3 tables, 1 each (3 is nearer 4 than 6)
    *[(n, 4) for n in range(19, 25)],   # 4 tables, 1 each
    *[(n, 5) for n in range(25, 31)],
    *[(n, 6) for n in range(31, 37)],
    *[(n, 4) for n in range(37, 41)],   # 7 tables, 1 each, then 4 + 3, 2 each
])
def test_plan_official(entrants: int, final: int) -> None:
    plan = plan_stages(entrants, 2, 6)
    players = entrants
    for stage in plan:
        assert sum(stage.sizes) == players
        assert all(2 <= s <= 6 for s in stage.sizes)
        assert max(stage.sizes) - min(stage.sizes) <= 1
        assert stage.final == (stage is plan[-1]) == (len(stage.sizes) == 1)
        assert stage.advance in ((0,) if stage.final else (1, 2))
        players = len(stage.sizes) * stage.advance
    assert plan[-1].sizes == (final,)
    assert len(plan) == (3 if entrants > 36 else 2)


@given(st.integers(7, 60), st.sampled_from([(OFFICIAL, 6), (POLACCO, 6), (POLACCO, 8),
                                            (OFFICIAL, 3)]))
def test_plan_limits(entrants: int, ruleset: tuple[range, int]) -> None:
    players, max_table = ruleset
    plan = Tables(entrants, names(entrants), players, 4, seed=0, max_table=max_table).plan
    for stage in plan:
        assert all(players[0] <= s <= min(max_table, players[-1]) for s in stage.sizes)
        assert all(stage.advance < s for s in stage.sizes)


def test_entrants_and_rulesets_that_cannot_play() -> None:
    with pytest.raises(ValueError, match="7 or more"):
        Tables(6, names(6), OFFICIAL, 4, seed=0, max_table=6)
    with pytest.raises(ValueError, match="cannot seat"):
        Tables(9, names(9), POLACCO, 4, seed=0, max_table=2)
    with pytest.raises(ValueError, match="split"):
        Tables(7, names(7), range(3, 4), 4, seed=0, max_table=3)
    with pytest.raises(ValueError, match="distinct"):
        Tables(7, ["a"] * 7, OFFICIAL, 4, seed=0, max_table=6)
    with pytest.raises(ValueError, match="games_per_table"):
        Tables(7, names(7), OFFICIAL, 0, seed=0, max_table=6)


# --------------------------------------------------------------------------- stage 0


@given(st.integers(7, 40), st.integers(1, 13), st.integers(0, 2**63), st.booleans())
@settings(max_examples=60, deadline=None)
def test_first_stage_seats_everyone_once(n: int, per_table: int, seed: int,
                                         duplicate: bool) -> None:
    t = Tables(n, names(n), OFFICIAL, per_table, seed, duplicate, max_table=6)
    games = t.stage(0, [])
    assert games == t.stage(0, [])
    assert [g.index for g in games] == list(range(len(games)))
    tables = by_table(games)
    assert sorted(tables) == list(range(len(t.plan[0].sizes)))
    seated = [b for series in tables.values() for b in series[0].seating]
    assert sorted(seated) == list(range(n))
    for number, series in tables.items():
        bots = set(series[0].seating)
        assert len(bots) == t.plan[0].sizes[number]
        assert all(set(g.seating) == bots and g.stage == 0 for g in series)
        unit = len(table_seatings(series[0].seating)) if duplicate else 1
        assert len(series) == -(-per_table // unit) * unit
    assert len({g.group for g in games}) == len({(g.table, g.group) for g in games})


def test_seed_shuffles_the_tables() -> None:
    def first_tables(seed: int) -> list[tuple[int, ...]]:
        return [s[0].seating for s in by_table(Tables(12, names(12), OFFICIAL, 6, seed,
                                                      max_table=6).stage(0, [])).values()]
    assert first_tables(1) == first_tables(1) != first_tables(2)


# --------------------------------------------------------------------------- tie-breaks

# A 7-entrant tournament: stage 0 is a table of 4 (two groups of 4 rotations) and a table
# of 3 (two groups of 6 seat orders); the best 2 of each advance to a final of 4.
SCORE_THEN_HEAD_TO_HEAD = [  # places of bots A, B, C, D: C leads; A and B tie on score
    (1, 3, 4, 2), (2, 3, 1, 4), (1, 3, 4, 2), (2, 3, 1, 4),  # and wins; A finishes ahead
    (4, 1, 3, 2), (3, 2, 1, 4), (4, 1, 2, 3), (2, 3, 1, 4),  # of B in 5 games, B of A in 3
]
WINS = [(1, 2, 3)] * 8 + [(3, 1, 2)] * 4  # A and B tie on score; A has 8 wins, B 4
EVEN = [(1, 2, 3)] * 6 + [(2, 1, 3)] * 6  # A and B alike in everything: the lot decides


def seven(seed: int = 0) -> tuple[Tables, dict[int, list[ScheduledGame]]]:
    t = Tables(7, names(7), OFFICIAL, 8, seed, max_table=6)
    assert [(p.sizes, p.advance) for p in t.plan] == [((4, 3), 2), ((4,), 0)]
    return t, by_table(t.stage(0, []))


def test_score_then_head_to_head() -> None:
    t, tables = seven()
    four, three = tables[0], tables[1]
    a, b, c, d = four[0].seating
    records = (scripted(four, (a, b, c, d), SCORE_THEN_HEAD_TO_HEAD, 7)
               + scripted(three, three[0].seating, WINS, 7))
    table = t.bracket(records).stages[0].tables[0]
    assert [s.bot for s in table.standings] == [names(7)[x] for x in (c, a, b, d)]
    assert table.standings[1].score == table.standings[2].score
    assert table.standings[1].wins == table.standings[2].wins == 2
    assert table.advanced == (names(7)[c], names(7)[a])


def test_wins_break_a_tie_on_score() -> None:
    t, tables = seven()
    three = tables[1]
    a, b, c = three[0].seating
    table = t.bracket(scripted(three, (a, b, c), WINS, 7)).stages[0].tables[1]
    assert [s.bot for s in table.standings] == [names(7)[x] for x in (a, b, c)]
    assert table.standings[0].score == table.standings[1].score == pytest.approx(2 / 3)
    assert (table.standings[0].wins, table.standings[1].wins) == (8, 4)


def test_the_lot_breaks_a_complete_tie_from_the_seed() -> None:
    winners = set()
    for seed in range(12):
        t, tables = seven(seed)
        three = tables[1]
        a, b, c = three[0].seating
        records = scripted(three, (a, b, c), EVEN, 7)
        table = t.bracket(records).stages[0].tables[1]
        assert t.bracket(records).stages[0].tables[1] == table
        top = [s.bot for s in table.standings[:2]]
        assert sorted(top) == sorted([names(7)[a], names(7)[b]])
        winners.add(top[0] == names(7)[a])
    assert winners == {True, False}


def test_a_place_drawn_by_lot_is_marked_in_the_bracket_and_on_the_pages() -> None:
    t, tables = seven()
    three = tables[1]
    a, b, c = three[0].seating
    even = t.bracket(scripted(three, (a, b, c), EVEN, 7))
    table = even.stages[0].tables[1]
    assert [s.lot for s in table.standings] == [True, True, False]
    by_wins = t.bracket(scripted(three, (a, b, c), WINS, 7)).stages[0].tables[1]
    assert not any(s.lot for s in by_wins.standings)  # wins decided it, not the lot
    assert render_bracket(even).count("(place drawn by lot)") == 2
    data = bracket_to_dict(even)
    assert [s["lot"] for s in data["stages"][0]["tables"][1]["standings"]] == [True, True, False]
    md, html = bracket_markdown(data), bracket_html(data)
    assert "drawn by the lot" in md and "drawn by the lot" in html
    assert html.count('<tr class="lot">') == 2
    assert "Champion: not decided yet" in md  # the final is still to play


# --------------------------------------------------------------------------- whole tournaments


@given(st.integers(7, 40), st.integers(1, 7), st.integers(0, 2**63), st.booleans(),
       st.sampled_from([OFFICIAL, POLACCO]))
@settings(max_examples=40, deadline=None)
def test_whole_tournament(n: int, per_table: int, seed: int, duplicate: bool,
                          ruleset: range) -> None:
    t = Tables(n, names(n), ruleset, per_table, seed, duplicate, max_table=6)
    rng = random.Random(seed)
    records: list[dict] = []
    alive = set(range(n))
    for number, plan in enumerate(t.plan):
        games = t.stage(number, records)
        assert games is not None
        assert games[0].index == len(records)
        assert {g.stage for g in games} == {number}
        tables = by_table(games)
        assert sorted(b for s in tables.values() for b in s[0].seating) == sorted(alive)
        assert tuple(len(s[0].seating) for s in tables.values()) == plan.sizes
        records += random_records(games, n, rng)
        stage = t.bracket(records).stages[number]
        if not plan.final:
            advanced = [x for table in stage.tables for x in table.advanced]
            assert all(table.advanced == tuple(s.bot for s in table.standings[:plan.advance])
                       for table in stage.tables)
            alive = {names(n).index(x) for x in advanced}
    assert t.stage(len(t.plan), records) is None
    assert len(records) == t.games
    assert len({r["group"] for r in records}) == len({(r["stage"], r["group"]) for r in records})
    b = t.bracket(records)
    assert b.champion == b.stages[-1].tables[0].standings[0].bot
    assert sorted(b.order) == sorted(names(n)[x] for x in alive)


def test_next_stage_needs_the_whole_stage_before() -> None:
    t, tables = seven()
    games = [g for series in tables.values() for g in series]
    records = random_records(sorted(games, key=lambda g: g.index), 7, random.Random(1))
    with pytest.raises(ValueError, match="19 of its 20 games"):
        t.stage(1, records[:-1])
    final = t.stage(1, records)
    assert final is not None and len(final) == 8
    assert final[0].index == 20 and final[0].table == 0 and final[0].stage == 1


def test_records_that_do_not_match_the_schedule() -> None:
    t, tables = seven()
    wrong = record(tables[0][0], [1, 2, 3, 4], 7)
    wrong["seats"] = wrong["seats"][::-1]
    with pytest.raises(ValueError, match="seats"):
        t.bracket([wrong])
    bad_places = record(tables[0][0], [1, 1, 2, 4], 7)
    with pytest.raises(ValueError, match="places"):
        t.bracket([bad_places])


def test_shared_places_advance_through_the_bracket() -> None:
    """A game of shared places (golf's equal totals) scores them alike; bots level on
    everything advance by the seeded lot, marked as such."""
    t, tables = seven()
    games = sorted((g for series in tables.values() for g in series), key=lambda g: g.index)
    records = [record(g, [1] * len(g.seating), 7) for g in games]  # every game a tie
    b = t.bracket(records)
    assert all(s.score == 1.0 and s.lot for table in b.stages[0].tables
               for s in table.standings)
    final = t.stage(1, records)
    assert final is not None and len({b for g in final for b in g.seating}) == 4
    again = t.bracket(records)
    assert again == b  # the lot is the seed's: the same on resume and verify


# --------------------------------------------------------------------------- the bracket


def test_partial_bracket() -> None:
    t, tables = seven()
    four = tables[0]
    records = random_records(four[:6], 7, random.Random(2))  # one group and a half
    b = t.bracket(records)
    first, final = b.stages[0].tables[0], b.stages[1].tables[0]
    assert (first.played, first.games, first.finished, first.advanced) == (6, 8, False, ())
    assert {s.games for s in first.standings} == {4}  # complete groups only
    assert b.stages[0].tables[1].played == 0
    assert (final.bots, final.size, final.games, final.finished) == ((), 4, 8, False)
    assert b.champion is None and b.order == ()
    text = render_bracket(b)
    assert "6/8 games, unfinished" in text and "waiting for stage 0" in text
    assert "not decided yet" in text


def test_finished_bracket_text_and_json() -> None:
    t = Tables(9, names(9), OFFICIAL, 5, seed=4, max_table=6)
    rng = random.Random(4)
    records: list[dict] = []
    number = 0
    while (games := t.stage(number, records)) is not None:
        records += random_records(games, 9, rng)
        number += 1
    b = t.bracket(records)
    text = render_bracket(b)
    assert f"Champion: {b.champion}" in text
    assert text.count("advances") == 4 and text.count("champion") == 1
    assert all(name in text for name in names(9))
    data = json.loads(json.dumps(bracket_to_dict(b)))
    assert data["schema_version"] == 1 and data["format"] == "tables"
    assert data["champion"] == b.champion and data["order"] == list(b.order)
    assert [len(s["tables"]) for s in data["stages"]] == [2, 1]
    assert data["stages"][0]["tables"][0]["standings"][0]["place"] == 1
    assert data["stages"][1]["final"] and data["stages"][1]["tables"][0]["finished"]
    finalists = Counter(x for s in data["stages"][0]["tables"] for x in s["advanced"])
    assert sorted(finalists) == sorted(data["stages"][1]["tables"][0]["bots"])
