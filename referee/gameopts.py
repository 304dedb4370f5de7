"""The command line's game options: ``--game``, ``--param KEY=VALUE`` and ``--rules``
(Polish Poker's shorthand for ``--param ruleset=...``), and ``referee games``' listing.

>>> resolve_game("six-card-golf", ["target=60"], None).params["target"]
60
>>> resolve_game("polish-poker", [], "polacco").params
{'ruleset': 'polacco'}
>>> resolve_game("six-card-golf", ["target"], None)
Traceback (most recent call last):
...
referee.config.ConfigError: --param target: write it as KEY=VALUE, e.g. --param hands=100
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import typer

from referee.config import ConfigError
from referee.games import DEFAULT_GAME, GameError, load_game, names, schema
from referee.games.api import Game, Metric, Param
from referee.journal import game_of

GameOpt = Annotated[str, typer.Option(
    help="The game (`referee games` lists them with their parameters).")]
ParamOpt = Annotated[list[str] | None, typer.Option(
    "--param", help="A game parameter as KEY=VALUE, once per parameter (`referee games`).")]
RulesOpt = Annotated[str | None, typer.Option(
    help="Polish Poker's ruleset, official or polacco: short for --param ruleset=...")]
RULES_PARAM = "ruleset"  # what --rules stands for


def parse_params(items: list[str] | None, rules: str | None) -> dict[str, str]:
    """``KEY=VALUE`` texts (and ``--rules``) -> {key: text}; ConfigError for one that is
    not KEY=VALUE or a key given twice."""
    given: dict[str, str] = {}
    pairs = [*(items or []), *([f"{RULES_PARAM}={rules}"] if rules is not None else [])]
    for item in pairs:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--param {item}: write it as KEY=VALUE, e.g. --param hands=100")
        if key in given:
            raise ConfigError(f"parameter {key} is given twice")
        given[key] = value
    return given


def resolve_game(game: str, items: list[str] | None, rules: str | None) -> Game:
    """The game of ``--game``/``--param``/``--rules``; ConfigError in one line naming the
    game, the parameter and the allowed values."""
    try:
        return load_game(game, parse_params(items, rules))
    except GameError as exc:
        raise ConfigError(str(exc)) from None


def records_metric(records: Sequence[Mapping[str, Any]]) -> Metric | None:
    """The metric of the game the journal records are of: None if they mix games, or for
    a game without one, or one this referee does not know (its leaderboard then has
    places only)."""
    kinds = {(name, json.dumps(params, sort_keys=True))
             for name, params in map(game_of, records)}
    if len(kinds) != 1:
        return None
    try:
        return load_game(*game_of(records[0])).metric
    except GameError:
        return None


def params_text(params: dict[str, Any]) -> str:
    """``k=v k2=v2`` (for the run's first line)."""
    return " ".join(f"{k}={v}" for k, v in params.items())


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _param_line(p: Param) -> str:
    allowed = (", ".join(map(str, p.choices)) if p.choices is not None else
               f"{'integer' if p.kind is int else p.kind.__name__}"
               + (f" >= {_num(p.minimum)}" if p.minimum is not None else "")
               + (f" <= {_num(p.maximum)}" if p.maximum is not None else ""))
    return f"    {p.name}={p.default}  ({allowed}){': ' + p.help if p.help else ''}"


def describe_games() -> list[str]:
    """``referee games``: each game, its seat range per default parameters, and its
    parameters with their defaults and allowed values."""
    lines = []
    for name in names():
        game = load_game(name)
        seats = game.seats
        lines.append(f"{name}{' (default)' if name == DEFAULT_GAME else ''}: "
                     f"{seats[0]}-{seats[-1]} players (with the defaults)")
        lines += [_param_line(p) for p in schema(name)] or ["    (no parameters)"]
    return lines
