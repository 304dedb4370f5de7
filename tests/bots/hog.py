"""Plays like caller, but on its first decision of a game tries to hold 3 GiB of memory.

Under the referee's address-space limit the allocation fails (MemoryError), which the
SDK reports as a malformed action (the bot loses the round); without a limit it would
take the machine's memory.
"""

from evaluator import declarations

HOARD = []


def act(view):
    if not view.history or len(view.history) == 1:
        for _ in range(48):
            HOARD.append(bytearray(64 << 20))
    return "call" if view.can_call else declarations(view.ruleset)[0]
