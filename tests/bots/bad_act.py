"""Faulty bot: every other decision its ``act`` raises, or returns something that is not
an action; the first round result it is told makes its ``on_round_result`` raise.

The values, in turn: None, "banana", a dict, "high 9" (a declaration of ``official``
only), and an exception. Its other decisions are legal (call, or open with the weakest
declaration), so it plays on: the SDK reports each bad one as an ``error`` reply, a
``malformed`` fault (the hook's on its next decision), and with ``max_faults`` 3 it
never forfeits and is never restarted.
"""

from evaluator import declarations

BAD = (None, "banana", {"kind": "call"}, "high 9", "raise")
decisions = 0
told = False


def act(view):
    global decisions
    decisions += 1
    if decisions % 2:
        bad = BAD[(decisions // 2) % len(BAD)]
        if bad == "raise":
            raise ZeroDivisionError("bad_act divides by zero")
        return bad
    return "call" if view.can_call else declarations(view.ruleset)[0]


def on_round_result(result):
    global told
    if not told:
        told = True
        raise KeyError("bad_act's hook")
