#!/usr/bin/env python3
"""A Polish Poker bot written from protocol/SPEC.md alone: pyzmq, msgpack, stdlib.

It imports nothing from this repository on purpose: it is the test that the SPEC is
enough to write a bot. It builds both declaration ladders itself (its SPEC),
decides legality itself (strictly stronger, or the official same-category suit rule),
and checks whether a declaration exists in a pool itself (RULES.md's table: the joker
fills at most one missing card).

Play: it estimates by Monte Carlo (the unseen cards dealt at random to the hidden
hands) how likely the last declaration is, and calls when that is below CALL_BELOW;
otherwise it raises to the weakest legal declaration that its own cards already show,
or else the weakest legal one likely enough, or else the likeliest of the next few.
Deterministic given the game seed. Run by the referee as an executable.
"""

import json
import os
import random
import sys

import msgpack
import zmq

PROTOCOL = 2
CALL_BELOW = 0.45
RAISE_AT_LEAST = 0.55
SAMPLES = 160
CANDIDATES = 24  # legal raises (weakest first) considered by the estimate
IDLE_EXIT_S = 600.0

JOKER = 52
CATEGORIES = {
    "official": ("high", "pair", "two-pair", "straight", "three", "full-house", "flush",
                 "four", "straight-flush", "royal-flush", "five"),
    "polacco": ("pair", "two-pair", "three", "straight", "flush", "full-house", "four",
                "straight-flush"),
}
SUITED = ("flush", "straight-flush", "royal-flush")
N_OF_A_KIND = {"high": 1, "pair": 2, "three": 3, "four": 4, "five": 5}


# ------------------------------------------------------------------- the ladders


def build_ladder(ruleset):
    """Polish Poker's SPEC: (category, ranks, suit) per declaration id, weakest first."""
    ranks = list(range(9, 15)) if ruleset == "official" else list(range(2, 15))
    out = []
    for cat in CATEGORIES[ruleset]:
        if cat in N_OF_A_KIND:
            out += [(cat, (r,), None) for r in ranks]
        elif cat == "two-pair":
            out += [(cat, (a, b), None) for a in ranks for b in ranks if a > b]
        elif cat == "full-house":
            out += [(cat, (a, b), None) for a in ranks for b in ranks if a != b]
        elif cat == "straight":
            tops = (13, 14) if ruleset == "official" else range(5, 15)
            out += [(cat, (t,), None) for t in tops]
        elif ruleset == "official":  # suited, named by suit only
            out += [(cat, (), s) for s in range(4)]
        else:  # polacco flush / straight-flush: by top card, then suit
            tops = range(6, 15) if cat == "flush" else range(5, 15)
            out += [(cat, (t,), s) for t in tops for s in range(4)]
    return out


LADDERS = {r: build_ladder(r) for r in CATEGORIES}
assert len(LADDERS["official"]) == 89 and len(LADDERS["polacco"]) == 359


def strength(ruleset, decl_id):
    cat, ranks, _ = LADDERS[ruleset][decl_id]
    return (CATEGORIES[ruleset].index(cat), *ranks)


def is_raise(ruleset, decl_id, history):
    """Is ``decl_id`` a legal declaration after this round's ``history`` (ids)?"""
    if not history:
        return True
    new, last = strength(ruleset, decl_id), strength(ruleset, history[-1])
    if new > last:
        return True
    cat, _, suit = LADDERS[ruleset][decl_id]
    if ruleset == "official" and new == last and cat in SUITED:
        return all(LADDERS[ruleset][h][0] != cat or LADDERS[ruleset][h][2] != suit
                   for h in history)
    return False


def legal_raises(ruleset, history):
    return [d for d in range(len(LADDERS[ruleset])) if is_raise(ruleset, d, history)]


# ------------------------------------------------------------------ the pool check


def run_ranks(top):
    return (14, 2, 3, 4, 5) if top == 5 else tuple(range(top - 4, top + 1))


