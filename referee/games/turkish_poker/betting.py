"""The arithmetic of bets: raise ranges by limit, pots and side pots, splits and rake.

Pure functions of numbers; the engine keeps the state.

>>> build_pots([10, 30, 30, 5], [False, False, False, True], [True, False, False, False])
[(35, (0, 1, 2)), (40, (1, 2))]
>>> build_pots([4, 2, 2], [False, False, False], [False, False, False])
[(8, (0, 1, 2))]
>>> split(10, (2, 0, 1))
[4, 3, 3]
>>> rake_of(101, 0.05, 0), rake_of(1000, 0.05, 3)
(5, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

LIMITS = ("no-limit", "pot-limit", "fixed-limit")
# Fixed-limit bet sizes before and after the draw, and bets per round (the first included).
FIXED_UNITS = (1, 2)
FIXED_CAP = 4


def raise_bounds(limit: str, *, current: int, last_raise: int, own_bet: int, stack: int,
                 pot: int) -> tuple[int, int]:
    """The smallest and largest amounts a seat may raise (or bet) the round's bet to.

    ``current``: the highest bet this round; ``last_raise``: the size of the last full bet
    or raise (the minimum bet before any); ``own_bet``: the seat's bet this round;
    ``pot``: every chip in the pot, this round's bets included. A seat that cannot reach
    the minimum may go all in for less (the range is then that one amount).
    """
    all_in = own_bet + stack
    smallest = current + last_raise
    if limit == "no-limit":
        largest = all_in
    elif limit == "pot-limit":
        largest = current + pot + (current - own_bet)
    else:
        largest = smallest
    largest = min(largest, all_in)
    smallest = min(max(smallest, 0), largest)
    return smallest, largest


def build_pots(contributed: Sequence[int], folded: Sequence[bool],
               all_in: Sequence[bool]) -> list[tuple[int, tuple[int, ...]]]:
    """Main pot then side pots: (amount, seats that may win it), from each seat's chips
    put in this hand (during a round too: the unmatched bets are then in the last pot).
    Each all-in amount of a seat still in closes a pot; chips of folded
    seats count in every pot they reach (above every seat still in, in the highest pot
    contested); pots with the same seats merge.

    >>> build_pots([10, 50, 30], [False, True, False], [True, False, True])
    [(30, (0, 2)), (60, (2,))]
    """
    live = range(len(contributed))
    levels = sorted({contributed[s] for s in live if all_in[s] and not folded[s]})
    levels.append(max(contributed))
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributed)
        # A seat still in and not all in may yet match every level.
        seats = tuple(s for s in live if not folded[s]
                      and (contributed[s] >= level or not all_in[s]))
        if not seats and pots:
            # Only folded (or forfeited) seats' chips reach this high: dead money of
            # the highest pot still contested.
            below, seats = pots.pop()
            amount += below
        elif pots and pots[-1][1] == seats:
            amount += pots.pop()[0]
        if amount:
            pots.append((amount, seats))
        previous = level
    return pots


def split(amount: int, order: Sequence[int]) -> list[int]:
    """``amount`` shared equally by the seats in ``order`` (nearest the dealer's left
    first); the odd chips go one each from the front."""
    share, odd = divmod(amount, len(order))
    return [share + (1 if i < odd else 0) for i in range(len(order))]


def rake_of(amount: int, fraction: float, cap: int) -> int:
    """The rake of one pot: ``fraction`` of it rounded down, at most ``cap`` (0: no cap)."""
    taken = int(Fraction(str(fraction)) * amount)
    return min(taken, cap) if cap else taken
