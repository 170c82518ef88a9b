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
from _goldnoise_lib.lazy import lazy_module

# Numba kernels, imported at first use.
_K = lazy_module("simulation.detection._confident_kernels")

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


def _by_label(labels: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items grouped by given label, ascending within each (a stable sort), the
    group starts and the label counts."""
    counts = np.bincount(labels, minlength=m)
    # a stable sort of small integers is numpy's radix sort: the same order, in O(n)
    small = np.uint8 if m <= 1 << 8 else np.uint16 if m <= 1 << 16 else labels.dtype
    order = np.argsort(labels.astype(small, copy=False), kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    return order, starts, counts


def confident_joint(labels: np.ndarray, probs: np.ndarray,
                    grouped: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> np.ndarray:
    """The calibrated confident joint ``C[given, true]`` (Northcutt et al. 2021, eq. 1–2).

    An item counts as confidently of class ``j`` when ``p_j ≥ t_j``, with
    ``t_j`` the mean predicted ``p_j`` of the items labelled ``j``; with
    several confident classes the argmax decides. The diagonal is kept ≥ 1,
    then each row is scaled to its label count and the whole to ``n``
    (calibration), rounded keeping the row totals.
    """
    _n, m = probs.shape
    order, starts, counts = grouped if grouped is not None else _by_label(labels, m)
    thresholds = np.full(m, _ABSENT_THRESHOLD)
    for j in np.flatnonzero(counts):
        # the items labelled j in ascending order: numpy's mean of the same values
        thresholds[j] = probs[order[starts[j]:starts[j + 1]], j].mean()
    thresholds = np.maximum(thresholds, _MIN_THRESHOLD)
    cj = _K.confident_counts(probs, labels, thresholds - _EPS)
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
    _n, m = probs.shape
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    grouped = _by_label(labels, m)
    order, starts, counts = grouped
    prune = _prune_counts(confident_joint(labels, probs, grouped))
    mask, ties = _K.prune_flags(probs, order, starts, prune)
    for k, j in zip(*np.nonzero(ties), strict=True):
        # the cut falls inside tied margins: numpy's order decides, as it always did
        members = order[starts[k]:starts[k + 1]]
        margin = probs[members, j] - probs[members, k]
        mask[members[np.argsort(-margin)[:int(prune[j, k])]]] = True
    few_classes = [int(k) for k in np.flatnonzero(counts == 1)]
    if few_classes:
        warnings.warn(
            f"classes {few_classes} have a single labelled item: confident learning cannot "
            "flag it.", DegenerateDataWarning, stacklevel=3)
    _K.unflag_argmax(probs, labels, mask, _EPS)
    return mask
