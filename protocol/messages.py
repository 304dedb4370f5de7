"""The game-generic envelope: message types, their fields, and their validation.

Referee to bot: ``welcome``, ``refused``, ``game_start``, ``act``, ``game_end``,
``bye``. Bot to referee: ``hello`` and ``action``. SPEC.md is the
normative description; this module is its executable form. Game payloads (the
``view`` of an ``act``, the ``action`` of a reply, the round ``results``)
are opaque here and checked by the game's own codec.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.codec import MAX_DEPTH, MAX_MESSAGE_BYTES, MessageError

PROTOCOL_VERSION = 2
# The most a frame from a connection that has not said hello may hold: a hello is about
# 60 bytes (a 32-character token); anything larger is dropped unread.
HELLO_MAX_BYTES = 256
# Referee messages that open a request: the bot owes exactly one reply.
REQUEST_TYPES = frozenset({"act"})
# Every integer the referee sends is below this (SPEC section 2: JavaScript holds it).
SEQ_LIMIT = 1 << 53


# os.urandom's bytes are drawn this many at a time for ``new_seq``: one system call per
# 585 seqs instead of one per seq (a message's largest cost after its encoding).
RANDOM_BLOCK = 4096

# Seqs drawn and not yet handed out, each handed out once (``list.pop`` is atomic). A
# forked child drops its parent's, so that the two never hand out the same seq.
_SEQS: list[int] = []
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_SEQS.clear)


def _draw_seqs() -> list[int]:
    """A block of ``os.urandom`` (as ``secrets`` draws it) as seqs: 56 random bits of
    each 7 bytes, 53 kept, and 0 left out."""
    block = os.urandom(RANDOM_BLOCK)
    seqs = (int.from_bytes(block[i:i + 7], "big") >> 3 for i in range(0, RANDOM_BLOCK - 6, 7))
    return [s for s in seqs if s]


def new_seq() -> int:
    """A referee message's ``seq``: drawn at random (1 to 2^53 - 1, uniformly) for each
    message, so that a reply that echoes it proves that its bot saw the request (SPEC
    section 4): a reply sent ahead, however it is timed, can only guess it."""
    while True:
        try:
            return _SEQS.pop()
        except IndexError:
            _SEQS.extend(_draw_seqs())


@dataclass(frozen=True, slots=True)
class Hello:
    token: str
    protocol: int
    name: str | None


@dataclass(frozen=True, slots=True)
class ActionReply:
    """An answer to ``act``: an action, or (``error``) the bot's own word that it has
    none, e.g. because its code raised; either way it closes the request."""

    seq: int
    action: Any
    error: str | None = None


def _int(msg: dict[str, Any], key: str) -> int:
    v = msg.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise MessageError(f"'{msg['type']}' needs an integer field '{key}'")
    return v


def _only(msg: dict[str, Any], allowed: set[str]) -> None:
    extra = set(msg) - allowed
    if extra:
        raise MessageError(f"'{msg['type']}' has unknown fields: {', '.join(sorted(extra))}"[:160])


def parse_bot_message(msg: dict[str, Any]) -> Hello | ActionReply:
    """Validate a decoded message from a bot (``codec.decode`` has checked the limits)."""
    kind = msg["type"]
    if kind == "hello":
        _only(msg, {"type", "token", "protocol", "name"})
        token, name = msg.get("token"), msg.get("name")
        if not isinstance(token, str):
            raise MessageError("'hello' needs a string field 'token'")
        if name is not None and not isinstance(name, str):
            raise MessageError("'hello' field 'name' must be a string")
        return Hello(token, _int(msg, "protocol"), name)
    if kind == "action":
        _only(msg, {"type", "seq", "action", "error"})
        if ("action" in msg) == ("error" in msg):
            raise MessageError("'action' needs a field 'action' or (instead) 'error'")
        error = msg.get("error")
        if "error" in msg and not isinstance(error, str):
            raise MessageError("'action' field 'error' must be a string")
        return ActionReply(_int(msg, "seq"), msg.get("action"), error)
    raise MessageError(f"unknown message type {kind!r}; a bot sends 'hello' or 'action'"[:160])


def expects_reply(message: dict[str, Any]) -> bool:
    """Whether the referee's ``message`` is a request (SPEC section 4: only ``act``)."""
    return message["type"] in REQUEST_TYPES


def welcome(bot_name: str, options: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``options``: the bot's options from its bot argument (``referee.botargs``)."""
    return {"type": "welcome", "protocol": PROTOCOL_VERSION, "name": bot_name,
            "limits": {"max_message_bytes": MAX_MESSAGE_BYTES, "max_depth": MAX_DEPTH},
            "options": dict(options or {})}


def refused(reason: str) -> dict[str, Any]:
    return {"type": "refused", "reason": reason}
