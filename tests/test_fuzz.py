"""Property-based fuzzing of what a bot controls: the bytes it sends, and its actions.

(a) The wire: ``protocol.codec.decode`` -> ``protocol.messages.parse_bot_message`` ->
    ``referee.games.polish_poker.wire.Action.from_wire``, fed arbitrary bytes, mutated valid
    frames and
    packed msgpack-ish values (maps, arrays, ints, floats, strings, bins, bools, nil,
    ext types, timestamps). The only exceptions allowed out are the documented fault
    errors, ``MessageError`` and ``ActionError``; what gets through is well-formed.
(b) The engine: random sequences of actions (legal ones to move the game on, and
    arbitrary values: ints, texts, declarations of both rulesets, ``"call"``, None,
    ``Raise``/``Call`` objects, with random seats), faults and forfeits, applied to
    ``PolishPoker``. Only ``IllegalAction`` subclasses escape ``apply`` (leaving the
    state unchanged), only ``UsageError``/``GameAlreadyOver`` escape ``fault`` and
    ``forfeit``, and after every step the state is valid and the events replay to it.
"""

from __future__ import annotations

import math
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from evaluator import deck_cards, ladder
from protocol.codec import MAX_DEPTH, MAX_MESSAGE_BYTES, MessageError, decode, encode
from protocol.messages import ActionReply, Hello, parse_bot_message
from referee.games.polish_poker.engine import (
    GameAlreadyOver,
    IllegalAction,
    PolishPoker,
    UsageError,
)
from referee.games.polish_poker.replay import replay
from referee.games.polish_poker.wire import Action, ActionError, Call, Raise

RULESETS = ("official", "polacco")
FAST = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ------------------------------------------------------------------- (a) the wire

VALID_FRAMES = [
    encode({"type": "hello", "token": "ab" * 16, "protocol": 2, "name": "bot"}),
    encode({"type": "action", "seq": 7, "action": {"kind": "call"}}),
    encode({"type": "action", "seq": 2**40, "action": {"kind": "raise", "declaration": 88}}),
]
WORDS = ["type", "hello", "action", "seq", "token", "protocol", "name", "kind", "call",
         "raise", "declaration"]

leaves = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
          | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
          | st.sampled_from(WORDS) | st.binary(max_size=12)
          | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=6))
          | st.builds(msgpack.Timestamp, st.integers(0, 2**34 - 1), st.integers(0, 10**9 - 1)))
keys = st.sampled_from(WORDS) | st.text(max_size=8) | st.integers(-5, 5) | st.binary(max_size=4)
values = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=25)
actions = st.fixed_dictionaries(
    {"kind": st.sampled_from(["call", "raise", "fold"]) | values},
    optional={"declaration": st.integers(-3, 400) | values, "extra": values})
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "action", "bye"]) | values},
    optional={"seq": st.integers(-3, 2**64 - 1) | values, "action": actions | values,
              "token": st.text(max_size=40) | values, "protocol": st.integers(0, 3) | values,
              "name": st.text(max_size=10) | values, b"bin": values, 3: values})


def _checked(value: Any, depth: int = 1) -> None:
    """What ``decode`` lets through keeps the codec's limits (``value`` at ``depth``;
    the message map is level 1, and only maps and arrays count)."""
    if isinstance(value, dict | list):
        assert depth <= MAX_DEPTH
        if isinstance(value, dict):
            assert all(type(k) is str for k in value), value
        for v in value.values() if isinstance(value, dict) else value:
            _checked(v, depth + 1)
    else:
        assert not isinstance(value, msgpack.ExtType | msgpack.Timestamp)


def through_the_wire(frame: bytes) -> None:
    """Everything a frame goes through in the referee; only fault errors may escape."""
    try:
        msg = decode(frame)
    except MessageError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert len(frame) <= MAX_MESSAGE_BYTES
    assert isinstance(msg, dict) and isinstance(msg["type"], str)
    _checked(msg)
    try:
        parsed = parse_bot_message(msg)
    except MessageError as exc:
        assert str(exc)
        return
    if isinstance(parsed, Hello):
        assert isinstance(parsed.token, str) and type(parsed.protocol) is int
        return
    assert isinstance(parsed, ActionReply) and type(parsed.seq) is int
    for ruleset in RULESETS:
        try:
            action = Action.from_wire(parsed.action, ruleset)
        except ActionError as exc:
            assert str(exc)
            continue
        assert isinstance(action, Raise | Call)
        assert Action.from_wire(Action.to_wire(action), ruleset) == action


