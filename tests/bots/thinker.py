"""Plays like caller, after 10 ms of CPU time on every decision: on a CPU it shares with
busy processes, each decision then waits for that CPU several times as long as it
computes."""

import time

from evaluator import declarations

THINK_S = 0.01


def act(view):
    until = time.thread_time() + THINK_S
    while time.thread_time() < until:
        pass
    return "call" if view.can_call else declarations(view.ruleset)[0]
