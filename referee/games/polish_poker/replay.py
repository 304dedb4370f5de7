"""Rebuild a Polish Poker game from its transcript, checking every event on the way.

The transcript is the list of ``event.to_dict()`` of a game. ``replay`` re-drives a fresh
engine with the same ruleset, players and seed: the engine deals each round itself from
the seed (a deal that differs from the transcript's means the transcript did not come
from this seed), the transcript's player events become engine calls (``declared`` ->
a raise, a non-automatic ``called`` -> a call, a ``round_lost`` for a fault -> ``fault``,
an ``eliminated`` for a forfeit -> ``forfeit``), and every event the engine emits must
equal the transcript's event at the same index. Everything else in the transcript
(deals, reveals, resolutions, eliminations by cards, the end) must be what the engine
emits by itself.

>>> from referee.games.polish_poker.engine import PolishPoker
>>> g = PolishPoker("polacco", 3, seed=11)
>>> _ = g.apply("pair 2"), g.apply("call")
>>> replay("polacco", 3, 11, [e.to_dict() for e in g.events]).events == g.events
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.games.polish_poker.engine import (
    FORFEIT_PREFIX,
    RESOLUTION_REASONS,
    Call,
    EngineError,
    PolishPoker,
    Raise,
)
from referee.games.polish_poker.events import (
    Called,
    Declared,
    Eliminated,
    Event,
    RoundLost,
    event_from_dict,
)


class ReplayMismatch(ValueError):
    """The transcript is not what this ruleset, player count and seed produce.

    ``index`` is the first transcript event that differs; ``expected`` is the
    transcript's event there and ``actual`` the engine's (either may be None when one
    side has no event at that index).
    """

    def __init__(self, index: int, expected: Any, actual: Any, detail: str) -> None:
        super().__init__(f"event {index}: {detail}\n  transcript: {expected}\n  engine:     "
                         f"{actual}")
        self.index = index
        self.expected = expected
        self.actual = actual


def _difference(expected: Event, actual: Event) -> str:
    if type(expected) is not type(actual):
        return f"transcript has {type(expected).__name__}, engine emitted {type(actual).__name__}"
    exp, act = expected.to_dict(), actual.to_dict()
    return difference(act, exp) or "differs in " + ", ".join(k for k in exp if exp[k] != act[k])


def difference(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str | None:
    """Why the engine's event (``to_dict``) differs from the transcript's where an older
    journal or another seed explains it; None otherwise."""
    keys = [k for k in theirs if theirs[k] != ours.get(k)]
    if theirs.get("type") == ours.get("type") == "game_over":
        return ("the finishing order differs; journals written before forfeited seats "
                "were placed below every other seat differ here (JOURNAL.md)")
    if theirs.get("type") != "dealt" or ours.get("type") != "dealt":
        return None
    if "hands" in keys:
        return (f"round {theirs['round']}: the deal differs; the transcript was not "
                "produced by this seed")
    if keys == ["opener"]:
        return (f"round {theirs['round']} is opened by seat {ours['opener']}, not "
                f"{theirs['opener']}; journals written before the opener rule after a "
                "forfeit changed differ here (JOURNAL.md)")
    return None


def drive(engine: PolishPoker, raw: Mapping[str, Any]) -> bool:
    """``_drive`` for a transcript event (its ``to_dict`` form); ValueError for an
    automatic call the engine did not make (journals before only five A was)."""
    try:
        event = event_from_dict(raw, engine.ruleset)
        if isinstance(event, Called) and event.automatic:
            raise ValueError(_AUTOMATIC)
        return _drive(engine, event)
    except EngineError as exc:  # not every engine error is a ValueError
        raise ValueError(str(exc)) from None


_AUTOMATIC = ("an automatic call, but only five A is called automatically; journals "
              "written before that fix called every five (JOURNAL.md)")


def _drive(engine: PolishPoker, event: Event) -> bool:
    """Make the engine do what the transcript says a player or the harness did.

    False when ``event`` is one the engine emits by itself (so nothing is driven).
    """
    if isinstance(event, Declared):
        engine.apply(Raise(event.declaration), seat=event.seat)
    elif isinstance(event, Called) and not event.automatic:
        engine.apply(Call(), seat=event.seat)
    elif isinstance(event, RoundLost) and event.reason not in RESOLUTION_REASONS:
        engine.fault(event.seat, event.reason)
    elif isinstance(event, Eliminated) and event.reason.startswith(FORFEIT_PREFIX):
        engine.forfeit(event.seat, event.reason.removeprefix(FORFEIT_PREFIX))
    else:
        return False
    return True


def replay(
    ruleset: str, players: int, seed: int, transcript: Sequence[Mapping[str, Any]]
) -> PolishPoker:
    """The engine after re-playing ``transcript``; raises ReplayMismatch on any difference.

    A transcript of an unfinished game is fine: the engine is returned mid-game.
    """
    engine = PolishPoker(ruleset, players, seed)
    expected: list[Event] = []
    for i, raw in enumerate(transcript):
        try:
            expected.append(event_from_dict(raw, ruleset))
        except EngineError as exc:
            raise ReplayMismatch(i, raw, None, f"not an event: {exc}") from None
    done = 0  # events of the transcript already matched
    while True:
        for i, event in enumerate(engine.events_since(done), start=done):
            if i >= len(expected):
                raise ReplayMismatch(i, None, event, "the transcript ends early")
            if event != expected[i]:
                raise ReplayMismatch(i, expected[i], event, _difference(expected[i], event))
        done = engine.event_count
        if done == len(expected):
            return engine
        try:
            driven = _drive(engine, expected[done])
        except EngineError as exc:
            raise ReplayMismatch(done, expected[done], None, f"the engine refused: {exc}") from None
        if not driven:
            event = expected[done]
            detail = "the engine emits this event itself, but did not"
            if isinstance(event, Called) and event.automatic:
                detail = _AUTOMATIC
            raise ReplayMismatch(done, event, None, detail)
