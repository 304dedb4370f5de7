"""How Polish Poker deals: each round's cards from the game's one generator.

The deal (part of the replay format, never change it silently). A game draws from one
``random.Random(seed)`` (CPython's MT19937, seeded from the 32-bit words of ``abs(seed)``).
Every seat owns a slot of ``S`` positions, the most cards a seat can ever hold at the
table as far as the deck has room for all the slots (``slot_size``): in ``polacco`` the
table's cap, in ``official`` 5 with 2-4 players and 4 with 5-6. ``c`` is 1 in ``official``
(position 0 is the community card) and 0 in ``polacco``; ``n`` is the deck's size (25, 52).
Round ``k`` (from 1):

1. takes the generator's next ``D = c + players * S`` 32-bit outputs, as
   ``getrandbits(32 * D)``: ``w[i]`` is bits ``32 * i`` to ``32 * i + 31`` of it;
2. runs D steps of Fisher-Yates on ``deck_cards(ruleset)`` (ascending card ids): for
   ``i`` in ``0..D-1``, swap positions ``i`` and ``i + (w[i] * (n - i) >> 32)``;
3. deals a seat ``s`` that holds ``m`` cards the cards at positions ``c + s + j * players``,
   ``j < min(m, S)`` (the first ``m`` of its slot), and in ``official`` position 0 is the
   community card. Only in ``official`` with 5 or 6 seats, when 4 or fewer are still in,
   can a seat hold more than ``S``: its extra card comes from the slots of the seats that
   are out, whose positions are handed out in ascending order to the seats that need one,
   in ascending seat order.

Hands are sorted by card id; the other cards are out of play. A round always takes the
same D outputs, whatever happened before, so round k's draw is a function of (seed, k),
and a seat's cards of (seed, k, seat, the cards it holds) (the extra cards of step 3 also
depend on which seats are out). That is what duplicate deals need: the same seed with
the bots rotated deals every seat the same cards in each round where the counts agree.
``set_hands`` replaces one round's cards and changes no other round's.
"""

from __future__ import annotations

import copy
import random
import struct
from collections.abc import Iterator, Sequence
from functools import cache
from operator import attrgetter
from typing import Any

from evaluator import Card, deck_cards

# Card caps by number of players; official counts the players still in, polacco the
# players at the start.
OFFICIAL_CAP = {6: 3, 5: 4}
POLACCO_CAP = {3: 5, 4: 5, 5: 4, 6: 3, 7: 3, 8: 3}


def official_cap(players_in: int) -> int:
    return OFFICIAL_CAP.get(players_in, 5)


def slot_size(ruleset: str, players: int) -> int:
    """Positions of each seat's slot in the deal: the most cards a seat can ever hold at
    this table, as far as the deck has room for every seat's slot and the community card.

    >>> [slot_size("official", p) for p in range(2, 7)], slot_size("polacco", 8)
    ([5, 5, 5, 4, 4], 3)
    """
    if ruleset == "polacco":
        return POLACCO_CAP[players]  # fixed for the whole game
    largest_cap = official_cap(2)  # once 4 or fewer are in
    return min(largest_cap, (len(deck_cards(ruleset)) - 1) // players)


_CARD_ID = attrgetter("id")


class _Layout:
    """The deal's constants of one table (ruleset, players), built once per table."""

    def __init__(self, ruleset: str, players: int) -> None:
        self.deck = list(deck_cards(ruleset))  # copied for each round's shuffle
        self.players = players
        self.first = 1 if ruleset == "official" else 0  # position 0: the community card
        self.slot = slot_size(ruleset, players)
        self.positions = self.first + players * self.slot  # words drawn every round
        # cuts[s][m]: the positions of the first m cards of seat s's slot
        self.cuts = [[slice(self.first + s, self.first + s + m * players, players)
                      for m in range(self.slot + 1)] for s in range(players)]
        self.rows = struct.Struct(f"<{self.positions}I").iter_unpack


_layout = cache(_Layout)


class _Dealer:
    """The deal of one game, as the module docstring specifies it."""

    # Rounds whose words are drawn at once: the same words, in the same order, as one
    # draw per round, with fewer calls.
    BATCH = 8

    def __init__(self, ruleset: str, players: int, seed: int) -> None:
        self._table = _layout(ruleset, players)
        self._rng = random.Random(seed)
        self._words: Iterator[tuple[int, ...]] = iter(())  # the batch's rounds not dealt

    def __deepcopy__(self, memo: dict[int, Any]) -> _Dealer:
        """A twin that deals what this one would (``Game.judge`` tries an action on a
        copy of the engine): the batch's words left are drawn out of the iterator,
        which cannot be copied, and handed to both."""
        twin = _Dealer.__new__(_Dealer)
        twin._table = self._table  # constants of the table, shared
        twin._rng = copy.deepcopy(self._rng, memo)
        rest = list(self._words)
        self._words, twin._words = iter(rest), iter(rest.copy())
        return twin

    def next_round(
        self, counts: Sequence[int]
    ) -> tuple[tuple[tuple[Card, ...], ...], Card | None]:
        """The next round's hands (one per seat, ``counts[s]`` cards; 0 for a seat that
        is out) and community card."""
        table = self._table
        community = None
        deepest = max(counts)
        if deepest > table.slot:
            order = self._draw(table.positions)
            held = self._with_spares(order, counts)
            for h in held:
                h.sort(key=_CARD_ID)
            hands = tuple(map(tuple, held))
        else:
            # Fisher-Yates fixes position i at step i: the steps past the deepest slot
            # position in use would not change any card dealt.
            order = self._draw(table.first + table.players * deepest)
            out = []
            for cut, m in zip(table.cuts, counts, strict=True):
                h = order[cut[m]]
                if m > 1:  # (most hands of a game hold one card)
                    h.sort(key=_CARD_ID)
                out.append(tuple(h))
            hands = tuple(out)
        if table.first:
            community = order[0]
        return hands, community

    def _draw(self, steps: int) -> list[Card]:
        """The round's order of the deck; only the first ``steps`` positions are final."""
        # Always the same number of words, whatever the steps: round k's draw depends on
        # the seed and k alone.
        words = next(self._words, None)
        if words is None:
            size = 4 * self._table.positions * self.BATCH
            bits = self._rng.getrandbits(8 * size)
            self._words = self._table.rows(bits.to_bytes(size, "little"))
            words = next(self._words)
        order = self._table.deck.copy()
        n = len(order)
        for i in range(steps):
            j = i + (words[i] * (n - i) >> 32)
            order[i], order[j] = order[j], order[i]
        return order

    def _with_spares(self, order: list[Card], counts: Sequence[int]) -> list[list[Card]]:
        """Each seat's cards when some seat holds more than its slot (official, 5-6
        seats, 4 or fewer in): the extra cards come from the slots of the seats that are
        out, in ascending position order, to the seats in ascending order."""
        table = self._table
        first, players, slot = table.first, table.players, table.slot
        spare = [order[p] for p in sorted(p for s, m in enumerate(counts) if m == 0
                                          for p in range(first + s, table.positions, players))]
        out = []
        for cut, m in zip(table.cuts, counts, strict=True):
            extra = max(0, m - slot)
            out.append(order[cut[m - extra]] + spare[:extra])
            del spare[:extra]
        return out