@FAST
@given(st.binary(max_size=200))
@example(b"")
@example(b"\xdd\xff\xff\xff\xff")                     # array32 claiming 4 G items
@example(b"\xdf\xff\xff\xff\xff")                     # map32 claiming 4 G entries
@example(b"\x81\xa4type\xdb\xff\xff\xff\xff")          # str32 claiming 4 GB
@example(b"\x81\xa4type\xc6\xff\xff\xff\xff")          # bin32 claiming 4 GB
@example(b"\x81\xa4type\xc9\xff\xff\xff\xff\x05")      # ext32 claiming 4 GB
@example(b"\x82\xa4type\xa6action\xa1x" + b"\x91" * 30_000 + b"\xc0")  # far too deep
@example(b"\x91" * (MAX_MESSAGE_BYTES + 1))            # too big, before any parsing
@example(b"\x82\xa4type\xa5hello\xc4\x01x\x01")        # a bin map key
def test_arbitrary_bytes(frame):
    through_the_wire(frame)


@FAST
@given(st.sampled_from(VALID_FRAMES), st.data())
def test_mutated_valid_frames(frame, data):
    buf = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        i = data.draw(st.integers(0, max(0, len(buf) - 1)))
        if op == "flip" and buf:
            buf[i] = data.draw(st.integers(0, 255))
        elif op == "insert":
            buf[i:i] = data.draw(st.binary(min_size=1, max_size=6))
        elif op == "delete" and buf:
            del buf[i]
        else:
            del buf[i:]
    through_the_wire(bytes(buf))


def _pack(value: Any, bin_type: bool) -> bytes:
    return msgpack.packb(value, use_bin_type=bin_type, datetime=False)


@FAST
@given(messages | values, st.booleans())
def test_structured_values(value, bin_type):
    through_the_wire(_pack(value, bin_type))


@settings(FAST, max_examples=100)
@given(messages, st.integers(MAX_DEPTH - 2, MAX_DEPTH + 3))
def test_nesting_around_the_limit(message, depth):
    nested: Any = 0
    for _ in range(depth):
        nested = [nested]
    message["action"] = nested
    frame = _pack(message, True)
    through_the_wire(frame)
    if depth > MAX_DEPTH - 1:  # the map is level 1: its value may hold MAX_DEPTH - 1 more
        with pytest.raises(MessageError):
            decode(frame)


@FAST
@given(actions | values)
def test_action_payloads(payload):
    for ruleset in RULESETS:
        try:
            action = Action.from_wire(payload, ruleset)
        except ActionError:
            continue
        assert isinstance(action, Raise | Call)


# ----------------------------------------------------------------- (b) the engine

DECLARATIONS = {r: ladder(r) for r in RULESETS}
TEXTS = [str(d) for r in RULESETS for d in DECLARATIONS[r]]
weird_actions = st.one_of(
    st.integers(-3, 400), st.text(max_size=14), st.sampled_from(TEXTS),
    st.sampled_from(["call", " Call ", "CALL", "raise", "fold", "", "pair", "five A"]),
    st.none(), st.booleans(), st.floats(allow_nan=True), st.just(Call()),
    st.builds(Raise, st.sampled_from([d for r in RULESETS for d in DECLARATIONS[r]])),
    st.builds(Raise, st.integers(-3, 400) | st.sampled_from(TEXTS) | st.none()),
    st.lists(st.integers(0, 60), max_size=3), st.dictionaries(st.sampled_from(WORDS),
                                                              st.integers(), max_size=2),
)
weird_seats = st.none() | st.integers(-2, 9) | st.sampled_from(["0", 1.5, True])
labels = st.sampled_from(["timeout", "malformed", "illegal", "crash", "faults", "bluff",
                          "wrong-call", ""]) | st.text(max_size=8) | st.none() | st.integers()


