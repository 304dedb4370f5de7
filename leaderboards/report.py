"""The leaderboard of a set of journal records: Elo ratings with their 95 % intervals next to
the plain standings, the game's own metric (optional), a head-to-head table, and the
settings they describe.

A report is a function of the *set* of records: they are put in a canonical order (by their
canonical JSON) before anything is computed, so merging the same runs in any order gives the
same report, bit for bit, and the same ``inputs_hash``. The canonical form of a record
leaves out its timing (``VOLATILE_FIELDS``), so a run resumed after an interruption reports
exactly as one that never was. The hash is the sha256 of the canonical JSON (``sort_keys``,
no spaces, ASCII) of the list of records in that order::

    sha256(json.dumps(sorted_results, sort_keys=True, separators=(",", ":")).encode())

Duplicate deals: only complete groups count (:func:`complete_groups`); ``n_left_out``
says how many records of incomplete groups were left out. The games of a group replay one
deal and are not independent: the Elo errors and the metric's interval are clustered by
group (:func:`cluster_keys`).

Records. ``schema_version`` 1 (Polish Poker: strict ``places`` and ``order``, ``rules``)
and 2 (any game: ``places`` may be shared, ``[1, 1, 3]``; ``scores`` per seat or null;
``units``, the game's hands or rounds; ``order`` and ``rules`` optional) are read alike:
the Elo and the standings come from ``seats`` and ``places``. ``metric``
(``leaderboards.metric.Metric``, e.g. ``game.metric``) adds each bot's value of the game's
own measure with its 95 % interval (:mod:`leaderboards.metric`); it needs ``scores`` in
every record. None (the default, and Polish Poker's) shows none.

Settings. The game, its ruleset or parameters and the table size come from the records (the
journal is the source of truth); anything else the caller passes in ``settings`` (time policy,
seeds, number of runs). Records that differ in game, rules or table size are refused unless
``allow_mixed``: one Elo scale over different games would not mean one thing. A mixed setting is
then the tuple of its distinct values. :func:`merge_settings` merges the settings of several
runs under the same rule, the time policy included.

Games, wins, mean place, score and faults are those of :func:`leaderboards.standings`;
Elo, its interval and the likelihood of superiority those of :func:`leaderboards.fit_elo`.

>>> recs = [{"schema_version": 1, "game": g, "game_type": "polish-poker", "rules": "official",
...          "players": 2, "seats": ["a", "b"], "order": order,
...          "places": [order.index("a") + 1, order.index("b") + 1], "faults": []}
...         for g, order in enumerate([["a", "b"], ["a", "b"], ["a", "b"], ["b", "a"]])]
>>> report = build_report(recs, {"move_ms": 1000, "bank_ms": 5000, "runs": 1})
>>> [(r.rank, r.bot, round(r.elo, 2), r.wins, r.score) for r in report.rows]
[(1, 'a', 95.42, 3, 0.75), (2, 'b', -95.42, 1, 0.25)]
>>> report.head_to_head.matrix[0][1]  # a vs b: 4 games together, a ahead in 3
(4, 3)
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leaderboards.elo import Bound, EloFit, RatingError, fit_elo
from leaderboards.inert import brief
from leaderboards.metric import Metric, MetricError, MetricEstimate, metric_by_bot
from leaderboards.standings import Standing, standings

RECORD_SCHEMA_VERSIONS = (1, 2)
# Settings read from the records (those that any record has): settings key -> journal field.
RECORD_SETTINGS = {"game": "game_type", "rules": "rules", "params": "params",
                   "players": "players"}
# Settings that merged runs must share unless mixing is allowed: they change the game itself.
RUN_SETTINGS = ("game", "rules", "params", "players", "move_ms", "bank_ms", "max_faults")
# Fields that differ between two plays of the same game: left out of the canonical form.
VOLATILE_FIELDS = ("timing", "started_at", "duration_s")
_SORT_PREFIX = 48  # characters of a record's canonical JSON sorted on first
_REQUIRED_FIELDS = ("schema_version", "game_type", "players", "seats", "places", "faults")


class ReportError(ValueError):
    """The records cannot make one report: none at all, a record that is not a journal
    record, the same record twice (a run given twice), settings that differ between runs
    without ``allow_mixed``, settings that contradict the records, or an anchor that
    played no game."""


@dataclass(frozen=True)
class ReportRow:
    """One bot. ``rank``, ``elo``, ``ci95``, ``se`` and ``los_next`` are None for a bot
    with no game; so are ``score``, ``mean_place`` and ``metric``. ``score`` is the share
    of opponents finished ahead of (0..1, a shared place half), ``wins`` first places held
    alone and ``shared_wins`` shared ones, ``faults`` counts by label, ``bound``/``note``
    are the fit's flags for degenerate data (see :mod:`leaderboards.elo`), and ``metric``
    the game's own measure when the report has one."""

    rank: int | None
    bot: str
    elo: float | None
    ci95: float | None
    se: float | None
    games: int
    score: float | None
    mean_place: float | None
    wins: int
    los_next: float | None
    faults: dict[str, int]
    bound: Bound | None = None
    note: str | None = None
    shared_wins: int = 0
    metric: MetricEstimate | None = None


