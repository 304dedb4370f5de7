"""The bot side: connect, say hello, answer ``act`` requests with ``act(view)``.

A Python bot is one file with an ``act(view)`` function::

    def act(view):
        return "call" if view.can_call else "pair 9"

``referee run --bots mybot.py`` hosts such a file through ``referee.sdkhost``, which
calls ``run`` below. The SDK loads the game each ``game_start`` names from the registry
(``referee.games``): ``act`` gets the view as that game decodes it, and may return what
the game's local action parser reads (Polish Poker: ``"call"``, a declaration as text,
id or ``Declaration``, or ``Raise``/``Call``; Turkish poker and six-card golf: the
action's wire map, or for golf a text such as ``"take stock"``). Optional hooks:
``on_game_start(info)``, ``on_notice(notice)`` (each notice the game tells the seat, as
the game decodes it; Polish Poker: a ``RoundResult``; ``on_round_result`` is its older
name), ``on_game_end(info)``. An exception in ``act``, or a
return value that is not an action of the game, does not end the bot: the
traceback goes to stderr (the bot's log) and the SDK answers with an ``error`` reply
(SPEC.md section 4), which the referee records as a ``malformed`` action: the bot takes
the game's penalty for a fault and plays on. An exception in a hook is reported the same
way, on the bot's next decision of that game (one in ``on_game_end`` is only logged).

Options given on the referee's command line (``bots/mine.py,option.threshold=0.7``) come
in the ``welcome`` message: ``info.options`` in ``on_game_start(info)`` holds them (a dict
of strings), and ``referee.sdk.options()`` returns the same dict anywhere, ``act``
included.

The SDK waits for its ``welcome`` as long as the referee gives a bot to start
(``REFEREE_START_TIMEOUT_MS``, the run's ``--start-timeout``), or DEFAULT_HELLO_TIMEOUT_MS
where it is not said.

At each game start the SDK seeds Python's ``random`` module (and numpy's global
generator, if numpy is loaded) from the game's seed, so a bot that draws its
randomness from them is reproducible.
"""

from __future__ import annotations

import gc
import os
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import zmq

from protocol.codec import decode_trusted, encode
from protocol.messages import PROTOCOL_VERSION
from referee.games import GameError, load_game, package
from referee.games.api import Game

DEFAULT_HELLO_TIMEOUT_MS = 30_000
ERROR_CHARS = 1000  # of an error reply's text (the referee keeps less)


class BotError(RuntimeError):
    """The bot cannot go on: no endpoint, refused by the referee, or a broken request."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What ``on_game_start`` and ``on_game_end`` receive (``order``, ``places`` and
    ``scores`` at the end only: SPEC.md section 4, ``game_end``)."""

    game_id: str
    game: str
    seat: int
    players: int
    seed: int
    params: dict[str, Any]
    order: tuple[int, ...] = ()
    places: tuple[int, ...] = ()
    scores: tuple[float, ...] | None = None
    options: dict[str, str] = field(default_factory=dict)


_options: dict[str, str] = {}  # from the welcome


def options() -> dict[str, str]:
    """The bot's options, as its ``welcome`` gave them (empty before it, or without)."""
    return dict(_options)


def hello_timeout_ms() -> int:
    """How long to wait for the ``welcome``: the referee's start timeout."""
    text = os.environ.get("REFEREE_START_TIMEOUT_MS", "")
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_HELLO_TIMEOUT_MS


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % 2**32)


def notice_hook(bot: Any) -> Callable[[Any], None] | None:
    """A bot's ``on_notice`` hook, or the one by its older name ``on_round_result``."""
    return getattr(bot, "on_notice", None) or getattr(bot, "on_round_result", None)


def hook_name(hook: Callable[..., Any]) -> str:
    """The name a hook's failure is reported under: the bot's own name for it."""
    return getattr(hook, "__name__", "on_notice")


