"""Light's κ at scale: many annotators with one rating each, and many items.

Two designs:

* A annotators with one rating each, 5 ratings per item (A/5 items): every
  annotator pair co-rates at most one item, so no pair has a κ (NaN, with a
  note). Before, per-item rows held a column per annotator pair: 10,000
  annotators took 154 s and 4.3 GB and printed κ = 0.
* n items × 50 annotators, complete: 1,225 pairs, the column kernels.

Time is the median of warm runs; memory is the peak of Python-tracked
allocations (numpy arrays) during the call, on top of the input Ratings
(tracemalloc). The previous implementation (per-item pair columns) is run
alongside where it fits in memory (its time and memory; its value now goes through the
same finalize rule, so the 0 it printed is not reproduced).

Run: ``PYTHONPATH=. python benchmarks/bench_light_kappa.py``.
"""

from __future__ import annotations

import re
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import timeit, write_section

from agreement import DegenerateDataWarning, Ratings, light_kappa
from agreement import _coefficients as _co
from agreement._item_stats import SPECS
from agreement._weights import weight_matrix


def one_rating_each(n_annotators: int, per_item: int = 5, seed: int = 0) -> Ratings:
    rng = np.random.default_rng(seed)
    n_items = n_annotators // per_item
    codes = np.full((n_items, n_annotators), -1, dtype=np.int8)
    rows = np.repeat(np.arange(n_items), per_item)
    codes[rows, np.arange(n_annotators)] = rng.integers(0, 3, n_annotators)
    return Ratings(codes, pd.Index([0, 1, 2], name="category"),
                   items=pd.RangeIndex(n_items, name="item"),
                   raters=pd.RangeIndex(n_annotators, name="rater"))


def complete(n_items: int, k: int = 50, seed: int = 0) -> Ratings:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_items)
    codes = np.where(rng.random((n_items, k)) < 0.7, truth[:, None],
                     rng.integers(0, 4, (n_items, k))).astype(np.int8)
    return Ratings(codes, pd.Index([0, 1, 2, 3], name="category"),
                   items=pd.RangeIndex(n_items, name="item"),
                   raters=pd.RangeIndex(k, name="rater"))


def peak_mb(fn) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / 2**20


def run_new(r):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return light_kappa(r)


def run_old(r):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return _co._compute_parts("light_kappa", SPECS["light_kappa"], r,
                                  weight_matrix(None, r), None)


def main() -> None:
    run_new(one_rating_each(100))  # compile
    run_new(complete(100))
    lines = ["## Light's κ at scale (`benchmarks/bench_light_kappa.py`)", "",
             "Per-pair statistics only for annotator pairs that co-rated an item. Time: median "
             "of warm runs; memory: peak numpy allocations during the call on top of the input "
             "(tracemalloc). The machine is shared with other jobs, so single figures are "
             "noisy by ±20%.", "",
             "### A annotators, one rating each, 5 ratings per item (A/5 items)", "",
             "| annotators | ratings | co-rating pairs | κ | time (s) | peak memory (MB) | "
             "previous: time (s) | previous: memory (MB) |",
             "|---:|---:|---:|---|---:|---:|---:|---:|"]
    for a in (1_000, 2_000, 5_000, 10_000, 20_000):
        r = one_rating_each(a)
        res = run_new(r)
        t = timeit(lambda r=r: run_new(r), repeat=5)
        mem = peak_mb(lambda r=r: run_new(r))
        note = next(n for n in res.notes if "co-rated items" in n)
        pairs = re.search(r"over (\d+) of the (\d+) annotator pairs", note).group(2)
        old_t = old_m = "—"
        if a <= 2_000:
            old_t = f"{timeit(lambda r=r: run_old(r), repeat=3):.3f}"
            old_m = f"{peak_mb(lambda r=r: run_old(r)):.0f}"
        lines.append(f"| {a:,} | {a:,} | {pairs} | {res.value} | {t:.4f} | {mem:.2f} | "
                     f"{old_t} | {old_m} |")
        print(lines[-1], flush=True)
    lines += ["", "The wide code matrix itself has A × A/5 cells (it is the input, not counted "
              "in the memory column); one pass reads it, so the time grows with its cells, "
              "while the pair statistics grow with the ratings. κ is NaN with a "
              "DegenerateDataWarning and a note (\"0 of A co-rating pairs usable\"), never 0.",
              "", "### n items × 50 annotators, complete (1,225 pairs)", "",
              "| items | ratings | κ | SE | time (s) | time per 10⁶ ratings (s) | "
              "peak memory (MB) |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for n in (10_000, 30_000, 100_000, 300_000):
        r = complete(n)
        res = run_new(r)
        t = timeit(lambda r=r: run_new(r), repeat=3)
        mem = peak_mb(lambda r=r: run_new(r))
        lines.append(f"| {n:,} | {n * 50:,} | {res.value:.4f} | {res.standard_error:.5f} | "
                     f"{t:.3f} | {t / (n * 50 / 1e6):.3f} | {mem:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", "Time per million ratings is flat: linear growth. With up to 100 annotators "
              "Light's κ runs on the column kernels the other coefficients use (as the previous "
              "implementation did for these designs: same speed); their memory is one "
              "transposed int8 copy of the codes, one byte per rating, so it grows linearly "
              "with the ratings. Beyond 100 annotators the pair sums live in k × k arrays or, "
              "for sparse designs, in one entry per co-rating visit (the first table)."]
    write_section("light_kappa", "\n".join(lines))


if __name__ == "__main__":
    main()
