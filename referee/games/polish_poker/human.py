"""A Polish Poker seat's view as text for the person playing it (``referee play``)."""

from __future__ import annotations

from typing import Any

from evaluator.cards import parse_card
from evaluator.declarations import from_id, ladder


def describe(view: dict[str, Any]) -> str:
    """The view (the game's SPEC.md) as lines, ending with what may be typed."""
    ruleset = view["ruleset"]
    hand = " ".join(str(parse_card(c)) for c in view["hand"])
    community = view.get("community")
    lines = [f"round {view['round']} ({ruleset}, cap {view['cap']}): you are seat "
             f"{view['seat']} of {view['players']}; seat {view['opener']} opened",
             f"your cards: {hand}"
             + (f"   community card: {parse_card(community)}" if community is not None else ""),
             "cards held: " + ", ".join(
                 f"seat {s}: {n}" if view["active"][s] else f"seat {s}: out"
                 for s, n in enumerate(view["counts"]))]
    history = view["history"]
    lines += [f"  seat {seat} declared {from_id(d, ruleset)}" for seat, d in history]
    if history:
        last = from_id(history[-1][1], ruleset)
        higher = [str(d) for d in ladder(ruleset) if d > last][:3]
        lines.append(f"type `call`, or a raise over {last}"
                     + (f" (the next: {', '.join(higher)}, ...)" if higher else ""))
    else:
        lines.append(f"you open: type any declaration, from `{ladder(ruleset)[0]}` to "
                     f"`{ladder(ruleset)[-1]}` (`referee rules polish-poker --rules "
                     f"{ruleset}` lists them)")
    return "\n".join(lines)



def describe_notice(notice: dict[str, Any], ruleset: str) -> str:
    """A round result (the game's SPEC.md) as one line.

    >>> print(describe_notice({"round": 1, "hands": [[49], [43]], "community": 39,
    ...     "declaration": 0, "exists": False, "loser": 0, "reason": "bluff",
    ...     "eliminated": False}, "official"))
    round 1: high 9 called, not there: seat 0 lost (bluff); seat 0: Ad, seat 1: Qs, community Js
    """
    declared = notice["declaration"]
    there = "there" if notice["exists"] else "not there"
    called = "no call" if declared is None else f"{from_id(declared, ruleset)} called, {there}"
    cards = [f"seat {s}: {' '.join(str(parse_card(c)) for c in hand)}"
             for s, hand in enumerate(notice["hands"]) if hand]
    if notice.get("community") is not None:
        cards.append(f"community {parse_card(notice['community'])}")
    out = ", and is out" if notice["eliminated"] else ""
    return (f"round {notice['round']}: {called}: seat {notice['loser']} lost "
            f"({notice['reason']}){out}; {', '.join(cards)}")
