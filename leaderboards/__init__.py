"""What results mean: standings, Elo ratings and SPRTs computed from run journals.

Pure functions of journal records; knows nothing of games or sockets.
"""

from leaderboards.elo import BotRating, EloFit, RatingError, bootstrap_elo, fit_elo
from leaderboards.sprt import (
    EloEstimate,
    Sprt,
    SprtError,
    expected_score,
    gsprt_llr,
    gsprt_llr_array,
    sprt_bounds,
    sprt_llr,
)
from leaderboards.standings import Standing, standings, write_json

__all__ = [
    "BotRating", "EloEstimate", "EloFit", "RatingError", "Sprt", "SprtError", "Standing",
    "bootstrap_elo", "expected_score", "fit_elo", "gsprt_llr", "gsprt_llr_array",
    "sprt_bounds", "sprt_llr", "standings", "write_json",
]
