"""A report's sufficient statistics, added up a duplicate group at a time: the
leaderboard of a million games without reading them again.

:func:`leaderboards.build_report` reads every record. A league's records arrive a whole
duplicate group at a time (a group counts only once complete, as there) and are never
taken back, and everything the report shows is a sum over its groups:

* per bot: games, wins, shared wins, the sum of its places and of its scores, faults;
* per pair of bots: games together and how often each finished ahead: the head-to-head
  table, and the fit's ``wins`` matrix (ahead, plus half the shared places);
* per cluster *shape* (its bots, and the games each pair of them played together: in a
  league every group of one table has the same shape): the number of clusters, and the
  sum and the sum of outer products of their pair-result vectors ``w_c`` (per pair, the
  first bot's results: 1 ahead, 1/2 shared). The clustered sandwich's ``S = sum_c s_c
  s_c^T``, with ``s_c = M (w_c - n * p(theta))`` (``M``: pairs to bots, +1 first, -1
  second; ``n``: the shape's games per pair), expands into exactly these at any ``theta``;
* the records' own settings (game, rules, parameters, table size), and the records
  counted and left out.

:func:`report_from_sums` fits the same Bradley-Terry model with the same clustered
errors (``leaderboards.elo.fit_wins``) and gives the same report as ``build_report``
of the records, to rounding, at a cost in bots and shapes, not games. One thing differs:
``inputs_hash``. ``build_report``'s is the sha256 of every record in canonical order,
which no sum keeps; here it is :func:`set_digest`, the sum modulo 2**256 of each counted
record's sha256 (of the same canonical JSON), prefixed ``sum:``: a hash of the same
set of records, computed another way.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leaderboards.elo import RatingError, _sigmoid, fit_wins
from leaderboards.report import (
    RECORD_SETTINGS,
    HeadToHead,
    Report,
    ReportError,
    ReportRow,
    _canonical,
    _check_record,
    _group_key,
    _rated_row,
    _result,
)
from leaderboards.standings import Standing

DIGEST_MOD = 1 << 256


@dataclass(frozen=True)
class BotSums:
    """One bot's standings sums."""

    games: int = 0
    wins: int = 0
    shared_wins: int = 0
    place_sum: int = 0
    score_sum: float = 0.0

    def __add__(self, other: BotSums) -> BotSums:
        return BotSums(self.games + other.games, self.wins + other.wins,
                       self.shared_wins + other.shared_wins,
                       self.place_sum + other.place_sum, self.score_sum + other.score_sum)


@dataclass(frozen=True)
class Shape:
    """A cluster's bots (sorted) and, per pair of them (``pairs(len(bots))`` order), the
    games that pair played together."""

    bots: tuple[str, ...]
    together: tuple[int, ...]


@dataclass(frozen=True)
class GroupSums:
    """What one complete cluster (a duplicate group, or a record without one) adds."""

    key: str  # the cluster: its group and seed, as ``complete_groups`` tells them apart
    records: int
    shape: Shape
    results: tuple[float, ...]  # per pair of the shape: the first bot's results summed
    bots: dict[str, BotSums]
    ahead: dict[tuple[str, str], tuple[int, int, int]]  # (a, b), a < b: together, a, b
    faults: dict[tuple[str, str], int]  # (bot, label) -> faults
    settings: dict[str, Any]  # the records' RECORD_SETTINGS
    digest: int


@dataclass
class ShapeSums:
    """The clusters of one shape: how many, the sum of their result vectors and of their
    outer products."""

    clusters: int
    sw: np.ndarray
    sww: np.ndarray


@dataclass
class Sums:
    """Everything :func:`report_from_sums` needs; a mutable accumulator (``add``)."""

    bots: dict[str, BotSums] = field(default_factory=dict)
    ahead: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)
    faults: dict[tuple[str, str], int] = field(default_factory=dict)
    shapes: dict[Shape, ShapeSums] = field(default_factory=dict)
    settings: dict[str, Any] | None = None  # the records' own, from the first cluster
    records: int = 0  # records counted (in complete clusters)
    digest: int = 0

    def add(self, group: GroupSums) -> None:
        """Count one complete cluster; ReportError if its records' settings differ from
        those counted before (one Elo scale over two games would mean nothing)."""
        self.settings = check_settings(self.settings, group)
        for bot, s in group.bots.items():
            self.bots[bot] = self.bots.get(bot, BotSums()) + s
        for pair, (n, a, b) in group.ahead.items():
            n0, a0, b0 = self.ahead.get(pair, (0, 0, 0))
            self.ahead[pair] = (n0 + n, a0 + a, b0 + b)
        for key, n in group.faults.items():
            self.faults[key] = self.faults.get(key, 0) + n
        w = np.array(group.results)
        held = self.shapes.get(group.shape)
        if held is None:
            self.shapes[group.shape] = ShapeSums(1, w, np.outer(w, w))
        else:
            held.clusters += 1
            held.sw = held.sw + w
            held.sww = held.sww + np.outer(w, w)
        self.records += group.records
        self.digest = (self.digest + group.digest) % DIGEST_MOD


