"""A run directory's seal: the proof that this referee's user wrote its ``config.json``.

``referee resume`` plays what ``config.json`` says: which files run as bots, in which
sandbox (or none), in-process or not, as which users. A run directory may come from a
stranger, so ``resume`` takes a configuration only with the seal that ``referee run``
put beside it: HMAC-SHA256, under a key of the host's, of the configuration and of the
run's deal secret (so that neither can be changed or swapped). The key is not the deal
secret: that lies in the run directory, where whoever made the directory has it. It is
``seal.key`` (32 random bytes, mode 0600, made on first use) in ``$REFEREE_STATE_DIR``,
else ``$XDG_STATE_HOME/referee``, else ``~/.local/state/referee`` (a folder of mode 0700):
a run sealed on another machine or by another user is not this host's, and is resumed
only if the host vouches for it (``referee resume --trust``), which seals it anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

from referee.config import ConfigError

KEY_FILE = "seal.key"
KEY_BYTES = 32


class SealError(ConfigError):
    """A configuration without this host's seal, or whose seal does not match."""


def state_dir() -> Path:
    """Where the host's seal key lives (see the module's doc)."""
    given = os.environ.get("REFEREE_STATE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "referee"


def host_key() -> bytes:
    """The host's seal key, made (32 random bytes, mode 0600) if there is none yet."""
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / KEY_FILE
    if not path.exists():  # written whole, then linked: a run beside reads all or nothing
        tmp = folder / f".{KEY_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(KEY_BYTES))
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        key = f.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise SealError(f"{path} is not a seal key ({len(key)} bytes, not {KEY_BYTES}); "
                        "remove it to make a new one (runs sealed with it then need --trust)")
    return key


def seal(config: dict[str, Any], secret: bytes | None) -> str:
    """The seal of ``config`` (``config.json``'s ``config``) and the run's deal secret."""
    as_read = json.loads(json.dumps(config))  # as config.json gives it back: keys as text
    body = json.dumps(as_read, sort_keys=True, separators=(",", ":")).encode()
    secret_hash = hashlib.sha256(secret).digest() if secret is not None else b""
    return hmac.new(host_key(), secret_hash + body, hashlib.sha256).hexdigest()


def check_seal(doc: dict[str, Any], secret: bytes | None, path: Path) -> None:
    """SealError unless ``doc`` (``config.json``, read from ``path``) bears this host's
    seal over its configuration and ``secret``."""
    found = doc.get("seal")
    if not isinstance(found, str):
        raise SealError(f"{path} is not sealed by this referee (a run directory it did not "
                        "make, or made by a referee before seals): resume it only if you "
                        "trust its bots and settings, with `referee resume --trust`")
    if not hmac.compare_digest(found, seal(doc["config"], secret)):
        raise SealError(f"{path} or the run's secret.key was changed since the run started, "
                        "or the run was made by another user or machine: its seal does not "
                        "match; resume it only if you trust its bots and settings, with "
                        "`referee resume --trust`")
