"""The command-line options that confine a bot, shared by ``run``, ``sprt``, ``check``
and ``referee league init``: its limits (``referee.runsetup.make_limits``) and the user
it runs as."""

from __future__ import annotations

from typing import Annotated

import typer

MemoryOpt = Annotated[str, typer.Option(
    help="Memory per bot, with its unit: 512M, 2G (0: no limit; a bare number is refused): "
         "its whole process tree where a cgroup can be made (the run's first lines say), else "
         "the address space of each process.")]
CpuOpt = Annotated[str, typer.Option(
    help="CPU time per bot process over its life, with its unit: 90s, 10m (0: no limit; "
         "rounded up to whole seconds; a bare number is refused).")]
ProcsOpt = Annotated[int, typer.Option(
    help="Tasks of each bot's process tree in its cgroup (0: 1024); also RLIMIT_NPROC (per "
         "user; not applied to root; 0: none).")]
FilesOpt = Annotated[int, typer.Option(help="Open files per bot process (0: no limit).")]
RunAsOpt = Annotated[str | None, typer.Option(
    help="uid-range:BASE runs each bot process as a uid of its own (BASE, BASE+1, ...); "
         "a user name runs every bot as that user. The referee must be root.")]
DiskOpt = Annotated[str, typer.Option(help="Size of a sandboxed bot's private /tmp, e.g. 64M.")]
CoresOpt = Annotated[float, typer.Option(
    help="CPU cores each bot may use at most, all its processes together, e.g. 0.5 (0: no "
         "cap; needs a writable cgroup v1 cpu hierarchy). Caps that add up to no more than "
         "the machine's cores keep bots from slowing each other (SECURITY.md, Collusion).")]
LogCapOpt = Annotated[str, typer.Option(
    help="Bytes of each bot process's stdout and of its stderr kept in logs/, e.g. 1M.")]