def pairs(n: int) -> list[tuple[int, int]]:
    """The pairs of ``n`` seats, in the order a shape's vectors hold them."""
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def cluster_key(rec: Mapping[str, Any]) -> str:
    """The cluster a record belongs to, as text: its group and seed, or the record alone
    (by its game number) if it has no group."""
    if rec.get("group") is None:
        return _canonical(["record", rec.get("game")])
    return _canonical(["group", *_group_key(rec)])


def cluster_size(rec: Mapping[str, Any]) -> int:
    """The records its cluster has when complete."""
    return rec["group_size"] if rec.get("group") is not None else 1


def record_digest(rec: Mapping[str, Any]) -> int:
    """The sha256 of the record's canonical JSON (as ``build_report`` hashes it), as an
    integer."""
    return int.from_bytes(hashlib.sha256(_canonical(_result(rec)).encode()).digest(), "big")


def set_digest(value: int) -> str:
    """The report's ``inputs_hash`` for a digest sum."""
    return f"sum:{value:064x}"


def check_settings(held: dict[str, Any] | None, group: GroupSums) -> dict[str, Any]:
    """The settings counted so far, given a new cluster: ReportError if they differ."""
    if held is not None and _canonical(held) != _canonical(group.settings):
        raise ReportError(f"the records mix settings ({held} and {group.settings}); a "
                          "league's games share theirs")
    return group.settings


def group_sums(records: Sequence[Mapping[str, Any]]) -> GroupSums:
    """The sums of one complete cluster's records (ReportError for one that is not a
    journal record, or a cluster whose records differ in settings)."""
    for i, rec in enumerate(records):
        _check_record(i, rec)
    keys = {cluster_key(rec) for rec in records}
    if len(keys) != 1:
        raise ReportError(f"records of {len(keys)} clusters given as one")
    settings = [{k: rec[f] for k, f in RECORD_SETTINGS.items() if f in rec} for rec in records]
    if any(_canonical(s) != _canonical(settings[0]) for s in settings):
        raise ReportError("the records of one group differ in settings")
    bots = tuple(sorted({b for rec in records for b in rec["seats"]}))
    index = {b: i for i, b in enumerate(bots)}
    slots = {p: k for k, p in enumerate(pairs(len(bots)))}
    together = [0] * len(slots)
    results = [0.0] * len(slots)
    ahead = [[0, 0] for _ in slots]
    per_bot: dict[str, BotSums] = {}
    faults: Counter[tuple[str, str]] = Counter()
    digest = 0
    for rec in records:
        seats, places = rec["seats"], rec["places"]
        held = Counter(places)
        for bot, place in zip(seats, places, strict=True):
            behind = sum(1 for other in places if other > place)
            per_bot[bot] = per_bot.get(bot, BotSums()) + BotSums(
                1, int(place == 1 and held[1] == 1), int(place == 1 and held[1] > 1), place,
                (behind + 0.5 * (held[place] - 1)) / (len(places) - 1))
        placed = sorted(zip((index[b] for b in seats), places, strict=True))
        for x, (i, pi) in enumerate(placed):
            for j, pj in placed[x + 1:]:
                k = slots[(i, j)]
                together[k] += 1
                results[k] += 1.0 if pi < pj else 0.5 if pi == pj else 0.0
                ahead[k][0] += pi < pj
                ahead[k][1] += pj < pi
        for f in rec["faults"]:
            faults[(f["bot"], f["label"])] += 1
        digest += record_digest(rec)
    return GroupSums(
        keys.pop(), len(records), Shape(bots, tuple(together)), tuple(results), per_bot,
        {(bots[i], bots[j]): (together[k], *ahead[k]) for (i, j), k in slots.items()
         if together[k]},
        dict(faults), settings[0], digest % DIGEST_MOD)


def sums_of(records: Iterable[Mapping[str, Any]]) -> Sums:
    """The sums of the complete clusters among ``records`` (as ``complete_groups``)."""
    clusters: dict[str, list[Mapping[str, Any]]] = {}
    for rec in records:
        clusters.setdefault(cluster_key(rec), []).append(rec)
    sums = Sums()
    for recs in clusters.values():
        games = {r.get("game") for r in recs}
        if len(games) >= cluster_size(recs[0]):
            sums.add(group_sums(recs))
    return sums


