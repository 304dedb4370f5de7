"""The project's rules documents, one per ruleset (``protocol/rules/<ruleset>.md``).

They ship inside the package, beside SPEC.md, so that ``referee rules`` can print a
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
    return (files("protocol") / "rules" / f"{check_ruleset(ruleset)}.md").read_text("utf-8")


def summary(ruleset: str) -> str:
    """The document's summary section, without its heading (Markdown)."""
    text = document(ruleset)
    start = text.index(SUMMARY_HEADING) + len(SUMMARY_HEADING)
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else None].strip()
