"""A rule-based bot: opens with kings or better, calls and raises by hand category,
draws by the simple table in ``common``."""

from evaluator.turkish import ACE, PAIR, THREE, TWO_PAIR

from .common import (
    bet,
    check_or_call,
    check_or_fold,
    discards,
    key_of,
    legal,
)


def act(view):
    if view["phase"] == "draw":
        return {"kind": "draw", "cards": discards(view)}
    key = key_of(view)
    category = key >> 22
    pair_rank = (key >> 18) & 15
    pot, to_call = view["pot"], view["to_call"]
    if view["phase"] == "opening":
        if legal(view, "open"):
            return bet(view, 1 if category == PAIR and pair_rank < ACE else max(1, pot // 2))
        return {"kind": "pass"}
    if category >= THREE:
        return bet(view, view["to_call"] + max(view["bets"]) + pot // 2)
    if category == TWO_PAIR:
        return check_or_call(view) if to_call <= pot else check_or_fold(view)
    before_draw = view["phase"] == "first-round"
    if category == PAIR and (pair_rank >= 11 or before_draw) and to_call <= pot // 2:
        return check_or_call(view)
    return check_or_fold(view)