@dataclass(frozen=True)
class HeadToHead:
    """``matrix[i][j] = (games together, games in which names[i] finished ahead of
    names[j])``; the diagonal is (0, 0). Names in the report's row order. The games they
    shared a place are ``together - ahead[i][j] - ahead[j][i]``."""

    names: tuple[str, ...]
    matrix: tuple[tuple[tuple[int, int], ...], ...]


@dataclass(frozen=True, eq=False)
class Report:
    """A leaderboard: ``rows`` best first (unrated bots last), the ``fit`` they come from,
    the ``settings`` they describe (including ``anchor``: ``(bot, elo)`` or None for the
    pool mean), ``inputs_hash`` and ``n_games`` of the records used, and the ``metric``
    shown beside the Elo (None: none)."""

    settings: dict[str, Any]
    rows: tuple[ReportRow, ...]
    fit: EloFit
    head_to_head: HeadToHead
    inputs_hash: str
    n_games: int
    n_left_out: int = 0  # records of incomplete duplicate groups
    metric: Metric | None = None


def build_report(records: Sequence[Mapping[str, Any]], settings: Mapping[str, Any],
                 anchor: tuple[str, float] | None = None, bots: Iterable[str] = (),
                 allow_mixed: bool | Collection[str] = False,
                 metric: Metric | None = None) -> Report:
    """The report of journal records (``games.jsonl`` lines, of one run or several).

    ``settings``: what the records do not say (``move_ms``, ``bank_ms``, ``runs``, ...);
    a ``game``, ``rules`` or ``players`` given there must agree with the records.
    ``anchor``: put that bot at that Elo instead of centring on the pool mean. ``bots``:
    names listed even if they played no game (as unrated rows, in this order, last).
    ``allow_mixed``: rate records of different games, rules or table sizes together (True),
    or differing only in the settings named (e.g. ``("players",)`` for a tournament whose
    tables differ in size). ``metric``: the game's own measure to show beside the Elo
    (``game.metric``), or None for none."""
    listed = tuple(bots)
    for i, rec in enumerate(records):
        _check_record(i, rec)
    recs = _canonical_order(complete_groups(records))
    if not recs:
        raise ReportError("no finished games to report on" if not records else
                          "no complete duplicate group to report on yet")
    digest = hashlib.sha256(b"[")
    before = None
    for i, rec in enumerate(recs):
        text = _canonical(_result(rec))
        if text == before:
            raise ReportError(f"the same record (game {brief(rec.get('game'))}) appears twice: "
                              "was a run given twice?")
        digest.update(f"{',' if i else ''}{text}".encode())
        before = text
    digest.update(b"]")

    from_records = {key: _distinct([rec.get(field) for rec in recs])
                    for key, field in RECORD_SETTINGS.items()
                    if any(field in rec for rec in recs)}
    mixed = {k: v for k, v in from_records.items() if isinstance(v, tuple)
             and not (allow_mixed is True or (allow_mixed and k in allow_mixed))}
    if mixed:
        raise ReportError(f"the records mix {_describe(mixed)}; rate them apart, or pass "
                          "allow_mixed=True to put them on one scale")
    for key, value in from_records.items():
        if key in settings and _canonical(settings[key]) != _canonical(value):
            raise ReportError(f"settings say {key} {brief(repr(settings[key]))} but the records "
                              f"have {brief(repr(value))}")

    placings = Placings(recs)
    clusters = cluster_keys(recs)
    try:
        fit = fit_elo(placings, anchor, clusters)
        measured = {} if metric is None else metric_by_bot(recs, clusters, metric)
    except (RatingError, MetricError) as exc:
        raise ReportError(str(exc)) from exc

    table = {s.bot: s for s in standings(recs, listed)}
    rows = [_rated_row(rank, fit, table[name], measured.get(name))
            for rank, name in enumerate(fit.names, 1)]
    rows += [ReportRow(rank=None, bot=name, elo=None, ci95=None, se=None, games=0, score=None,
                       mean_place=None, wins=0, los_next=None, faults=table[name].faults)
             for name in dict.fromkeys(listed) if name not in fit.ratings]
    names = tuple(r.bot for r in rows)
    return Report({**settings, **from_records, "anchor": fit.anchor}, tuple(rows), fit,
                  _head_to_head(placings, names), digest.hexdigest(),
                  len(recs), len(records) - len(recs), metric)


