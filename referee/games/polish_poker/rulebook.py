"""The rules documents, one per ruleset (``rules/<ruleset>.md`` in this package).

They ship inside the package, so that ``referee rules polish-poker`` can print a
ruleset's summary from the very text a bot author reads.

>>> summary("official").splitlines()[0].startswith("- 2 to 6 players")
True
"""

from __future__ import annotations

from importlib.resources import files

from evaluator.cards import check_ruleset

SUMMARY_HEADING = "## Summary"


def document(ruleset: str) -> str:
    """The whole rules document of ``ruleset`` (Markdown)."""
    path = files("referee.games.polish_poker") / "rules" / f"{check_ruleset(ruleset)}.md"
    return path.read_text("utf-8")


def summary(ruleset: str) -> str:
    """The document's summary section, without its heading (Markdown)."""
    text = document(ruleset)
    start = text.index(SUMMARY_HEADING) + len(SUMMARY_HEADING)
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else None].strip()
