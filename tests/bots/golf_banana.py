"""Faulty golf bot: every seventh decision it answers "banana" (not an action: a
``malformed`` fault, then a legal default); otherwise a random legal action."""

import random

decisions = 0


def act(view):
    global decisions
    decisions += 1
    return "banana" if decisions % 7 == 0 else random.choice(view["legal"])
