"""Numba kernels over soft labels (instances × classes probability rows).

Conventions (as in :mod:`agreement._kernels`):

* ``probs`` is a C-ordered ``float64`` array of shape ``(n, K)``; ``labels``
  a C-ordered ``int32`` array of codes ``0..K-1``. The thin wrappers here fix
  dtype and order; public functions validate before any kernel runs.
* Kernels compile lazily (``cache=True``, ``error_model="numpy"``, no
  fastmath); importing this module compiles nothing.
* Parallel kernels are compiled twice from one Python function, serial and
  ``parallel=True``; small inputs take the serial build. Reductions never
  depend on the thread count: the instances are cut into fixed chunks and
  blocks that depend only on ``n`` and ``K``, each block is reduced in
  order, and the blocks are merged in order. Serial and parallel builds and
  any ``numba.set_num_threads`` give bit-identical results.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import PARALLEL_THRESHOLD, kernel_input, serial_and_parallel

# Blocks of the deterministic reduction: fixed, independent of the thread count.
N_BLOCKS = 64
# A chunk is reduced twice from cache (sum, then squared deviations): ~128 KiB.
_CHUNK_BYTES = 1 << 17


def chunk_rows(n_classes: int) -> int:
    """Rows per chunk: ~128 KiB of data, and never fewer than 8·K rows.

    The floor keeps the per-chunk scratch (K × K means) small beside the
    chunk itself when there are many classes.
    """
    return max(_CHUNK_BYTES // (8 * n_classes), 8 * n_classes, 16)


# --------------------------------------------------------------------------- class moments
def _class_moments_impl(probs, labels, n_labels, chunk, n_blocks):
    # Per block b: count, mean vector and M2 = Σ‖p_i − mean‖² of every class.
    # Within a chunk: exact two-pass (sum, then deviations from the chunk's
    # class mean, the chunk being in cache). Chunks merge into their block, in
    # order, by Chan, Golub & LeVeque's (1979) pairwise update, which never
    # forms the cancelling difference Σ‖p_i‖² − N_k‖p̄_k‖².
    n, m = probs.shape
    n_chunks = (n + chunk - 1) // chunk
    b_cnt = np.zeros((n_blocks, n_labels), dtype=np.int64)
    b_mean = np.zeros((n_blocks, n_labels, m), dtype=np.float64)
    b_m2 = np.zeros((n_blocks, n_labels), dtype=np.float64)
    for b in prange(n_blocks):
        c0 = (b * n_chunks) // n_blocks
        c1 = ((b + 1) * n_chunks) // n_blocks
        cnt = np.zeros(n_labels, dtype=np.int64)
        mu = np.zeros((n_labels, m), dtype=np.float64)
        m2 = np.zeros(n_labels, dtype=np.float64)
        for ch in range(c0, c1):
            i0 = ch * chunk
            i1 = min(n, i0 + chunk)
            cnt[:] = 0
            mu[:, :] = 0.0
            m2[:] = 0.0
            for i in range(i0, i1):
                k = labels[i]
                cnt[k] += 1
                for c in range(m):
                    mu[k, c] += probs[i, c]
            for k in range(n_labels):
                if cnt[k] > 0:
                    for c in range(m):
                        mu[k, c] /= cnt[k]
            for i in range(i0, i1):
                k = labels[i]
                acc = 0.0
                for c in range(m):
                    d = probs[i, c] - mu[k, c]
                    acc += d * d
                m2[k] += acc
            for k in range(n_labels):
                nb = cnt[k]
                if nb == 0:
                    continue
                na = b_cnt[b, k]
                if na == 0:
                    b_cnt[b, k] = nb
                    b_m2[b, k] = m2[k]
                    for c in range(m):
                        b_mean[b, k, c] = mu[k, c]
                    continue
                tot = na + nb
                dd = 0.0
                for c in range(m):
                    d = mu[k, c] - b_mean[b, k, c]
                    dd += d * d
                    b_mean[b, k, c] += d * (nb / tot)
                b_m2[b, k] += m2[k] + dd * (na * nb / tot)
                b_cnt[b, k] = tot
    return b_cnt, b_mean, b_m2


_class_moments_serial, _class_moments_parallel = serial_and_parallel(_class_moments_impl, error_model="numpy")


@njit(cache=True, error_model="numpy")
def _merge_blocks(b_cnt, b_mean, b_m2):
    # Merge the blocks in order (Chan et al. 1979), serially.
    n_blocks, n_labels, m = b_mean.shape
    cnt = np.zeros(n_labels, dtype=np.int64)
    mean = np.zeros((n_labels, m), dtype=np.float64)
    m2 = np.zeros(n_labels, dtype=np.float64)
    for b in range(n_blocks):
        for k in range(n_labels):
            nb = b_cnt[b, k]
            if nb == 0:
                continue
            na = cnt[k]
            if na == 0:
                cnt[k] = nb
                m2[k] = b_m2[b, k]
                for c in range(m):
                    mean[k, c] = b_mean[b, k, c]
                continue
            tot = na + nb
            dd = 0.0
            for c in range(m):
                d = b_mean[b, k, c] - mean[k, c]
                dd += d * d
                mean[k, c] += d * (nb / tot)
            m2[k] += b_m2[b, k] + dd * (na * nb / tot)
            cnt[k] = tot
    return cnt, mean, m2


def class_moments(
    probs: np.ndarray, labels: np.ndarray, n_labels: int, *, parallel: bool | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class counts ``N_k``, mean rows ``p̄_k`` and ``M2_k = Σ_{i∈I_k} ‖p_i − p̄_k‖²``.

    One read of ``probs``. ``parallel=None`` picks the build by size; the
    result is bit-identical either way. Classes without instances get count
    0, a mean row of NaN and ``M2 = 0``.
    """
    probs = kernel_input(probs, np.float64)
    labels = kernel_input(labels, np.int32)
    m = probs.shape[1]
    if parallel is None:
        parallel = probs.size >= PARALLEL_THRESHOLD
    if parallel:
        # Blocks are handed out one at a time (dynamic schedule): a thread whose
        # core is busy with other work does not hold up the rest. Which thread
        # reduces a block never changes the result.
        with numba.parallel_chunksize(1):
            b_cnt, b_mean, b_m2 = _class_moments_parallel(
                probs, labels, n_labels, chunk_rows(m), N_BLOCKS)
    else:
        b_cnt, b_mean, b_m2 = _class_moments_serial(
            probs, labels, n_labels, chunk_rows(m), N_BLOCKS)
    cnt, mean, m2 = _merge_blocks(b_cnt, b_mean, b_m2)
    mean[cnt == 0] = np.nan
    return cnt, mean, m2


