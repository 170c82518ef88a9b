"""Benchmark: the bootstrap engine against scipy.stats.bootstrap over the reference packages.

Issue 9's figures, measured in one run on the same data:

* B = 1,000 resamples at n = 1e6 items × 5 annotators (3 categories, 10% missing
  ratings) for Fleiss' κ, Gwet's AC1 and Krippendorff's α together, paired
  (target ≤ 2 s here), percentile and BCa (target: BCa within 2× of percentile),
  and the Poisson scheme (keyed by item id, no merging of items);
* ``scipy.stats.bootstrap`` (percentile, B = 1,000, ``vectorized=False``) over
  statsmodels' ``fleiss_kappa`` (on the ``aggregate_raters`` count table) and over
  the ``krippendorff`` package's ``alpha``, at growing n until one run would exceed a
  minute, against goldnoise on the same data and B (target ≥ 100× faster); scipy's
  BCa (a full leave-one-out jackknife) at the smaller sizes.

Run: ``python benchmarks/bench_bootstrap.py`` (about 5 minutes). ``--quick`` runs
small sizes and writes nothing.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import krippendorff
import numba
import numpy as np
import scipy.stats
from statsmodels.stats import inter_rater

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import timeit, write_section

from agreement import as_ratings, bootstrap

B = 1000
STATS = ["fleiss_kappa", "gwet_ac1", "krippendorff_alpha"]
LIMIT = 60.0  # seconds: an anchor run predicted to take longer is not started


def make_labels(n: int, k: int, m: int, missing: float, seed: int) -> np.ndarray:
    """Float labels with agreement structure: a latent class, 70% of labels follow it."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, m, size=n)
    x = np.where(rng.random((n, k)) < 0.7, truth[:, None], rng.integers(0, m, size=(n, k)))
    x = x.astype(np.float64)
    x[rng.random((n, k)) < missing] = np.nan
    return x


