"""Calls whenever it can; when it opens, declares the weakest declaration."""

from evaluator import declarations


def act(view):
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
