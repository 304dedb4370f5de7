"""A file written whole or not at all, never through a symbolic link: what every
report, page and run file is written with."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def replacing(path: Path, mode: int = 0o600) -> Iterator[IO[str]]:
    """A new text file that takes the place of ``path`` whole when the block ends; if
    the block raises (an OSError, a full disk), the file is removed and what was at
    ``path`` stays. ``mode``: the file's permissions. Neither the new file nor ``path``
    is reached through a symbolic link: a link at ``path`` is replaced, not followed."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    tmp = f".{path.name}.{secrets.token_hex(6)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     mode, dir_fd=folder)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                yield f
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            raise
    finally:
        os.close(folder)
