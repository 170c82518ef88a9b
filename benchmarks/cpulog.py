"""A pytest plugin that logs each test's CPU seconds (its process and children) as it ends.

CPU, not wall time: the machine is shared, and wall time there says more about the load
than about the test. Each line of ``$CPULOG`` (default ``cpu.tsv``) is
``nodeid<TAB>CPU seconds<TAB>wall seconds``; with pytest-xdist each worker appends its own
lines. ``benchmarks/ci_time.py`` sums them per file.

Run: ``PYTHONPATH=.:benchmarks CPULOG=/tmp/cpu.tsv pytest -p cpulog``.
"""

from __future__ import annotations

import os
import resource
import time

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.time()
    yield
    with open(os.environ.get("CPULOG", "cpu.tsv"), "a") as fh:
        fh.write(f"{item.nodeid}\t{_cpu() - cpu:.3f}\t{time.time() - wall:.3f}\n")
