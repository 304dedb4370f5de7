"""``referee try BOT``: the first thing a bot's author runs. ``referee check``, then (if
the bot complies) a short match against the game's bundled bots, the leaderboard, and
the path to the run's ``replay.html``; the run directory is an ordinary one
(``referee show``, ``verify``, ``rate`` read it).

A game names its bundled bots in its package's ``BUNDLED_BOTS`` (module names).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from referee.check import run_check
from referee.config import ConfigError
from referee.console import console, say
from referee.exits import EXIT_OK
from referee.games import package
from referee.games.api import Game
from referee.playrun import play
from referee.process import file_label, resolve_bots
from referee.runsetup import default_out, make_config, make_limits

CHECK_MOVE_MS, CHECK_START_MS = 2000, 30_000


def bundled_bots(game: Game) -> list[str]:
    """The files of ``game``'s bundled bots; ConfigError if it has none."""
    files = []
    for module in getattr(package(game.name), "BUNDLED_BOTS", ()):
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise ConfigError(f"{game.name}: its bundled bot {module} cannot be found")
        files.append(spec.origin)
    if not files:
        raise ConfigError(f"{game.name} has no bundled bots to try a bot against")
    return files


def try_bot(bot: str, game: Game, games: int, sandbox: str, out: Path | None) -> int:
    """Check ``bot``, then play it against the bundled bots; the exit code (``check``'s
    when the bot does not comply, else ``run``'s). ConfigError, BotFileError or
    SandboxError for bad options, before anything is started."""

    spec = resolve_bots([bot])[0]
    out = out or default_out(f"try-{file_label(spec.name)}")
    limits = make_limits("2G", "0", 0, 256, "1M", None)
    config = make_config([bot, *bundled_bots(game)], game, None, games, None, "1s", "5s",
                             1, 3, "30s", out, limits, sandbox)
    code = run_check(spec, game, CHECK_MOVE_MS, CHECK_START_MS, console, out / "logs",
                     config.sandbox, limits)
    if code != EXIT_OK:
        say(f"{spec.name} did not pass the check (above): no match was played; its "
                f"logs are in {out / 'logs'}")
        return code
    others = ", ".join(b.name for b in config.bots[1:])
    say(f"{spec.name} complies; now {games} games against {others}", to=console)
    code = play(config)
    if code == EXIT_OK:
        say(f"replay one of its games: referee show {out} --bot {spec.name}",
                to=console)
    return code
