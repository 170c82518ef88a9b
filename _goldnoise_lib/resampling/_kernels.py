"""Numba kernels of the bootstrap engine: resample weights and replicate sums.

* Multinomial resampling draws, for each replicate, the number of times each
  distinct item pattern is taken, as a chain of conditional binomials over the
  patterns (exact: it is the multinomial of drawing n items with replacement).
  Each replicate re-seeds Numba's generator with its own seed, drawn in Python
  from ``np.random.default_rng(rng)``, so a replicate does not depend on the
  thread that computes it: the result is identical for any number of threads.
* Poisson resampling gives each item a Poisson(1) weight computed from a
  counter-based generator: a 64-bit hash of ``(seed, item key, replicate)``
  (three rounds of the SplitMix64 finaliser; the first two, which do not
  depend on the replicate, are computed once per item) turned into a uniform
  and then into a Poisson(1) draw by inversion. The weight of an item in a replicate is
  a pure function of those three numbers, so it is the same whatever the order
  of the items or the chunk they arrive in.
* Replicate sums ``counts @ rows`` run one replicate per task, the patterns in
  a fixed order: the floating-point sum does not depend on the thread count.

Kernels compile lazily (``cache=True``); nothing compiles at import.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from _goldnoise_lib.threads import serial_and_parallel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

# Poisson(1) CDF, P(W ≤ k) for k = 0..POISSON_MAX; beyond, the tail is below 2^-64.
POISSON_MAX = 24
POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(POISSON_MAX + 1)])
POISSON_CDF[-1] = 1.0


@njit(cache=True, inline="always")
def _mix(z):
    # SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijection of uint64
    # whose every output bit depends on every input bit.
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def item_hash(seed, key):
    """The replicate-independent part of the keyed hash of item ``key``."""
    h = _mix(np.uint64(seed) + _GOLDEN)
    return _mix(h ^ (np.uint64(key) + _GOLDEN * np.uint64(2)))


@njit(cache=True, inline="always")
def keyed_poisson(h_item, replicate, cdf):
    """Poisson(1) weight in ``replicate`` of the item with hash ``h_item``.

    ``u`` = the top 53 bits of ``mix(h_item ^ (replicate + 3φ))`` as a uniform on
    [0, 1), then inversion of the Poisson(1) CDF.
    """
    h = _mix(h_item ^ (np.uint64(replicate) + _GOLDEN * np.uint64(3)))
    u = np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    # k = #{j : u ≥ F(j)}: branch-free over the first 8 terms (P(W ≥ 8) ≈ 1e-5)
    k = 0
    for j in range(8):
        k += u >= cdf[j]
    if k == 8:
        while k < cdf.shape[0] - 1 and u >= cdf[k]:
            k += 1
    return k


def _item_hashes_impl(seed, keys, out):
    for i in prange(keys.shape[0]):
        out[i] = item_hash(seed, keys[i])


@njit(cache=True, inline="always")
def _draw_counts(seed, freq, starts, out):
    # One multinomial replicate per stratum s (patterns starts[s]..starts[s+1]):
    # n_s = Σ freq items drawn with replacement, as conditional binomials.
    # Numba's generator is per thread; seeding it per replicate makes the replicate a
    # function of its seed only (a Generator object cannot be shared across prange).
    np.random.seed(seed)  # noqa: NPY002
    for s in range(starts.shape[0] - 1):
        lo, hi = starts[s], starts[s + 1]
        left_items = 0
        for p in range(lo, hi):
            left_items += freq[p]
        left_freq = left_items
        for p in range(lo, hi):
            if left_items == 0:
                out[p] = 0
                continue
            if p == hi - 1 or freq[p] >= left_freq:
                c = left_items
            else:
                c = np.random.binomial(left_items, freq[p] / left_freq)  # noqa: NPY002
            out[p] = c
            left_items -= c
            left_freq -= freq[p]


def _multinomial_counts_impl(seeds, freq, starts, out):
    for b in prange(seeds.shape[0]):
        _draw_counts(seeds[b], freq, starts, out[b])


def _multinomial_sums_impl(seeds, freq, starts, rows, out):
    # out[b] = Σ_p counts[b, p] rows[p], counts drawn as in _draw_counts.
    n_p, n_col = rows.shape
    for b in prange(seeds.shape[0]):
        counts = np.empty(n_p, dtype=np.int64)
        _draw_counts(seeds[b], freq, starts, counts)
        acc = np.zeros(n_col)
        for p in range(n_p):
            c = counts[p]
            if c != 0:
                for j in range(n_col):
                    acc[j] += c * rows[p, j]
        for j in range(n_col):  # element by element: a slice assignment compiles Numba's
            out[b, j] = acc[j]  # shape-mismatch error formatting (3.5 s of CPU)


def _poisson_counts_impl(hashes, groups, first, cdf, out):
    # out[b, g] = Σ_{i: groups[i] = g} Poisson weight of item i in replicate first + b
    # (hashes[i] = item_hash(seed, key of item i)). Integer sums: exact in any order.
    for b in prange(out.shape[0]):
        rep = first + np.uint64(b)  # uint64 throughout: int64 + uint64 would be float64
        row = out[b]
        for i in range(hashes.shape[0]):
            row[groups[i]] += keyed_poisson(hashes[i], rep, cdf)


def _poisson_weights_impl(hashes, first, cdf, out):
    for b in prange(out.shape[0]):
        rep = first + np.uint64(b)
        for i in range(hashes.shape[0]):
            out[b, i] = keyed_poisson(hashes[i], rep, cdf)


def _counts_times_rows_impl(counts, rows, out):
    n_p, n_col = rows.shape
    for b in prange(counts.shape[0]):
        acc = np.zeros(n_col)
        for p in range(n_p):
            c = counts[b, p]
            if c != 0:
                for j in range(n_col):
                    acc[j] += c * rows[p, j]
        for j in range(n_col):  # element by element: a slice assignment compiles Numba's
            out[b, j] = acc[j]  # shape-mismatch error formatting (3.5 s of CPU)


def _builds(impl):
    """Serial and parallel builds of one kernel (small work: the thread pool costs more)."""
    return serial_and_parallel(impl, error_model="numpy")


# Below this many multiply-adds (or draws) a kernel runs serially.
PARALLEL_WORK = 1 << 21

multinomial_counts = _builds(_multinomial_counts_impl)
multinomial_sums = _builds(_multinomial_sums_impl)
poisson_counts = _builds(_poisson_counts_impl)
poisson_weights = _builds(_poisson_weights_impl)
counts_times_rows = _builds(_counts_times_rows_impl)
item_hashes = _builds(_item_hashes_impl)


def pick(builds, work: float):
    """The serial build for small ``work``, else the parallel one."""
    return builds[work >= PARALLEL_WORK]
