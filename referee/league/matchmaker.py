"""Who plays whom next in a league: games go where they tell most.

The rule (docs/league.md). Each active bot has a *need*: the half-width of its 95 %
interval in Elo (but no less than its games can support: ``BotState.need``), at most
``NEW_NEED``; a bot with no interval yet (no game, too few, or
a bound rather than an estimate) has ``NEW_NEED``. Its *weight* is its need to the fourth
power (its variance squared: what one more game takes off its variance, the Fisher
information of a game being about constant), but at least ``FLOOR`` times the pool's mean
weight, so that every active bot keeps playing (at least a fifth of an even share).
Seats are shared out in proportion to weight by credit (deficit round robin): before
each table every active bot earns ``players * weight / total weight`` credit, every seat
taken costs one, and the bot with the most credit opens the table. A new bot, or one
whose interval is wide, thus plays more; a settled one less, but never none.

The other seats go to the bots whose order against those already seated is most in
doubt: a candidate is drawn (from the league's seeded generator) with probability in
proportion to ``weight * (EPSILON + doubt)``, ``doubt`` being, averaged over the seated
bots, ``2 * min(P, 1 - P)`` with ``P = Phi(elo difference / sqrt(se_a^2 + se_b^2))`` (1 when
either has no interval): about 1 for bots close together or little known, near 0 for
a settled pair far apart, which still meets now and then (``EPSILON``).

Each table is one duplicate group, as in ``run``: every seat order of its bots (rotations
from 4 players up, ``referee.schedule.table_seatings``) on one deal; a group a ``kill -9``
left short is completed first when the league starts again (``unfinished_groups``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from referee.schedule import ScheduledGame, game_seed, table_seatings

NEW_NEED = 400.0  # Elo: the need of a bot with no interval yet, and the most any has
FLOOR = 0.25  # of the mean weight: the least weight any active bot has
EPSILON = 0.05  # the doubt every pair keeps, however settled
MIN_GAMES = 4  # games below which a bot's interval is not trusted yet
# The 95 % half-width (Elo) of a Bradley-Terry rating from one even comparison (se 2 in
# nats); from n comparisons, this over sqrt(n).
SUPPORTED = 1.96 * 2 * 400 / math.log(10)
_NORMAL = NormalDist()


class NotEnoughBots(Exception):
    """Fewer active bots than a table's seats."""


@dataclass(frozen=True)
class BotState:
    """What the matchmaker knows of an active bot: its games and, if it has a finite
    estimate, its Elo and standard error (from the last refit)."""

    games: int = 0
    elo: float | None = None
    se: float | None = None

    @property
    def known(self) -> bool:
        return (self.elo is not None and self.se is not None and self.se > 0
                and self.games >= MIN_GAMES)

    def need(self, players: int) -> float:
        """The half-width of its interval (Elo), but never less than its games can
        support (``SUPPORTED / sqrt(pairs)``): a sandwich error over a few duplicate
        groups can come out near 0 (at the estimate a group's residuals cancel)."""
        if not self.known or not self.se:
            return NEW_NEED
        supported = SUPPORTED / math.sqrt(self.games * (players - 1))
        return min(NEW_NEED, max(1.96 * self.se, supported))


def doubt(a: BotState, b: BotState) -> float:
    """How uncertain the order of ``a`` and ``b`` is: 1 (a coin toss, or unknown) to 0."""
    if not (a.known and b.known):
        return 1.0
    assert a.elo is not None and b.elo is not None and a.se and b.se
    p = _NORMAL.cdf(abs(a.elo - b.elo) / math.hypot(a.se, b.se))
    return 2.0 * (1.0 - p)


class Matchmaker:
    """Chooses tables; keeps each bot's credit from one table to the next."""

    def __init__(self, players: int, league_seed: int, rng: random.Random):
        self.players, self.league_seed, self.rng = players, league_seed, rng
        self.credit: dict[int, float] = {}

    def weights(self, bots: Mapping[int, BotState]) -> dict[int, float]:
        """Each active bot's share of the seats, unnormalised (see the module)."""
        if not bots:
            return {}
        raw = {b: s.need(self.players) ** 4 for b, s in bots.items()}
        floor = FLOOR * sum(raw.values()) / len(raw)
        return {b: max(w, floor) for b, w in raw.items()}

    def table(self, bots: Mapping[int, BotState]) -> list[int]:
        """The next table's bot ids, its opener first. ``bots``: the active bots."""
        if len(bots) < self.players:
            raise NotEnoughBots(f"{len(bots)} active bots; a table needs {self.players}")
        weight = self.weights(bots)
        total = sum(weight.values())
        self.credit = {b: self.credit.get(b, 0.0) + self.players * weight[b] / total
                       for b in bots}  # a retired bot's credit goes with it
        opener = max(bots, key=lambda b: (self.credit[b], self.rng.random()))
        seated = [opener]
        while len(seated) < self.players:
            candidates = [b for b in bots if b not in seated]
            odds = [weight[b] * (EPSILON + sum(doubt(bots[b], bots[s]) for s in seated)
                                 / len(seated)) for b in candidates]
            seated.append(self.rng.choices(candidates, odds)[0])
        for b in seated:
            self.credit[b] -= 1.0
        return seated

    def group(self, bots: Mapping[int, BotState], position: Mapping[int, int],
              first_game: int) -> list[ScheduledGame]:
        """The next table as a duplicate group: its games, numbered from ``first_game``.
        ``position``: bot id -> its position in the run's bot list
        (``ScheduledGame.seating`` holds positions)."""
        seatings = table_seatings(tuple(position[b] for b in self.table(bots)))
        seed = game_seed(self.league_seed, first_game)
        return [ScheduledGame(first_game + k, seating, seed, first_game, len(seatings))
                for k, seating in enumerate(seatings)]


def unfinished_groups(records: Sequence[Mapping[str, Any]], index: Mapping[str, int],
                      first_game: int) -> list[ScheduledGame]:
    """The games that complete the duplicate groups a stop left short (a ``kill -9``
    mid-group): each missing seat order of the group's bots on the group's deal, numbered
    from ``first_game``. ``index``: bot name -> its position in the run's bot list."""
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for rec in records:
        groups.setdefault(rec["group"], []).append(rec)
    out: list[ScheduledGame] = []
    number = first_game
    for group, recs in sorted(groups.items()):
        first = recs[0]
        if len(recs) >= first["group_size"]:
            continue
        played = {tuple(index[s] for s in r["seats"]) for r in recs}
        # Rotations of any of the group's seatings are the group's (every order, to 3).
        for seating in table_seatings(tuple(index[s] for s in first["seats"])):
            if seating not in played:
                out.append(ScheduledGame(number, seating, first["seed"], group,
                                         first["group_size"]))
                number += 1
    return out
