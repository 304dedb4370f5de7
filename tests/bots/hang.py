"""Faulty bot: answers its first decision like caller, then hangs forever.

On the 2nd decision of its process ``act`` blocks for good, so the process never reads
another request: every later decision times out until the referee forfeits the bot
(``max_faults`` timeouts in a row) and kills its process group. The fresh process of
its next game does the same.
"""

import threading

from evaluator import declarations

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 2:
        threading.Event().wait()  # never set: hang
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
