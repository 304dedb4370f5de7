"""What results mean: standings, Elo ratings, SPRTs, a game's own metric and leaderboard
reports computed from run journals.

Pure functions of journal records; knows nothing of games or sockets.
"""

from leaderboards.elo import BotRating, EloFit, RatingError, bootstrap_elo, fit_elo
from leaderboards.metric import (
    MetricError,
    MetricEstimate,
    estimate_ratio,
    metric_by_bot,
    metric_label,
)
from leaderboards.report import (
    HeadToHead,
    Report,
    ReportError,
    ReportRow,
    build_report,
    cluster_keys,
    complete_groups,
    merge_settings,
)
from leaderboards.sprt import (
    PAIR_SCORES,
    EloEstimate,
    Sprt,
    SprtError,
    expected_score,
    game_score,
    gsprt_llr,
    gsprt_llr_array,
    sprt_bounds,
    sprt_llr,
)
from leaderboards.standings import Standing, standings
from leaderboards.writers import (
    caption,
    columns,
    rich_table,
    table_cells,
    to_csv,
    to_html,
    to_json,
    to_markdown,
    write_reports,
)

__all__ = [
    "PAIR_SCORES", "BotRating", "EloEstimate", "EloFit", "HeadToHead", "MetricError",
    "MetricEstimate", "RatingError", "Report", "ReportError", "ReportRow", "Sprt", "SprtError",
    "Standing",
    "bootstrap_elo", "build_report", "caption", "cluster_keys", "columns", "complete_groups",
    "estimate_ratio", "expected_score", "fit_elo", "game_score", "gsprt_llr", "gsprt_llr_array",
    "merge_settings", "metric_by_bot", "metric_label", "rich_table", "sprt_bounds", "sprt_llr",
    "standings", "table_cells", "to_csv", "to_html", "to_json", "to_markdown", "write_reports",
]
