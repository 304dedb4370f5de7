"""Faulty bot: every action it takes is illegal.

When it opens a round (nothing to call) it calls; when it answers, it declares the
weakest declaration of the ruleset, which is never higher than the last one. Every
decision is an ``illegal`` fault, so it forfeits each game after ``max_faults``.
"""

from evaluator import declarations


def act(view):
    if not view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
