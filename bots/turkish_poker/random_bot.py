"""A random legal action: any legal kind, any amount in its range, any 0-4 discards.

Deterministic given the game seed: the SDK (and the local driver) seed ``random`` at
every game start.
"""

import random


def act(view):
    choice = random.choice(view["legal"])
    kind = choice["kind"]
    if kind == "open":
        return {"kind": "open", "amount": random.randint(choice["min"], choice["max"])}
    if kind == "raise":
        return {"kind": "raise", "to": random.randint(choice["min"], choice["max"])}
    if kind == "draw":
        return {"kind": "draw", "cards": random.sample(view["cards"], random.randint(0, 4))}
    return {"kind": kind}
