"""What a bot argument on the command line says: ``[NAME=]FILE{,KEY=VALUE}``.

Keys:

- ``option.NAME=VALUE``: an option of the bot (like fastchess's and cutechess's), sent
  to it in its ``welcome`` (SPEC.md section 3) and, for a Python bot, in
  ``on_game_start(info)`` as ``info.options`` and in ``referee.sdk.options()``;
  values are strings;
- ``arg=VALUE``: appended to the bot's command line (repeatable, in order);
- ``author=NAME``: the entrant's author; bots of one author never share a table unless
  the host allows it (``--allow-same-author``).

Options, arguments and author are part of the entrant: ``v1=bot.py,option.t=1`` and
``v2=bot.py,option.t=2`` are two entrants of one file. A comma cannot be part of a file
name or a value.

>>> a = parse_bot_arg("v1=bots/polish_poker/caller.py,option.threshold=0.7,arg=--fast,author=ann")
>>> a.name, a.file, a.options, a.args, a.author
('v1', 'bots/polish_poker/caller.py', (('threshold', '0.7'),), ('--fast',), 'ann')
>>> parse_bot_arg("bots/polish_poker/caller.py").name
''
>>> try:
...     parse_bot_arg("x,c=1")
... except BotArgError as exc:
...     print(exc)
bot argument 'x,c=1': unknown key 'c' (use option.NAME=VALUE, arg=VALUE or author=NAME)
"""

from __future__ import annotations

from dataclasses import dataclass

OPTION_PREFIX = "option."


class BotArgError(ValueError):
    """A bot argument that does not follow the grammar; the message says where."""


@dataclass(frozen=True, slots=True)
class BotArg:
    """One bot argument, parsed: ``name`` is empty when none was given."""

    name: str
    file: str
    options: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    author: str | None = None


def parse_bot_arg(text: str) -> BotArg:
    """``[NAME=]FILE{,KEY=VALUE}`` -> BotArg; BotArgError for a bad key or pair."""
    head, *pairs = text.split(",")
    name, sep, file = head.partition("=")
    if not sep:
        name, file = "", head
    options: dict[str, str] = {}
    args: list[str] = []
    author: str | None = None
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise BotArgError(f"bot argument {text!r}: {pair!r} is not KEY=VALUE")
        if key.startswith(OPTION_PREFIX) and key != OPTION_PREFIX:
            option = key.removeprefix(OPTION_PREFIX)
            if option in options:
                raise BotArgError(f"bot argument {text!r}: option {option!r} given twice")
            options[option] = value
        elif key == "arg":
            args.append(value)
        elif key == "author":
            if author is not None or not value:
                raise BotArgError(f"bot argument {text!r}: give one non-empty author")
            author = value
        else:
            raise BotArgError(f"bot argument {text!r}: unknown key {key!r} (use "
                              "option.NAME=VALUE, arg=VALUE or author=NAME)")
    return BotArg(name, file, tuple(options.items()), tuple(args), author)
