"""A tables tournament's bracket on the leaderboard pages (Markdown and HTML), from its
data (``bracket.json``: ``referee.bracket.bracket_to_dict``): the champion, then each
stage's tables with their standings, who advanced, and which places the seeded lot drew
(bots level on score, wins and head-to-head).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboards import inert
from leaderboards.cells import html_table, md_table

LOT_NOTE = ("lot: level with another bot of the table on score, wins and head-to-head; "
            "the place was drawn by the lot seeded from the run seed")


def champion_line(bracket: Mapping[str, Any]) -> str:
    champion = bracket.get("champion")
    return f"Champion: {champion}" if champion else "Champion: not decided yet"


def _stage_title(stage: Mapping[str, Any]) -> str:
    if stage["final"]:
        return f"Stage {stage['stage']}: final table"
    return (f"Stage {stage['stage']}: {len(stage['tables'])} tables, the best "
            f"{stage['advance']} of each advance")


def _table_title(table: Mapping[str, Any]) -> str:
    if not table["bots"]:
        return f"Table {table['table']}: {table['size']} players, waiting for the stage before"
    state = "" if table["finished"] else ", unfinished"
    return f"Table {table['table']}: {table['played']}/{table['games']} games{state}"


def _marks(stage: Mapping[str, Any], table: Mapping[str, Any],
           s: Mapping[str, Any]) -> str:
    marks = []
    if stage["final"] and table["finished"] and s["place"] == 1:
        marks.append("champion")
    elif s["bot"] in table["advanced"]:
        marks.append("advances")
    if s.get("lot"):
        marks.append("lot")
    return ", ".join(marks)


_HEADER = ("place", "bot", "score", "wins", "")
_TEXT = frozenset({1, 4})


def _rows(stage: Mapping[str, Any], table: Mapping[str, Any]) -> list[tuple[str, ...]]:
    return [(str(s["place"]), s["bot"], f"{s['score']:.3f}", f"{s['wins']}/{s['games']}",
             _marks(stage, table, s)) for s in table["standings"]]


def _any_lot(bracket: Mapping[str, Any]) -> bool:
    return any(s.get("lot") for stage in bracket["stages"] for t in stage["tables"]
               for s in t["standings"])


def bracket_markdown(bracket: Mapping[str, Any]) -> str:
    blocks = ["## Bracket", f"**{inert.markdown(champion_line(bracket))}**"]
    for stage in bracket["stages"]:
        blocks.append(f"### {inert.markdown(_stage_title(stage))}")
        for table in stage["tables"]:
            blocks.append(inert.markdown(_table_title(table)))
            if table["standings"]:
                blocks.append(md_table(_HEADER, _rows(stage, table), _TEXT))
    if _any_lot(bracket):
        blocks.append(inert.markdown(LOT_NOTE))
    return "\n\n".join(blocks)


def bracket_html(bracket: Mapping[str, Any]) -> str:
    parts = ['<section class="bracket">', "<h2>Bracket</h2>",
             f'<p class="champion">{inert.html(champion_line(bracket))}</p>']
    for stage in bracket["stages"]:
        parts.append(f"<h3>{inert.html(_stage_title(stage))}</h3>")
        for table in stage["tables"]:
            rows = _rows(stage, table)
            parts.append(html_table(_HEADER, rows, _TEXT, _table_title(table),
                                    ["lot" if "lot" in cells[4] else "" for cells in rows]))
    if _any_lot(bracket):
        parts.append(f'<p class="note">{inert.html(LOT_NOTE)}</p>')
    parts.append("</section>")
    return "\n".join(parts)
