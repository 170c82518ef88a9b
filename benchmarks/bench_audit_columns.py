"""The command line's audit of a wide file with thousands of annotator columns.

Before reading a wide file as ratings, ``goldnoise`` checks whether a column is
metadata (a group, a site) rather than an annotator: a column whose values no other
column uses (``_metadata_hint`` in ``goldnoise/_cli/_input.py``). That check once
compared every column with every other (for each column, the list of the others
and their value sets): 25 million set visits at 5,000 columns, 15 of the 19 CPU
seconds of ``goldnoise audit`` on 10 items × 5,000 annotators. It now counts in one
pass in how many columns each value occurs.

This script writes 10 items × k annotators (k = 1,000, 2,000, 5,000; three labels,
each annotator following the item's truth 80% of the time) and times, in one
process after a warm-up audit (kernels compiled and loaded):

* the whole ``goldnoise audit FILE --item item`` (reading, checks, coefficients,
  the default latent-class fit and held-out check, the report), CPU seconds;
* the metadata check alone, and the former pairwise check on the same frame.

Targets: the audit of 10 × 5,000 within 8 CPU seconds; its cost grows no faster
than the ratings from 1,000 to 5,000 annotators (CPU ratio ≤ 5, the ratings' ratio).

Run: ``PYTHONPATH=. python benchmarks/bench_audit_columns.py``.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

from goldnoise._cli import main as cli
from goldnoise._cli._input import _metadata_hint

SIZES = (1000, 2000, 5000)


def wide_file(folder: Path, k: int, n_items: int = 10, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    labels = np.where(rng.random((n_items, k)) < 0.8, truth[:, None],
                      rng.integers(0, 3, (n_items, k)))
    frame = pd.DataFrame(labels, columns=[f"w{j}" for j in range(k)])
    frame.insert(0, "item", range(n_items))
    path = folder / f"wide_{k}.csv"
    frame.to_csv(path, index=False)
    return path


def former_metadata_hint(frame: Any) -> None:
    """The pairwise check as it was (for the 'former' column only; raises nothing)."""
    def norm(v: Any) -> str:
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    values = {c: {norm(v) for v in frame[c].dropna().unique()} for c in frame.columns}
    for col in frame.columns:
        if frame[col].notna().sum() < 5 or not values[col]:
            continue
        others = [c for c in frame.columns if c != col]
        if any(values[col] & values[o] for o in others):
            continue
        any(values[a] & values[b] for a, b in itertools.combinations(others, 2))


def cpu(fn) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def audit(path: Path, out: Path) -> None:
    status = cli(["audit", str(path), "--item", "item", "--out", str(out), "--quiet"])
    if status != 0:
        raise RuntimeError(f"goldnoise audit {path} ended with status {status}")


def main() -> None:
    os.environ["GOLDNOISE_PROGRESS"] = "0"
    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {k: wide_file(folder, k) for k in SIZES}
        audit(files[SIZES[0]], folder / "warm.json")  # compile or load the kernels once
        for k in SIZES:
            whole = min(cpu(lambda k=k: audit(files[k], folder / f"a{k}.json"))
                        for _ in range(2))
            frame = pd.read_csv(files[k]).set_index("item")
            check = min(cpu(lambda frame=frame, k=k: _metadata_hint(frame, files[k]))
                        for _ in range(3))
            former = cpu(lambda frame=frame: former_metadata_hint(frame))
            rows.append({"k": k, "ratings": 10 * k, "audit": whole, "check": check,
                         "former": former})
            print(f"k={k}: audit {whole:.2f} s CPU, check {check:.3f} s, former {former:.2f} s",
                  flush=True)
    load_after = os.getloadavg()[0]
    first, last = rows[0], rows[-1]
    growth = last["audit"] / first["audit"]
    ratings = last["ratings"] / first["ratings"]
    table = ["| annotators | ratings | audit (CPU s) | metadata check (CPU s) | former check "
             "(CPU s) |", "|---:|---:|---:|---:|---:|"]
    table += [f"| {r['k']:,} | {r['ratings']:,} | {r['audit']:.2f} | {r['check']:.3f} | "
              f"{r['former']:.2f} |" for r in rows]
    met_time = last["audit"] <= 8.0
    met_growth = growth <= ratings
    body = "\n".join([
        "## Audit of a wide file with thousands of annotators "
        "(`benchmarks/bench_audit_columns.py`)",
        "",
        "`goldnoise audit FILE --item item` in one process after a warm-up audit: 10 items × "
        "k annotators, three labels, each annotator following the item's truth 80% of the "
        "time. CPU seconds (`time.process_time`, best of two audits; the check best of "
        "three); the former check is the pairwise comparison of every column with every "
        f"other. 1-minute load average {load_before:.1f} before, {load_after:.1f} after "
        "(2 shared cores).",
        "",
        *table,
        "",
        f"From {first['k']:,} to {last['k']:,} annotators the ratings grow {ratings:.0f}×, "
        f"the audit's CPU {growth:.2f}×: "
        + ("no faster than the ratings (met)." if met_growth else "FASTER than the ratings "
           "(not met)."),
        f"Audit of 10 × {last['k']:,}: {last['audit']:.2f} s CPU against the 8 s target "
        + ("(met)." if met_time else "(NOT met)."),
    ])
    write_section("audit_columns", body)
    print(body)


if __name__ == "__main__":
    main()
