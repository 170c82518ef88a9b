"""Benchmark: the agreement coefficients against numpy, statsmodels, krippendorff, sklearn.

Issue 2's targets, measured in one run on the same data (medians of warm runs):

* every coefficient (value and analytic SE, on coded Ratings) within 5× of the time
  numpy takes to sum the code matrix once (``codes.sum()``);
* Fleiss' κ from the label matrix at least 20× faster than statsmodels
  (``aggregate_raters`` + ``fleiss_kappa``) at n ≥ 1e6;
* Krippendorff's α (nominal, with missing ratings) at least 20× faster than the
  ``krippendorff`` package;
* and, for reference, Cohen's κ from two label columns against scikit-learn's
  ``cohen_kappa_score``;
* ``import agreement`` compiles nothing and takes under 0.5 s.

Grid: n = 1e4, 1e5, 1e6, 1e7 items; k = 2, 5, 20 annotators; m = 2, 5 categories;
complete data and 10% missing ratings (n = 1e7: k = 2 and 5, plus k = 20 with m = 5
and missing ratings). Anchors that would take minutes or run out of memory are
skipped and say so. Writes the ``agreement`` section of ``benchmarks/RESULTS.md``.

Run: ``python benchmarks/bench_agreement.py`` (a few minutes; about 3 GB of RAM at
n = 1e7). ``--quick`` runs n ≤ 1e5 only and writes nothing.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import krippendorff
import numba
import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import timeit, write_section

import agreement as ag
from agreement import Ratings

COEFFICIENTS = [
    ("PA", ag.percent_agreement), ("Fleiss", ag.fleiss_kappa), ("Cohen", ag.cohen_kappa),
    ("Scott", ag.scott_pi), ("Conger", ag.conger_kappa), ("Light", ag.light_kappa),
    ("BP", ag.brennan_prediger), ("AC1", ag.gwet_ac1), ("AC2 (quad.)", None),
    ("α nominal", None),
]


def make_codes(n: int, k: int, m: int, missing: float, seed: int) -> np.ndarray:
    """int8 codes with agreement structure: a latent class, 70% of labels follow it."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), dtype=np.int8)
    step = 1_000_000
    for lo in range(0, n, step):
        size = min(step, n - lo)
        truth = rng.integers(0, m, size=size, dtype=np.int8)
        noise = rng.integers(0, m, size=(size, k), dtype=np.int8)
        follow = rng.random((size, k), dtype=np.float32) < 0.7
        block = np.where(follow, truth[:, None], noise)
        if missing:
            block[rng.random((size, k), dtype=np.float32) < missing] = -1
        out[lo:lo + size] = block
    return out


def coded(codes: np.ndarray, m: int) -> Ratings:
    n, k = codes.shape
    return Ratings(codes, pd.Index(range(m), name="category"),
                   items=pd.RangeIndex(n, name="item"), raters=pd.RangeIndex(k, name="rater"))


def labels_of(codes: np.ndarray) -> np.ndarray:
    """The label matrix users start from: ints, or floats with NaN when missing."""
    if (codes >= 0).all():
        return codes.astype(np.int64)
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out


def ours(name, fn, r):
    if name == "AC2 (quad.)":
        return lambda: ag.gwet_ac1(r, weights="quadratic")
    if name == "α nominal":
        return lambda: ag.krippendorff_alpha(r)
    return lambda: fn(r)


def applicable(name, k):
    return not (name in ("Cohen", "Scott") and k != 2)


def measure(n, k, m, missing, *, anchors=True):
    codes = make_codes(n, k, m, missing, seed=n + 10 * k + m)
    r = coded(codes, m)
    repeat = 5 if n <= 1_000_000 else 3
    row = {"n": n, "k": k, "m": m, "missing": missing}
    row["sum"] = timeit(lambda: codes.sum(), repeat=9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.DegenerateDataWarning)
        for name, fn in COEFFICIENTS:
            if applicable(name, k):
                row[name] = timeit(ours(name, fn, r), repeat=repeat, min_time=3.0)
    row["sum_again"] = timeit(lambda: codes.sum(), repeat=9)
    if anchors:
        row.update(measure_anchors(codes, n, k, m, missing))
    return row


