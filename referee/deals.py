"""Who can compute a game's cards: a run's deal secret and the seeds made from it.

A run's schedule (who sits where, and each game's ``seed``) follows from the run seed,
which ``config.json`` records and the journal repeats. The cards must not: a bot that
learnt the run seed would rebuild every deal with this very package. So a run has a
*deal secret* (32 random bytes, or the bytes of ``--secret-file``), kept in its run
directory as ``secret.key`` (mode 0600, in a directory of mode 0700) and nowhere else:
not in ``config.json``, the journal, the logs, a command line or an environment. With
it, a game's engine is seeded with HMAC-SHA256(secret, ``deal/<seed>``) and bot ``b`` (its
index in the run's list of bots) with the first 53 bits of HMAC-SHA256(secret,
``bot/<seed>/<b>``); neither tells anything of the other, nor of the deal, to whoever
lacks the secret.

A run given ``--seed`` and no ``--secret-file`` has no secret: each game is dealt from
its seed alone (``PolishPoker(rules, players, seed)``), so anyone who knows the seed can
recompute every deal. That is for research, never for a competition.

>>> keyed, open_ = Deals(b"k" * SECRET_BYTES), Deals()
>>> open_.engine_seed(12345), keyed.engine_seed(12345) == 12345
(12345, False)
>>> all(0 <= d.bot_seed(12345, b) < 2**53 for d in (keyed, open_) for b in range(8))
True
>>> keyed
Deals(mode='secret')
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from referee.rundir import RunFileError, open_read

SECRET_FILE = "secret.key"
SECRET_BYTES = 32        # what a run draws, and the least a --secret-file must hold
MAX_SECRET_BYTES = 4096  # a --secret-file beyond this is a mistake (a device, a log)
SEED_BITS = 53           # seeds on the wire and in the journal: JavaScript reads them exactly
RUN_SEED_BITS = 64       # a run seed drawn by the referee


class SecretError(ValueError):
    """A deal secret that is missing, unreadable or too short; the message says which."""


@dataclass(frozen=True)
class Deals:
    """How a run's games are dealt: keyed by ``key`` (its deal secret), or, without one,
    from each game's seed alone."""

    key: bytes | None = None

    @property
    def mode(self) -> str:
        """``secret`` or ``seed``, as ``config.json`` records it (key ``deals``)."""
        return "seed" if self.key is None else "secret"

    def __repr__(self) -> str:  # never the key, wherever a Deals is printed
        return f"Deals(mode={self.mode!r})"

    def engine_seed(self, seed: int) -> int:
        """The seed of the engine that deals the game journalled with ``seed``."""
        if self.key is None:
            return seed
        return int.from_bytes(self._mac(f"deal/{seed}"), "big")

    def bot_seed(self, seed: int, bot: int) -> int:
        """The seed bot ``bot`` (its index in the run's list of bots) is sent for the game
        of ``seed``, below 2^53. It follows the bot, not the seat: the games of a duplicate
        group replay one deal with the seats moved, and a seed that stayed with the seat
        would replay the same game whenever two copies of one bot swap seats (self-play
        would be all draws)."""
        return int.from_bytes(self._mac(f"bot/{seed}/{bot}")[:8], "big") >> (64 - SEED_BITS)

    def _mac(self, message: str) -> bytes:
        # hmac.digest: the same bytes as hmac.new(...).digest(), in one C call
        return hmac.digest(self.key or b"", message.encode(), "sha256")


def new_run_seed() -> int:
    """A run seed with RUN_SEED_BITS bits from the operating system's generator."""
    return secrets.randbits(RUN_SEED_BITS)


def new_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def read_secret_file(path: Path) -> bytes:
    """The bytes of a ``--secret-file`` (all of them are the key); SecretError if it
    cannot be read or holds fewer than SECRET_BYTES."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SECRET_BYTES + 1)
    except OSError as exc:
        raise SecretError(f"--secret-file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_SECRET_BYTES:
        raise SecretError(f"--secret-file {path} is larger than {MAX_SECRET_BYTES} bytes: "
                          "give a file that holds only the key")
    if len(data) < SECRET_BYTES:
        raise SecretError(f"--secret-file {path} holds {len(data)} bytes; a deal secret needs "
                          f"at least {SECRET_BYTES} (make one with: head -c {SECRET_BYTES} "
                          f"/dev/urandom > {path})")
    return data


def store_secret(run_dir: Path, key: bytes) -> None:
    """Write ``key`` to the run directory's SECRET_FILE, readable by its owner only.
    A file already there must hold the same key (a run started again in place)."""
    path = run_dir / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        if load_secret(run_dir) != key:
            raise SecretError(f"{path} already holds another run's deal secret") from None
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key)
    except OSError:
        path.unlink(missing_ok=True)  # a part of a key (a full disk) is no key
        raise


def load_secret(run_dir: Path) -> bytes:
    """The deal secret of the run in ``run_dir``; SecretError if it is gone or unreadable."""
    path = Path(run_dir) / SECRET_FILE
    try:
        with open_read(Path(run_dir), path) as f:
            key = f.read(MAX_SECRET_BYTES + 1)
    except RunFileError as exc:
        raise SecretError(str(exc)) from None
    except FileNotFoundError:
        raise SecretError(f"{path} is missing: this run's deals are keyed by it (restore it, "
                          "e.g. from the file given as --secret-file)") from None
    except OSError as exc:
        raise SecretError(f"{path}: {exc.strerror or exc}") from None
    if not SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise SecretError(f"{path} holds {len(key)} bytes, not a deal secret")
    return key


def run_deals(mode: str | None, run_dir: Path) -> Deals:
    """The deals of a recorded run: ``mode`` is ``config.json``'s ``deals`` (None for a
    run from before deal secrets, dealt from its seeds)."""
    if mode == "secret":
        return Deals(load_secret(run_dir))
    if mode in ("seed", None):
        return Deals()
    raise SecretError(f"{run_dir}: unknown deals {mode!r} in its configuration")


def private_run_dir(run_dir: Path) -> None:
    """Create ``run_dir`` if need be and make it its owner's alone (mode 0700): it holds
    the deal secret, and the journal of games whose deal is replayed later in the run."""
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir.chmod(0o700)
