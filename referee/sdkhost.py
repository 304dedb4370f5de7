"""Host a one-file Python bot: ``python -m referee.sdkhost path/to/bot.py``.

Loads the file as a module (its ``sys.argv``: the file, then any arguments after it),
takes its ``act`` and optional hooks (``on_game_start``, ``on_notice``,
``on_game_end``), and serves the referee through the SDK.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

from referee import sdk

EXIT_BAD_BOT = 2


def load_bot(path: str | Path, module_name: str | None = None) -> ModuleType:
    """Import a bot file as a module (named ``module_name``, default ``bot_<stem>``);
    ImportError if it defines no ``act``. Loading a file twice gives two modules.

    A bot in a package (a directory with ``__init__.py``) may import the modules beside
    it relatively (``from .common import x``): its directory is loaded as a package of
    its own, which needs nothing above it (a sandboxed bot sees only its directory)."""
    path = Path(path)
    name = module_name or f"bot_{path.stem}"
    init = path.parent / "__init__.py"
    if init.is_file():
        package = importlib.util.spec_from_file_location(
            f"{name}_package", init, submodule_search_locations=[str(path.parent)])
        if package is None or package.loader is None:
            raise ImportError(f"cannot load {path.parent} as a package")
        sys.modules[package.name] = importlib.util.module_from_spec(package)
        package.loader.exec_module(sys.modules[package.name])
        name = f"{package.name}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "act", None)):
        raise ImportError(f"{path} does not define a function act(view)")
    return module


def seed_kernel_cache() -> None:
    """Copy the compiled evaluator kernels the referee gave this sandbox
    (``REFEREE_KERNELS``, read-only) into this process's own numba cache, so that a bot
    using the evaluator loads them instead of compiling them (``referee.kernelcache``).
    Best effort: without them, the bot compiles as it would anyway."""
    src, dst = os.environ.get("REFEREE_KERNELS"), os.environ.get("NUMBA_CACHE_DIR")
    if src and dst:
        try:
            shutil.copytree(src, dst, dirs_exist_ok=True)
        except OSError:
            pass


class _SeedOnNumba(importlib.abc.MetaPathFinder):
    """Seeds the kernel cache the moment numba is first imported, and then steps aside:
    a bot that never uses a kernel never pays for the copy."""

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == "numba":
            sys.meta_path.remove(self)
            seed_kernel_cache()


def seed_kernel_cache_on_use() -> None:
    """``seed_kernel_cache`` when the bot first imports numba (now, if it already has)."""
    if "numba" in sys.modules:
        seed_kernel_cache()
    else:
        sys.meta_path.insert(0, _SeedOnNumba())


def main(argv: list[str]) -> int:
    """``BOT.py [ARG...]``: the bot sees ``[BOT.py, ARG...]`` as its ``sys.argv`` (the
    ``arg=VALUE`` of its bot argument, ``referee.botargs``)."""
    if not argv:
        print("usage: python -m referee.sdkhost BOT.py [ARG...]", file=sys.stderr)
        return EXIT_BAD_BOT
    sys.argv = list(argv)
    seed_kernel_cache_on_use()
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
