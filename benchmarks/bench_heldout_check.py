"""The held-out check with thousands of annotators: 10 items × 5,000 annotators.

Every audit runs ``posterior_check`` (SPEC §5). Its two baselines (the majority of
an item's other ratings, each annotator's own label shares) were once counted by a
Python loop over the annotator columns of a dense row per held-out rating: at 10
items × 5,000 annotators (50,000 ratings) that row matrix alone is 50,000 × 5,000
cells. They are now counted once per distinct row from its rated cells, linear in
the ratings. This script times, on the same ratings in one run:

* ``posterior_check`` of the default spam fit (targets: ≤ 5 s),
* the whole ``goldnoise.audit`` (target: ≤ 15 s),
* Light's κ (the anchor the guard uses) and the fit alone,
* the former baseline loop (the two baselines alone, as they were counted before).

Wall and CPU time (``time.process_time``) are both given: the machine is shared.

Run: ``PYTHONPATH=. python benchmarks/bench_heldout_check.py``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

import goldnoise
from agreement import Ratings, light_kappa
from noise_models import LatentClassModel, posterior_check


def many_annotators(n_items: int = 10, k: int = 5000, m: int = 2, seed: int = 0) -> Ratings:
    """``n_items`` × ``k`` complete ratings: each annotator follows the item's truth 75%."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, m, n_items)
    codes = np.where(rng.random((n_items, k)) < 0.75, truth[:, None],
                     rng.integers(0, m, (n_items, k))).astype(np.int8)
    return Ratings(codes, pd.Index(list(range(m)), name="category"),
                   items=pd.RangeIndex(n_items, name="item"),
                   raters=pd.RangeIndex(k, name="rater"))


def former_baselines(fit, folds) -> tuple[np.ndarray, np.ndarray]:
    """The two baselines' counts as they were counted before (a loop over the columns
    of a dense row per held-out rating): for the 'before' column only."""
    codes = np.asarray(fit.ratings.codes)
    m = fit.ratings.n_categories
    label = np.concatenate([f.held.label for f in folds])
    sub = np.concatenate([f.rows[f.held.items] for f in folds])
    rows = np.arange(len(label))
    counts = np.zeros((len(label), m))
    for j in range(sub.shape[1]):
        ok = sub[:, j] >= 0
        counts[rows[ok], sub[ok, j]] += 1.0
    own = np.zeros((codes.shape[1], m))
    rated = codes >= 0
    for j in range(codes.shape[1]):
        own[j] = np.bincount(codes[rated[:, j], j], minlength=m)
    return counts, own


def timed(fn):
    """(result, wall seconds, CPU seconds) of one call."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    from _goldnoise_lib.validation import check_rng
    from noise_models.latent_class._em import HELD_OUT_MAX_ITEMS, heldout_folds

    r = many_annotators()
    warnings.simplefilter("ignore")
    # warm: compile (or load) the kernels, import what the audit imports
    small = many_annotators(10, 50)
    goldnoise.audit(small, rng=0)
    light_kappa(small)
    rows = []
    _, w, c = timed(lambda: light_kappa(r))
    rows.append(("Light's κ (anchor)", w, c))
    fit, w, c = timed(lambda: LatentClassModel("spam", rng=0).fit(r))
    rows.append(("spam fit, 10 starts", w, c))
    check, w, c = timed(lambda: posterior_check(fit, rng=0))
    rows.append(("`posterior_check`", w, c))
    _, w, c = timed(lambda: goldnoise.audit(r, rng=0))
    rows.append(("whole `goldnoise.audit`", w, c))
    folds = heldout_folds(fit, np.asarray(r.codes), check_rng(0), HELD_OUT_MAX_ITEMS)
    _, w, c = timed(lambda: former_baselines(fit, folds))
    rows.append(("before: the baselines' column loop alone", w, c))
    lines = ["## The held-out check with many annotators (`benchmarks/bench_heldout_check.py`)",
             "",
             f"10 items × 5,000 annotators, complete (50,000 ratings, 2 categories); one run "
             f"each after a warm-up, load average {os.getloadavg()[0]:.1f} on "
             f"{os.cpu_count()} cores (a shared machine: CPU time beside wall time). "
             f"The check: log score {check.log_score:.4f}, {check.n_heldout} held-out "
             "ratings. Targets: the check ≤ 5 s, the whole audit ≤ 15 s.",
             "", "| step | wall s | CPU s |", "|---|---|---|"]
    lines += [f"| {name} | {w:.2f} | {c:.2f} |" for name, w, c in rows]
    lines += ["", "The former column loop is the part of the check it replaced (the check "
              "then held a dense 50,000 × 5,000 row matrix besides)."]
    body = "\n".join(lines)
    print(body)
    write_section("heldout_check", body)


if __name__ == "__main__":
    main()
