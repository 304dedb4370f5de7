"""The msgpack codec of the wire, with hard limits.

Everything a peer sends goes through ``decode`` before anything else looks at it. A
message that is too large, not msgpack, nested too deep, uses an ext type, has a map
key that is not a string, or is not a map with a string ``type`` raises
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


def _shape_error(container: dict | list, depth: int) -> str | None:
    """Why ``container`` (itself at ``depth``) breaks a limit msgpack does not check:
    nesting deeper than MAX_DEPTH, or a map key that is not a string (``strict_map_key``
    lets msgpack bin keys through); None when it is fine."""
    if depth > MAX_DEPTH:
        return f"message nested deeper than {MAX_DEPTH} levels"
    # A plain loop with exact type tests: this runs on every message, and generator
    # expressions with isinstance cost several times more.
    if type(container) is dict:
        for k in container:
            if type(k) is not str:
                return f"map keys must be strings, got {type(k).__name__}"
        values = container.values()
    else:
        values = container
    for v in values:
        t = type(v)
        if t is dict or t is list:
            why = _shape_error(v, depth + 1)
            if why is not None:
                return why
    return None


def encode(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


def decode(frame: bytes) -> dict[str, Any]:
    """One frame -> one message map, or MessageError saying what was wrong."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise MessageError(f"message of {len(frame)} bytes exceeds the limit of "
                           f"{MAX_MESSAGE_BYTES}")
    try:
        obj = msgpack.unpackb(
            frame, raw=False, strict_map_key=True, timestamp=0, ext_hook=_no_ext,
            max_str_len=MAX_STR_LEN,
            max_bin_len=MAX_STR_LEN, max_array_len=MAX_ARRAY_LEN, max_map_len=MAX_MAP_LEN,
            max_ext_len=0,
        )
    except MessageError:
        raise
    except (ValueError, msgpack.UnpackException) as exc:
        raise MessageError(f"not msgpack: {type(exc).__name__}: {exc}"[:200]) from None
    if not isinstance(obj, dict):
        raise MessageError(f"a message must be a map, got {type(obj).__name__}")
    if not isinstance(obj.get("type"), str):
        raise MessageError("a message must have a string field 'type'")
    why = _shape_error(obj, 1)
    if why is not None:
        raise MessageError(why)
    return obj
