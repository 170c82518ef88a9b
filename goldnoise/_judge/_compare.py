"""The candidate against references: each human, the humans' majority, the latent labels.

Accuracy (share of items with the same label, exact Clopper–Pearson interval),
Cohen's κ (its analytic interval) and the confusion matrix, on the items both
rated. The majority and the latent labels are taken as fixed references: their
own uncertainty is not in these intervals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["compare_rows", "latent_rows"]


def _accuracy(hits: int, n: int, confidence_level: float) -> tuple[float, float, float]:
    """The share and its exact (Clopper–Pearson) interval, from beta quantiles."""
    from scipy.stats import beta

    if n == 0:
        return math.nan, math.nan, math.nan
    tail = (1.0 - confidence_level) / 2.0
    low = 0.0 if hits == 0 else float(beta.ppf(tail, hits, n - hits + 1))
    high = 1.0 if hits == n else float(beta.ppf(1.0 - tail, hits + 1, n - hits))
    return hits / n, low, high


def _kappa(a: np.ndarray, b: np.ndarray, r: Any, confidence_level: float) -> tuple[float, ...]:
    import warnings

    from agreement import DegenerateDataWarning, Ratings, cohen_kappa

    x = np.column_stack([a, b])
    sub = Ratings(x, r.categories, items=pd.RangeIndex(len(a)),
                  raters=pd.Index(["candidate", "reference"]), ordered=r.ordered,
                  category_values=r.category_values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        res = cohen_kappa(sub)
        ci = res.confidence_interval(confidence_level)
    return float(res.value), float(ci.low), float(ci.high)


def _pair(cand: np.ndarray, ref: np.ndarray, r: Any, confidence_level: float,
          name: str, reference: str) -> tuple[dict, list[dict]]:
    both = (cand >= 0) & (ref >= 0)
    a, b = cand[both], ref[both]
    n = int(both.sum())
    acc, lo, hi = _accuracy(int((a == b).sum()), n, confidence_level)
    kap = _kappa(a, b, r, confidence_level) if n >= 2 else (math.nan,) * 3
    m = r.n_categories
    conf = np.bincount(a * m + b, minlength=m * m).reshape(m, m)
    cells = [{"candidate": name, "reference": reference, "candidate_label": r.categories[i],
              "reference_label": r.categories[j], "count": int(conf[i, j])}
             for i in range(m) for j in range(m)]
    row = {"candidate": name, "reference": reference, "n_items": n, "accuracy": acc,
           "accuracy_low": lo, "accuracy_high": hi, "kappa": kap[0], "kappa_low": kap[1],
           "kappa_high": kap[2]}
    return row, cells


def compare_rows(r: Any, codes: np.ndarray, names: list[str], n_humans: int,
                 candidates: list[str], latent: np.ndarray | None,
                 confidence_level: float) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The agreement table and the confusion cells (long) of every candidate."""
    notes = []
    hc = codes[:, :n_humans]
    m = r.n_categories
    counts = np.zeros((hc.shape[0], m), dtype=np.int64)
    for j in range(n_humans):
        ok = hc[:, j] >= 0
        np.add.at(counts, (np.flatnonzero(ok), hc[ok, j]), 1)
    top = counts.max(axis=1)
    majority = np.where((counts == top[:, None]).sum(axis=1) == 1, counts.argmax(axis=1), -1)
    majority[top == 0] = -1
    ties = int(((top > 0) & (majority < 0)).sum())
    if ties:
        notes.append(f"{ties} items without a strict majority of the humans are left out of "
                     "the comparison with the majority")
    rows, cells = [], []
    for c, cand in enumerate(candidates):
        col = codes[:, n_humans + c]
        refs = [(names[h], hc[:, h]) for h in range(n_humans)] + [("majority", majority)]
        if latent is not None:
            refs.append(("latent", latent))
        for ref_name, ref in refs:
            row, cell = _pair(col, ref, r, confidence_level, cand, ref_name)
            rows.append(row)
            cells += cell
    return (pd.DataFrame(rows).set_index(["candidate", "reference"]),
            pd.DataFrame(cells), notes)


def latent_rows(r: Any, codes: np.ndarray, names: list[str], n_humans: int, *,
                n_resamples: int, confidence_level: float, seed: Any,
                n_starts: int = 10) -> tuple[pd.DataFrame, np.ndarray | None, list[str]]:
    """Every annotator inside the default latent-class fit (MACE's spam model).

    The fit takes humans and candidates; each annotator's accuracy with its
    bootstrap interval (:func:`simulation.annotator_intervals`, refitted per
    resample). The easy/hard model (M1) fitted to the humans alone gives each
    item's hard posterior; each annotator's accuracy on easy and on hard items
    is its agreement with the humans-only spam labels, weighted by
    ``1 − P(hard)`` and ``P(hard)``.
    """
    import warnings

    from _goldnoise_lib.errors import ConvergenceWarning
    from noise_models import EasyHardModel, LatentClassModel, annotator_intervals

    notes: list[str] = []
    full = subset_all(r, codes, names)
    human = subset_all(r, codes[:, :n_humans], names[:n_humans])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        fit = LatentClassModel("spam", n_starts=n_starts, rng=seed).fit(full)
        human_fit = LatentClassModel("spam", n_starts=n_starts, rng=seed).fit(human)
        m1 = EasyHardModel(n_starts=n_starts, rng=seed).fit(human)
    notes += [" ".join(str(w.message).split()) for w in caught]
    if n_resamples > 0:
        table = annotator_intervals(fit, n_resamples=n_resamples,
                                    confidence_level=confidence_level, rng=seed)
    else:  # the spam model's accuracy θ + (1 − θ) Σ_c φ_c ξ_c, no interval
        table = fit.annotator_frame()
        theta = np.asarray(fit.competence, dtype=np.float64)
        table.insert(1, "accuracy", theta + (1.0 - theta) * (fit.spam_distribution
                                                            @ np.asarray(fit.phi)))
    latent = np.asarray(human_fit.label_codes, dtype=np.int64)
    hard = np.asarray(m1.posterior_hard, dtype=np.float64)
    acc_easy, acc_hard, share_hard = [], [], []
    for j in range(codes.shape[1]):
        ok = codes[:, j] >= 0
        hit = (codes[ok, j] == latent[ok]).astype(np.float64)
        w = hard[ok]
        acc_easy.append(float(np.sum(hit * (1 - w)) / np.sum(1 - w)) if np.sum(1 - w) > 0
                        else math.nan)
        acc_hard.append(float(np.sum(hit * w) / np.sum(w)) if np.sum(w) > 0 else math.nan)
        share_hard.append(float(np.mean(w)) if w.size else math.nan)
    table = table.copy()
    table.insert(0, "kind", ["human"] * n_humans + ["candidate"] * (codes.shape[1] - n_humans))
    table["accuracy_easy"] = acc_easy
    table["accuracy_hard"] = acc_hard
    table["hard_share"] = share_hard
    table.index = pd.Index(names, name="annotator")
    return table, latent, notes


def subset_all(r: Any, codes: np.ndarray, names: list[str]) -> Any:
    from agreement import Ratings

    return Ratings(np.ascontiguousarray(codes), r.categories,
                   items=pd.RangeIndex(codes.shape[0], name="item"),
                   raters=pd.Index(names, name="rater"), ordered=r.ordered,
                   category_values=r.category_values)
