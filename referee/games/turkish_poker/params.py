"""Turkish poker's parameters: the schema the command line resolves, and its checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.games.api import Param
from referee.games.turkish_poker.betting import LIMITS

GAME_PARAMS: tuple[Param, ...] = (
    Param("limit", "no-limit", str, choices=LIMITS, help="betting limit"),
    Param("hands", 100, int, minimum=1, maximum=100_000, help="hands in a game"),
    Param("stack", 200, int, minimum=20, maximum=1_000_000,
          help="chips (antes) every seat holds at the start of each hand"),
    Param("rake", 0.0, float, minimum=0.0, maximum=0.5,
          help="fraction of each pot taken once the betting was opened (rounded down)"),
    Param("rake_cap", 0, int, minimum=0, maximum=1_000_000,
          help="most chips raked from one pot (0: no cap)"),
)


def check_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Typed params (from ``resolve_params`` or a journal) -> a full, checked dict;
    ValueError naming the first bad one."""
    known = {p.name: p for p in GAME_PARAMS}
    for name in params:
        if name not in known:
            raise ValueError(f"unknown parameter {name!r}: expected one of {', '.join(known)}")
    out: dict[str, Any] = {}
    for p in GAME_PARAMS:
        value = params.get(p.name, p.default)
        if p.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not p.kind:
            raise ValueError(f"parameter {p.name!r}: {value!r} is not a {p.kind.__name__}")
        if p.choices is not None and value not in p.choices:
            raise ValueError(f"parameter {p.name!r}: {value!r} is not one of "
                             f"{', '.join(map(str, p.choices))}")
        if p.minimum is not None and value < p.minimum or \
                p.maximum is not None and value > p.maximum:
            raise ValueError(f"parameter {p.name!r}: {value!r} is outside "
                             f"{p.minimum}..{p.maximum}")
        out[p.name] = value
    return out
