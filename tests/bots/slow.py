"""Faulty bot: plays like caller, but takes 5 s over every decision. With a much shorter
move time and no bank it times out every time (far beyond anything a loaded machine
excuses) and, after ``max_faults`` in a row, forfeits (``faults``) every game; it never
crashes, so it is started afresh for each."""

import time

from evaluator import declarations


def act(view):
    time.sleep(5)
    return "call" if view.can_call else declarations(view.ruleset)[0]
