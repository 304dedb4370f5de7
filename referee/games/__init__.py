"""The registry of the games the referee can run: the one way generic code reaches a game.

Each game is a package (``referee.games.api`` says what it provides) named here by its
game name; ``load_game`` imports only the package asked for, so a bot's SDK, which loads
the game it is sent, imports one game. Games from outside this tree are added through
the environment: ``REFEREE_GAMES="name=package.module,..."`` (docs/adding-a-game.md).

>>> names()[:3]
('polish-poker', 'turkish-poker', 'six-card-golf')
>>> load_game("six-card-golf", {"target": "60"}).params["target"]
60
>>> load_game("six-card-golf", {"target": "x"})
Traceback (most recent call last):
...
referee.games.GameError: six-card-golf: parameter target: 'x' is not allowed: expected ...
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from referee.games.api import Game, Param

DEFAULT_GAME = "polish-poker"
# Journals of schema 1 (before games were packages) are all of this game.
LEGACY_GAME = "polish-poker"
GAMES: dict[str, str] = {
    "polish-poker": "referee.games.polish_poker",
    "turkish-poker": "referee.games.turkish_poker",
    "six-card-golf": "referee.games.six_card_golf",
}
ENV_GAMES = "REFEREE_GAMES"


class GameError(ValueError):
    """An unknown game, or parameters the game does not allow (one line that says so)."""


def _registry() -> dict[str, str]:
    extra: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in os.environ.get(ENV_GAMES, "").split(","))):
        name, sep, module = item.partition("=")
        if not sep or not name.strip() or not module.strip():
            raise GameError(f"{ENV_GAMES}: {item!r} is not name=package.module")
        extra[name.strip()] = module.strip()
    return {**GAMES, **extra}


def names() -> tuple[str, ...]:
    """Every game's name, the built-in ones first."""
    return tuple(_registry())


def package(name: str) -> ModuleType:
    """The package of game ``name``; GameError for an unknown one."""
    registry = _registry()
    if name not in registry:
        raise GameError(f"unknown game {name!r}: the games are {', '.join(registry)}")
    try:
        return importlib.import_module(registry[name])
    except ImportError as exc:
        raise GameError(f"game {name}: its package {registry[name]} cannot be imported: "
                        f"{exc}") from None


def schema(name: str) -> tuple[Param, ...]:
    """The parameters of game ``name``, with their defaults and allowed values."""
    return tuple(package(name).GAME_PARAMS)


def load_game(name: str, params: Mapping[str, Any] | None = None) -> Game:
    """Game ``name`` with ``params`` (text from the command line, or typed values from a
    journal) resolved; GameError names the game and the parameter that is wrong."""
    module = package(name)
    try:
        return module.load(dict(params or {}))
    except ValueError as exc:
        raise GameError(f"{name}: {exc}") from None


def legacy_params(rules: str) -> dict[str, Any]:
    """The parameters of ``LEGACY_GAME`` that a schema-1 journal's ``rules`` stood for."""
    return package(LEGACY_GAME).legacy_params(rules)


__all__ = ["DEFAULT_GAME", "GAMES", "Game", "GameError", "legacy_params", "load_game",
           "names", "package", "schema"]
