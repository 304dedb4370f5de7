"""The connection guard's thread (``referee.connguard``) ends with the hub."""

from __future__ import annotations

import pytest

from referee.connguard import ConnectionGuard
from referee.hub import Hub


@pytest.mark.skipif(not ConnectionGuard.available(), reason="no peer credentials here")
def test_the_guard_thread_ends_when_the_hub_closes():
    """Its monitor must report that it stopped (libzmq says so only when asked to), or
    every run would wait out the join's timeout at its end."""
    hub: Hub[object] = Hub()
    assert hub.guard is not None
    thread = hub.guard._thread
    hub.guard.close()
    try:
        assert not thread.is_alive()
    finally:
        hub.close()
