"""Confident learning: per-class thresholds, the confident joint, prune by noise rate.

Northcutt, Jiang & Chuang (2021), written from the paper's definitions and
checked item for item against ``cleanlab.filter.find_label_issues(labels,
pred_probs, filter_by="prune_by_noise_rate")`` (cleanlab is AGPL-3: a test
reference only, never imported here).
"""

from __future__ import annotations

import warnings

import numpy as np

from _goldnoise_lib.errors import DegenerateDataWarning

__all__ = ["confident_joint", "confident_learning"]

# Tolerance of the threshold comparison p >= t and of "the given label is the argmax".
_EPS = 1e-6
# Thresholds are kept at or above this, and a class nobody was given gets a
# threshold above 1 (never confident).
_MIN_THRESHOLD = 2e-6
_ABSENT_THRESHOLD = 2.0


def _round_keeping_total(x: np.ndarray) -> np.ndarray:
    """Round a row to integers keeping its (rounded) total: largest remainders move."""
    ints = np.round(x)
    diff = int(np.round(x.sum()) - ints.sum())
    if diff:
        frac = x - ints
        # ties among equal remainders follow numpy's default argsort, as cleanlab's do
        order = np.argsort(frac)
        pick = order[::-1][:diff] if diff > 0 else order[:-diff]
        ints[pick] += 1 if diff > 0 else -1
    return ints.astype(np.int64)


def _round_rows(mat: np.ndarray) -> np.ndarray:
    return np.vstack([_round_keeping_total(row) for row in mat])


def confident_joint(labels: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """The calibrated confident joint ``C[given, true]`` (Northcutt et al. 2021, eq. 1–2).

    An item counts as confidently of class ``j`` when ``p_j ≥ t_j``, with
    ``t_j`` the mean predicted ``p_j`` of the items labelled ``j``; with
    several confident classes the argmax decides. The diagonal is kept ≥ 1,
    then each row is scaled to its label count and the whole to ``n``
    (calibration), rounded keeping the row totals.
    """
    _n, m = probs.shape
    counts = np.bincount(labels, minlength=m)
    thresholds = np.full(m, _ABSENT_THRESHOLD)
    for j in np.flatnonzero(counts):
        thresholds[j] = probs[labels == j, j].mean()
    thresholds = np.maximum(thresholds, _MIN_THRESHOLD)
    confident = probs >= thresholds - _EPS
    n_conf = confident.sum(axis=1)
    guess = np.where(n_conf > 1, probs.argmax(axis=1), confident.argmax(axis=1))
    keep = n_conf > 0
    cj = np.zeros((m, m), dtype=np.int64)
    np.add.at(cj, (labels[keep], guess[keep]), 1)
    np.fill_diagonal(cj, np.maximum(np.diagonal(cj), 1))
    # calibration (Northcutt et al. 2021, eq. 2): rows sum to the label counts, total n
    rows = np.maximum(cj.sum(axis=1), 1e-100)
    cal = cj / rows[:, None] * counts[:, None]
    cal = cal / max(cal.sum(), 1e-100) * counts.sum()
    return _round_rows(cal)


def _prune_counts(cj: np.ndarray) -> np.ndarray:
    """Items to remove per (true, given) pair, keeping at least one item per class."""
    mat = cj.T.astype(np.float64)  # [true, given]
    diag = np.diagonal(mat).copy()
    new_diag = np.maximum(diag, 1)
    spread = np.maximum(np.count_nonzero(mat, axis=0) - 1.0, 1.0)
    mat = mat - (new_diag - diag) / spread
    mat[mat < 0] = 0
    np.fill_diagonal(mat, new_diag)
    return mat.astype(np.int64)


def confident_learning(labels: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Flag label issues by prune-by-noise-rate; returns a boolean mask.

    For each given class ``k`` and other class ``j``, the ``C[k, j]``
    (calibrated confident joint, off-diagonal) items labelled ``k`` with the
    largest margin ``p_j − p_k`` are flagged; an item whose given label is
    its argmax (within 1e-6) is never flagged.
    """
    n, m = probs.shape
    prune = _prune_counts(confident_joint(labels, probs))
    mask = np.zeros(n, dtype=bool)
    few_classes = []
    for k in range(m):
        members = np.flatnonzero(labels == k)
        if members.size <= 1:
            if members.size == 1:
                few_classes.append(k)
            continue
        pk = probs[members]
        flags = np.zeros(members.size, dtype=bool)
        for j in range(m):
            num = int(prune[j, k])
            if j != k and num > 0:
                margin = pk[:, j] - pk[:, k]
                flags[np.argsort(-margin)[:num]] = True
        mask[members] = flags
    if few_classes:
        warnings.warn(
            f"classes {few_classes} have a single labelled item: confident learning cannot "
            "flag it.", DegenerateDataWarning, stacklevel=3)
    bumped = probs.copy()
    bumped[np.arange(n), labels] += _EPS
    mask[bumped.argmax(axis=1) == labels] = False
    return mask