# --------------------------------------------------------------------------- validation
def _check_rows_impl(probs, atol, n_blocks):
    # First row of each block that is not a distribution (-1 = none). One
    # test per entry: `v >= 0` is false for a negative entry and for NaN; an
    # infinite entry makes the row sum miss 1. The caller finds the reason.
    n, m = probs.shape
    first = np.full(n_blocks, -1, dtype=np.int64)
    for b in prange(n_blocks):
        i0 = (b * n) // n_blocks
        i1 = ((b + 1) * n) // n_blocks
        for i in range(i0, i1):
            s = 0.0
            ok = True
            for c in range(m):
                v = probs[i, c]
                ok &= v >= 0.0
                s += v
            if not (ok and abs(s - 1.0) <= atol):
                first[b] = i
                break
    return first


_check_rows_serial, _check_rows_parallel = serial_and_parallel(_check_rows_impl, error_model="numpy")


def first_bad_row(probs: np.ndarray, atol: float) -> tuple[int, int]:
    """``(row, reason)`` of the first row that is not a distribution, else ``(-1, 0)``.

    Reasons: 1 NaN or inf, 2 a negative entry, 3 a sum more than ``atol``
    away from 1.
    """
    probs = kernel_input(probs, np.float64)
    if probs.size >= PARALLEL_THRESHOLD:
        with numba.parallel_chunksize(1):
            first = _check_rows_parallel(probs, float(atol), N_BLOCKS)
    else:
        first = _check_rows_serial(probs, float(atol), N_BLOCKS)
    hit = np.flatnonzero(first >= 0)
    if hit.size == 0:
        return -1, 0
    row = int(first[hit[0]])
    values = probs[row]
    if not np.all(np.isfinite(values)):
        return row, 1
    if np.any(values < 0):
        return row, 2
    return row, 3


