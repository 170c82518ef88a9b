"""The CPU the default test run needs, from a fresh clone, and each test file's share.

A fresh clone has an empty kernel cache, as CI has: every kernel the tests use is
compiled in the run. The measurement (one run: about 5 minutes of wall time on 2 cores
with nothing else running; repeat it, as the same command's CPU varies by up to ±8% between
runs on a shared machine, and pass the other runs' logs with ``--also``):

    git clone REPO /tmp/c && cd /tmp/c
    GOLDNOISE_SHARED_DATA=/path/to/shared/data PYTHONPATH=.:benchmarks CPULOG=/tmp/cpu.tsv \\
        COMPILELOG=/tmp/compile.tsv \\
        /usr/bin/time -v pytest -p cpulog > /tmp/run.log 2>&1

(``pytest`` as the README and ``.ci/run`` run it, with the ``cpulog`` plugin of this
folder; ``/usr/bin/time -v`` counts the CPU of pytest and all its workers). Then

    python benchmarks/ci_time.py /tmp/cpu.tsv /tmp/run.log "load 6.2 at the start, 5.1 at the end" \\
        [/tmp/compile.tsv] [--ci-run] [--also /tmp/run2.log ...]

(``--ci-run``: the log timed the whole ``.ci/run``, pip install included: run it as
``CI=true PYTEST_ADDOPTS="-p cpulog" PYTHONPATH=benchmarks CPULOG=... COMPILELOG=...
/usr/bin/time -v bash .ci/run``)

writes the section of ``benchmarks/RESULTS.md``: user + system CPU, wall time, the load,
the outcome line, and the CPU per test file (the budget new tests are held to).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

#: The whole run's CPU target (user + system, minutes).
TARGET_MINUTES = 8.0


def per_file(tsv: Path) -> list[tuple[str, float, int]]:
    cpu: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for line in tsv.read_text().splitlines():
        nodeid, seconds, _wall = line.split("\t")
        name = nodeid.split("::")[0]
        cpu[name] += float(seconds)
        count[name] += 1
    return sorted(((f, cpu[f], count[f]) for f in cpu), key=lambda t: -t[1])


def timing(log: Path) -> dict[str, str]:
    text = log.read_text()
    found = {}
    for key, pattern in (("user", r"User time \(seconds\): ([\d.]+)"),
                         ("system", r"System time \(seconds\): ([\d.]+)"),
                         ("wall", r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)"),
                         ("outcome", r"^=+ (.*(?:passed|failed).*) =+$")):
        m = re.search(pattern, text, flags=re.M)
        found[key] = m.group(1) if m else "?"
    return found


def compiles(tsv: Path) -> list[str]:
    """The lines on kernel compiles from ``benchmarks/cpulog.py``'s ``$COMPILELOG``: their
    CPU, the parallel builds' share, and builds compiled by both workers."""
    rows = [line.split("\t") for line in tsv.read_text().splitlines()]
    top = [r for r in rows if r[4] == "0"]  # callees compiled inside their caller excluded
    total = sum(float(r[3]) for r in top)
    parallel = sum(float(r[3]) for r in top if "__parallel" in r[1])
    workers: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in top:
        workers[(r[1], r[2])].add(r[0])
    twice = sum(len(w) - 1 for w in workers.values())
    by_file: dict[str, float] = defaultdict(float)
    for r in top:
        by_file[r[5].split("::")[0] if len(r) > 5 else "?"] += float(r[3])
    worst = ", ".join(f"`{f}` {c:.0f} s" for f, c in
                      sorted(by_file.items(), key=lambda t: -t[1])[:5])
    return ["", f"Kernel compiles (a cache miss each; `COMPILELOG`): {len(top)}, **{total:.0f} s "
            f"of CPU**, of which the parallel builds {parallel:.0f} s; {twice} compiled by "
            f"both workers. Most compiled in: {worst}."]


def _cpu_of(log: Path) -> float:
    t = timing(log)
    return float(t["user"]) + float(t["system"])