def complete_groups(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records whose duplicate group is complete, in their order. A group is the games
    of one run that replay one deal seed (``group``, ``group_size`` and ``seed`` in the
    journal); it counts only when all its games are in, so that the luck of the cards
    cancels out. Groups are told apart by group and seed, because merged runs number
    their groups alike; a game recorded twice counts once. Records without a group stand
    alone. ReportError for a record with a group but no group size.

    >>> recs = [{"game": 0, "seed": 5, "group": 0, "group_size": 2},
    ...         {"game": 2, "seed": 8, "group": 1, "group_size": 2},
    ...         {"game": 1, "seed": 5, "group": 0, "group_size": 2}, {"game": 3}]
    >>> [r["game"] for r in complete_groups(recs)]
    [0, 1, 3]
    """
    recs = list(records)
    games: dict[tuple[Any, Any], set[Any]] = {}
    for rec in recs:
        if rec.get("group") is None:
            continue
        if "group_size" not in rec:
            raise ReportError(f"the record of game {brief(rec.get('game'))} has a group but no "
                              "group_size")
        games.setdefault(_group_key(rec), set()).add(rec.get("game"))
    return [rec for rec in recs if rec.get("group") is None
            or len(games[_group_key(rec)]) >= rec["group_size"]]


def cluster_keys(records: Sequence[Mapping[str, Any]]) -> list[Hashable]:
    """Each record's cluster for errors and intervals: its duplicate group (group and
    seed, as in :func:`complete_groups`), or the record alone if it has no group.

    >>> cluster_keys([{"group": 0, "seed": 5}, {"game": 7}, {"group": 0, "seed": 5}])
    [('group', 0, 5), ('record', 1), ('group', 0, 5)]
    """
    held: dict[Hashable, Hashable] = {}  # one key per group, shared by its games
    keys: list[Hashable] = []
    for i, rec in enumerate(records):
        if rec.get("group") is None:
            keys.append(("record", i))
        else:
            key = ("group", *_group_key(rec))
            keys.append(held.setdefault(key, key))
    return keys


def merge_settings(per_run: Sequence[Mapping[str, Any]],
                   allow_mixed: bool = False) -> dict[str, Any]:
    """The settings of several runs (say each run's ``config.json``) as one mapping for
    :func:`build_report`: a value the runs share stays, one they differ in becomes the
    tuple of its distinct values, and ``runs`` is the number of runs. Differing in one of
    ``RUN_SETTINGS`` (game, rules, table size, time policy, fault limit) is a ReportError
    unless ``allow_mixed``."""
    keys = dict.fromkeys(key for run in per_run for key in run)
    merged = {key: _distinct([run.get(key) for run in per_run]) for key in keys}
    clash = {k: merged[k] for k in RUN_SETTINGS if isinstance(merged.get(k), tuple)}
    if clash and not allow_mixed:
        raise ReportError(f"the runs differ in {_describe(clash)}; rate them apart, or pass "
                          "allow_mixed=True to put them on one scale")
    return {**merged, "runs": len(per_run)}


class Placings(Sequence[dict[str, int]]):
    """Each record's ``{bot: place}``, made when asked for: a hundred thousand of them at
    once would weigh more than the records."""

    def __init__(self, records: Sequence[Mapping[str, Any]]):
        self._records = records

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        rec = self._records[i]
        return dict(zip(rec["seats"], rec["places"], strict=True))


# --------------------------------------------------------------------------- internals


def _canonical_order(records: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records sorted by their canonical JSON (``_result``), without holding every
    record's text at once: by the first ``_SORT_PREFIX`` characters (the game number
    comes early, so these mostly differ), then records whose prefixes are equal by
    their whole text."""
    prefix = [_canonical(_result(rec))[:_SORT_PREFIX].encode() for rec in records]
    order = sorted(range(len(records)), key=prefix.__getitem__)
    out: list[Mapping[str, Any]] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and prefix[order[end]] == prefix[order[start]]:
            end += 1
        tied = [records[i] for i in order[start:end]]
        out += tied if end - start == 1 else sorted(tied, key=lambda r: _canonical(_result(r)))
        start = end
    return out


def _check_record(index: int, rec: Mapping[str, Any]) -> None:
    missing = [f for f in _REQUIRED_FIELDS if f not in rec]
    if missing:
        raise ReportError(f"record {index} is not a journal record: no {', '.join(missing)}")
    if rec["schema_version"] not in RECORD_SCHEMA_VERSIONS:
        raise ReportError(f"record {index} has schema_version {brief(rec['schema_version'])}; "
                          f"this reads {', '.join(map(str, RECORD_SCHEMA_VERSIONS))}")
    # Every column comes from `seats` and `places`; `players`, `order`, `scores` and
    # `units` must tell the same story, or the columns of a row would contradict each other.
    where = f"record {index} (game {brief(rec.get('game'))})"
    seats, places, n = rec["seats"], rec["places"], rec["players"]
    if not (len(seats) == len(places) == n
            and all(type(p) is int and 1 <= p <= n for p in places)):
        raise ReportError(f"{where}: players {brief(n)}, seats {brief(seats)} and places "
                          f"{brief(places)} disagree")
    order = rec.get("order")
    if order is not None:
        place_of = dict(zip(seats, places, strict=True))
        ranked = [place_of.get(bot, 0) for bot in order]
        if sorted(order) != sorted(seats) or ranked != sorted(ranked):
            raise ReportError(f"{where}: seats {brief(seats)}, places {brief(places)} and order "
                              f"{brief(order)} "
                              "disagree")
    scores = rec.get("scores")
    if scores is not None and not (
            len(scores) == n and all(type(x) in (int, float) and math.isfinite(x)
                                     for x in scores)):
        raise ReportError(f"{where}: scores {brief(scores)} are not one number per seat")
    units = rec.get("units", 1)
    if type(units) is not int or units < 1:
        raise ReportError(f"{where}: units {brief(repr(units))} is not a positive integer")


def _result(rec: Mapping[str, Any]) -> dict[str, Any]:
    """A record without what varies between two plays of the same game (its timing), so
    that a resumed run reports exactly as one never interrupted."""
    return {k: v for k, v in rec.items() if k not in VOLATILE_FIELDS}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _distinct(values: list[Any]) -> Any:
    """The one value, or the tuple of the distinct values, sorted (so the same whatever
    the order of the runs)."""
    if all(v == values[0] for v in values):  # the usual case, without encoding every value
        return values[0]
    unique = {_canonical(v): v for v in values}
    try:
        return tuple(sorted(unique.values()))
    except TypeError:  # values that do not compare (dicts, mixed types): by their JSON text
        return tuple(unique[k] for k in sorted(unique))


def _describe(mixed: Mapping[str, tuple[Any, ...]]) -> str:
    return "; ".join(f"{key} ({', '.join(map(str, values))})" for key, values in mixed.items())


def _group_key(rec: Mapping[str, Any]) -> tuple[Any, Any]:
    return rec["group"], rec.get("seed")


def _rated_row(rank: int, fit: EloFit, s: Standing,
               measured: MetricEstimate | None) -> ReportRow:
    r = fit.ratings[s.bot]
    return ReportRow(rank, s.bot, r.elo, r.ci95, r.se, s.games, s.score, s.mean_place, s.wins,
                     r.los_next, s.faults, r.bound, r.note, s.shared_wins, measured)


def _head_to_head(placings: Iterable[dict[str, int]], names: tuple[str, ...]) -> HeadToHead:
    index = {name: i for i, name in enumerate(names)}
    together = [[0] * len(names) for _ in names]
    ahead = [[0] * len(names) for _ in names]
    for placing in placings:
        seats = [(index[bot], place) for bot, place in placing.items()]
        for k, (i, pi) in enumerate(seats):
            for j, pj in seats[k + 1:]:
                together[i][j] += 1
                together[j][i] += 1
                ahead[i][j] += pi < pj
                ahead[j][i] += pj < pi
    return HeadToHead(names, tuple(tuple(zip(t, a, strict=True))
                                   for t, a in zip(together, ahead, strict=True)))
