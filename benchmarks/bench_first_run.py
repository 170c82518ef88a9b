"""The first run: `goldnoise audit` on an empty Numba cache, and new kinds of data later.

Kernels compile at first use and are cached on disk; the first audit of a data set
pays for compiling what it uses. This script measures, each in a fresh interpreter:

1. **first runs**: for each bundled example and each crowd set of
   ``../shared/data/crowd_gold`` (with its gold), ``goldnoise audit`` on its own empty
   cache (a temporary ``NUMBA_CACHE_DIR``), and the first command of the README
   (``goldnoise audit --example fleiss1971``) and ``goldnoise --version``;
2. **new kinds of data**: the same audits one after the other on one cache (each
   compiles only what the ones before it did not);
3. which line the compiling notice printed ("first run" or "this kind of data").

Wall and CPU time (user + system of the child) are both given: the machine is shared,
and its load inflates wall time; CPU time is what the run costs. Targets (issues 34,
36): the first audit of each ≤ 15 s, a later new kind ≤ 5 s, the first command
≤ 10 s.

Run: ``python benchmarks/bench_first_run.py`` (about 10 CPU-minutes).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GOLDNOISE_SHARED_DATA", ROOT.parent / "shared" / "data"))
CROWD = SHARED / "crowd_gold"
EXAMPLES = ("fleiss1971", "dawid_skene1979", "krippendorff2011", "hayes_krippendorff2007",
            "artstein_poesio2008")
SETS = ("rte", "dog", "web", "sentiment", "bluebird")


def runs() -> list[tuple[str, list[str]]]:
    out = [(f"--example {e}", ["audit", "--example", e]) for e in EXAMPLES]
    for s in SETS:
        if (CROWD / s / "label.csv").exists():
            out.append((s, ["audit", str(CROWD / s / "label.csv"), "--layout", "long",
                            "--item", "item", "--rater", "worker", "--label", "label",
                            "--gold", str(CROWD / s / "truth.csv")]))
    return out


def timed(args: list[str], cache: str) -> tuple[float, float, str]:
    """(wall s, CPU s, the notice line or '') of ``python -m goldnoise ARGS``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "goldnoise", *args], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    notice = next((line for line in done.stderr.splitlines() if "compiling kernels" in line),
                  "")
    kind = ("first run" if "first run" in notice else
            "this kind of data" if "kind of data" in notice else "—")
    return wall, cpu, kind


def main() -> None:
    rows_first, rows_seq = [], []
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu, kind = timed(["--version"], str(Path(tmp) / "version"))
        rows_first.append(("`goldnoise --version`", wall, cpu, kind))
        for name, args in runs():
            wall, cpu, kind = timed(args, str(Path(tmp) / name.replace(" ", "_")))
            rows_first.append((name, wall, cpu, kind))
            print("first", name, f"{wall:.1f} s wall, {cpu:.1f} s CPU", kind, flush=True)
        shared = str(Path(tmp) / "shared")
        for name, args in runs():
            wall, cpu, kind = timed(args, shared)
            rows_seq.append((name, wall, cpu, kind))
            print("sequence", name, f"{wall:.1f} s wall, {cpu:.1f} s CPU", kind, flush=True)
        wall, cpu, kind = timed(runs()[-1][1], shared)
        rows_seq.append((f"{runs()[-1][0]} again (all cached)", wall, cpu, kind))
    load = os.getloadavg()[0]
    lines = ["## The first run on an empty kernel cache (`benchmarks/bench_first_run.py`)", "",
             f"`goldnoise audit` in fresh interpreters, load average {load:.1f} on "
             f"{os.cpu_count()} cores at the end (a shared machine: wall time is inflated by "
             "the load, CPU time = user + system of the run). Targets: the first audit of "
             "each ≤ 15 s, later new kinds ≤ 5 s, the first command ≤ 10 s.", "",
             "First run, each on its own empty cache:", "",
             "| data | wall s | CPU s | notice |", "|---|---|---|---|"]
    lines += [f"| {n} | {w:.1f} | {c:.1f} | {k} |" for n, w, c, k in rows_first]
    lines += ["", "One after the other on one cache (each compiles what the runs above it did "
              "not: a new kind of data):", "", "| data | wall s | CPU s | notice |",
              "|---|---|---|---|"]
    lines += [f"| {n} | {w:.1f} | {c:.1f} | {k} |" for n, w, c, k in rows_seq]
    body = "\n".join(lines)
    print(body)
    write_section("first_run", body)


if __name__ == "__main__":
    main()