def once(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def engine_section(n: int) -> tuple[list[str], dict]:
    x = make_labels(n, 5, 3, 0.1, 0)
    r = as_ratings(x)
    out = {}
    bootstrap(STATS, r, n_resamples=B, rng=0)  # compile / load the kernels
    for method in ("percentile", "bca", "basic"):
        out[method] = timeit(lambda method=method: bootstrap(STATS, r, n_resamples=B,
                                                             method=method, rng=1), repeat=5)
    out["poisson"] = timeit(lambda: bootstrap(STATS, r, n_resamples=B, scheme="poisson",
                                              rng=1), repeat=1, warmup=0)
    out["raw"] = timeit(lambda: bootstrap(STATS, x, n_resamples=B, rng=1), repeat=3)
    out["one"] = timeit(lambda: bootstrap("fleiss_kappa", r, n_resamples=B, rng=1), repeat=5)
    res = bootstrap(STATS, r, n_resamples=B, method="bca", rng=1)
    lines = [
        f"### The engine: n = {n:.0e} items × 5 annotators, 3 categories, 10% missing, "
        f"B = {B:,}",
        "",
        "| run | median time (s) |",
        "|---|---:|",
        f"| Fleiss κ + AC1 + α, percentile (coded `Ratings`) | **{out['percentile']:.3f}** |",
        f"| the same, BCa (O(n) jackknife) | **{out['bca']:.3f}** |",
        f"| the same, basic | {out['basic']:.3f} |",
        f"| the same, from the raw float label matrix (coding included) | {out['raw']:.3f} |",
        f"| the same, Poisson weights keyed by item id (every item drawn per replicate) | "
        f"{out['poisson']:.3f} |",
        f"| Fleiss κ alone, percentile | {out['one']:.3f} |",
        "",
        f"BCa / percentile = {out['bca'] / out['percentile']:.2f} (target ≤ 2); "
        f"three coefficients, paired, in {out['percentile']:.2f} s (target ≤ 2 s). "
        f"Estimates {', '.join(f'{s} {v:.4f}' for s, v in zip(STATS, res.estimate, strict=True))}"
        f"; BCa SEs {', '.join(f'{v:.5f}' for v in res.standard_error)}. The Poisson "
        f"scheme cannot merge items (each has its own weight): n × B = {n * B:.0e} keyed "
        f"draws, {out['poisson'] / (n * B) * 1e9:.1f} ns each.",
    ]
    return lines, out


def anchors(sizes: list[int]) -> list[str]:
    rows = []
    stop = {"statsmodels": False, "krippendorff": False}
    for n in sizes:
        x = make_labels(n, 5, 3, 0.0, 1).astype(int)
        table = inter_rater.aggregate_raters(x, n_cat=3)[0]
        reliability = x.T.astype(float)
        idx = np.arange(n)
        r = as_ratings(x)
        refs = {
            "statsmodels": ("fleiss_kappa",
                            lambda i, t=table: inter_rater.fleiss_kappa(t[i])),
            "krippendorff": ("krippendorff_alpha",
                             lambda i, rel=reliability: krippendorff.alpha(
                                 rel[:, i], level_of_measurement="nominal",
                                 value_domain=[0, 1, 2])),
        }
        for tool, (stat, fn) in refs.items():
            if stop[tool]:
                continue
            one_call = timeit(lambda fn=fn, idx=idx: fn(idx), repeat=3)
            predicted = one_call * B * 1.2
            if predicted > LIMIT:
                stop[tool] = True
                rows.append(f"| {n:.0e} | {tool} `{stat}` | — (one call {one_call * 1e3:.0f} ms:"
                            f" ~{predicted:.0f} s predicted, not run) | | |")
                continue
            t_ref = once(lambda fn=fn, idx=idx: scipy.stats.bootstrap(
                (idx,), fn, vectorized=False, n_resamples=B, method="percentile",
                rng=np.random.default_rng(0)))
            t_gn = timeit(lambda stat=stat, r=r: bootstrap(stat, r, n_resamples=B, rng=0),
                          repeat=5)
            ref_se = scipy.stats.bootstrap((idx,), fn, vectorized=False, n_resamples=200,
                                           method="percentile",
                                           rng=np.random.default_rng(0)).standard_error \
                if n <= 10_000 else float("nan")
            gn_se = bootstrap(stat, r, n_resamples=B, rng=0).standard_error[0]
            se_cell = f" (SE {ref_se:.4f} vs {gn_se:.4f})" if np.isfinite(ref_se) else ""
            rows.append(f"| {n:.0e} | {tool} `{stat}` | {t_ref:.2f} | {t_gn * 1e3:.2f} ms | "
                        f"**{t_ref / t_gn:,.0f}×**{se_cell} |")
            print(rows[-1], flush=True)
    return rows


def bca_anchor(n: int) -> str:
    x = make_labels(n, 5, 3, 0.0, 2).astype(int)
    table = inter_rater.aggregate_raters(x, n_cat=3)[0]
    idx = np.arange(n)
    r = as_ratings(x)
    t_ref = once(lambda: scipy.stats.bootstrap(
        (idx,), lambda i: inter_rater.fleiss_kappa(table[i]), vectorized=False, n_resamples=B,
        method="BCa", rng=np.random.default_rng(0)))
    t_gn = timeit(lambda: bootstrap("fleiss_kappa", r, n_resamples=B, method="bca", rng=0),
                  repeat=5)
    return (f"| {n:.0e} | statsmodels `fleiss_kappa`, **BCa** | {t_ref:.2f} | {t_gn * 1e3:.2f} ms "
            f"| **{t_ref / t_gn:,.0f}×** |")


def main(quick: bool = False) -> None:
    load_before = os.getloadavg()[0]
    n_engine = 10**5 if quick else 10**6
    engine_lines, _ = engine_section(n_engine)
    print("\n".join(engine_lines), flush=True)
    sizes = [10**3, 10**4] if quick else [10**3, 10**4, 10**5, 10**6]
    anchor_rows = anchors(sizes)
    bca_rows = [bca_anchor(n) for n in ([10**3] if quick else [10**3, 3 * 10**3])]
    for row in bca_rows:
        print(row, flush=True)
    load_after = os.getloadavg()[0]
    if quick:
        return
    lines = [
        "## Bootstrap engine (`benchmarks/bench_bootstrap.py`)",
        "",
        f"Numba threads: {numba.get_num_threads()}; 1-minute load average {load_before:.1f} "
        f"before, {load_after:.1f} after (the 2 cores are shared with other jobs, so the "
        "figures are noisy).",
        "",
        *engine_lines,
        "",
        f"### Against `scipy.stats.bootstrap` over the reference packages (B = {B:,}, "
        "percentile unless noted)",
        "",
        "5 annotators, 3 categories, complete data. scipy: `vectorized=False`, the reference "
        "function called on each resample of item indices (statsmodels' `fleiss_kappa` on the "
        "`aggregate_raters` table; `krippendorff.alpha` on the coders × units matrix), one run; "
        "goldnoise: `bootstrap(name, ratings)` on coded Ratings, median of 5. Sizes whose "
        f"predicted scipy time exceeds {LIMIT:.0f} s are not run. Target ≥ 100×.",
        "",
        "| n | reference | scipy (s) | goldnoise | speed-up |",
        "|---:|---|---:|---:|---:|",
        *anchor_rows,
        *bca_rows,
    ]
    write_section("bootstrap", "\n".join(lines))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
