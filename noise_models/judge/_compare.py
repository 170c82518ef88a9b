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

__all__ = ["FULL_CONFUSION", "MAX_LATENT_LABELS", "MIN_WEIGHT", "compare_rows", "latent_rows"]

#: Up to this many labels the confusion counts list every cell (zeros too); above, the
#: cells that occur (their number is bounded by the ratings, not by labels²).
FULL_CONFUSION = 20
#: An accuracy on easy (hard) items needs at least this many items' worth of posterior
#: weight among the annotator's items; below it the column is NaN (a share of about one
#: item says nothing).
MIN_WEIGHT = 5.0
#: Above this many labels no latent-class fit: one class per label is not estimable from
#: a few ratings per item, and its EM costs items × labels per iteration.
MAX_LATENT_LABELS = 100


def _accuracy(hits: int, n: int, confidence_level: float) -> tuple[float, float, float]:
    """The share and its exact (Clopper–Pearson) interval."""
    from _goldnoise_lib.binomial import binomial_interval

    if n == 0:
        return math.nan, math.nan, math.nan
    low, high = binomial_interval(hits, n, confidence_level, method="exact")
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
    if m <= FULL_CONFUSION:
        keys, counts = np.arange(m * m), np.bincount(a * m + b, minlength=m * m)
    else:
        keys, counts = np.unique(a * m + b, return_counts=True)
    cats = r.categories
    cells = [{"candidate": name, "reference": reference, "candidate_label": cats[k // m],
              "reference_label": cats[k % m], "count": int(c)}
             for k, c in zip(keys.tolist(), counts.tolist(), strict=True)]
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
    if r.n_categories > FULL_CONFUSION:
        notes.append(f"{r.n_categories:,} labels: the confusion counts list the cells that "
                     "occur")
    majority = _majority(hc)
    ties = int(((hc >= 0).any(axis=1) & (majority < 0)).sum())
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


def _majority(hc: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """Each item's strict plurality label of the humans (-1: none or a tie).

    From the humans' own labels (items × humans × humans), not a table of every label:
    bounded by the ratings however many labels there are.
    """
    out = np.full(hc.shape[0], -1, dtype=np.int64)
    for start in range(0, hc.shape[0], chunk):
        x = hc[start:start + chunk]
        ok = x >= 0
        # same[i, j]: humans who gave item i the label human j gave
        same = ((x[:, :, None] == x[:, None, :]) & ok[:, :, None] & ok[:, None, :]).sum(axis=2)
        top = same.max(axis=1)
        # a unique plurality: exactly `top` humans reach it (all of them share one label)
        unique = (top > 0) & ((same == top[:, None]).sum(axis=1) == top)
        pick = x[np.arange(x.shape[0]), same.argmax(axis=1)]
        out[start:start + chunk] = np.where(unique, pick, -1)
    return out


def latent_rows(r: Any, codes: np.ndarray, names: list[str], n_humans: int, *,
                n_resamples: int, confidence_level: float, seed: Any,
                n_starts: int = 10) -> tuple[pd.DataFrame, np.ndarray | None, list[str]]:
    """Every annotator inside the default latent-class fit (MACE's spam model with item
    difficulty, ``LatentClassModel("spam", "difficulty")``).

    The fit takes humans and candidates; each annotator's accuracy over easy and hard
    items (``LatentClassFit.annotator_frame``'s ``accuracy``) with its bootstrap interval
    (:func:`noise_models.annotator_intervals`: each resample refitted from the fit's
    parameters). The same model fitted to the humans alone gives the latent labels
    (MACE's, the model's stage 1) and each item's posterior of being hard; each
    annotator's accuracy on easy and on hard items is its agreement with those labels,
    weighted by ``1 − P(hard)`` and ``P(hard)`` (NaN below :data:`MIN_WEIGHT` items'
    worth of weight). (The paper's M1 called every item the
    humans disagree on hard, so that every human was right on all the easy items by
    construction.)
    """
    import warnings

    from _goldnoise_lib.errors import ConvergenceWarning
    from noise_models.latent_class import LatentClassModel, annotator_intervals

    if r.n_categories > MAX_LATENT_LABELS:
        raise ValueError(f"{r.n_categories:,} distinct labels, above {MAX_LATENT_LABELS}: a "
                         "latent class per label is not estimable here; group the labels "
                         "(e.g. the most frequent and 'other') for this section")
    notes: list[str] = []
    full = subset_all(r, codes, names)
    human = subset_all(r, codes[:, :n_humans], names[:n_humans])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        fit = LatentClassModel("spam", "difficulty", n_starts=n_starts, rng=seed).fit(full)
        human_fit = LatentClassModel("spam", "difficulty", n_starts=n_starts,
                                     rng=seed).fit(human)
    notes += [" ".join(str(w.message).split()) for w in caught]
    if n_resamples > 0:
        table = annotator_intervals(fit, n_resamples=n_resamples,
                                    confidence_level=confidence_level, rng=seed)
    else:  # the accuracy without an interval
        table = fit.annotator_frame()
    latent = np.asarray(human_fit.label_codes, dtype=np.int64)
    hard = np.asarray(human_fit.posterior_hard, dtype=np.float64)
    acc_easy, acc_hard, share_hard = [], [], []
    for j in range(codes.shape[1]):
        ok = codes[:, j] >= 0
        hit = (codes[ok, j] == latent[ok]).astype(np.float64)
        w = hard[ok]
        acc_easy.append(float(np.sum(hit * (1 - w)) / np.sum(1 - w))
                        if np.sum(1 - w) >= MIN_WEIGHT else math.nan)
        acc_hard.append(float(np.sum(hit * w) / np.sum(w)) if np.sum(w) >= MIN_WEIGHT
                        else math.nan)
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

    # (Ratings stores the codes in the compact dtype the kernels are compiled for)
    return Ratings(codes, r.categories,
                   items=pd.RangeIndex(codes.shape[0], name="item"),
                   raters=pd.Index(names, name="rater"), ordered=r.ordered,
                   category_values=r.category_values)
