"""One request and its reply as bytes, for each game's SPEC.md: what an author writing
a msgpack encoder in a language without a kit tests against.

Each example is the first scripted turn of ``referee check`` (``Game.check_turns``): the
``act`` as the referee builds and encodes it, and the legal reply. The blocks between
``<!-- exchange: NAME -->`` and ``<!-- /exchange -->`` in the SPEC files are made here:
``python -m referee.exchange --write`` rewrites them; without ``--write`` it says which
are out of date (exit 1). tests/kits/test_spec_bytes.py holds them to the code.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from protocol.codec import encode
from referee.games import load_game

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES: dict[str, tuple[str, dict[str, Any], str]] = {  # name -> game, params, file
    "polish-poker official": ("polish-poker", {"ruleset": "official"},
                              "referee/games/polish_poker/SPEC.md"),
    "turkish-poker": ("turkish-poker", {}, "referee/games/turkish_poker/SPEC.md"),
    "six-card-golf": ("six-card-golf", {}, "referee/games/six_card_golf/SPEC.md"),
}
SEQ, MOVE_MS, BANK_MS = 2, 1000, 5000
HEX_BYTES_PER_LINE = 32


def exchange(game: str, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``act`` of the game's first check turn, keys in the referee's order, and the
    reply to it."""
    turn = load_game(game, params).check_turns()[0]
    view, action = turn.engine.view(turn.engine.current_seat), turn.legal
    request = {"type": "act", "view": view, "results": [], "deadline_ms": MOVE_MS + BANK_MS,
               "time": {"move_ms": MOVE_MS, "bank_ms": BANK_MS}, "seq": SEQ}
    return request, {"type": "action", "seq": SEQ, "action": action}


def hex_lines(data: bytes) -> str:
    return "\n".join(data[i:i + HEX_BYTES_PER_LINE].hex()
                     for i in range(0, len(data), HEX_BYTES_PER_LINE))


def block(name: str) -> str:
    """The text between the markers of example ``name``."""
    game, params, _ = EXAMPLES[name]
    request, reply = exchange(game, params)
    parts = []
    for who, message in (("The referee's `act`", request), ("The bot's reply", reply)):
        data = encode(message)
        parts += [f"{who}, as JSON:", "", "```json", json.dumps(message), "```", "",
                  f"as msgpack, {len(data)} bytes (hex):", "", "```", hex_lines(data), "```", ""]
    return "\n".join([
        "", "One whole exchange as bytes (made by `python -m referee.exchange --write` from "
        "`referee check`'s first scripted turn; a test holds it to the code). A map's keys may "
        "come in any order, and a bot must accept any; `seq` in the reply is the request's own "
        "`seq`, copied, never counted.", "", *parts])


def _span(text: str, name: str) -> re.Match[str]:
    found = re.search(rf"<!-- exchange: {re.escape(name)} -->(.*?)<!-- /exchange -->", text,
                      re.S)
    if found is None:
        raise LookupError(f"no '<!-- exchange: {name} -->' block in {EXAMPLES[name][2]}")
    return found


def stale(write: bool = False) -> list[str]:
    """The examples whose block is out of date (rewritten when ``write``)."""
    out = []
    for name, (_, _, file) in EXAMPLES.items():
        path = ROOT / file
        text = path.read_text("utf-8")
        span, fresh = _span(text, name), block(name)
        if span.group(1) != fresh:
            out.append(f"{file}: {name}")
            if write:
                path.write_text(text[:span.start(1)] + fresh + text[span.end(1):], "utf-8")
    return out


def main(argv: list[str]) -> int:
    write = argv == ["--write"]
    changed = stale(write)
    for line in changed:
        print(f"{'rewrote' if write else 'out of date'}: {line}")
    return 1 if changed and not write else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
