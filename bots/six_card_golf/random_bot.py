"""A random legal action, chosen from the view's ``legal`` list.

Deterministic given the game seed: the SDK (and the in-process driver) seeds ``random``
at every game start.
"""

import random


def act(view):
    return random.choice(view["legal"])
