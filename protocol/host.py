"""Host a one-file Python bot: ``python -m protocol.host path/to/bot.py``.

Loads the file as a module, takes its ``act`` and optional hooks (``on_game_start``,
``on_notice``, ``on_game_end``), and serves the referee through the SDK.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from protocol import sdk

EXIT_BAD_BOT = 2


def load_bot(path: str | Path, module_name: str | None = None) -> ModuleType:
    """Import a bot file as a module (named ``module_name``, default ``bot_<stem>``);
    ImportError if it defines no ``act``. Loading a file twice gives two modules."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(module_name or f"bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "act", None)):
        raise ImportError(f"{path} does not define a function act(view)")
    return module


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m protocol.host BOT.py", file=sys.stderr)
        return EXIT_BAD_BOT
    try:
        bot = load_bot(argv[0])
    except (ImportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_BOT
    sdk.run(bot.act, getattr(bot, "on_game_start", None), sdk.notice_hook(bot),
            getattr(bot, "on_game_end", None))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
