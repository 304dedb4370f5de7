"""The referee's terminal output: the console for results, the error console for
messages, and ``say``, which prints a line that may hold what a bot chose."""

from __future__ import annotations

import os

from rich.console import Console
from rich.text import Text

from leaderboards import inert

console = Console()
if not console.is_terminal and "COLUMNS" not in os.environ:  # logs and CI: room for all columns
    console.width = 140
err_console = Console(stderr=True)


def say(text: str, label: str = "", style: str = "bold red", to: Console | None = None) -> None:
    """Print one line whose ``text`` may hold what a bot chose: inert (no markup, no
    control character), after an optional styled ``label``."""
    line = inert.terminal(text)
    (to or err_console).print(Text.assemble((label, style), line) if label else line,
                              soft_wrap=True)