def report_from_sums(sums: Sums, settings: Mapping[str, Any], recorded: int,
                     bots: Iterable[str] = ()) -> Report:
    """``build_report(records, settings, bots=bots)`` from the records' sums
    (``recorded``: the records in all, those of incomplete groups included); the same
    report to rounding, with :func:`set_digest` as its ``inputs_hash``."""
    listed = tuple(bots)
    if not sums.records:
        raise ReportError("no finished games to report on" if not recorded else
                          "no complete duplicate group to report on yet")
    from_records = dict(sums.settings or {})
    for key, value in from_records.items():
        if key in settings and _canonical(settings[key]) != _canonical(value):
            raise ReportError(f"settings say {key} {settings[key]!r} but the records "
                              f"have {value!r}")
    names = sorted(b for b, s in sums.bots.items() if s.games)
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    wins = np.zeros((n, n))
    for (a, b), (together, ahead_a, ahead_b) in sums.ahead.items():
        shared = together - ahead_a - ahead_b
        wins[index[a], index[b]] += ahead_a + 0.5 * shared
        wins[index[b], index[a]] += ahead_b + 0.5 * shared
    counts = np.array([sums.bots[b].games for b in names])
    try:
        fit = fit_wins(names, wins, counts, sums.records,
                       lambda theta, group_of: _meat(sums.shapes, index, theta, group_of))
    except RatingError as exc:
        raise ReportError(str(exc)) from exc

    table = {b: _standing(b, sums) for b in [*names, *listed]}
    rows = [_rated_row(rank, fit, table[name], None) for rank, name in enumerate(fit.names, 1)]
    rows += [ReportRow(rank=None, bot=name, elo=None, ci95=None, se=None, games=0, score=None,
                       mean_place=None, wins=0, los_next=None, faults={})
             for name in dict.fromkeys(listed) if name not in fit.ratings]
    order = tuple(r.bot for r in rows)
    return Report({**settings, **from_records, "anchor": fit.anchor}, tuple(rows), fit,
                  _head_to_head(sums, order), set_digest(sums.digest), sums.records,
                  recorded - sums.records)


def _standing(bot: str, sums: Sums) -> Standing:
    s = sums.bots.get(bot, BotSums())
    faults = {label: n for (b, label), n in sorted(sums.faults.items()) if b == bot}
    return Standing(bot, s.games, s.wins, s.place_sum / s.games if s.games else 0.0,
                    s.score_sum / s.games if s.games else 0.0, faults, s.shared_wins)


def _head_to_head(sums: Sums, names: tuple[str, ...]) -> HeadToHead:
    index = {name: i for i, name in enumerate(names)}
    matrix = [[(0, 0)] * len(names) for _ in names]
    for (a, b), (together, ahead_a, ahead_b) in sums.ahead.items():
        if a in index and b in index:
            matrix[index[a]][index[b]] = (together, ahead_a)
            matrix[index[b]][index[a]] = (together, ahead_b)
    return HeadToHead(names, tuple(tuple(row) for row in matrix))


def _meat(shapes: Mapping[Shape, ShapeSums], index: Mapping[str, int], theta: np.ndarray,
          group_of: np.ndarray) -> np.ndarray:
    """``S = sum_c s_c s_c^T`` from the shapes' sums, the shapes of one table size at a
    time as arrays: per shape, ``M D (sww - sw e^T - e sw^T + m e e^T) D M^T`` with ``e =
    n * p(theta)`` and ``D`` keeping the pairs inside one group (see the module doc)."""
    n = len(theta)
    meat = np.zeros((n, n))
    by_size: dict[int, list[tuple[Shape, ShapeSums]]] = {}
    for shape, held in shapes.items():
        by_size.setdefault(len(shape.bots), []).append((shape, held))
    for size, items in by_size.items():
        ij = np.array(pairs(size))
        bots = np.array([[index[b] for b in shape.bots] for shape, _ in items])  # K x size
        first, second = bots[:, ij[:, 0]], bots[:, ij[:, 1]]  # K x d
        together = np.array([shape.together for shape, _ in items], dtype=float)
        m = np.array([held.clusters for _, held in items], dtype=float)
        sw = np.stack([held.sw for _, held in items])
        sww = np.stack([held.sww for _, held in items])
        e = together * _sigmoid(theta[first] - theta[second])
        c = (sww - sw[:, :, None] * e[:, None, :] - e[:, :, None] * sw[:, None, :]
             + m[:, None, None] * e[:, :, None] * e[:, None, :])
        inside = (group_of[first] == group_of[second]).astype(float)
        c *= inside[:, :, None] * inside[:, None, :]
        incidence = np.zeros((size, len(ij)))  # M: +1 for a pair's first, -1 its second
        incidence[ij[:, 0], np.arange(len(ij))] = 1.0
        incidence[ij[:, 1], np.arange(len(ij))] = -1.0
        per_shape = np.einsum("id,kde,je->kij", incidence, c, incidence)
        np.add.at(meat, (bots[:, :, None], bots[:, None, :]), per_shape)
    return meat
