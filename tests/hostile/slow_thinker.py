"""A well-behaved SDK bot that thinks for 400 ms per decision, then plays as
``bots/polish_poker/caller.py`` does (the other seat of ``ticker``'s table)."""

import time

from evaluator import declarations


def act(view):
    time.sleep(0.4)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
