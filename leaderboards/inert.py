"""Text that a bot controls, made inert for the place it is shown.

A bot chooses its name (its file name, or ``NAME=FILE``), what it prints on stdout and
stderr, and much of what an error about it says. All of that is data: shown on a
terminal it must not be read as Rich markup nor reach the terminal as an escape
sequence; in Markdown and HTML it must not become markup; in a CSV cell it must not be
a spreadsheet formula. Each function here makes a text safe for one sink; apply it
where the text is written, to the whole text, ours and the bot's alike.

>>> visible("ok\\x1b[2J\\rzap\\u202e")
'ok\\\\x1b[2J\\\\rzap\\\\u202e'
>>> markdown("[x](http://e) *b* <img>")
'[x\\\\](http://e) \\\\*b\\\\* &lt;img>'
>>> csv_cell("=HYPERLINK(1)"), csv_cell("-2+3"), csv_cell("caller")
("'=HYPERLINK(1)", "'-2+3", 'caller')
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from typing import Any

from rich.text import Text

# Control, format (bidi overrides, zero-width), surrogate, private and unassigned
# characters, and line or paragraph separators: none is shown as itself.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# CommonMark: a backslash makes any ASCII punctuation literal. Escaped: what starts
# emphasis, code, tables and escapes anywhere in a line, a `~` that could open a
# strikethrough (one followed by a space cannot), and a `]` that
# would close a link or image (`](`, `][`, `]:`; our documents define no references, so
# a bare `[1]` stays as it is). A `<` or `&` that could open a tag, an autolink or an
# entity becomes an entity itself.
_MD_SPECIAL = re.compile(r"[\\`*_|]|~(?=\S)|\](?=[(\[:])")
_MD_OPENERS = re.compile(r"<(?=[A-Za-z/!?])|&(?=[A-Za-z#])")
# A cell starting with one of these is a formula to a spreadsheet (OWASP: CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escape_char(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every character that is not shown as itself (controls such as ESC
    or CR, bidi overrides, zero-width and line-separator characters) written as an
    escape (``\\x1b``), so that it is one line and moves no cursor."""
    if text.isprintable():
        return text
    return "".join(_escape_char(ch) if ch != " " and unicodedata.category(ch) in _HIDDEN
                   else ch for ch in text)


def terminal(text: str) -> Text:
    """For a Rich console: a ``Text`` (Rich reads no markup, emoji code or highlighting
    in it) of the ``visible`` form."""
    return Text(visible(text))


def markdown(text: str) -> str:
    """For Markdown: ``visible``, with markup characters escaped (see ``_MD_SPECIAL``)."""
    text = _MD_OPENERS.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", visible(text))
    return _MD_SPECIAL.sub(r"\\\g<0>", text)


def html(text: str) -> str:
    """For HTML text or an attribute value: ``visible``, then entity-escaped."""
    return _html.escape(visible(text))


def csv_cell(text: str) -> str:
    """For a CSV cell that holds text: ``visible``, and a leading ``'`` if a spreadsheet
    would read it as a formula."""
    text = visible(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


QUOTE_CHARS = 80  # of a bad value, in an error message


def brief(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``value`` as text for an error message (a string as it is, anything else as its
    ``repr``), cut to ``limit`` characters.

    >>> brief(list(range(100)), 40)
    '[0, 1, 2, 3, 4, 5, 6, 7,...(390 characters)'
    """
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else f"{text[:limit - 16]}...({len(text)} characters)"
