"""Plays like caller, but on the first decision of each game burns 0.1 s of CPU time
(not wall time) before it answers: over a 50 ms move time it must time out, however
loaded the machine is and however long it waits for a CPU meanwhile."""

import time

from evaluator import declarations

BURN_S = 0.1
decisions = 0


def on_game_start(info):
    global decisions
    decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 1:
        until = time.process_time() + BURN_S
        while time.process_time() < until:
            pass
    return "call" if view.can_call else declarations(view.ruleset)[0]