def _spread(cpu: float, also: list[Path]) -> list[str]:
    """Other runs of the suite (this commit, or commits that changed no test's cost): the
    measure's own spread on a shared machine."""
    others = [_cpu_of(log) for log in also]
    every = sorted([cpu, *others])
    median = float(np.median(every)) / 60
    within = sum(c / 60 <= TARGET_MINUTES for c in every)
    spread = (every[-1] - every[0]) / 2 / float(np.median(every))
    return ["", f"Other fresh-clone runs of the suite took "
            f"{', '.join(f'{c / 60:.2f}' for c in others)} min of CPU: over all "
            f"{len(every)} runs a median of **{median:.2f} min**, {within} of them within the "
            f"{TARGET_MINUTES:g}-minute target; their range, {every[0] / 60:.2f}-"
            f"{every[-1] / 60:.2f} min, is ±{spread:.0%} of the median (the same command's CPU "
            "on this shared machine, whose other tenants do not show as load or steal)."]


def main() -> None:
    argv = sys.argv[1:]
    # --also LOG ...: the `/usr/bin/time -v` logs of other runs of the suite (this commit, or
    # commits that changed no test's cost)
    also = [Path(a) for a in argv[argv.index("--also") + 1:]] if "--also" in argv else []
    argv = argv[:argv.index("--also")] if "--also" in argv else argv
    args = [a for a in argv if a != "--ci-run"]
    whole = "--ci-run" in sys.argv  # the log times the whole `.ci/run`, not pytest alone
    tsv, log, load = Path(args[0]), Path(args[1]), args[2]
    compile_log = Path(args[3]) if len(args) > 3 else None
    t = timing(log)
    cpu = float(t["user"]) + float(t["system"])
    files = per_file(tsv)
    logged = sum(c for _, c, _ in files)
    rows = ["| file | tests | CPU s | share |", "|---|---:|---:|---:|"]
    rows += [f"| `{f}` | {n} | {c:.1f} | {c / logged:.1%} |" for f, c, n in files[:25]]
    rest = files[25:]
    if rest:
        rows.append(f"| {len(rest)} other files | {sum(n for *_, n in rest)} | "
                    f"{sum(c for _, c, _ in rest):.1f} | "
                    f"{sum(c for _, c, _ in rest) / logged:.1%} |")
    # the verdict: the median over this run and the others (--also)
    median = float(np.median([cpu, *(_cpu_of(log) for log in also)])) / 60
    verdict = (("met" if median <= TARGET_MINUTES else "NOT met")
               + (f" by the median of {len(also) + 1} runs, {median:.2f} min" if also else ""))
    body = "\n".join([
        "## CPU of the default test run, from a fresh clone (`benchmarks/ci_time.py`)",
        "",
        ("The whole of `CI=true bash .ci/run` (a new virtual environment, `pip install -e "
         "\".[test,docs]\"`, then `pytest`)" if whole else "`pytest`") +
        " (the README's and `.ci/run`'s command: every core through pytest-xdist, each file "
        "in one worker, the documentation build included, the tests marked slow deselected) "
        "in a fresh clone: an empty kernel cache, as in CI. CPU = user + system of "
        + ("the script, pip and pytest with its workers" if whole else
           "pytest and its workers") + " (`/usr/bin/time -v`); the machine's 2 cores are "
        f"shared, so the wall time says more about the load ({load}) than about the suite.",
        "",
        f"**{cpu / 60:.1f} min of CPU** ({t['user']} s user + {t['system']} s system), wall "
        f"{t['wall']}; {t['outcome']}. Target ≤ {TARGET_MINUTES:g} min: {verdict}.",
        "",
        f"Per test file (CPU logged per test by `benchmarks/cpulog.py`: {logged:.0f} s of the "
        f"{cpu:.0f} s; the rest is " + ("the install, " if whole else "") +
        "collection and the workers' start):",
        "",
        *rows,
        *(compiles(compile_log) if compile_log else []),
        *(_spread(cpu, also) if also else []),
    ])
    write_section("ci_time", body)
    print(body)


if __name__ == "__main__":
    main()
