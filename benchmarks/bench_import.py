"""Import time of ``goldnoise`` and the start-up of the ``goldnoise`` command.

``python benchmarks/bench_import.py`` starts fresh interpreters and measures, in the same
run: ``import numpy``, ``import pandas`` (the floor: goldnoise needs pandas), ``import
agreement``, ``import goldnoise``, what ``python -X importtime -c "import goldnoise"`` adds
up to, and ``goldnoise --version`` / ``goldnoise examples`` end to end. Targets:
``import goldnoise`` at most 0.5 s (issue 12) and at most 1.1 × ``import pandas`` (issue 34). The section of RESULTS.md it writes states the load of
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


def _import_seconds(module: str, cpu: bool = False) -> float:
    code = (f"import time; t = time.perf_counter(); c = time.process_time(); import {module}; "
            "print(time.perf_counter() - t, time.process_time() - c)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=ENV, check=True)
    wall, used = map(float, out.stdout.split())
    return used if cpu else wall


def alternating_ratio(runs: int = RUNS) -> tuple[float, float, float, float]:
    """``import goldnoise`` over ``import pandas``, fresh interpreters alternating (so
    that the machine's load moves both alike): median wall times and CPU times,
    ``(pandas wall, goldnoise wall, pandas CPU, goldnoise CPU)``."""
    out: dict[str, list[tuple[float, float]]] = {"pandas": [], "goldnoise": []}
    code = ("import time; t = time.perf_counter(); c = time.process_time(); import {m}; "
            "print(time.perf_counter() - t, time.process_time() - c)")
    for _ in range(runs):
        for m in out:
            done = subprocess.run([sys.executable, "-c", code.format(m=m)],
                                  capture_output=True, text=True, env=ENV, check=True)
            wall, used = map(float, done.stdout.split())
            out[m].append((wall, used))
    med = {m: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for m, v in out.items()}
    return med["pandas"][0], med["goldnoise"][0], med["pandas"][1], med["goldnoise"][1]


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
    command = [str(script)] if script.exists() else [sys.executable, "-m", "goldnoise"]
    t = time.perf_counter()
    subprocess.run([*command, *args], capture_output=True, env=ENV, check=True)
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
    pd_wall, gn_wall, pd_cpu, gn_cpu = alternating_ratio()
    print(f"alternating: import goldnoise / import pandas = {gn_wall / pd_wall:.2f} (wall), "
          f"{gn_cpu / pd_cpu:.2f} (CPU)")
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
        f"`import goldnoise` costs {gn_med - pd_med:+.3f} s (median) against `import pandas`: "
        "every package `__init__` loads its public names at first use (PEP 562, "
        "`_goldnoise_lib.lazy.lazy_package`), so the import itself loads neither pandas nor "
        "NumPy nor any module below the package `__init__`s; the first name used loads its "
        "module and what that imports. "
        f"Target (issue 12) ≤ 0.5 s for `python -X importtime -c \"import goldnoise\"`: "
        f"{it_med:.3f} s median ({'met' if it_med <= 0.5 else 'not met'}); wall time of the "
        f"import statement, fastest run {gn_min:.3f} s.",
        "",
        f"Alternating fresh interpreters ({RUNS} pairs, medians): `import goldnoise` / "
        f"`import pandas` = {gn_wall / pd_wall:.2f} in wall time ({gn_wall:.3f} / "
        f"{pd_wall:.3f} s) and {gn_cpu / pd_cpu:.2f} in CPU time ({gn_cpu:.3f} / "
        f"{pd_cpu:.3f} s). Target (issue 34): ≤ 1.1 "
        f"({'met' if gn_wall / pd_wall <= 1.1 else 'not met'}).",
    ]
    write_section("import", "\n".join(lines))


if __name__ == "__main__":
    main()
