"""Import time of ``goldnoise`` and the start-up of the ``goldnoise`` command.

``python benchmarks/bench_import.py`` starts fresh interpreters and measures, in the same
run: ``import numpy``, ``import pandas`` (the floor: goldnoise needs pandas), ``import
agreement``, ``import goldnoise``, what ``python -X importtime -c "import goldnoise"`` adds
up to, and ``goldnoise --version`` / ``goldnoise examples`` end to end. Target (issue 12):
``import goldnoise`` at most 0.5 s. The section of RESULTS.md it writes states the load of
the machine, which inflates every figure alike.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

from _results import write_section

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
RUNS = 9


def _import_seconds(module: str) -> float:
    code = (f"import time; t = time.perf_counter(); import {module}; "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=ENV, check=True)
    return float(out.stdout)


def _importtime_total(module: str) -> float:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                         capture_output=True, text=True, env=ENV, check=True)
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module and not parts[2].startswith("  "):
            return int(parts[1]) / 1e6
    raise RuntimeError(f"{module} not in -X importtime output")


def _command_seconds(*args: str) -> float:
    import time

    script = Path(sys.executable).parent / "goldnoise"
    t = time.perf_counter()
    subprocess.run([str(script), *args], capture_output=True, env=ENV, check=True)
    return time.perf_counter() - t


def main() -> None:
    rows = []
    for label, fn in [
        ("import numpy", lambda: _import_seconds("numpy")),
        ("import pandas", lambda: _import_seconds("pandas")),
        ("import agreement", lambda: _import_seconds("agreement")),
        ("import goldnoise", lambda: _import_seconds("goldnoise")),
        ('python -X importtime -c "import goldnoise" (cumulative)',
         lambda: _importtime_total("goldnoise")),
        ("goldnoise --version", lambda: _command_seconds("--version")),
        ("goldnoise examples", lambda: _command_seconds("examples")),
    ]:
        times = [fn() for _ in range(RUNS)]
        rows.append((label, statistics.median(times), min(times)))
        print(f"{label:60s} median {rows[-1][1]:.3f} s, min {rows[-1][2]:.3f} s")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    by = {label: (med, low) for label, med, low in rows}
    gn_med, gn_min = by["import goldnoise"]
    pd_med, _ = by["import pandas"]
    it_med, _ = by['python -X importtime -c "import goldnoise" (cumulative)']
    lines = [
        "## Import time (`benchmarks/bench_import.py`)",
        "",
        f"Fresh interpreters, {RUNS} runs each; load average {load:.1f} on "
        f"{os.cpu_count()} cores while measuring (other jobs were running: the figures are "
        "inflated alike, compare them with each other).",
        "",
        "| what | median (s) | fastest (s) |",
        "|---|---|---|",
        *(f"| `{label}` | {med:.3f} | {low:.3f} |" for label, med, low in rows),
        "",
        f"`import goldnoise` costs {gn_med - pd_med:+.3f} s (median) over `import pandas`, "
        f"which it cannot avoid: Numba, scipy, tqdm and matplotlib load at first use. "
        f"Target (issue 12) ≤ 0.5 s for `python -X importtime -c \"import goldnoise\"`: "
        f"{it_med:.3f} s median ({'met' if it_med <= 0.5 else 'not met'}; it was 1.1 s with "
        "scipy.stats and Numba imported eagerly); wall time of the import statement, "
        f"fastest run {gn_min:.3f} s.",
    ]
    write_section("import", "\n".join(lines))


if __name__ == "__main__":
    main()
