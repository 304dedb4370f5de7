"""``rundir.load_json``'s depth check, held equal to the depth of what it parses."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rundir import MAX_DEPTH, RunFileError, _depth_over, load_json

# Strings full of what the check must not take for structure.
TEXT = st.text(alphabet=st.sampled_from('[]{}"\\ab\n\u00e9'), max_size=8)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(TEXT, inner, max_size=3), max_leaves=40)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(0, 6), st.booleans())
def test_the_depth_check_is_the_depth(value: Any, limit: int, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert _depth_over(data, limit) == (depth(value) > limit)


def test_deep_json_is_one_error_naming_where() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    for data in (deep, b'{"a": ' + deep + b"}", b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)):
        try:
            load_json(data, "x.jsonl:3")
        except RunFileError as exc:
            assert str(exc) == f"x.jsonl:3: nested more than {MAX_DEPTH} deep"
        else:
            raise AssertionError("taken")
    assert load_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, "x") is not None
