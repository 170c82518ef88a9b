"""Numba kernels of confident learning: one pass over the probabilities per step.

The arithmetic is the numpy code's, element for element (the same comparisons
``p >= t - eps``, the same first-index argmax, the same margins ``p_j - p_k``,
the same ``p + eps`` bump), so the flags are bit-identical to it; integer
counts only are summed across threads, so they never depend on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import kernel_input, serial_and_parallel, use_parallel

__all__ = ["confident_counts", "prune_flags", "unflag_argmax"]

_BLOCK = 1 << 14  # items per block of the confident joint's partial counts
_FEW = 32  # up to this many flags per pair, a running top list; beyond, a partition


def _confident_counts_impl(probs, labels, t_eps, m):
    n = probs.shape[0]
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    part = np.zeros((n_blocks, m, m), dtype=np.int64)
    for b in range(n_blocks):
        for i in range(b * _BLOCK, min(n, (b + 1) * _BLOCK)):
            # how many classes are confident: a branch-free count over the row
            n_conf = 0
            for j in range(m):
                n_conf += probs[i, j] >= t_eps[j]
            if n_conf == 1:  # the one confident class
                first = 0
                for j in range(m):
                    if probs[i, j] >= t_eps[j]:
                        first = j
                        break
                part[b, labels[i], first] += 1
            elif n_conf > 1:  # several confident classes: the (first) argmax decides
                best = 0
                top = probs[i, 0]
                for j in range(1, m):
                    if probs[i, j] > top:
                        top = probs[i, j]
                        best = j
                part[b, labels[i], best] += 1
    out = np.zeros((m, m), dtype=np.int64)
    for b in range(n_blocks):
        out += part[b]
    return out


_counts_serial = serial_and_parallel(_confident_counts_impl, error_model="numpy")[0]


def confident_counts(probs: np.ndarray, labels: np.ndarray, t_eps: np.ndarray) -> np.ndarray:
    """The confident joint before calibration: ``C[given, confident true]``.

    Always the serial build: its row pass runs at memory speed (about 0.04 s for
    1e6 × 100 on this project's 2-core machine), where the parallel build measured
    0.04-0.7 s on the same data on a shared machine.
    """
    m = probs.shape[1]
    return _counts_serial(kernel_input(probs, np.float64), kernel_input(labels, np.int64),
                          kernel_input(t_eps, np.float64), m)


@njit(cache=True, error_model="numpy")
def _select(a, r):
    # The r-th smallest value of a (0-based; a is reordered, as np.partition(a, r)[r]): Hoare's quickselect with the
    # median of three as pivot, in place. np.partition does the same but its Numba
    # implementation (generic over dtypes and kth arrays) took most of this module's
    # compile time.
    lo, hi = 0, a.size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if r <= j:
            hi = j
        elif r >= i:
            lo = i
        else:
            return a[r]
    return a[r]


def _prune_flags_impl(probs, order, starts, prune, flags, ties):
    m = probs.shape[1]
    for k in prange(m):
        lo = starts[k]
        size = starts[k + 1] - lo
        if size <= 1:
            continue
        # other classes j with items to flag: few (<= _FEW) by running top lists filled
        # in one pass over the class's rows; many by a partition of their margins
        few = np.empty(m, dtype=np.int64)
        many = np.empty(m, dtype=np.int64)
        n_few = 0
        n_many = 0
        everything = False
        for j in range(m):
            num = prune[j, k]
            if j == k or num <= 0:
                continue
            if num >= size:
                everything = True
            elif num <= _FEW:
                few[n_few] = j
                n_few += 1
            else:
                many[n_many] = j
                n_many += 1
        if everything:  # some pair flags every item of the class: the others add none
            for t in range(size):
                flags[order[lo + t]] = True
            continue
        # the num + 1 largest margins p_j - p_k of each pair, with their items: the
        # num-th is the cut v, and the cut falls inside tied margins exactly when the
        # (num + 1)-th equals it. thr[j]: the margin a new item must beat to enter j's
        # list (-inf while it fills, +inf for the classes without a list), so that a row
        # is one branch-free pass of comparisons, and the lists are touched only on a hit.
        top = np.empty((m, _FEW + 1), dtype=np.float64)
        who = np.empty((m, _FEW + 1), dtype=np.int64)
        filled = np.zeros(m, dtype=np.int64)
        cap = np.zeros(m, dtype=np.int64)
        thr = np.full(m, np.inf)
        for a in range(n_few):
            cap[few[a]] = prune[few[a], k] + 1  # <= size: num < size
            thr[few[a]] = -np.inf
        for t in range(size):
            i = order[lo + t]
            pk = probs[i, k]
            hits = 0
            for j in range(m):
                hits += probs[i, j] - pk > thr[j]
            if hits == 0:
                continue
            for j in range(m):
                x = probs[i, j] - pk
                if not x > thr[j]:
                    continue
                c = cap[j]
                if filled[j] < c:
                    pos = filled[j]
                    filled[j] += 1
                else:
                    pos = c - 1
                while pos > 0 and top[j, pos - 1] < x:
                    top[j, pos] = top[j, pos - 1]
                    who[j, pos] = who[j, pos - 1]
                    pos -= 1
                top[j, pos] = x
                who[j, pos] = i
                if filled[j] == c:
                    thr[j] = top[j, c - 1]
        for a in range(n_few):
            j = few[a]
            num = cap[j] - 1
            if top[j, num] == top[j, num - 1]:  # ties straddle the cut: the caller sorts
                ties[k, j] = True
                continue
            for r in range(num):
                flags[who[j, r]] = True
        if n_many == 0:
            continue
        margin = np.empty(size, dtype=np.float64)
        scratch = np.empty(size, dtype=np.float64)
        for a in range(n_many):
            j = many[a]
            num = prune[j, k]
            for t in range(size):
                i = order[lo + t]
                margin[t] = probs[i, j] - probs[i, k]
                scratch[t] = margin[t]
            # v: the num-th largest margin; everything above it is among the num largest
            v = _select(scratch, size - num)
            above = 0
            equal = 0
            for t in range(size):
                if margin[t] > v:
                    above += 1
                elif margin[t] == v:
                    equal += 1
            if above + equal != num:  # ties straddle the cut: the caller sorts as numpy does
                ties[k, j] = True
                continue
            for t in range(size):
                if margin[t] >= v:
                    flags[order[lo + t]] = True


_prune_serial, _prune_parallel = serial_and_parallel(_prune_flags_impl, error_model="numpy")


def prune_flags(probs: np.ndarray, order: np.ndarray, starts: np.ndarray,
                prune: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flags of prune by noise rate, and the (class, other class) pairs whose cut falls
    inside a run of tied margins (left for the caller to order exactly as before)."""
    n, m = probs.shape
    flags = np.zeros(n, dtype=np.bool_)
    ties = np.zeros((m, m), dtype=np.bool_)
    fn = _prune_parallel if use_parallel(probs.size) else _prune_serial
    fn(kernel_input(probs, np.float64), kernel_input(order, np.int64),
       kernel_input(starts, np.int64), kernel_input(prune, np.int64), flags, ties)
    return flags, ties


def _unflag_impl(probs, labels, rows, eps, flags):
    m = probs.shape[1]
    for t in prange(rows.size):
        i = rows[t]
        lab = labels[i]
        best = 0
        top = probs[i, 0] + eps if lab == 0 else probs[i, 0]
        for j in range(1, m):
            p = probs[i, j] + eps if j == lab else probs[i, j]
            if p > top:
                top = p
                best = j
        if best == lab:
            flags[i] = False


_unflag_serial, _unflag_parallel = serial_and_parallel(_unflag_impl, error_model="numpy")


def unflag_argmax(probs: np.ndarray, labels: np.ndarray, flags: np.ndarray, eps: float) -> None:
    """Unflag (in place) every flagged item whose given label, bumped by ``eps``, is the
    argmax of its row."""
    rows = np.flatnonzero(flags)
    fn = _unflag_parallel if use_parallel(rows.size * probs.shape[1]) else _unflag_serial
    fn(kernel_input(probs, np.float64), kernel_input(labels, np.int64), rows, eps, flags)
