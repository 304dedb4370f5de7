"""The vocabulary and the maths of hands: cards, decks, declarations, and checks.

>>> import evaluator
>>> evaluator.exists("two-pair A K", "Ah As Kd Jk", "official")
True
>>> [str(d) for d in evaluator.declarations("official")[:3]]
['high 9', 'high T', 'high J']
"""

from evaluator.cards import (
    CARD_TEXT,
    JOKER_ID,
    RULESETS,
    Card,
    CardError,
    RulesetError,
    deck,
    deck_cards,
    format_cards,
    parse_card,
    parse_cards,
)
from evaluator.declarations import (
    CATEGORIES,
    Declaration,
    DeclarationError,
    declarations,
    from_id,
    in_ladder,
    is_raise,
    ladder,
    legal_raises,
    parse_declaration,
    raise_error,
)
from evaluator.evaluate import best, exists, exists_bits, pool_bits

# The array functions need numpy (about 75 ms to import), which a bot that only reads
# cards and declarations should not pay for at every start.
_BATCH = ("PoolArrayError", "best_many", "exists_many", "pool_array")


def __getattr__(name: str) -> object:
    if name in _BATCH:
        from evaluator import batch

        return getattr(batch, name)
    raise AttributeError(f"module 'evaluator' has no attribute {name!r}")


__all__ = [
    "CARD_TEXT", "CATEGORIES", "JOKER_ID", "RULESETS", "Card", "CardError",
    "Declaration", "DeclarationError", "PoolArrayError", "RulesetError", "best", "best_many",
    "deck", "deck_cards", "declarations", "exists", "exists_bits", "exists_many",
    "format_cards", "from_id", "in_ladder", "is_raise", "ladder", "legal_raises", "parse_card",
    "parse_cards", "parse_declaration", "pool_array", "pool_bits", "raise_error",
]
