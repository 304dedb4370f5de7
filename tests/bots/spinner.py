"""Plays like caller, but burns CPU in a loop on its first decision until it is stopped.

Under --limit-cpu the kernel ends it (SIGXCPU), so it forfeits; its time is never
taken from the other bots.
"""

from evaluator import declarations


def act(view):
    if len(view.history) <= 1:
        while True:
            pass
    return "call" if view.can_call else declarations(view.ruleset)[0]