def measure_anchors(codes, n, k, m, missing):
    out = {}
    labels = labels_of(codes) if n <= 1_000_000 or k <= 5 else None
    if labels is None:
        out["skip"] = "label-matrix comparisons skipped at n = 1e7, k = 20 (1.6 GB of floats)"
        return out
    rep = {"repeat": 3, "warmup": 1}
    out["coding"] = timeit(lambda: Ratings.from_wide(labels), repeat=5)
    # Fleiss' κ from the label matrix: our coding + κ, against statsmodels.
    out["fleiss_labels"] = timeit(lambda: ag.fleiss_kappa(Ratings.from_wide(labels)),
                                  repeat=5)
    if missing == 0 and (n <= 1_000_000 or (k == 5 and m == 5)):
        def sm():
            table, _ = inter_rater.aggregate_raters(labels, n_cat=m)
            return inter_rater.fleiss_kappa(table, method="fleiss")
        out["statsmodels"] = timeit(sm, **(rep if n <= 1_000_000 else
                                           {"repeat": 1, "warmup": 0}))
        out["fleiss_check"] = abs(sm() - ag.fleiss_kappa(Ratings.from_wide(labels)).value)
    # Krippendorff's α nominal (the package builds units × values × values floats).
    out["alpha_labels"] = timeit(lambda: ag.krippendorff_alpha(Ratings.from_wide(labels)),
                                 repeat=5)
    if n <= 1_000_000:
        floats = labels.astype(np.float64)

        def kr():
            return krippendorff.alpha(reliability_data=floats.T, value_domain=list(range(m)),
                                      level_of_measurement="nominal")
        out["krippendorff"] = timeit(kr, **rep)
        out["alpha_check"] = abs(kr() - ag.krippendorff_alpha(Ratings.from_wide(labels)).value)
    # Cohen's κ from two label columns, complete data, against scikit-learn.
    if k == 2 and missing == 0:
        a, b = labels[:, 0], labels[:, 1]
        out["cohen_labels"] = timeit(lambda: ag.cohen_kappa(Ratings.from_wide(labels)),
                                     repeat=5)
        out["sklearn"] = timeit(lambda: cohen_kappa_score(a, b), **rep)
        out["cohen_check"] = abs(cohen_kappa_score(a, b)
                                 - ag.cohen_kappa(Ratings.from_wide(labels)).value)
    return out


def import_time() -> dict:
    code = ("import time; t = time.perf_counter(); import agreement; "
            "t = time.perf_counter() - t; import json, sys\n"
            "from numba.core.dispatcher import Dispatcher\n"
            "c = [f'{n}.{a}' for n, mod in list(sys.modules.items()) if n.startswith('agreement') "
            "for a, o in vars(mod).items() if isinstance(o, Dispatcher) and o.signatures]\n"
            "print(json.dumps([t, c]))")
    times, compiled = [], []
    for _ in range(5):
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        t, c = json.loads(res.stdout.strip().splitlines()[-1])
        times.append(t)
        compiled += c
    return {"median": float(np.median(times)), "compiled": sorted(set(compiled))}


def _span(values):
    if not values:
        return "n/a"
    return f"{min(values):.0f}× to {max(values):.0f}×"


def fmt_ms(t):
    return "—" if t is None else (f"{t * 1e3:.3g}" if t * 1e3 < 100 else f"{t * 1e3:.0f}")


def coefficient_table(rows):
    names = [name for name, _ in COEFFICIENTS]
    head = ("| n | k | m | missing | `codes.sum()` ms | " + " | ".join(names) + " |\n"
            "|---|---|---|---|---|" + "---|" * len(names) + "\n")
    lines = []
    for row in rows:
        base = min(row["sum"], row["sum_again"])
        cells = []
        for name in names:
            t = row.get(name)
            cells.append("n/a" if t is None else f"{fmt_ms(t)} ms ({t / base:.1f}×)")
        lines.append(f"| {row['n']:.0e} | {row['k']} | {row['m']} | {row['missing']:.0%} | "
                     f"{fmt_ms(base)} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines)


def anchor_table(rows):
    head = ("| n | k | m | missing | coding ms | Fleiss from labels ms | statsmodels ms | "
            "speed-up (labels / coded) | α from labels ms | krippendorff ms | speed-up "
            "(labels / coded) | Cohen from labels ms | sklearn ms | speed-up (labels / coded) "
            "|\n|" + "---|" * 14 + "\n")
    lines = []
    for row in rows:
        if "skip" in row:
            lines.append(f"| {row['n']:.0e} | {row['k']} | {row['m']} | {row['missing']:.0%} "
                         f"| {row['skip']} |" + " |" * 9)
            continue

        def pair(a, b, why, row=row):
            ta, tb = row.get(a), row.get(b)
            if tb is None:
                return f"{fmt_ms(ta)} | {why} | —"
            coded_time = max(ta - row["coding"], 1e-9)
            return f"{fmt_ms(ta)} | {fmt_ms(tb)} | {tb / ta:.0f}× / {tb / coded_time:.0f}×"

        sm_why = ("not run: complete data only" if row["missing"] else
                  "skipped at 1e7 (≈10 s per call)")
        kr_why = "skipped at 1e7 (≈20 s per call, n·m² floats)"
        sk_why = "k = 2, complete data only"
        lines.append(f"| {row['n']:.0e} | {row['k']} | {row['m']} | {row['missing']:.0%} | "
                     f"{fmt_ms(row['coding'])} | "
                     + pair("fleiss_labels", "statsmodels", sm_why) + " | "
                     + pair("alpha_labels", "krippendorff", kr_why) + " | "
                     + (pair("cohen_labels", "sklearn", sk_why) if "cohen_labels" in row
                        else f"— | {sk_why} | —") + " |")
    return head + "\n".join(lines)


def grid(quick: bool):
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000, 10_000_000]
    for n in sizes:
        for k in (2, 5, 20):
            for m in (2, 5):
                for missing in (0.0, 0.1):
                    if n == 10_000_000 and k == 20 and not (m == 5 and missing):
                        continue
                    yield n, k, m, missing


