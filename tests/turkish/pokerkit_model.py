"""A Turkish poker hand replayed in PokerKit: the same seats, cards, actions and draws.

PokerKit is the field's reference for betting, pots and draws. It knows neither the
opening qualification, the re-deals, nor the Turkish ranking, so the model covers hands
whose first seat opens at once (its first round then starts where PokerKit's does, and
the final round from the opener is PokerKit's first position), and ranks hands at the
showdown with our key through a small ``Hand`` subclass. PokerKit rakes the antes
apart from the bets, so it plays unraked: our rake must come out of the winners' shares.
"""

from __future__ import annotations

import warnings
from typing import Any

from pokerkit import Automation, BettingStructure, Hand, Mode, Opening, State, Street
from pokerkit import Deck as PKDeck

from evaluator.cards import parse_card
from evaluator.turkish import rank_key
from referee.games.turkish_poker.betting import FIXED_CAP, FIXED_UNITS

AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)
STRUCTURES = {"no-limit": BettingStructure.NO_LIMIT, "pot-limit": BettingStructure.POT_LIMIT,
              "fixed-limit": BettingStructure.FIXED_LIMIT}


def turkish_hand(low_rank: int) -> type[Hand]:
    """A PokerKit hand type ordered by the Turkish key of its five hole cards."""

    class TurkishHand(Hand):
        lookup = None  # type: ignore[assignment]
        low = False

        def __init__(self, cards: Any) -> None:
            self._cards = tuple(cards)
            if len(self._cards) != 5:
                raise ValueError("a Turkish hand is five cards")
            self._key = rank_key([parse_card(repr(c)).id for c in self._cards], low_rank)

        @property
        def entry(self) -> Any:
            return self._key

        @classmethod
        def from_game(cls, hole_cards: Any, board_cards: Any = ()) -> Hand:
            return cls(hole_cards)

    return TurkishHand


def new_state(limit: str, stacks: list[int], low_rank: int) -> State:
    fixed = limit == "fixed-limit"
    streets = [
        Street(False, (False,) * 5, 0, False, Opening.POSITION,
               FIXED_UNITS[0] if fixed else 1, FIXED_CAP if fixed else None),
        Street(False, (), 0, True, Opening.POSITION,
               FIXED_UNITS[1] if fixed else 1, FIXED_CAP if fixed else None),
    ]
    return State(
        AUTOMATIONS, PKDeck.STANDARD, (turkish_hand(low_rank),), tuple(streets),
        STRUCTURES[limit], True, 1, 0, 0, stacks, len(stacks), mode=Mode.CASH_GAME)


def deal(state: State, index: int, cards: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state.deal_hole("".join(cards), index)


def act(state: State, kind: str, amount: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "fold":
            state.fold()
        elif kind in ("pass", "call"):
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(amount)


def draw(state: State, draws: list[tuple[int, list[str], list[str]]]) -> None:
    """A whole draw: (player, discarded, received) in turn. PokerKit takes every discard
    before it deals."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index, discarded, _ in draws:
            assert state.stand_patter_or_discarder_index == index
            state.stand_pat_or_discard("".join(discarded))
        for index, _, received in draws:
            if received:
                state.deal_hole("".join(received), index)


def raise_range(state: State) -> tuple[int, int] | None:
    if not state.can_complete_bet_or_raise_to():
        return None
    return (state.min_completion_betting_or_raising_to_amount,
            state.max_completion_betting_or_raising_to_amount)
