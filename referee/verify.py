"""Re-check a run directory: every journalled game against its transcript, with the engine.

For each line of ``games.jsonl`` the game's transcript (``transcripts.jsonl``) is
replayed on a fresh engine by the game's own replay (``Game.replay``, through the
registry); the replay must reproduce the transcript exactly and end the game, and the
record must agree with it: game and parameters, table size, places (and the order they
give), scores, units (hands, rounds), and its faults (``Game.faults``: the transcript's
faults and forfeits, where a forfeit for ``faults`` ends a run of ``--max-faults``
faults). Each game's seed and seating must also be those the run's schedule
(regenerated from ``config.json``) gives it, and every game the schedule has must be in
the journal: a run that was stopped fails here until ``referee resume`` has finished it
(a ``sprt`` run stops when its test decides: its games must be the schedule's first
ones), unless only its journalled games are to be checked (``referee verify
--unfinished``). A run whose deals are keyed by a secret is replayed with the secret in
its ``secret.key`` (``referee.deals``; a missing one is a SecretError). Journals of
schema 1 (Polish Poker only, ``rules`` and ``rounds``) are read as they are.

>>> from referee.games import load_game
>>> game = load_game("polish-poker")
>>> g = game.new_game(2, seed=3)  # a run whose deals follow the seed alone
>>> while not g.is_over:
...     g.apply(g.current_seat, game.parse_local_action("call" if g.view(
...         g.current_seat)["history"] else "pair A"))
>>> record = {"game": 0, "seed": 3, "game_type": "polish-poker", "params": game.params,
...           "players": 2, "seats": ["alice", "bob"], "order": ["bob", "alice"],
...           "places": [2, 1], "scores": None, "units": 6, "faults": []}
>>> transcript = {"game": 0, "seed": 3, "game_type": "polish-poker", "params": game.params,
...               "players": 2, "events": [e.to_dict() for e in g.events]}
>>> verify_game(record, transcript, Deals()).units
6
>>> record["places"] = [1, 2]
>>> verify_game(record, transcript, Deals())
Traceback (most recent call last):
...
referee.verify.VerifyError: game 0: places [1, 2] but the transcript gives [2, 1]
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboards.inert import brief
from referee.deals import Deals, run_deals
from referee.games import GameError, load_game
from referee.games.api import Outcome
from referee.journal import (
    JournalError,
    JournalRecords,
    game_of,
    games_with_transcripts,
    read_lines,
)
from referee.match import by_place
from referee.rundir import RunFileError, read_config
from referee.schedule import LEGACY_SEED_SHIFT, ScheduledGame
from referee.tournament import make_format


class VerifyError(ValueError):
    """A journalled game that its transcript (or the run's config) does not bear out;
    ``game`` is its index (None when the run directory itself is unusable)."""

    def __init__(self, game: Any, detail: str) -> None:
        super().__init__(detail if game is None else f"game {game}: {detail}")
        self.game = game
        self.detail = detail


@dataclass(frozen=True)
class VerifyReport:
    """What was re-checked: games, the units they held (``unit``: the game's word for
    them, "hands", "rounds"), faults charged."""

    games: int
    units: int
    faults: int
    unit: str = "rounds"


def verify_game(record: dict[str, Any], transcript: dict[str, Any] | None,
                deals: Deals) -> Outcome:
    """Re-check one record against its transcript, dealt as ``deals`` says; the replayed
    outcome, or VerifyError."""
    game = record.get("game")

    def check(ok: bool, detail: str) -> None:
        if not ok:
            raise VerifyError(game, detail)

    check(transcript is not None, "has no transcript")
    assert transcript is not None
    try:
        kind, t_kind = game_of(record), game_of(transcript)
        rules = load_game(*kind)
    except (GameError, JournalError) as exc:
        raise VerifyError(game, brief(str(exc), 300)) from None
    check(kind == t_kind, f"game {brief(kind)} but the transcript says {brief(t_kind)}")
    # ``seats`` and ``faults`` are in transcripts of schema 3 on.
    for key in ("seed", "players", *(k for k in ("seats", "faults") if k in transcript)):
        check(transcript.get(key) == record.get(key),
              f"{key} {brief(repr(record.get(key)))} but the transcript says "
              f"{brief(repr(transcript.get(key)))}")
    seats = record["seats"]
    check(len(seats) == record["players"],
          f"{len(seats)} seats for {brief(record['players'])} players")
    try:
        outcome = rules.replay(record["players"], deals.engine_seed(record["seed"]),
                               transcript["events"])
    except (ValueError, TypeError, KeyError) as exc:
        raise VerifyError(game, f"the transcript does not replay: {brief(str(exc))}") from None
    places = list(outcome.places)
    check(record["places"] == places,
          f"places {brief(record['places'])} but the transcript gives {brief(places)}")
    if "order" in record:
        order = [seats[s] for s in by_place(places, seats)]
        check(record["order"] == order,
              f"order {brief(record['order'])} but the transcript gives {brief(order)}")
    scores = None if outcome.scores is None else list(outcome.scores)
    check(record.get("scores") == scores,
          f"scores {brief(record.get('scores'))} but the transcript gives {brief(scores)}")
    units = record["units"] if "units" in record else record.get("rounds")
    check(units == outcome.units, f"{brief(units)} units (hands, rounds) but the transcript has "
                                  f"{outcome.units}")
    found = rules.faults(transcript["events"])
    listed = [(f["seat"], f["label"]) for f in record["faults"]]
    check(len(listed) == len(found) and all(
        ls == fs and (ll == fl or (fl == "faults" and ll != "crash"))
        for (ls, ll), (fs, fl) in zip(listed, found, strict=False)),
        f"faults {brief(listed)} but the transcript has {brief(found)}")
    check(all(f["bot"] == seats[f["seat"]] for f in record["faults"]),
          "a fault names a bot that is not in its seat")
    return outcome


def scheduled_games(config: dict[str, Any], records: Sequence[dict[str, Any]],
                    done: Collection[Any]) -> dict[int, ScheduledGame]:
    """The games the run's recorded configuration schedules, by index: every stage whose
    games can be known from the journalled results (``records``, the games ``done``; a
    later stage of ``tables`` cannot until the one before it is complete)."""
    fmt = make_format(config)
    out: dict[int, ScheduledGame] = {}
    stage = 0
    while True:
        try:
            games = fmt.stage(stage, records)
        except ValueError:  # the stage before is unfinished, or does not check out
            return out
        if games is None:
            return out
        games = list(games)
        out.update((g.index, g) for g in games)
        if any(g.index not in done for g in games):
            return out
        stage += 1


def verify_run(run_dir: str | Path, complete: bool = True) -> VerifyReport:
    """Re-check every game of the run in ``run_dir``; raises VerifyError at the first
    game that disagrees, and (if ``complete``) for scheduled games that are missing (a
    missing or unreadable journal or configuration is a ValueError too). Without
    ``complete`` the games of a run that was stopped are checked as far as they go."""
    run_dir = Path(run_dir)
    for name in ("games.jsonl", "config.json"):
        if not os.path.lexists(run_dir / name):  # a link there is refused when read
            raise VerifyError(None, f"{run_dir} has no {name}")
    # Streamed: one game's record and transcript at a time (a tables run's later stages
    # need the results, read only then).
    done = {rec.get("game") for rec in read_lines(run_dir / "games.jsonl")}
    try:
        config = read_config(run_dir)
        schedule = scheduled_games(config, JournalRecords(run_dir), done)
        unit = load_game(*game_of(config)).units
    except RunFileError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise VerifyError(None, f"{run_dir / 'config.json'} is not a run's configuration "
                                f"({brief(repr(exc))})") from None
    deals = run_deals(config.get("deals"), run_dir)
    # A run from before deal secrets journalled each seed's whole 63-bit draw.
    shift = LEGACY_SEED_SHIFT if "deals" not in config else 0
    seen: set[int] = set()
    units = faults = games = 0
    for rec, transcript in games_with_transcripts(run_dir):
        games += 1
        game = rec.get("game")
        if game in seen:
            raise VerifyError(game, "is journalled twice")
        seen.add(game)
        if config is not None:
            planned = schedule.get(game)
            if planned is None:
                raise VerifyError(game, "is not a game of this run's schedule")
            seed = rec.get("seed")
            if not isinstance(seed, int) or seed >> shift != planned.seed:
                raise VerifyError(game, f"seed {brief(rec.get('seed'))} is not the run's seed "
                                        "for it")
            names = [config["bots"][b]["name"] for b in planned.seating]
            if rec.get("seats") != names:
                raise VerifyError(game, f"seats {brief(rec.get('seats'))} but the schedule "
                                        f"gives {brief(names)}")
        try:
            outcome = verify_game(rec, transcript, deals)
        except (KeyError, TypeError) as exc:
            raise VerifyError(game, f"malformed record or transcript: {brief(repr(exc))}"
                              ) from None
        units += outcome.units
        faults += len(rec["faults"])
    if complete:
        _check_complete(config, schedule, seen, run_dir)
    return VerifyReport(games=games, units=units, faults=faults, unit=unit)


def _check_complete(config: dict[str, Any], schedule: dict[int, ScheduledGame],
                    journalled: set[int], run_dir: Path) -> None:
    """VerifyError unless the journal holds every game the schedule has (for ``sprt``:
    its first games, as many as there are, and at least one)."""
    if not journalled:
        raise VerifyError(None, f"the journal of {run_dir} holds no games")
    due = sorted(schedule)
    if config.get("format") == "sprt":
        due = due[:len(journalled)]
    missing = [g for g in due if g not in journalled]
    if missing:
        listed = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
        raise VerifyError(None, f"{len(missing)} of the {len(due)} games the schedule has are "
                                f"missing from the journal (games {listed}); a run that was "
                                f"stopped is finished by `referee resume {run_dir}`, or "
                                "checked as far as it goes with --unfinished")
