"""``leaderboard.html``: one self-contained page (inline CSS and SVG; it fetches nothing,
runs no script, and works from ``file://``).

In order: the table (each bot's name links to its games in the replay viewer,
``replay.html#bot=<name>``, when the page is written into a run directory), the notes,
the Elo chart with intervals (:mod:`leaderboards.charts`), Elo over the games played, the
head-to-head heat map, faults per bot, a tables tournament's bracket and champion, and
the footer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from leaderboards import inert
from leaderboards.bracket_view import bracket_html
from leaderboards.cells import (
    H2H_HELP,
    caption,
    columns,
    footer,
    html_table,
    page_title,
    table_cells,
    text_index,
)
from leaderboards.charts import elo_chart, faults_chart, heat_map, history_chart
from leaderboards.history import EloHistory
from leaderboards.report import Report

REPLAY_PAGE = "replay.html"  # written beside the leaderboard by referee.show.html


def replay_link(bot: str) -> str:
    """The replay viewer's address for ``bot``'s games (STEPS.md, "Links between pages").

    >>> replay_link("a b/<c>")
    'replay.html#bot=a%20b%2F%3Cc%3E'
    """
    return f"{REPLAY_PAGE}#bot={quote(bot, safe='')}"


def to_html(report: Report, history: EloHistory | None = None,
            bracket: Mapping[str, Any] | None = None, replays: bool = False) -> str:
    """The page. ``history``: Elo over the games (none: that chart is left out);
    ``bracket``: a tables tournament's (``bracket.json``); ``replays``: link each bot to
    ``replay.html`` beside the page."""
    rows, notes = table_cells(report)
    cols = columns(report)
    title = inert.html(page_title(report))
    body = [
        f"<h1>{title}</h1>",
        _leaderboard_table(report, rows, replays),
        *(f'<p class="note">{inert.html(n)}</p>' for n in notes),
    ]
    if bracket is not None:
        body.append(bracket_html(bracket))
    body += ["<h2>Elo with 95% interval</h2>",
             elo_chart(report, [cells[cols.index("Elo")] for cells in rows])]
    if history is not None:
        body += ["<h2>Elo over the games played</h2>",
                 '<p class="note">The ratings refitted on the games so far, in the order '
                 "they finished; the band is the 95% interval.</p>",
                 history_chart(report, history)]
    body += ["<h2>Head to head</h2>", f'<p class="note">{inert.html(H2H_HELP)}</p>',
             heat_map(report), "<h2>Faults per bot</h2>", faults_chart(report),
             f'<p class="note">{inert.html(footer(report))}</p>']
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _leaderboard_table(report: Report, rows: list[tuple[str, ...]], replays: bool) -> str:
    bot = columns(report).index("bot")
    return html_table(columns(report), rows, text_index(report), caption(report),
                      ["bound" if r.bound else "" for r in report.rows],
                      (bot, [replay_link(r.bot) for r in report.rows]) if replays else None)


CSS = """\
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
caption { caption-side: top; text-align: left; font-style: italic; padding: 0.4em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
.text { text-align: left; }
tr.bound td { background: #fff4dc; }
tr.lot td { background: #f3efff; }
p.note { font-size: 0.9em; color: #555; }
p.champion { font-size: 1.2em; font-weight: bold; }
p.legend .key { margin-right: 1.2em; white-space: nowrap; }
p.legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em;
             vertical-align: -0.1em; }
table.heat td { min-width: 4.5em; text-align: center; }
table.heat td.self { background: #eee; }
table.heat small { color: #444; }
svg text { font-size: 12px; fill: #222; }
svg text.axis-label { font-weight: bold; }
svg .grid { stroke: #e4e4e4; }
svg .centre { stroke: #999; }
svg .row line { stroke: #2a6fb0; stroke-width: 2; }
svg .row circle { fill: #2a6fb0; }
svg .bound line { stroke: #c07a00; stroke-dasharray: 4 3; }
svg .bound circle { fill: #fff; stroke: #c07a00; stroke-width: 2; }
svg .unrated text.value { fill: #888; }
svg .elo-line { fill: none; stroke-width: 2; }
svg .band { opacity: 0.15; stroke: none; }
.history:has(.key:hover, .bot-history:hover) .bot-history { opacity: 0.12; }
.history .bot-history:hover { opacity: 1; }
.history svg .elo-line { pointer-events: stroke; stroke-width: 2.5; }
.history p.legend { display: flex; flex-wrap: wrap; gap: 0.2em 1.2em; max-width: 60em; }
.history p.legend .key { margin: 0; cursor: default; }
"""
