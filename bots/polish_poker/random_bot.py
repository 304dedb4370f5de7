"""A random legal action: any legal raise, or a call when there is something to call.

Deterministic given the game seed: the SDK seeds ``random`` at every game start.
"""

import random


def act(view):
    options = list(view.legal_raises())
    if view.can_call:
        options.append("call")
    return random.choice(options)
