"""The runner's backlog of finished games: journalled in the order they finished, a
step at a time, the oldest whole once too many wait, and nothing more after a step
fails (the journal could not be written)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.backlog import Backlog


def steps(game: int, log: list[str], fail: bool = False) -> Iterator[None]:
    log.append(f"{game}a")
    yield
    if fail:
        raise OSError(28, "No space left on device")
    log.append(f"{game}b")


def test_games_are_journalled_in_order_and_the_oldest_whole_past_the_limit() -> None:
    log: list[str] = []
    backlog = Backlog(most=2)
    backlog.add(steps(0, log))
    backlog.add(steps(1, log))
    assert log == [] and len(backlog) == 2  # nothing done until a step is taken
    backlog.step()
    assert log == ["0a"]
    backlog.add(steps(2, log))  # three waiting: game 0 is finished first
    assert log == ["0a", "0b"] and len(backlog) == 2
    backlog.flush()
    assert log == ["0a", "0b", "1a", "1b", "2a", "2b"] and len(backlog) == 0


def test_a_failed_step_drops_the_rest_and_raises() -> None:
    log: list[str] = []
    backlog = Backlog(most=4)
    backlog.add(steps(0, log, fail=True))
    backlog.add(steps(1, log))
    with pytest.raises(OSError):
        backlog.flush()
    assert log == ["0a"] and len(backlog) == 0  # game 1 is not journalled after a gap
    backlog.flush()
