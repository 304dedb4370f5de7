"""A run's resolved configuration: everything needed to play (and replay) it.

>>> parse_duration("200ms"), parse_duration("1s"), parse_duration("1.5s"), parse_duration("250")
(200, 1000, 1500, 250)
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from leaderboards.inert import brief
from referee.deals import Deals, run_deals
from referee.games import DEFAULT_GAME
from referee.journal import game_of
from referee.process import BotLimits, BotSpec, bot_spec, check_name

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


class ConfigError(ValueError):
    """A run option that makes no sense; the message says which and why."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"2G"``, ``"512M"``, ``"64k"`` or a bare number of bytes -> bytes.

    >>> parse_size("2G"), parse_size("512M"), parse_size("64k"), parse_size("100")
    (2147483648, 536870912, 65536, 100)
    """
    m = _SIZE.match(str(text))
    if not m:
        raise ConfigError(f"bad size {text!r}: write it like 512M, 2G or 64k")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def parse_duration(text: str) -> int:
    """``"200ms"``, ``"1s"``, ``"2m"`` or a bare number of milliseconds -> milliseconds."""
    m = _DURATION.match(str(text))
    if not m:
        raise ConfigError(f"bad duration {text!r}: write it like 200ms, 1s or 1.5s")
    value, unit = float(m.group(1)), m.group(2) or "ms"
    return int(round(value * {"ms": 1, "s": 1000, "m": 60_000}[unit]))


_BARE_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)?\s*$")


def memory_limit_mb(text: str) -> int:
    """``--limit-memory``: a size with its unit -> whole megabytes, rounded up (0: no
    limit). A bare number other than 0 is refused: 2048 bytes, KB or MB?

    >>> memory_limit_mb("2G"), memory_limit_mb("1500k"), memory_limit_mb("0")
    (2048, 2, 0)
    """
    if _BARE_NUMBER.match(text) and float(text) != 0:
        raise ConfigError(f"--limit-memory {text.strip()}: give a unit, e.g. {text.strip()}M "
                          "or 2G (0: no limit)")
    return -(-parse_size(text) // (1 << 20))


def cpu_limit_s(text: str) -> int:
    """``--limit-cpu``: a duration with its unit -> whole seconds, rounded up (0: no
    limit; the kernel counts CPU time in seconds). A bare number other than 0 is
    refused: seconds or milliseconds?

    >>> cpu_limit_s("90s"), cpu_limit_s("10m"), cpu_limit_s("1500ms"), cpu_limit_s("0")
    (90, 600, 2, 0)
    """
    if _BARE_NUMBER.match(text) and float(text) != 0:
        raise ConfigError(f"--limit-cpu {text.strip()}: give a unit, e.g. {text.strip()}s or "
                          "10m (0: no limit)")
    return -(-parse_duration(text) // 1000)


FORMATS = ("round-robin", "gauntlet", "tables")
SANDBOX_MODES = ("none", "bwrap")  # what a run records: ``auto`` resolved


@dataclass(frozen=True)
class RunConfig:
    """One run of games between bots (see ``referee run --help`` for each field).

    ``games`` is the number of games of the run, or of each table for ``tables``.
    ``candidates``: the first that many bots are a gauntlet's candidates; ``baseline`` is
    the field bot its leaderboard puts at Elo 0. ``concurrency`` is the number of games
    at once in all, split across ``workers`` referee processes (``referee.workers``).
    ``secret`` is the run's deal secret (``referee.deals``; None: dealt from the seeds
    alone): ``config.json`` records only whether there is one, never the secret.
    ``game`` is a game's name in the registry (``referee.games``) and ``params`` its
    parameters, resolved (``referee.games.load_game``).
    """

    bots: tuple[BotSpec, ...]
    params: dict[str, Any]
    players: int
    games: int
    seed: int
    move_ms: int
    bank_ms: int
    concurrency: int
    max_faults: int
    start_timeout_ms: int
    out: Path
    limits: BotLimits = BotLimits()
    sandbox: str = "none"
    game: str = DEFAULT_GAME
    format: str = "round-robin"
    duplicate: bool = False  # the CLI turns it on
    candidates: int = 0
    baseline: str | None = None
    in_process: bool = False
    workers: int = 1
    strict_start: bool = False  # a bot that cannot start ends the run (``referee.runner``)
    allow_same_author: bool = False  # bots of one author may share a table
    warm: int | None = None  # idle bot processes kept at most (None: ``runner.warm_processes``)
    event: str | None = None  # --event: the name that titles the pages and reports
    design: str = "cycle"  # how tables are drawn (``referee.rounds.design_for``)
    secret: bytes | None = field(default=None, repr=False)

    @property
    def deals(self) -> Deals:
        return Deals(self.secret)

    def to_dict(self) -> dict[str, Any]:
        """What ``config.json`` records. The run seed is a decimal string (it may exceed
        2^53, which JavaScript cannot hold); ``deals`` says whether a secret keys the deals
        (``secret``) or the seeds alone do (``seed``)."""
        d = asdict(self)
        del d["secret"]
        d["seed"] = str(self.seed)
        d["deals"] = self.deals.mode
        d["out"] = str(self.out)
        d["bots"] = [b.to_dict() for b in self.bots]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], out: Path) -> RunConfig:
        """The configuration ``to_dict`` recorded, for a run continued in ``out``. A bot
        file that is gone or changed since is a ConfigError: the games would differ. The deal
        secret is read from ``out`` (SecretError if it is gone). A configuration of
        schema 1 names its Polish Poker ruleset (``rules``) instead of ``params``."""
        if "deals" not in d:
            raise ConfigError(f"{out} was started by an older referee, whose deals followed "
                              "from 63-bit seeds; this one cannot resume it (`referee verify` "
                              "and `referee rate` still read it)")
        if d.get("sandbox", "none") not in SANDBOX_MODES \
                or not isinstance(d.get("in_process", False), bool):
            raise ConfigError(f"{out}: sandbox {brief(d.get('sandbox'))}, in_process "
                              f"{brief(d.get('in_process'))}: not a configuration the referee "
                              "writes")
        bots = []
        for b in d["bots"]:
            check_name(b["name"])
            if not Path(b["path"]).is_absolute():
                raise ConfigError(f"bot {brief(b['name'])}: {brief(b['path'])} is not an "
                                  "absolute path: not a configuration the referee writes")
            spec = bot_spec(b["name"], Path(b["path"]))
            if spec.sha256 != b["sha256"]:
                raise ConfigError(f"bot {b['name']}: {b['path']} changed since the run "
                                  "started (its sha256 differs); restore it to resume")
            bots.append(replace(spec, options=tuple(b.get("options", {}).items()),
                                args=tuple(b.get("args", ())), author=b.get("author")))
        fields = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        fields["game"], fields["params"] = game_of(d)
        fields.update(bots=tuple(bots), out=out, limits=BotLimits(**d["limits"]),
                      seed=int(d["seed"]), secret=run_deals(d["deals"], out).key)
        return cls(**fields)
