"""The connection guard (``referee.connguard``): its thread ends with the hub; whose
connections it admits."""

from __future__ import annotations

import subprocess
import sys
import time

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


CONNECT = """
import os, sys, time, zmq
if sys.argv[2] == "orphan" and os.fork():
    os._exit(0)  # the connecting process is left to init: no child of the referee's
time.sleep(0.2)
s = zmq.Context().socket(zmq.DEALER)
s.connect(sys.argv[1])
time.sleep(30)
"""


def _connect_from(hub: Hub, how: str) -> tuple[subprocess.Popen, str]:
    """A process of this one's that connects to ``hub`` without being admitted; the
    guard's verdict, once it has judged the connection."""
    guard = hub.guard
    assert guard is not None
    child = subprocess.Popen([sys.executable, "-c", CONNECT, hub.endpoint, how])
    deadline = time.monotonic() + 20
    while guard.open_connections == 0 and guard.counters.foreign == 0:
        assert time.monotonic() < deadline, "no connection judged"
        time.sleep(0.01)
    return child, "foreign" if guard.counters.foreign else "admitted"


@pytest.mark.skipif(not ConnectionGuard.available(), reason="no peer credentials here")
def test_a_bot_that_connects_before_the_referee_notes_its_pid_is_not_foreign():
    """Under load a bot can connect before ``Hub.launched`` has named its process: a
    child of the referee's is a bot's root all the same. A process of no run's (here an
    orphan, left to init by its parent) is foreign."""
    for how, verdict in (("child", "admitted"), ("orphan", "foreign")):
        hub: Hub[object] = Hub()
        child = None
        try:
            child, seen = _connect_from(hub, how)
            assert seen == verdict, how
        finally:
            if child is not None:
                child.kill()
                child.wait()
            subprocess.run(["pkill", "-f", hub.endpoint], check=False)
            hub.close()
