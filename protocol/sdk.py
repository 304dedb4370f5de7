"""The bot side: connect, say hello, answer ``act`` requests with ``act(view)``.

A Python bot is one file with an ``act(view)`` function::

    def act(view):
        return "call" if view.can_call else "pair 9"

``referee run --bots mybot.py`` hosts such a file through ``protocol.host``, which
calls ``run`` below. ``act`` may return ``"call"``, a declaration (text, id or
``Declaration``), or ``Raise``/``Call``. Optional hooks: ``on_game_start(info)``,
``on_round_result(result)``, ``on_game_end(info)``. An exception in ``act`` (or a
return value that is not an action of the game's ruleset) ends the bot with a
traceback on stderr, which the referee records as a ``crash``.

At each game start the SDK seeds Python's ``random`` module (and numpy's global
generator, if numpy is loaded) from the game's seed, so a bot that draws its
randomness from them is reproducible.
"""

from __future__ import annotations

import gc
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq

from protocol.codec import decode, encode
from protocol.messages import PROTOCOL_VERSION
from protocol.polish import Action, Call, Raise, RoundResult, View, parse_action

HELLO_TIMEOUT_MS = 30_000


class BotError(RuntimeError):
    """The bot cannot go on: no endpoint, refused by the referee, or a broken request."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What ``on_game_start`` and ``on_game_end`` receive."""

    game_id: str
    game: str
    seat: int
    players: int
    seed: int
    params: dict[str, Any]
    order: tuple[int, ...] = ()


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % 2**32)


def run(
    act: Callable[[View], Any],
    on_game_start: Callable[[GameInfo], None] | None = None,
    on_round_result: Callable[[RoundResult], None] | None = None,
    on_game_end: Callable[[GameInfo], None] | None = None,
    name: str | None = None,
) -> None:
    """Serve the referee until it says ``bye``. Endpoint and token come from the
    environment (``REFEREE_ENDPOINT``, ``REFEREE_TOKEN``)."""
    try:
        endpoint, token = os.environ["REFEREE_ENDPOINT"], os.environ["REFEREE_TOKEN"]
    except KeyError as exc:
        raise BotError(f"environment variable {exc.args[0]} is not set: "
                       "bots are started by the referee (referee run / referee check)") from None
    # Seeding once now loads numpy's random module (if the bot uses numpy), which would
    # otherwise cost several milliseconds of the first game's first decision.
    seed_everything(0)
    # What is alive now (modules, the bot's tables) lives as long as the bot: keep the
    # collector from scanning it again, or its full collections take tens of
    # milliseconds of some decision now and then.
    gc.freeze()
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(endpoint)
    try:
        hello: dict[str, Any] = {"type": "hello", "token": token, "protocol": PROTOCOL_VERSION}
        if name:
            hello["name"] = name
        sock.send(encode(hello))
        if not sock.poll(HELLO_TIMEOUT_MS):
            raise BotError(f"no welcome from the referee at {endpoint}")
        reply = decode(sock.recv())
        if reply["type"] != "welcome":
            raise BotError(f"referee refused the connection: {reply.get('reason', reply)}")
        _serve(sock, act, on_game_start, on_round_result, on_game_end)
    finally:
        sock.close()


def _deliver(msg: dict[str, Any], game: GameInfo, on_round_result) -> None:
    """Hand the round results riding on an ``act`` or ``game_end`` to the hook."""
    if on_round_result:
        for result in msg.get("results", ()):
            on_round_result(RoundResult.from_wire(result, game.params["ruleset"]))


def _serve(sock, act, on_game_start, on_round_result, on_game_end) -> None:
    game: GameInfo | None = None
    while True:
        msg = decode(sock.recv())
        kind = msg["type"]
        if kind == "act":
            if game is None:
                raise BotError("'act' before 'game_start'")
            _deliver(msg, game, on_round_result)
            view = View.from_wire(msg["view"], msg.get("deadline_ms"))
            action = parse_action(act(view), game.params["ruleset"])
            sock.send(encode({"type": "action", "seq": msg["seq"],
                              "action": Action.to_wire(action)}))
        elif kind == "game_start":
            game = GameInfo(msg["game_id"], msg["game"], msg["seat"], msg["players"],
                            msg["seed"], msg["params"])
            seed_everything(game.seed)
            if on_game_start:
                on_game_start(game)
        elif kind == "game_end":
            if game is not None:
                _deliver(msg, game, on_round_result)
            if on_game_end and game is not None:
                on_game_end(GameInfo(game.game_id, game.game, game.seat, game.players,
                                     game.seed, game.params, tuple(msg["order"])))
            game = None
        elif kind == "bye":
            return
        # Other types are additions of a later protocol version: ignored (SPEC.md section 10).


__all__ = ["BotError", "Call", "GameInfo", "Raise", "View", "run", "seed_everything"]