def run(
    act: Callable[[Any], Any],
    on_game_start: Callable[[GameInfo], None] | None = None,
    on_notice: Callable[[Any], None] | None = None,
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
    # otherwise cost several milliseconds of the first game's first decision; so does
    # importing the run's game (REFEREE_GAME), tens of milliseconds.
    seed_everything(0)
    try:
        package(os.environ.get("REFEREE_GAME", ""))
    except GameError:
        pass  # no game named, or one this SDK lacks: said at its game_start
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
        if not sock.poll(hello_timeout_ms()):
            raise BotError(f"no welcome from the referee at {endpoint}")
        reply = decode_trusted(sock.recv())
        if reply["type"] != "welcome":
            raise BotError(f"referee refused the connection: {reply.get('reason', reply)}")
        given = reply.get("options")
        if isinstance(given, dict):
            _options.update({str(k): str(v) for k, v in given.items()})
        _serve(sock, act, on_game_start, on_notice, on_game_end)
    finally:
        sock.close()


def failure(where: str, exc: BaseException) -> str:
    """The text an error reply carries for an exception raised in the bot's ``where``."""
    return f"{where} raised {type(exc).__name__}: {exc}"[:ERROR_CHARS]


def bad_return(value: Any, exc: BaseException) -> str:
    """The text an error reply carries for an ``act`` that returned ``value``, which is not
    an action (``exc`` says why)."""
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"act returned {shown}, which is not an action: {exc}"[:ERROR_CHARS]


def log_failure(text: str) -> None:
    """Put the exception being handled (and ``text``) in the bot's log, its stderr."""
    print(f"{text}\n{traceback.format_exc()}", file=sys.stderr, flush=True)


def _guarded(where: str, hook: Callable[..., None] | None, *args: Any) -> str | None:
    """Call a hook; on an exception, log it and return its text."""
    if hook is None:
        return None
    try:
        hook(*args)
    except Exception as exc:  # the bot's own bug: reported, not fatal
        text = failure(where, exc)
        log_failure(text)
        return text
    return None


def _deliver(msg: dict[str, Any], rules: Game, on_notice) -> str | None:
    """Hand the notices riding on an ``act`` or ``game_end`` to the hook; the text of its
    failure, if it raised."""
    for notice in msg.get("results", ()) if on_notice else ():
        try:
            decoded = rules.decode_notice(notice)
        except Exception as exc:  # noqa: BLE001 - a notice this SDK cannot read
            return failure("decoding a notice", exc)
        failed = _guarded(hook_name(on_notice), on_notice, decoded)
        if failed:
            return failed
    return None


def _decide(act: Callable[[Any], Any], view: Any, rules: Game) -> dict[str, Any]:
    """The reply's body: ``act``'s action, or the error that kept it from giving one."""
    try:
        value = act(view)
    except Exception as exc:  # the bot's own bug: a fault, the bot plays on
        text = failure("act", exc)
        log_failure(text)
        return {"error": text}
    try:
        return {"action": rules.encode_action(rules.parse_local_action(value))}
    except Exception as exc:  # noqa: BLE001 - whatever the parse of a bad value raises
        text = bad_return(value, exc)
        log_failure(text)
        return {"error": text}


def _load(name: Any, params: Any, loaded: list[tuple[str, dict[str, Any], Game]]) -> Game:
    """The game a ``game_start`` names, loaded once per name and parameters (``loaded``:
    those loaded so far; a run has one or a few, compared at each game's start)."""
    for known, known_params, game in loaded:
        if known == name and known_params == params:
            return game
    if not isinstance(name, str) or not isinstance(params, dict):
        raise GameError(f"game_start names game {name!r} with parameters {params!r}")
    game = load_game(name, params)
    loaded.append((name, params, game))
    return game


def _serve(sock, act, on_game_start, on_notice, on_game_end) -> None:
    game: GameInfo | None = None
    rules: Game | None = None
    loaded: list[tuple[str, dict[str, Any], Game]] = []
    failed: str | None = None  # a hook's failure, reported on the next decision
    while True:
        msg = decode_trusted(sock.recv())
        kind = msg["type"]
        if kind == "act":
            if game is None:
                raise BotError("'act' before 'game_start'")
            if rules is None:  # every decision of a game the SDK cannot load
                body = {"error": failed or "the SDK cannot play this game"}
            elif failed := _deliver(msg, rules, on_notice) or failed:
                body, failed = {"error": failed}, None
            else:
                try:
                    view = rules.decode_view(msg["view"], msg.get("deadline_ms"))
                except Exception as exc:  # noqa: BLE001 - a view this SDK cannot read
                    body = {"error": failure("decoding the view", exc)}
                else:
                    body = _decide(act, view, rules)
            sock.send(encode({"type": "action", "seq": msg["seq"], **body}))
        elif kind == "game_start":
            game = GameInfo(msg["game_id"], msg["game"], msg["seat"], msg["players"],
                            msg["seed"], msg["params"], options=options())
            seed_everything(game.seed)
            try:
                rules = _load(msg["game"], msg["params"], loaded)
            except GameError as exc:  # answered with an error at every decision
                rules, failed = None, f"the SDK cannot play this game: {exc}"
                log_failure(failed)
                continue
            failed = _guarded("on_game_start", on_game_start, game)
        elif kind == "game_end":
            if game is not None and rules is not None:
                _deliver(msg, rules, on_notice)
                if on_game_end is not None:
                    scores = msg.get("scores")
                    _guarded("on_game_end", on_game_end, replace(
                        game, order=tuple(msg.get("order", ())),
                        places=tuple(msg.get("places", ())),
                        scores=None if scores is None else tuple(scores), options=options()))
            game, rules, failed = None, None, None
        elif kind == "bye":
            return
        # Other types are additions of a later protocol version: ignored (SPEC.md section 9).


__all__ = ["BotError", "GameInfo", "notice_hook", "options", "run", "seed_everything"]
