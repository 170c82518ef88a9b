"""Keys of rating patterns: one implementation for every package.

Every per-item statistic is a function of the item's row of codes, and many
only of its counts per category; items with the same key have the same
statistics, so a histogram of keys replaces a loop over items (agreement
coefficients, Krippendorff's α, the latent-class E-step, the bootstrap's
merged patterns). Two keys:

* **row key** — the whole row: ``Σ_j (x_ij + 1) (m + 1)^j`` (``x = −1`` for
  missing), ``(m + 1)^k`` possible keys; ordered by the last annotator first.
* **count key** — the vector of counts per category (missing ratings not
  counted): the counts packed in ``bits = bit_length(k)``-wide fields, used as
  the key itself while ``2^(m·bits)`` is small, else their rank among all
  count vectors with sum ≤ k (lexicographic, no gaps, ``C(k + m, m)`` keys):
  ``rank(a) = Σ_c table[c, s_c, a_c]`` with ``s_c = a_0 + … + a_{c−1}`` and
  ``table[c, s, a] = Σ_{x<a} N(m − c − 1, k − s − x)``, ``N(d, t) = C(d + t, d)``.

Histograms count integers, so they are exact and their chunks may follow the
number of threads. Kernels load at first use (:mod:`_goldnoise_lib.lazy`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.threads import HISTOGRAM_PARALLEL_CELLS, kernel_input, use_parallel

_k = lazy_module("_goldnoise_lib._pattern_kernels")
numba = lazy_module("numba")

__all__ = [
    "COUNT_MAX_BINS", "COUNT_ROWS_MAX_CELLS", "count_histogram", "count_keys",
    "count_patterns", "count_plan", "counts_to_codes", "decode_counts", "decode_rows",
    "distinct_counts", "n_row_keys", "row_histogram", "row_keys",
]

# Count keys are used while at most this many count vectors are possible.
COUNT_MAX_BINS = 1 << 17
_PACKED_BITS = 17  # packed counts are the key up to this many bits
_COUNT_BUDGET = 1 << 19  # count-histogram cells over all chunks
_MIN_CHUNK = 2048


def _prepare(codes: np.ndarray) -> np.ndarray:
    codes = np.ascontiguousarray(codes)
    if codes.dtype not in (np.int8, np.int16):
        codes = np.ascontiguousarray(codes, dtype=np.int16)
    return kernel_input(codes)


# ------------------------------------------------------------------ row keys
def n_row_keys(k: int, m: int) -> int:
    """Number of possible row keys, ``(m + 1)^k``."""
    return (m + 1) ** k


def row_histogram(codes: np.ndarray, m: int, *, parallel: bool | None = None,
                  threshold: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct row keys of the items and how many items have each (one pass).

    The caller checks that ``n_row_keys(k, m)`` is small enough to hold.
    """
    codes = kernel_input(codes)
    n, k = codes.shape
    size = n_row_keys(k, m)
    if use_parallel(codes.size, parallel,
                    HISTOGRAM_PARALLEL_CELLS if threshold is None else threshold):
        chunks = max(1, min(numba.get_num_threads(), n // 65536 or 1))
        hist = _k.row_histogram[1](codes, m, size, chunks)
    else:
        hist = _k.row_histogram[0](codes, m, size, 1)
    total = hist.sum(axis=0, dtype=np.int64)
    keys = np.flatnonzero(total)
    return keys, total[keys]


def row_keys(codes: np.ndarray, m: int, *, parallel: bool | None = None) -> np.ndarray | None:
    """Each item's row key (int64), or None when ``(m + 1)^k`` exceeds 63 bits."""
    codes = kernel_input(codes)
    n, k = codes.shape
    if n_row_keys(k, m) >= 2**63:
        return None
    out = np.empty(n, dtype=np.int64)
    _k.row_keys[use_parallel(codes.size, parallel)](codes, m, out)
    return out


def decode_rows(keys: np.ndarray, k: int, m: int, dtype) -> np.ndarray:
    """The row of codes (len(keys) × k) of each row key."""
    keys = np.asarray(keys, dtype=np.int64)
    digits = (keys[:, None] // (m + 1) ** np.arange(k, dtype=np.int64)) % (m + 1)
    return (digits - 1).astype(dtype)


# ---------------------------------------------------------------- count keys
def count_plan(k: int, m: int, max_bins: int | None = None):
    """``(bits, table, use_rank, n_bins)`` of the count keys, or None if too many.

    ``bits = bit_length(k)``; the packed counts are the key while ``m·bits ≤
    17`` and ``2^(m·bits) ≤ max_bins``, else the rank (module docstring), while
    at most ``max_bins`` count vectors are possible.
    """
    if max_bins is None:
        max_bins = COUNT_MAX_BINS
    if k < 1 or m < 1:
        return None
    bits = int(k).bit_length()
    if m * bits > 63:
        return None
    if m * bits <= _PACKED_BITS and 1 << (m * bits) <= max_bins:
        return bits, np.zeros((1, 1, 1), dtype=np.int64), False, 1 << (m * bits)
    n_bins = math.comb(k + m, m)
    if n_bins > max_bins:
        return None
    table = np.zeros((m, k + 1, k + 1), dtype=np.int64)
    for c in range(m):
        d = m - c - 1
        for s in range(k + 1):
            acc = 0
            for a in range(k - s + 1):
                table[c, s, a] = acc
                acc += math.comb(d + k - s - a, d)
    return bits, table, True, n_bins


def decode_counts(keys: np.ndarray, k: int, m: int, max_bins: int | None = None
                  ) -> np.ndarray:
    """Count vectors (len(keys) × m, int64) of count keys (made with the plan of the
    same ``k``, ``m`` and ``max_bins``: see :func:`count_plan`)."""
    return _decode(keys, k, m, count_plan(k, m, max_bins))


def _decode(keys: np.ndarray, k: int, m: int, plan) -> np.ndarray:
    bits, table, use_rank, _ = plan
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    if not use_rank:
        return (keys[:, None] >> (bits * np.arange(m, dtype=np.int64))[None, :]) & ((1 << bits) - 1)
    out = np.zeros((keys.size, m), dtype=np.int64)
    return _k.decode_ranks(keys, table, int(k), out)


def counts_to_codes(counts: np.ndarray, k: int, dtype) -> np.ndarray:
    """A row of k codes per count vector (categories in order, then −1 for missing)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    out = np.empty((counts.shape[0], k), dtype=dtype)
    return _k.counts_to_codes(counts, out)


def count_histogram(codes: np.ndarray, m: int, *, max_bins: int | None = None,
                    parallel: bool | None = None):
    """Histogram over items of their count vectors, or None if too many are possible.

    Returns ``(keys, counts, freq)``: the observed keys, their count vectors
    (P × m) and how many items have each. Integer counts: the result does not
    depend on the number of threads.
    """
    codes = _prepare(codes)
    n, k = codes.shape
    plan = count_plan(k, m, max_bins)
    if plan is None:
        return None
    bits, table, use_rank, n_bins = plan
    # Integer counts add exactly in any order, so the chunks may follow the thread
    # count: one histogram per thread, none to spare.
    par = use_parallel(codes.size, parallel, HISTOGRAM_PARALLEL_CELLS)
    n_chunks = 1
    if par:
        n_chunks = max(1, min(numba.get_num_threads(), _COUNT_BUDGET // n_bins,
                              -(-n // _MIN_CHUNK)))
    chunk = max(1, -(-n // n_chunks))
    out = np.zeros((n_chunks, n_bins), dtype=np.int64)
    _k.count_histogram[par](codes, bits, table, use_rank, chunk, out)
    hist = out.sum(axis=0)
    keys = np.flatnonzero(hist)
    return keys, _decode(keys, k, m, plan), hist[keys]


# Up to this many cells (items × annotators), data whose possible count vectors are too
# many for a histogram (many annotators and more than two categories: dog, 807 × 109 × 4;
# web, 2,665 × 177 × 5) are still reduced to their distinct count vectors, by sorting the
# items' keys (`distinct_counts`). The callers' streaming Numba passes are then compiled
# only for larger data, where their speed pays.
COUNT_ROWS_MAX_CELLS = 1_000_000


def distinct_counts(counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct rows of an items × categories count table and how many items have each
    (ordered by their mixed-radix key ``Σ_c a_c (k + 1)^c``), or None when that key does
    not fit in 62 bits. Exact integer work in NumPy: nothing to compile."""
    counts = np.asarray(counts)
    m = counts.shape[1]
    if m * math.log2(k + 1) >= 62:
        return None
    radix = (k + 1) ** np.arange(m, dtype=np.int64)
    keys = counts.astype(np.int64) @ radix
    _, first, freq = np.unique(keys, return_index=True, return_counts=True)
    return counts[first], freq


def count_patterns(codes: np.ndarray, m: int, counts: Callable[[], np.ndarray], *,
                   max_bins: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The items' distinct count vectors and how many items have each, or None.

    By the histogram while few count vectors are possible (:func:`count_histogram`);
    else, up to :data:`COUNT_ROWS_MAX_CELLS` cells, by sorting the items' keys
    (:func:`distinct_counts` of ``counts()``, the items × categories table, asked for only
    then); else None (the caller's streaming pass).
    """
    hist = count_histogram(codes, m, max_bins=max_bins)
    if hist is not None:
        return hist[1], hist[2]
    if np.asarray(codes).size > COUNT_ROWS_MAX_CELLS:
        return None
    return distinct_counts(counts(), np.asarray(codes).shape[1])


def count_keys(codes: np.ndarray, m: int, *, parallel: bool | None = None
               ) -> tuple[np.ndarray, int] | None:
    """Each item's count key and the number of possible keys, or None if too many."""
    codes = _prepare(codes)
    n, k = codes.shape
    plan = count_plan(k, m)
    if plan is None:
        return None
    bits, table, use_rank, n_bins = plan
    out = np.empty(n, dtype=np.int64)
    _k.count_keys[use_parallel(codes.size, parallel)](codes, bits, table, use_rank, out)
    return out, n_bins
