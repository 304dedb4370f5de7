"""Leaderboard files and the terminal table, all from one :class:`~leaderboards.report.Report`.

:func:`write_reports` writes ``leaderboard.json`` (for programs: full-precision numbers, the
covariance, the head-to-head counts), ``leaderboard.csv`` (for spreadsheets: the table),
``leaderboard.md`` and ``leaderboard.html`` (for people: caption, table, notes, head-to-head,
a tables tournament's bracket; the HTML page is :mod:`leaderboards.html`). The cells are
formatted in one place, :mod:`leaderboards.cells`, for every table alike. JSON rows carry
``shared_wins``, ``metric``, ``bound`` and ``note`` always, and the document the ``metric``
it shows (or null); the CSV has a ``note`` column.

The terminal table (:func:`rich_table`) fits a given width: it leaves out columns, least
needed first (``DROP_ORDER``), until it does, and says which; rank, bot and Elo always
stay, the bot's name wraps rather than being cut and the Elo never wraps.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from leaderboards import inert
from leaderboards.bracket_view import bracket_markdown
from leaderboards.cells import (
    COLUMNS,
    H2H_HELP,
    SHARED_WINS,
    TEXT_COLUMNS,
    caption,
    columns,
    footer,
    h2h_cells,
    md_table,
    page_title,
    table_cells,
    text_index,
)
from leaderboards.history import elo_history
from leaderboards.html import to_html
from leaderboards.metric import metric_label
from leaderboards.report import Report
from leaderboards.wholefile import replacing

__all__ = ["COLUMNS", "DROP_ORDER", "FILES", "SCHEMA_VERSION", "caption", "columns",
           "rich_table", "table_cells", "to_csv", "to_html", "to_json", "to_markdown",
           "write_reports"]

SCHEMA_VERSION = 1
FILES = ("leaderboard.json", "leaderboard.csv", "leaderboard.md", "leaderboard.html")
# Left out of a narrow terminal table first to last ("metric" and "metric +/-95%" stand
# for the game metric's two columns).
DROP_ORDER = ("LOS next %", "mean place", SHARED_WINS, "metric +/-95%", "wins", "games",
              "faults", "+/-95%", "metric", "score %")
_NAMES_INDEX = frozenset({0})  # the head-to-head table: names down the first column


def to_json(report: Report) -> dict[str, Any]:
    """``leaderboard.json``'s document."""
    fit, h2h = report.fit, report.head_to_head
    doc = {
        "schema_version": SCHEMA_VERSION, "kind": "elo", "settings": dict(report.settings),
        "caption": caption(report), "rows": [asdict(r) for r in report.rows],
        "covariance": {"names": list(fit.names), "matrix": fit.covariance.tolist()},
        "head_to_head": {"names": list(h2h.names),
                         "matrix": [[list(cell) for cell in row] for row in h2h.matrix]},
        "inputs_hash": report.inputs_hash, "n_games": report.n_games,
        "n_left_out": report.n_left_out,
        "metric": None if report.metric is None else
        {**asdict(report.metric), "label": metric_label(report.metric)},
    }
    return doc


def to_csv(report: Report) -> str:
    rows, _ = table_cells(report)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*columns(report), "note"))
    # The bot's name and the note are guarded against formulas; the other cells are ours
    # (numbers, negative ones included, stay numbers).
    bot = COLUMNS.index("bot")
    writer.writerows(
        [inert.csv_cell(c) if k == bot else c for k, c in enumerate(cells)]
        + [inert.csv_cell(r.note or "")] for cells, r in zip(rows, report.rows, strict=True))
    return out.getvalue()


def to_markdown(report: Report, bracket: Mapping[str, Any] | None = None) -> str:
    """``leaderboard.md``; ``bracket``: a tables tournament's (``bracket.json``)."""
    rows, notes = table_cells(report)
    blocks = [f"# {inert.markdown(page_title(report))}", inert.markdown(caption(report)),
              md_table(columns(report), rows, text_index(report)),
              *map(inert.markdown, notes),
              *([bracket_markdown(bracket)] if bracket is not None else []),
              "## Head to head", H2H_HELP,
              md_table(("", *report.head_to_head.names), h2h_cells(report), _NAMES_INDEX),
              inert.markdown(footer(report))]
    return "\n\n".join(blocks) + "\n"


def rich_table(report: Report, width: int | None = None) -> Table:
    """The table for the terminal, captioned like the files, notes underneath; with a
    ``width``, columns are left out (``DROP_ORDER``) until it fits."""
    rows, notes = table_cells(report)
    cols = list(columns(report))
    label = metric_label(report.metric) if report.metric is not None else None
    names = {"metric": label, "metric +/-95%": f"{label} +/-95%"}
    drop = [c for c in (names.get(d, d) for d in DROP_ORDER) if c in cols]
    left_out: list[str] = []
    measure = Console(width=100_000, file=io.StringIO())  # the natural width, unclamped
    while True:
        table = _rich(report, cols, rows, notes, left_out)
        if width is None or not drop or \
                Measurement.get(measure, measure.options, table).maximum <= width:
            return table
        left_out.append(drop.pop(0))


def _rich(report: Report, cols: list[str], rows: list[tuple[str, ...]], notes: list[str],
          left_out: Sequence[str]) -> Table:
    shown = [k for k, c in enumerate(cols) if c not in left_out]
    lines = [*notes] + ([f"not shown at this width: {', '.join(left_out)} (all in "
                         "leaderboard.csv)"] if left_out else [])
    table = Table(title=inert.terminal(caption(report)), title_justify="left",
                  caption=Text("\n").join(map(inert.terminal, lines)) if lines else None,
                  caption_justify="left")
    for k in shown:
        col = cols[k]  # the metric's interval: its column stands right of the metric's
        header = "+/-95%" if col.endswith(" +/-95%") else col
        table.add_column(inert.terminal(header),
                         justify="left" if col in TEXT_COLUMNS else "right",
                         no_wrap=col in ("Elo", "rank"),
                         overflow="fold" if col == "bot" else "ellipsis")
    for cells in rows:
        table.add_row(*(inert.terminal(cells[k]) for k in shown))
    return table


def write_reports(report: Report, out_dir: Path,
                  records: Sequence[Mapping[str, Any]] | None = None,
                  bracket: Mapping[str, Any] | None = None, replays: bool = False
                  ) -> list[Path]:
    """Write the four ``FILES`` into ``out_dir`` (created if need be); their paths.
    ``records``: the report's journal records in the order they finished (for the Elo
    over the games; none: that chart is left out); ``bracket``: a tables tournament's;
    ``replays``: the pages link to ``replay.html`` beside them."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    history = (elo_history(records, [r.bot for r in report.rows], report.settings.get("anchor"))
               if records else None)
    texts = (json.dumps(to_json(report), indent=2, allow_nan=False) + "\n",
             to_csv(report), to_markdown(report, bracket),
             to_html(report, history, bracket, replays))
    paths = []
    for name, text in zip(FILES, texts, strict=True):
        path = out_dir / name
        with replacing(path, 0o644) as f:  # never through a symbolic link left there
            f.write(text)
        paths.append(path)
    return paths
