"""A well-behaved SDK bot that thinks for 30 ms per decision, then plays like
``bots/polish_poker/random_bot.py`` (a random legal action, seeded by the SDK)."""

import random
import time


def act(view):
    time.sleep(0.03)
    options = list(view.legal_raises())
    if view.can_call:
        options.append("call")
    return random.choice(options)
