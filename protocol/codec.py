"""The msgpack codec of the wire, with hard limits.

Everything a peer sends goes through ``decode`` before anything else looks at it. A
message that is too large, not msgpack, nested too deep, uses an ext type, has a map
key that is not a string or the same key twice, or is not a map with a string ``type`` raises
``MessageError`` with a one-line reason; the referee turns that into a ``malformed``
fault of the sender, never a crash.

>>> decode(encode({"type": "hello", "token": "t"}))
{'type': 'hello', 'token': 't'}
>>> decode(b"\\xc1")
Traceback (most recent call last):
...
protocol.codec.MessageError: not msgpack: ...
"""

from __future__ import annotations

from typing import Any

import msgpack

MAX_MESSAGE_BYTES = 64 * 1024
MAX_DEPTH = 8
MAX_STR_LEN = 4096
MAX_ARRAY_LEN = 4096
MAX_MAP_LEN = 64


class MessageError(ValueError):
    """A message that breaks the codec's limits or the envelope's shape."""


def _no_ext(code: int, data: bytes) -> Any:
    raise MessageError(f"msgpack ext type {code} is not allowed")


def _map(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """Every map of a message, from its key-value pairs as they were sent: a key twice
    would be silently resolved to its last value, so it is an error; so is a key that is
    not a string (``strict_map_key`` lets msgpack bin keys through)."""
    # Plain loops and exact type tests: this runs for every map of every message.
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for k, _ in pairs:
            if k in seen:
                raise MessageError(f"map key {k!r} appears twice"[:120])
            seen.add(k)
    for k in out:
        if type(k) is not str:
            raise MessageError(f"map keys must be strings, got {type(k).__name__}")
    return out


def _depth_error(container: dict | list, depth: int) -> str | None:
    """Why ``container`` (itself at ``depth``) is nested deeper than MAX_DEPTH (msgpack
    does not check); None when it is fine."""
    if depth > MAX_DEPTH:
        return f"message nested deeper than {MAX_DEPTH} levels"
    for v in container.values() if type(container) is dict else container:
        t = type(v)
        if t is dict or t is list:
            why = _depth_error(v, depth + 1)
            if why is not None:
                return why
    return None


def encode(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


def decode(frame: bytes) -> dict[str, Any]:
    """One frame (bytes, or anything with the buffer protocol such as a ``zmq.Frame``)
    -> one message map, or MessageError saying what was wrong."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise MessageError(f"message of {len(frame)} bytes exceeds the limit of "
                           f"{MAX_MESSAGE_BYTES}")
    try:
        obj = msgpack.unpackb(
            frame, raw=False, strict_map_key=True, timestamp=0, ext_hook=_no_ext,
            object_pairs_hook=_map, max_str_len=MAX_STR_LEN, max_bin_len=MAX_STR_LEN,
            max_array_len=MAX_ARRAY_LEN, max_map_len=MAX_MAP_LEN, max_ext_len=0)
    except MessageError:
        raise
    except (ValueError, msgpack.UnpackException) as exc:
        raise _not_msgpack(exc) from None
    _envelope(obj)
    why = _depth_error(obj, 1)
    if why is not None:
        raise MessageError(why)
    return obj


def decode_trusted(frame: bytes) -> dict[str, Any]:
    """A message from a sender that is trusted (the referee's, read by a bot): a map with
    a string ``type``, without ``decode``'s limits on every map and string, which guard
    the referee against bots and would cost a bot more than the rest of its reading.

    >>> decode_trusted(encode({"type": "bye"}))
    {'type': 'bye'}
    """
    try:
        obj = msgpack.unpackb(frame, raw=False)
    except (ValueError, msgpack.UnpackException) as exc:
        raise _not_msgpack(exc) from None
    return _envelope(obj)


def _not_msgpack(exc: Exception) -> MessageError:
    return MessageError(f"not msgpack: {type(exc).__name__}: {exc}"[:200])


def _envelope(obj: Any) -> dict[str, Any]:
    """``obj`` if it is a message: a map with a string ``type``; else MessageError."""
    if not isinstance(obj, dict):
        raise MessageError(f"a message must be a map, got {type(obj).__name__}")
    if not isinstance(obj.get("type"), str):
        raise MessageError("a message must have a string field 'type'")
    return obj
