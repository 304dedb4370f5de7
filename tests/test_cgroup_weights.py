"""The bots' CPU weight: each bot weighs one process, the run as much as its bots (real
cgroups; skipped where the cgroup v1 cpu hierarchy is not writable)."""

from __future__ import annotations

import pytest

from referee.cgroup import BOT_CPU_SHARES, CPU_PERIOD_US, RunCgroups, detect

pytestmark = pytest.mark.skipif(not detect().cpu, reason="no writable cgroup v1 cpu hierarchy")


def test_each_bot_weighs_one_process_and_keeps_its_core_cap() -> None:
    run = RunCgroups.create()
    assert run is not None
    try:
        cpu = run.dirs[2]
        run.bot("a.0", 0, 64, "a", cores=0.5)
        run.bot("a.1", 0, 64, "a", cores=0.5)  # a second process tree of the same bot
        assert int((cpu / "cpu.shares").read_text()) == BOT_CPU_SHARES
        run.bot("b.0", 0, 64, "b")
        assert int((cpu / "cpu.shares").read_text()) == 2 * BOT_CPU_SHARES
        assert int((cpu / "a" / "cpu.shares").read_text()) == BOT_CPU_SHARES
        assert int((cpu / "a" / "cpu.cfs_quota_us").read_text()) == CPU_PERIOD_US // 2
        assert int((cpu / "b" / "cpu.cfs_quota_us").read_text()) == -1
    finally:
        run.remove()
    assert not cpu.exists()
