"""Test bot: says on stderr what options it was given, in ``on_game_start(info)`` and in
``act`` (``referee.sdk.options()``), and what its command line was; plays as the caller
does, or raises at once when its option ``open`` is ``weakest``."""

import json
import sys

from evaluator import declarations
from referee import sdk

_told = False


def on_game_start(info):
    print("options-in-start " + json.dumps(info.options, sort_keys=True), file=sys.stderr)


def act(view):
    global _told
    if not _told:
        _told = True
        print("options-in-act " + json.dumps(sdk.options(), sort_keys=True)
              + " argv " + json.dumps(sys.argv[1:]), file=sys.stderr, flush=True)
    if view.can_call:
        return "call"
    return declarations(view.ruleset)[0]
