"""The seccomp filter of sandboxed bots: no kernel object that two sandboxes share can
carry a message between them.

Two sandboxes see the same inodes read-only (``/usr``, the SDK, their endpoint's
directory, an author's folder). A read-only file still takes locks, leases and watches,
and the page cache says which of its pages someone read: bots at one table passed their
hands through ``flock(2)`` and inotify ``IN_OPEN`` on ``/usr/share/doc/*/copyright``.
So the filter refuses (``EPERM``) every call that sets or reads such shared state:
``flock``; ``fcntl`` locks (POSIX, open-file-description), leases and dnotify;
inotify and fanotify; ``mincore``, ``cachestat``, ``preadv2``/``pwritev2`` with
``RWF_NOWAIT`` and io_uring (which tell whether a page of a shared file is cached); the
kernel keyrings (``add_key``, ``keyctl``, ``request_key``: shared by uid); and
``perf_event_open``. Everything else is allowed. A call of another ABI (i386 or x32 on
x86-64), which numbers calls differently, kills the process.

The program is a few dozen classic BPF instructions written here (``program``), rather
than built with libseccomp: it needs no library that the machine may lack, and it is
short enough to read whole. bubblewrap installs it (``--seccomp FD``) just before it
runs the bot's command, after every mount is made.

>>> len(program("x86_64")) % 8
0
"""

from __future__ import annotations

import os
import platform
import struct

# seccomp_data: nr (u32) at 0, arch (u32) at 4, args (u64 each) from 16; little-endian.
_NR, _ARCH, _ARG = 0, 4, 16
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|..|K
_KILL_PROCESS, _ALLOW, _ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
_EPERM = 1
_X32_BIT = 0x40000000
_RWF_NOWAIT = 0x8
# fcntl commands: F_GETLK, F_SETLK, F_SETLKW (the 64-bit ones are the same numbers on
# 64-bit ABIs), F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY.
FCNTL_REFUSED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)


class SeccompUnsupported(OSError):
    """A machine whose system-call numbers this module does not know."""


# Per architecture: its AUDIT_ARCH value, whether x32 calls must be refused, the calls
# refused whatever their arguments, and the numbers of fcntl, preadv2 and pwritev2.
_ABIS = {
    "x86_64": (0xC000003E, True,
               {"flock": 73, "inotify_init": 253, "inotify_init1": 294,
                "inotify_add_watch": 254, "fanotify_init": 300, "fanotify_mark": 301,
                "mincore": 27, "cachestat": 451, "io_uring_setup": 425, "add_key": 248,
                "request_key": 249, "keyctl": 250, "perf_event_open": 298, "sysinfo": 99},
               72, 327, 328),
    "aarch64": (0xC00000B7, False,
                {"flock": 32, "inotify_init1": 26, "inotify_add_watch": 27,
                 "fanotify_init": 262, "fanotify_mark": 263, "mincore": 232,
                 "cachestat": 451, "io_uring_setup": 425, "add_key": 217,
                 "request_key": 218, "keyctl": 219, "perf_event_open": 241, "sysinfo": 179},
                25, 286, 287),
}


def program(machine: str | None = None) -> bytes:
    """The filter as ``struct sock_filter`` records, for ``machine`` (default: this
    one's); SeccompUnsupported for a machine not in the table."""
    machine = machine or platform.machine()
    if machine not in _ABIS:
        raise SeccompUnsupported(f"no seccomp filter for {machine} machines")
    arch, x32, refused, fcntl, preadv2, pwritev2 = _ABIS[machine]
    # (code, k, jump-if-true label, jump-if-false label); None: the next instruction.
    code: list[tuple[int, int, str | None, str | None]] = [
        (_LD, _ARCH, None, None), (_JEQ, arch, "nr", None), (_RET, _KILL_PROCESS, None, None),
        ("nr",), (_LD, _NR, None, None)]  # type: ignore[list-item]
    if x32:
        code.append((_JGE, _X32_BIT, "kill", None))
    code += [(_JEQ, nr, "deny", None) for nr in refused.values()]
    code += [(_JEQ, fcntl, "fcntl", None), (_JEQ, preadv2, "rw", None),
             (_JEQ, pwritev2, "rw", None), (_RET, _ALLOW, None, None),
             ("fcntl",), (_LD, _ARG + 8 * 1, None, None)]  # type: ignore[list-item]
    code += [(_JEQ, cmd, "deny", None) for cmd in FCNTL_REFUSED]
    code += [(_RET, _ALLOW, None, None),
             ("rw",), (_LD, _ARG + 8 * 5, None, None),  # type: ignore[list-item]
             (_JSET, _RWF_NOWAIT, "deny", None), (_RET, _ALLOW, None, None),
             ("deny",), (_RET, _ERRNO | _EPERM, None, None),  # type: ignore[list-item]
             ("kill",), (_RET, _KILL_PROCESS, None, None)]  # type: ignore[list-item]
    return _assemble(code)


def _assemble(code: list) -> bytes:
    """Resolve the labels (1-tuples mark where they are) into relative jumps."""
    labels: dict[str, int] = {}
    body = []
    for item in code:
        if len(item) == 1:
            labels[item[0]] = len(body)
        else:
            body.append(item)
    out = bytearray()
    for at, (op, k, yes, no) in enumerate(body):
        jt, jf = ((labels[target] - at - 1 if target else 0) for target in (yes, no))
        if not (0 <= jt < 256 and 0 <= jf < 256):
            raise ValueError("a jump of the seccomp filter is out of range")
        out += struct.pack("<HBBI", op, jt, jf, k)
    return bytes(out)


def filter_fd() -> int:
    """A new descriptor, read from its start, holding this machine's filter (for one
    ``bwrap --seccomp FD``, which reads it to its end); the caller closes it."""
    fd = os.memfd_create("referee-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, program())
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
