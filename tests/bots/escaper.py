"""Plays like caller; on its second decision it starts a child in a session of its own
(out of its process group: ``sleep 4321``) and dies. The child must not outlive it."""

import os
import subprocess

from evaluator import declarations

decisions = 0


def act(view):
    global decisions
    decisions += 1
    if decisions == 2:
        subprocess.Popen(["sleep", "4321"], start_new_session=True)
        os._exit(1)
    return "call" if view.can_call else declarations(view.ruleset)[0]
