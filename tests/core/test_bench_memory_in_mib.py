"""A benchmark run's memory is in MiB (setveil.core.bench): peak_mib is the kernel's peak
resident size, in KiB on Linux, over 1,024, and resident_mib the kernel's resident size over
2^20 bytes, as the columns' name says (a mutation pass over core/bench.py: peak_mib in units of
1,000 KiB and resident_mib in MB passed every test not marked slow, each off by 2.4-4.9%)."""

import os
import resource
import types

import numpy as np
import pytest

from setveil.core import bench
from setveil.core.bench import in_child, resident_mib

#: what each process of the fake run peaked at, in KiB, as Linux's getrusage gives it
PEAK_KIB = {resource.RUSAGE_SELF: 3 * 1024, resource.RUSAGE_CHILDREN: 5 * 1024}


def _nothing() -> dict:
    return {}


def test_the_peak_is_the_largest_processs_peak_in_kib_over_1024(monkeypatch):
    # in the forked run too: it inherits the patched functions
    monkeypatch.setattr(resource, "getrusage", lambda who: types.SimpleNamespace(ru_maxrss=PEAK_KIB[who]))
    monkeypatch.setattr(bench, "resident_mib", lambda: 1.5)
    memory = in_child(_nothing)
    assert memory["peak_mib"] == 5.0 and memory["run_mib"] == 3.5


def _kernels_resident_kib() -> int:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="Linux's statm")
def test_the_resident_memory_is_the_kernels_in_mib():
    held = np.ones(64 * 2**20 // 8)  # at least 64 MiB resident, so that MB and MiB differ by 3 or more
    before = resident_mib()
    kernel_mib = _kernels_resident_kib() / 1024
    after = resident_mib()
    assert before is not None and after is not None and held.sum() > 0
    assert min(before, after) - 1 <= kernel_mib <= max(before, after) + 1