# --------------------------------------------------------------------------- per-row maps
def _tv_rows_impl(p, q):
    # ½ Σ_c |p_ic − q_ic| per row (SPEC §2.8).
    n, m = p.shape
    out = np.empty(n, dtype=np.float64)
    for i in prange(n):
        acc = 0.0
        for c in range(m):
            acc += abs(p[i, c] - q[i, c])
        out[i] = 0.5 * acc
    return out


_tv_rows_serial, _tv_rows_parallel = serial_and_parallel(_tv_rows_impl, error_model="numpy")


def tv_rows(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-row total-variation distance of two equally shaped row-stochastic arrays."""
    p = kernel_input(p, np.float64)
    q = kernel_input(q, np.float64)
    kernel = _tv_rows_parallel if p.size >= PARALLEL_THRESHOLD else _tv_rows_serial
    return kernel(p, q)


def _entropy_rows_impl(p):
    # −Σ_c p_c log p_c per row, with 0 log 0 = 0 (natural log).
    n, m = p.shape
    out = np.empty(n, dtype=np.float64)
    for i in prange(n):
        acc = 0.0
        for c in range(m):
            v = p[i, c]
            if v > 0.0:
                acc -= v * np.log(v)
        out[i] = acc
    return out


_entropy_rows_serial, _entropy_rows_parallel = serial_and_parallel(_entropy_rows_impl, error_model="numpy")


def entropy_rows(p: np.ndarray) -> np.ndarray:
    """Per-row Shannon entropy in nats."""
    p = kernel_input(p, np.float64)
    kernel = _entropy_rows_parallel if p.size >= PARALLEL_THRESHOLD else _entropy_rows_serial
    return kernel(p)


def _sample_rows_impl(w, u):
    # Inverse-CDF draw per row: the first class whose cumulative weight
    # exceeds u_i · Σ_c w_ic. A class of weight 0 is never drawn (the
    # cumulative sum does not move there).
    n, m = w.shape
    out = np.empty(n, dtype=np.int32)
    for i in prange(n):
        tot = 0.0
        last = -1
        for c in range(m):
            tot += w[i, c]
            if w[i, c] > 0:
                last = c
        target = u[i] * tot
        cum = 0.0
        pick = last
        for c in range(m):
            cum += w[i, c]
            if target < cum:
                pick = c
                break
        out[i] = pick
    return out


_sample_rows_serial, _sample_rows_parallel = serial_and_parallel(_sample_rows_impl, error_model="numpy")


def sample_rows(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One class per row, with probability proportional to ``weights[i]``.

    ``u`` holds one uniform draw in [0, 1) per row, made by the caller with
    ``numpy.random.Generator.random`` so that results depend only on the seed.
    Every row must have positive total weight.
    """
    w = kernel_input(weights, np.float64)
    u = kernel_input(u, np.float64)
    kernel = _sample_rows_parallel if w.size >= PARALLEL_THRESHOLD else _sample_rows_serial
    return kernel(w, u)


@njit(cache=True, error_model="numpy")
def _lookup_labels(values, lo, table, out):
    # Dense lookup of integer labels among integer class names; -1 = not a class.
    span = table.shape[0]
    for i in range(values.shape[0]):
        j = values[i] - lo
        out[i] = table[j] if 0 <= j < span else -1
    return out


def lookup_labels(values: np.ndarray, lo: int, table: np.ndarray) -> np.ndarray:
    """``table[values - lo]`` as int32 codes, ``-1`` where a value falls outside the table."""
    values = kernel_input(values, np.int64)
    out = np.empty(values.shape[0], dtype=np.int32)
    return _lookup_labels(values, np.int64(lo), kernel_input(table, np.int32), out)
