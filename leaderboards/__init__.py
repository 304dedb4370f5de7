"""What results mean: standings, Elo ratings, SPRTs and leaderboard reports computed from run
journals.

Pure functions of journal records; knows nothing of games or sockets.
"""

from leaderboards.elo import BotRating, EloFit, RatingError, bootstrap_elo, fit_elo
from leaderboards.report import (
    HeadToHead,
    Report,
    ReportError,
    ReportRow,
    build_report,
    complete_groups,
    merge_settings,
)
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
from leaderboards.standings import Standing, standings
from leaderboards.writers import (
    caption,
    rich_table,
    table_cells,
    to_csv,
    to_html,
    to_json,
    to_markdown,
    write_reports,
)

__all__ = [
    "BotRating", "EloEstimate", "EloFit", "HeadToHead", "RatingError", "Report", "ReportError",
    "ReportRow", "Sprt", "SprtError", "Standing",
    "bootstrap_elo", "build_report", "caption", "complete_groups", "expected_score", "fit_elo",
    "gsprt_llr", "gsprt_llr_array", "merge_settings", "rich_table", "sprt_bounds", "sprt_llr",
    "standings", "table_cells", "to_csv", "to_html", "to_json", "to_markdown", "write_reports",
]
