"""``--out DIR --resume``: start a run in DIR, or go on with the one DIR holds, in one
command (what a CI job with a cached run directory needs).

DIR holds "this very run" when its recorded configuration (``config.json``) equals the
one the command line gives, except for what a new command line cannot know: without
``--seed``, the seed (and so the deals) is the recorded run's; without ``--secret-file``,
its deal secret; its ``--event`` name stays. Anything else that differs (a bot file
changed, other games, another clock, another SPRT test) is refused: going on would mix
two runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.config import ConfigError, RunConfig
from referee.rundir import CONFIG_FILE
from referee.tournament import load_config


def holds_run(out: Path | None, resume: bool) -> bool:
    """Whether ``--resume`` finds a run to go on with in ``out``."""
    return resume and out is not None and (Path(out) / CONFIG_FILE).is_file()


def same_run(new: RunConfig, seed_given: bool, secret_given: bool,
             test: dict[str, Any] | None = None, recorded_test: dict[str, Any] | None = None
             ) -> RunConfig:
    """The recorded configuration of ``new.out`` if it is the run ``new`` describes (and,
    for an SPRT, ``test`` equals ``recorded_test``); ConfigError naming what differs."""
    stored = load_config(new.out)  # a bot file changed since: a ConfigError already
    ignore = {"out", "event"} | (set() if seed_given else {"seed", "deals"})
    a, b = _plain(new.to_dict()), _plain(stored.to_dict())
    differ = [k for k in sorted(a.keys() | b.keys()) if k not in ignore and a.get(k) != b.get(k)]
    if secret_given and new.secret != stored.secret:
        differ.append("deal secret")
    if test is not None and recorded_test is not None:
        differ += [f"sprt {k}" for k in sorted(test) if test[k] != recorded_test.get(k)]
    if differ:
        raise ConfigError(f"--out {new.out} holds another run (its {', '.join(differ)} "
                          "differ from this command's); give another --out")
    return stored


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    """As ``config.json`` holds it (tuples as lists), so the two sides compare."""
    return json.loads(json.dumps(d))
