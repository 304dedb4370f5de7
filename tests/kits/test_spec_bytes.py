"""The SPEC files' exchanges as bytes are the code's: made from ``referee check``'s first
turn and the referee's encoder, and each hex block decodes to the JSON beside it."""

from __future__ import annotations

import json
import re

from protocol.codec import decode
from referee.exchange import EXAMPLES, ROOT, stale

BLOCK = re.compile(r"<!-- exchange: .*? -->(.*?)<!-- /exchange -->", re.S)


def test_the_spec_exchanges_are_up_to_date():
    assert stale() == [], "run: python -m referee.exchange --write"


def test_each_hex_block_decodes_to_its_json():
    for _, _, file in EXAMPLES.values():
        text = BLOCK.search((ROOT / file).read_text("utf-8")).group(1)
        pairs = re.findall(r"```json\n(.*?)\n```.*?```\n([0-9a-f\n]+)```", text, re.S)
        assert len(pairs) >= 2, file
        for shown, hexed in pairs:
            assert decode(bytes.fromhex(hexed.replace("\n", ""))) == json.loads(shown), file
