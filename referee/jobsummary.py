"""``summary.md``: a run's or an SPRT's result in a few lines of Markdown, fit for a CI
job summary (``cat summary.md >> "$GITHUB_STEP_SUMMARY"``) or a pull-request comment.

An SPRT's: the verdict in the exit code's words, the LLR with its bounds, the Elo
estimate with its 95 % interval, the pentanomial counts of the pair scores, W/D/L,
games, the faults per bot, and how to go on when it is inconclusive. A run's: whether it
finished (or stopped at its time budget, and how to go on), then the leaderboard's table
and its notes. Every text a bot controls (its name, a fault's detail) goes through
:func:`leaderboards.inert.markdown`, so a bot cannot put markup into a PR comment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from leaderboards import inert
from leaderboards.cells import caption, columns, md_table, table_cells, text_index
from leaderboards.report import Report
from leaderboards.wholefile import replacing
from referee.journal import StorageError
from referee.summary import bot_faults

SUMMARY_FILE = "summary.md"
VERDICT_WORDS = {"H1": "H1 accepted", "H0": "H0 accepted", "inconclusive": "inconclusive"}
EXIT_OF = {"H1": 0, "H0": 1, "inconclusive": 2}


def sprt_summary(result: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                 run_dir: Path, event: str | None = None, why: str = "") -> str:
    """The Markdown of an SPRT's ``sprt.json`` (``result``); ``why``: what ended an
    inconclusive test (``--max-games``, ``--max-time``)."""
    t, est = result["test"], result["elo"]
    verdict = result["verdict"]
    cand, base = result["candidate"], result["baseline"]
    o = result["outcomes"]
    lines = [f"# {_title(event, 'SPRT')}: {inert.markdown(cand)} vs {inert.markdown(base)}",
             "",
             f"**{VERDICT_WORDS[verdict]}**" + (f" ({why})" if why else "")
             + f" (exit {EXIT_OF[verdict]})",
             "", "| | |", "|:---|:---|",
             f"| LLR | {result['llr']:+.2f} (bounds {result['bounds'][0]:+.2f}, "
             f"{result['bounds'][1]:+.2f}) |",
             f"| Elo | {est['elo']:+.1f} [{est['low']:+.1f}, {est['high']:+.1f}] (95 %) |",
             f"| pairs | {result['pairs']} (W {o['W']}, D {o['D']}, L {o['L']}) |",
             "| pentanomial (pair score 0, 1/4, 1/2, 3/4, 1) | "
             + ", ".join(map(str, result["pentanomial"])) + " |",
             f"| games | {result['games']} |",
             f"| test | H0 {t['elo0']:+g} Elo, H1 {t['elo1']:+g} Elo, alpha {t['alpha']}, "
             f"beta {t['beta']}, at most {t['max_games']} games |",
             f"| faults | {_faults(records)} |"]
    if verdict == "inconclusive":
        lines += ["", f"Go on with the same test: `referee resume {run_dir}`."]
    return "\n".join(lines) + "\n"


def run_summary(report: Report | None, records: Sequence[Mapping[str, Any]],
                planned: int | None, run_dir: Path, event: str | None = None,
                stopped: str = "") -> str:
    """The Markdown of a run: ``stopped`` names what ended it early (empty: it finished);
    ``planned``: the games its schedule has (None: not known in advance)."""
    played = len(records)
    of = f" of {planned}" if planned else ""
    state = (f"**stopped: {stopped}** after {played}{of} games; go on with "
             f"`referee resume {run_dir}`" if stopped else f"**finished**: {played} games")
    lines = [f"# {_title(event, 'Run')}", "", state, ""]
    if report is not None:
        rows, notes = table_cells(report)
        lines += [inert.markdown(caption(report)), "",
                  md_table(columns(report), rows, text_index(report)), "",
                  *[inert.markdown(n) + "\n" for n in notes]]
    lines.append(f"Faults: {_faults(records)}")
    return "\n".join(lines) + "\n"


def write_summary(run_dir: Path, text: str) -> Path:
    """Write ``summary.md`` whole, readable by all as the leaderboard's pages are (a CI
    step that posts it may run as another user); StorageError if it cannot be."""
    path = Path(run_dir) / SUMMARY_FILE
    try:
        with replacing(path, 0o644) as f:
            f.write(text)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _title(event: str | None, kind: str) -> str:
    return inert.markdown(event) if event else kind


def _faults(records: Sequence[Mapping[str, Any]]) -> str:
    found = bot_faults(records)
    if not found:
        return "none"
    return "; ".join(f"{inert.markdown(b.bot)}: "
                     + ", ".join(f"{inert.markdown(label)} {n}" for label, n in b.labels)
                     for b in found)
