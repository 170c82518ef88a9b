"""A pytest plugin that logs each test's CPU seconds (its process and children) as it ends.

CPU, not wall time: the machine is shared, and wall time there says more about the load
than about the test. Each line of ``$CPULOG`` (default ``cpu.tsv``) is
``nodeid<TAB>CPU seconds<TAB>wall seconds``; with pytest-xdist each worker appends its own
lines. ``benchmarks/ci_time.py`` sums them per file.

Run: ``PYTHONPATH=.:benchmarks CPULOG=/tmp/cpu.tsv pytest -p cpulog``; with
``COMPILELOG=/tmp/compile.tsv`` it also logs each kernel compile and its CPU seconds.
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


#: The test running now (the compile log names it).
_CURRENT = ["collection"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.time()
    _CURRENT[0] = item.nodeid
    yield
    with open(os.environ.get("CPULOG", "cpu.tsv"), "a") as fh:
        fh.write(f"{item.nodeid}\t{_cpu() - cpu:.3f}\t{time.time() - wall:.3f}\n")


class _CompileLog:
    """Each kernel compiled (a cache miss) and its CPU seconds: ``$COMPILELOG`` gets
    ``worker<TAB>function<TAB>signature<TAB>CPU seconds<TAB>depth<TAB>test`` per compile (depth 0: a
    compile the code asked for; deeper: a kernel compiled while compiling its caller, whose
    seconds its caller's line includes)."""

    def __init__(self, path: str):
        from numba.core import event

        self.path, self.stack = path, []
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")

        class Listener(event.Listener):
            def on_start(listener, ev):
                self.stack.append(time.process_time())

            def on_end(listener, ev):
                start = self.stack.pop()
                disp = ev.data.get("dispatcher")
                name = getattr(getattr(disp, "py_func", None), "__qualname__", str(disp))
                module = getattr(getattr(disp, "py_func", None), "__module__", "")
                with open(self.path, "a") as fh:
                    fh.write(f"{self.worker}\t{module}.{name}\t{ev.data.get('args')}\t"
                             f"{time.process_time() - start:.3f}\t{len(self.stack)}\t{_CURRENT[0]}\n")

        event.register("numba:compile", Listener())


def pytest_configure(config):
    if os.environ.get("COMPILELOG"):
        _CompileLog(os.environ["COMPILELOG"])