def _state(g: PolishPoker) -> tuple:
    return (g.events, g.current_seat, g.counts, g.active, g.round, g.opener, g.history,
            g.community, tuple(g.hand(s) for s in range(g.players)), g.finishing_order)


def check_valid(g: PolishPoker, before: tuple | None = None) -> None:
    """The engine's state is valid, and its events replay to it (not re-done when the
    state is still ``before``, which was checked already)."""
    players, order = g.players, g.finishing_order
    if g.is_over:
        assert g.current_seat is None
        assert sorted(order) == list(range(players)), order
        assert sum(g.active) == 1 and order[0] == g.active_seats[0]
    else:
        seat = g.current_seat
        assert isinstance(seat, int) and 0 <= seat < players and g.active[seat]
        assert sum(g.active) >= 2
        assert sorted(order) == [s for s in range(players) if not g.active[s]]
        dealt = [c for s in range(players) for c in g.hand(s)]
        if g.community is not None:
            dealt.append(g.community)
        assert len(set(dealt)) == len(dealt) and set(dealt) <= set(deck_cards(g.ruleset))
        assert all(g.active[s] for s, _ in g.history)
        for s in range(players):
            if g.active[s]:
                assert 1 <= g.counts[s] <= g.cap and len(g.hand(s)) == g.counts[s], s
            else:
                assert g.counts[s] == 0 and g.hand(s) == ()
    state = _state(g)
    if state != before:
        again = replay(g.ruleset, players, g.seed, [e.to_dict() for e in g.events])
        assert _state(again) == state


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESETS), st.integers(2, 8), st.integers(0, 2**63 - 1), st.data())
def test_engine_survives_any_action(ruleset, players, seed, data):
    lo, hi = {"official": (2, 6), "polacco": (3, 8)}[ruleset]
    g = PolishPoker(ruleset, min(max(players, lo), hi), seed)
    check_valid(g)
    for _ in range(70):
        op = data.draw(st.integers(0, 9), label="op")
        before = _state(g)
        if g.is_over:
            with pytest.raises(GameAlreadyOver):
                if op < 6:
                    g.apply(data.draw(weird_actions, label="action"))
                elif op < 8:
                    g.fault(data.draw(weird_seats), "timeout")
                else:
                    g.forfeit(data.draw(weird_seats), "crash")
            assert _state(g) == before
            event("the game ended")
            return
        if op < 3 and g.can_call:  # legal actions, calls often, so that games end
            g.apply("call", seat=g.current_seat)
        elif op < 5 and g.legal_declarations():  # none after the top of the ladder
            options = g.legal_declarations()[:8]
            g.apply(data.draw(st.sampled_from(options), label="legal"), seat=g.current_seat)
        elif op < 8:
            action = data.draw(weird_actions, label="action")
            seat = data.draw(weird_seats, label="seat")
            try:
                g.apply(action, seat=seat)
            except IllegalAction as exc:
                assert exc.detail and str(exc).startswith(exc.reason)
                assert _state(g) == before  # refused: nothing changed
        else:
            seat = data.draw(weird_seats | st.sampled_from(g.active_seats), label="seat")
            label = data.draw(labels, label="label")
            try:
                (g.fault if op == 8 else g.forfeit)(seat, label)
            except UsageError:
                assert _state(g) == before
        check_valid(g, before)


def test_engine_spot_checks():
    """Values that look like numbers are refused; a ``Raise`` wrapping an id or a text
    is played as the Declaration it names (it once went into the history as it was,
    and the engine failed on it with an AttributeError after changing its state)."""
    g = PolishPoker("official", 3, 1)
    for value in (math.nan, True, 1.0, Raise(None), Raise(1.0), Raise(True), Raise(89)):
        with pytest.raises(IllegalAction):
            g.apply(value)
    check_valid(g)
    (declared,) = g.apply(Raise(5))
    assert declared.declaration == DECLARATIONS["official"][5]
    g.apply(Raise("five A"))  # five aces: the next seat is deemed to call
    assert g.history == () and g.round == 2
    check_valid(g)
