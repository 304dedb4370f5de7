"""Wire plumbing shared by the raw-socket faulty bots of this directory (not a bot).

``serve(misbehave)`` connects a DEALER to ``REFEREE_ENDPOINT``, says hello with
``REFEREE_TOKEN``, and answers every ``act`` legally (call when there is something to
call, else open with declaration 0), except when ``misbehave(decision, msg, sock)``
returns True: then it has sent (or not sent) whatever it wanted instead. ``decision``
counts the requests of the current game from 1. It uses pyzmq and msgpack only, and
returns on ``bye``, on ``refused``, or when the referee (its parent) is gone.
"""

import os

import msgpack
import zmq


def pack(obj):
    return msgpack.packb(obj, use_bin_type=True)


def legal(msg):
    """A legal action for an ``act`` request (the caller bot's play)."""
    if msg["view"]["history"]:
        return {"kind": "call"}
    return {"kind": "raise", "declaration": 0}


def reply(msg, **extra):
    return {"type": "action", "seq": msg["seq"], "action": legal(msg), **extra}


def serve(misbehave):
    endpoint, token = os.environ["REFEREE_ENDPOINT"], os.environ["REFEREE_TOKEN"]
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(endpoint)
    sock.send(pack({"type": "hello", "token": token, "protocol": 2}))
    parent = os.getppid()
    decision = 0
    try:
        while True:
            if not sock.poll(500):
                if os.getppid() != parent:
                    return 1
                continue
            msg = msgpack.unpackb(sock.recv(), raw=False)
            kind = msg.get("type")
            if kind in ("bye", "refused"):
                return 0 if kind == "bye" else 1
            if kind == "game_start":
                decision = 0
            elif kind == "act":
                decision += 1
                if not misbehave(decision, msg, sock):
                    sock.send(pack(reply(msg)))
    finally:
        sock.close()
        ctx.term()