def exists(ruleset, decl_id, cards):
    """Does the declaration exist among ``cards`` (ids; 52 is the wild joker)?"""
    cat, ranks, suit = LADDERS[ruleset][decl_id]
    joker = 1 if JOKER in cards else 0
    have = {c for c in cards if c != JOKER}
    by_rank = [0] * 15
    for c in have:
        by_rank[c // 4 + 2] += 1
    if cat in N_OF_A_KIND:
        return max(0, N_OF_A_KIND[cat] - by_rank[ranks[0]]) <= joker
    if cat in ("two-pair", "full-house"):
        need = 2 if cat == "two-pair" else 3
        missing = max(0, need - by_rank[ranks[0]]) + max(0, 2 - by_rank[ranks[1]])
        return missing <= joker
    if cat == "straight":
        return sum(1 for r in run_ranks(ranks[0]) if by_rank[r] == 0) <= joker
    in_suit = {c // 4 + 2 for c in have if c % 4 == suit}
    if cat == "flush" and ruleset == "official":
        return len(in_suit) + joker >= 5
    if cat == "flush":  # polacco: the top card and four lower ones of its suit
        return ranks[0] in in_suit and sum(1 for r in in_suit if r < ranks[0]) >= 4
    top = ranks[0] if ranks else (14 if cat == "royal-flush" else 13)
    return sum(1 for r in run_ranks(top) if r not in in_suit) <= joker


# --------------------------------------------------------------------- the player


def deck(ruleset):
    return list(range(28, 53)) if ruleset == "official" else list(range(52))


def decide(view, seed):
    """The action map for an ``act`` view."""
    ruleset = view["ruleset"]
    history = [d for _, d in view["history"]]
    known = list(view["hand"]) + ([view["community"]] if view["community"] is not None else [])
    raises = legal_raises(ruleset, history)
    if not raises:
        return {"kind": "call"}
    # The weakest legal declaration that is certainly there: raise to it.
    sure = next((d for d in raises if exists(ruleset, d, known)), None)
    last = history[-1] if history else None
    if last is not None and exists(ruleset, last, known):
        return {"kind": "raise", "declaration": sure if sure is not None else raises[0]}
    rng = random.Random(f"{seed}/{view['round']}/{len(history)}")
    unseen = [c for c in deck(ruleset) if c not in set(known)]
    hidden = sum(n for s, n in enumerate(view["counts"])
                 if view["active"][s] and s != view["seat"])
    candidates = raises[:CANDIDATES]
    hits = dict.fromkeys(candidates, 0)
    last_hits = 0
    for _ in range(SAMPLES):
        pool = known + rng.sample(unseen, hidden)
        if last is not None:
            last_hits += exists(ruleset, last, pool)
        for d in candidates:
            hits[d] += exists(ruleset, d, pool)
    if last is not None and last_hits / SAMPLES < CALL_BELOW:
        return {"kind": "call"}
    if sure is not None:
        return {"kind": "raise", "declaration": sure}
    likely = next((d for d in candidates if hits[d] / SAMPLES >= RAISE_AT_LEAST),
                  max(candidates, key=lambda d: (hits[d], -d)))
    return {"kind": "raise", "declaration": likely}


# ----------------------------------------------------------------------- the wire


def main():
    try:
        endpoint, token = os.environ["REFEREE_ENDPOINT"], os.environ["REFEREE_TOKEN"]
    except KeyError as exc:
        print(f"raw_spec_bot: {exc.args[0]} is not set; the referee starts bots",
              file=sys.stderr)
        return 2
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 500
    sock.connect(endpoint)

    def send(msg):
        sock.send(msgpack.packb(msg, use_bin_type=True))

    send({"type": "hello", "token": token, "protocol": PROTOCOL, "name": "raw_spec_bot"})
    seed = 0
    parent = os.getppid()
    idle = 0.0
    try:
        while True:
            if not sock.poll(1000):
                idle += 1.0
                if os.getppid() != parent or idle > IDLE_EXIT_S:
                    return 1  # the referee is gone
                continue
            idle = 0.0
            msg = msgpack.unpackb(sock.recv(), raw=False)
            kind = msg.get("type")
            if kind == "refused":
                print(f"raw_spec_bot: refused: {msg.get('reason')}", file=sys.stderr)
                return 1
            if kind == "welcome":  # what the test of bot options looks for in its log
                print(f"raw_spec_bot: options {json.dumps(msg.get('options'), sort_keys=True)}"
                      f" argv {json.dumps(sys.argv[1:])}", file=sys.stderr, flush=True)
            if kind == "game_start":
                seed = msg["seed"]
            elif kind == "act":
                send({"type": "action", "seq": msg["seq"], "action": decide(msg["view"], seed)})
            elif kind == "bye":
                return 0
            # welcome, game_end and unknown types need no reply
    finally:
        sock.close()
        ctx.term()


if __name__ == "__main__":
    sys.exit(main())
