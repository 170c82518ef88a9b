"""Benchmark: ``Ratings.from_long`` against the ``pd.factorize`` of its three columns.

Long frames (one row per rating) of ``n`` ratings, 10 annotators per item, rows
shuffled, ids as strings or integers, labels as a categorical, as strings or as
small integers. The anchor is what any coding of the frame must do at least:
``pd.factorize`` of the item, annotator and label columns (for a categorical, of
its codes). Target (issue 34): ratio ≤ 1.5 for 1e6–1e8 rows; peak memory of the
call ≤ 2× the input frame (``tracemalloc`` peak of numpy/pandas allocations
against ``frame.memory_usage(deep=True)``).

Run: ``python benchmarks/bench_from_long.py [--rows 1e6 --rows 1e7]``; writes the
``from_long`` section of RESULTS.md. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _results import write_section

K = 10
LABELS = np.array(["neg", "neu", "pos"], dtype=object)


def frame(n: int, ids: str, labels: str, seed: int = 0) -> pd.DataFrame:
    """``n`` ratings of ``n // K`` items by ``K`` of 50 annotators, rows shuffled."""
    rng = np.random.default_rng(seed)
    n_items = n // K
    item = np.repeat(np.arange(n_items, dtype=np.int64), K)
    # K distinct annotators per item: a random offset, then consecutive ids mod 50.
    rater = (np.repeat(rng.integers(0, 50, n_items), K) + np.tile(np.arange(K), n_items)) % 50
    lab = rng.choice(3, size=n_items * K, p=[0.5, 0.3, 0.2]).astype(np.int8)
    order = rng.permutation(item.size)
    item, rater, lab = item[order], rater[order], lab[order]
    if ids == "string":
        item_col = pd.Series(np.char.add("item-", item.astype("U10")).astype(object))
        rater_col = pd.Series(np.char.add("worker-", rater.astype("U3")).astype(object))
    else:
        item_col, rater_col = pd.Series(item), pd.Series(rater.astype(np.int64))
    if labels == "categorical":
        label_col = pd.Series(pd.Categorical.from_codes(lab, LABELS.tolist()))
    elif labels == "string":
        label_col = pd.Series(LABELS[lab])
    else:
        label_col = pd.Series(lab.astype(np.int64))
    return pd.DataFrame({"item": item_col, "rater": rater_col, "label": label_col})


def factorize_all(df: pd.DataFrame) -> None:
    pd.factorize(df["item"])
    pd.factorize(df["rater"])
    lab = df["label"]
    pd.factorize(lab.cat.codes if isinstance(lab.dtype, pd.CategoricalDtype) else lab)


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def peak_ratio(df: pd.DataFrame, fn) -> float:
    size = df.memory_usage(index=False, deep=True).sum()
    tracemalloc.start()
    tracemalloc.reset_peak()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del out
    return peak / size


def main() -> None:
    from agreement import Ratings

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", action="append", default=None, help="1e6, 1e7, ... (repeatable)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    Ratings.from_long(frame(1000, "int", "int"))  # compile the kernels first
    rows = []
    for spec in args.rows or ["1e6"]:
        n = int(float(spec))
        repeat = args.repeat if n <= 10**7 else 1
        for ids in ("string", "int"):
            for labels in ("categorical", "string", "int"):
                df = frame(n, ids, labels)
                # Interleaved: anchor, goldnoise, anchor, goldnoise, ...
                ta, tg = [], []
                for _ in range(repeat):
                    ta.append(best_of(lambda df=df: factorize_all(df), 1))
                    tg.append(best_of(lambda df=df: Ratings.from_long(df), 1))
                anchor, ours = float(np.median(ta)), float(np.median(tg))
                mem = peak_ratio(df, lambda df=df: Ratings.from_long(df)) if n <= 10**7 else None
                rows.append((spec, ids, labels, ours, anchor, mem))
                print(rows[-1], flush=True)
                del df
    load = os.getloadavg()
    lines = ["## `Ratings.from_long` against `pd.factorize` (`benchmarks/bench_from_long.py`)", "",
             f"{K} annotators per item (of 50), 3 categories, rows shuffled. Anchor: "
             "`pd.factorize` of the item, annotator and label columns (a categorical's codes). "
             "Medians of interleaved runs (anchor, goldnoise, ...). Memory: tracemalloc peak of "
             "the call / the frame's deep size. Targets (issue 34): ratio ≤ 1.5, memory ≤ 2×.",
             "", "| rows | ids | labels | from_long | 3 × factorize | ratio | peak / frame |",
             "|---|---|---|---:|---:|---:|---:|"]
    for spec, ids, labels, ours, anchor, mem in rows:
        m = "—" if mem is None else f"{mem:.2f}×"
        lines.append(f"| {spec} | {ids} | {labels} | {ours:.3f} s | {anchor:.3f} s | "
                     f"{ours / anchor:.2f} | {m} |")
    worst = max(r[3] / r[4] for r in rows)
    verdict = "met" if worst <= 1.5 else "missed"
    lines += ["", f"Worst ratio {worst:.2f} — target ≤ 1.5 {verdict}."
              f" Load average during the run: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on "
              "2 cores (shared machine: figures are noisy)."]
    write_section("from_long", "\n".join(lines))


if __name__ == "__main__":
    main()