def main(quick: bool = False) -> None:
    started = time.perf_counter()
    imp = import_time()
    rows = []
    for n, k, m, missing in grid(quick):
        row = measure(n, k, m, missing)
        gc.collect()
        rows.append(row)
        print(f"n={n:.0e} k={k} m={m} missing={missing:.0%}: sum {row['sum'] * 1e3:.2f} ms, "
              + ", ".join(f"{name} {row[name] / row['sum']:.1f}×" for name, _ in COEFFICIENTS
                          if name in row), flush=True)
    checks = [row[c] for row in rows for c in ("fleiss_check", "alpha_check", "cohen_check")
              if c in row]
    elapsed = time.perf_counter() - started
    big = [row for row in rows if row["n"] >= 1_000_000]
    worst = {name: max((row[name] / min(row["sum"], row["sum_again"]) for row in big
                        if name in row), default=float("nan"))
             for name, _ in COEFFICIENTS}
    fleiss_speed = [row["statsmodels"] / row["fleiss_labels"] for row in big
                    if "statsmodels" in row]
    fleiss_coded = [row["statsmodels"] / (row["fleiss_labels"] - row["coding"]) for row in big
                    if "statsmodels" in row]
    alpha_speed = [row["krippendorff"] / row["alpha_labels"] for row in big
                   if "krippendorff" in row and row["missing"]]
    alpha_coded = [row["krippendorff"] / (row["alpha_labels"] - row["coding"]) for row in big
                   if "krippendorff" in row and row["missing"]]
    body = [
        "## agreement: coefficients vs numpy, statsmodels, krippendorff, scikit-learn",
        "",
        f"`benchmarks/bench_agreement.py`; numba threads: {numba.get_num_threads()}; "
        f"whole run {elapsed / 60:.1f} min. Medians of warm runs (3-9 repeats), every tool "
        "on the same data in the same run. Data: a latent class per item, each label "
        "following it with probability 0.7, else uniform; 10% missing where stated.",
        "",
        f"`import agreement`: median {imp['median'] * 1e3:.0f} ms over 5 fresh interpreters; "
        f"Numba dispatchers compiled by the import: {imp['compiled'] or 'none'}.",
        "",
        "### Each coefficient (value and analytic SE) on coded Ratings, against one "
        "`codes.sum()`",
        "",
        "Time in ms and, in brackets, as a multiple of the smaller of two `codes.sum()` "
        "timings of the same int8 matrix (target: ≤ 5×). *n/a*: Cohen and Scott need "
        "two annotators.",
        "",
        coefficient_table(rows),
        "",
        "Worst ratio at n ≥ 1e6: " + ", ".join(f"{k} {v:.1f}×" for k, v in worst.items()) + ".",
        "",
        "### From the label matrix, against the reference packages",
        "",
        "Ours from the label matrix includes coding it (`Ratings.from_wide`, timed alone "
        "as *coding*); *coded* speed-ups leave the coding out. statsmodels: "
        "`aggregate_raters` + `fleiss_kappa` (complete data: it has no missing ratings); "
        "krippendorff: `alpha(reliability_data=labels.T, level_of_measurement='nominal')`; "
        "scikit-learn: `cohen_kappa_score`. Largest difference between our values and "
        f"theirs over the grid: {max(checks, default=float('nan')):.1e}.",
        "",
        anchor_table(rows),
        "",
        f"Fleiss' κ vs statsmodels at n ≥ 1e6: {_span(fleiss_speed)} faster from the label "
        f"matrix, {_span(fleiss_coded)} on coded Ratings (target ≥ 20×). Krippendorff's α "
        f"(nominal, 10% missing) vs the krippendorff package at n = 1e6: {_span(alpha_speed)} "
        f"from the label matrix, {_span(alpha_coded)} on coded Ratings (target ≥ 20×). With "
        "missing ratings the labels are floats with NaN, whose coding is the slow part.",
    ]
    text = "\n".join(body)
    print(text)
    if not quick:
        write_section("agreement", text)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
