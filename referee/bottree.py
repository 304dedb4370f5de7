"""A bot as it travels to a cluster's workers: its folder, addressed by the hash of its tree.

A bot is what its folder is. A bot in a package (its directory has ``__init__.py``)
imports the modules beside it, reads the model files under it: the whole directory
travels (``__pycache__`` left out: the worker's Python makes its own). A lone bot file
travels alone. On the worker the tree is written into a directory named by its hash and
refused unless its bytes hash to the tree hash computed on the coordinator and the bot's
file to the sha256 the run recorded in ``config.json``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.process import BotSpec

SKIPPED_DIRS = frozenset({"__pycache__"})


class BotFileMismatch(ValueError):
    """A bot whose bytes, as received, do not hash to what the run recorded."""


@dataclass(frozen=True)
class TreeFile:
    """One file of a bot's tree: its path under the tree (``/``-separated), mode, bytes."""

    path: str
    mode: int
    data: bytes


def tree_hash(files: tuple[TreeFile, ...]) -> str:
    """The sha256 of a tree: of each file's path, mode and bytes' sha256, in path order.

    >>> tree_hash((TreeFile("a.py", 0o644, b"x"),)) == tree_hash((TreeFile("a.py", 0o644, b"x"),))
    True
    >>> tree_hash((TreeFile("a.py", 0o644, b"x"),)) == tree_hash((TreeFile("a.py", 0o755, b"x"),))
    False
    """
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        h.update(f"{f.path}\0{f.mode:o}\0{hashlib.sha256(f.data).hexdigest()}\n".encode())
    return h.hexdigest()


def _tree_files(home: Path, skip: Path | None) -> tuple[TreeFile, ...]:
    """The regular files under ``home`` (symlinks followed to files), except
    ``__pycache__`` and ``skip`` (a run directory that lies there)."""
    found = []
    for top, dirs, names in os.walk(home):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS
                         and (skip is None or Path(top, d).resolve() != skip))
        for name in sorted(names):
            path = Path(top, name)
            if path.is_file():
                found.append(TreeFile(path.relative_to(home).as_posix(),
                                      path.stat().st_mode & 0o755, path.read_bytes()))
    return tuple(found)


def is_package(bot: Path) -> bool:
    """Whether a bot file lies in a package (its folder travels whole)."""
    return (bot.parent / "__init__.py").is_file()


@dataclass(frozen=True)
class BotTree:
    """A bot as it travels with a run: its file's place in its tree, and the tree."""

    name: str
    entry: str      # the bot's file, as a path under the tree
    sha256: str     # of the bot's file, as the run recorded it
    digest: str     # tree_hash(files)
    files: tuple[TreeFile, ...]

    @classmethod
    def read(cls, spec: BotSpec, run_dir: Path | None = None) -> BotTree:
        """The bot's package folder (without ``run_dir`` if it lies there), or its file."""
        if is_package(spec.path):
            files = _tree_files(spec.path.parent, None if run_dir is None else run_dir.resolve())
        else:
            files = (TreeFile(spec.path.name, spec.path.stat().st_mode & 0o755,
                              spec.path.read_bytes()),)
        return cls(spec.name, spec.path.name, spec.sha256, tree_hash(files), files)

    @property
    def size(self) -> int:
        return sum(len(f.data) for f in self.files)

    def place(self, root: Path) -> BotSpec:
        """Write the tree to ``root/<tree hash>/`` (a directory of its own: what its
        sandbox shows it) unless it is there, and return the bot's spec there;
        BotFileMismatch if the bytes received are not those the run recorded."""
        digest = tree_hash(self.files)
        if digest != self.digest:
            raise BotFileMismatch(f"bot {self.name}: the files received hash to tree {digest}, "
                                  f"not the run's {self.digest}; refused")
        entry = next((f for f in self.files if f.path == self.entry), None)
        got = hashlib.sha256(entry.data).hexdigest() if entry else "nothing"
        if got != self.sha256:
            raise BotFileMismatch(f"bot {self.name}: the file received has sha256 {got}, "
                                  f"not the run's {self.sha256}; refused")
        home = root / self.digest
        if not home.is_dir():
            part = root / f"{self.digest}.part-{os.getpid()}"
            for f in self.files:
                rel = PurePosixPath(f.path)
                if rel.is_absolute() or ".." in rel.parts:
                    raise BotFileMismatch(f"bot {self.name}: a file of its tree is named "
                                          f"{f.path!r}; refused")
                path = part.joinpath(*rel.parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(f.data)
                path.chmod(f.mode)
            part.replace(home)
        return BotSpec(self.name, home / self.entry, self.sha256)
