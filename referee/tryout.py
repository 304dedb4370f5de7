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
from referee.games import package
from referee.games.api import Game
from referee.process import file_label, resolve_bots

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
    from referee import cli  # the run's plumbing (cli imports this module lazily)

    spec = resolve_bots([bot])[0]
    out = out or cli.default_out(f"try-{file_label(spec.name)}")
    limits = cli.make_limits("2G", "0", 0, 256, "1M", None)
    config = cli.make_config([bot, *bundled_bots(game)], game, None, games, None, "1s", "5s",
                             1, 3, "30s", out, limits, sandbox)
    code = run_check(spec, game, CHECK_MOVE_MS, CHECK_START_MS, cli.console, out / "logs",
                     config.sandbox, limits)
    if code != cli.EXIT_OK:
        cli.say(f"{spec.name} did not pass the check (above): no match was played; its "
                f"logs are in {out / 'logs'}")
        return code
    others = ", ".join(b.name for b in config.bots[1:])
    cli.say(f"{spec.name} complies; now {games} games against {others}", to=cli.console)
    code = cli.play(config)
    if code == cli.EXIT_OK:
        cli.say(f"replay one of its games: referee show {out} --bot {spec.name}",
                to=cli.console)
    return code
