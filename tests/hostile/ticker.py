"""Hostile bot, the receiving half of a CPU-timing channel: a thread of its own ticks
every 5 ms for the whole game, as a receiver measuring its share of the CPU would. At
each turn it looks at its ticks from its last reply to now and writes the longest pause
between two of them to stderr (``TICKER pause <ms>``): a thread that runs while the
other seat thinks (``slow_thinker``, 400 ms a turn) pauses only as long as the machine
keeps it waiting; a frozen one pauses as long as the other seat thinks. Plays as
``caller`` does.
"""

import sys
import threading
import time

from evaluator import declarations

ticks = []
replied = [0.0]


def tick():
    while True:
        ticks.append(time.monotonic())
        time.sleep(0.005)


threading.Thread(target=tick, daemon=True).start()


def act(view):
    since = [replied[0], *(t for t in ticks[-2000:] if t >= replied[0]), time.monotonic()]
    if replied[0]:
        pause = max(b - a for a, b in zip(since, since[1:], strict=False))
        print(f"TICKER pause {pause * 1000:.0f}", file=sys.stderr, flush=True)
    replied[0] = time.monotonic()
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
