"""Write one benchmark's section of ``benchmarks/RESULTS.md`` in place.

Each benchmark owns the text between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->``; running it again replaces only that section.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")
HEADER = (
    "# Benchmark results\n\n"
    "Medians of warm runs; every ratio compares tools measured in the same run on the same "
    "data. Each section is rewritten by the script it names.\n"
)


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def timeit(fn, *, repeat: int = 5, warmup: int = 1, min_time: float = 0.0) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeat`` warm runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if min_time and sum(times) > min_time and len(times) >= 3:
            break
    return float(np.median(times))


def write_section(name: str, body: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    stamp = time.strftime("%Y-%m-%d")
    block = f"{start}\n{body.rstrip()}\n\n_{machine()}; run {stamp}._\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)
