"""Faulty bot: answers the first decision of each game legally, but 0.4 s late.

Meant for runs with ``--move-time 100ms --time-bank 0``: the first decision of each
game times out, and the late answer, when it finally comes, must be dropped as stale
(it echoes the ``seq`` of a request that is no longer open). Other decisions are
answered at once, like caller. Its first argument (``late.py,arg=30``) changes the delay.
"""

import sys
import time

from evaluator import declarations

decisions = 0


def delay_s() -> float:
    """Its argument, read when it plays (pytest imports this file with its own argv)."""
    return float(sys.argv[1]) if len(sys.argv) > 1 else 0.4


def on_game_start(info):
    global decisions
    decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 1:
        time.sleep(delay_s())
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
