"""Game results held by the hundred thousand: a journal record in a fraction of a dict's
memory.

The leaderboard at the end of a run, ``referee rate`` and the live leaderboard hold
every record of the journal at once. A ``Result`` is a read-only mapping with the
record's values in one tuple and its keys shared with every record of the same fields;
equal values (the parameters, a seating, places, an empty list of faults) are shared
between records, and texts interned. About 0.3 KB a record instead of 2 KB.

>>> memo = Memo()
>>> a = compact({"game": 0, "seats": ["x", "y"], "places": [1, 2], "faults": []}, memo)
>>> b = compact({"game": 1, "seats": ["x", "y"], "places": [2, 1], "faults": []}, memo)
>>> a["seats"] is b["seats"], a.get("game"), dict(b) == {"game": 1, "seats": ["x", "y"],
...     "places": [2, 1], "faults": []}, "group" in a
(True, 0, True, False)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from typing import Any


class Result(Mapping[str, Any]):
    """One record, read-only. Its lists and maps may be shared with other records: a
    reader must not change them."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: tuple[Any, ...]) -> None:
        self._index = index
        self._values = values

    def __getitem__(self, key: str) -> Any:
        return self._values[self._index[key]]

    def get(self, key: str, default: Any = None) -> Any:  # Mapping's raises, then catches
        i = self._index.get(key)
        return default if i is None else self._values[i]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"Result({dict(self)!r})"


class Memo:
    """What the records of one read share: key sets and equal values."""

    def __init__(self) -> None:
        self.indexes: dict[tuple[str, ...], dict[str, int]] = {}
        self.values: dict[Any, Any] = {}


def compact(rec: Mapping[str, Any], memo: Memo) -> Result:
    """``rec`` as a ``Result``, sharing what it can with the records before it."""
    keys = tuple(rec)
    index = memo.indexes.get(keys)
    if index is None:
        index = memo.indexes[keys] = {sys.intern(k): i for i, k in enumerate(keys)}
    return Result(index, tuple([_shared(v, memo) for v in rec.values()]))


def _shared(value: Any, memo: Memo) -> Any:
    """``value``, or an equal one already held: texts interned, lists of plain values
    and maps shared."""
    kind = type(value)
    if kind is str:
        return sys.intern(value)
    if kind is list:
        items = [_shared(v, memo) for v in value]
        if all(type(v) in (str, int, float, bool) or v is None for v in items):
            key = (list, *map(type, items), *items)  # 1 and True and 1.0 stay apart
            return memo.values.setdefault(key, items)
        return items
    if kind is dict:
        try:  # plain values (a fault, the parameters): no need to encode them
            key: Any = (dict, *sorted((k, type(v), v) for k, v in value.items()))
            held = memo.values.get(key)
        except TypeError:  # a list or a map in it
            key = (dict, json.dumps(value, sort_keys=True))
            held = memo.values.get(key)
        if held is None:
            held = memo.values[key] = {sys.intern(k): _shared(v, memo) for k, v in value.items()}
        return held
    return value
