"""Resample weights: multinomial (plain or stratified) and Poisson keyed by item id.

These are the resampling core's reusable parts (see :mod:`_goldnoise_lib.resampling`
for the contract). Every function is deterministic given its seeds: the
multinomial ones take one seed per replicate (:func:`replicate_seeds`), the
Poisson ones one seed for the whole run (:func:`poisson_seed`) plus the
replicate numbers, so any block of replicates can be computed on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import check_rng

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_kernels = lazy_module("_goldnoise_lib.resampling._kernels")


__all__ = [
    "combine_pattern_counts",
    "item_hashes",
    "item_keys",
    "multinomial_counts",
    "multinomial_sums",
    "poisson_pattern_counts",
    "poisson_replicate_sums",
    "poisson_seed",
    "poisson_weights",
    "replicate_seeds",
    "replicate_sums",
]


def replicate_seeds(rng: Any, n_resamples: int) -> np.ndarray:
    """One 32-bit seed per multinomial replicate, from ``np.random.default_rng(rng)``."""
    return check_rng(rng).integers(0, 2**32, size=n_resamples, dtype=np.uint64
                                               ).astype(np.uint32)


def poisson_seed(rng: Any) -> int:
    """The run's seed of the keyed Poisson generator, from ``np.random.default_rng(rng)``."""
    return int(check_rng(rng).integers(0, 2**63, dtype=np.int64))


def _strata_order(n: int, strata: npt.ArrayLike | None):
    if strata is None:
        return None, np.array([0, n], dtype=np.int64)
    codes = pd.factorize(np.asarray(strata), sort=True)[0]
    if codes.shape != (n,):
        raise ValueError(f"`strata` must have one label per pattern ({n}); got {codes.shape}.")
    order = np.argsort(codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(codes))]).astype(np.int64)
    return order, starts


def multinomial_counts(freq: npt.ArrayLike, seeds: np.ndarray,
                       strata: npt.ArrayLike | None = None) -> np.ndarray:
    """How often each pattern is drawn, per replicate: int64, (len(seeds), P).

    ``freq[p]`` is the number of items with pattern ``p`` (ones for plain
    items). A replicate draws ``Σ freq`` items with replacement — or, with
    ``strata`` (one label per pattern), as many items from each stratum as it
    holds (the stratified bootstrap, e.g. by ``is_error``).
    """
    f = np.ascontiguousarray(freq, dtype=np.int64)
    order, starts = _strata_order(f.size, strata)
    out = np.zeros((len(seeds), f.size), dtype=np.int64)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint32)
    kernel = _kernels.pick(_kernels.multinomial_counts, 50.0 * out.size)
    if order is None:
        kernel(seeds, f, starts, out)
        return out
    tmp = np.zeros_like(out)
    kernel(seeds, f[order], starts, tmp)
    out[:, order] = tmp
    return out


def multinomial_sums(freq: npt.ArrayLike, rows: npt.ArrayLike, seeds: np.ndarray,
                     strata: npt.ArrayLike | None = None) -> np.ndarray:
    """``counts @ rows`` per replicate without storing the counts: (len(seeds), C).

    Same counts as :func:`multinomial_counts` with the same arguments.
    """
    f = np.ascontiguousarray(freq, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    order, starts = _strata_order(f.size, strata)
    if order is not None:
        f, rows = f[order], np.ascontiguousarray(rows[order])
    out = np.zeros((len(seeds), rows.shape[1]))
    kernel = _kernels.pick(_kernels.multinomial_sums, len(seeds) * f.size * (50.0 + rows.shape[1]))
    kernel(np.ascontiguousarray(seeds, dtype=np.uint32), f, starts, rows, out)
    return out


def replicate_sums(counts: npt.ArrayLike, rows: npt.ArrayLike) -> np.ndarray:
    """``counts @ rows`` in a fixed summation order (identical for any thread count)."""
    c = np.ascontiguousarray(counts, dtype=np.float64)
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    out = np.zeros((c.shape[0], rows.shape[1]))
    _kernels.pick(_kernels.counts_times_rows, float(c.size) * rows.shape[1])(c, rows, out)
    return out


def item_keys(ids: Sequence[Any] | pd.Index | np.ndarray) -> np.ndarray:
    """The 64-bit key of each item id for the keyed Poisson generator.

    Integer ids are their own key (two's complement); any other id is keyed by
    the first 8 bytes of the BLAKE2b hash of ``str(id)``, so keys are stable
    across processes, machines and Python versions.
    """
    values = pd.Index(ids)
    if values.dtype.kind in "iu":
        return values.to_numpy().astype(np.int64).view(np.uint64)
    return np.fromiter(
        (int.from_bytes(hashlib.blake2b(str(v).encode(), digest_size=8).digest(), "little")
         for v in values), dtype=np.uint64, count=len(values))


def item_hashes(seed: int, keys: npt.ArrayLike) -> np.ndarray:
    """The per-item part of the keyed hash (depends on the seed and the key only)."""
    k = np.ascontiguousarray(keys, dtype=np.uint64)
    out = np.empty(k.size, dtype=np.uint64)
    _kernels.pick(_kernels.item_hashes, 10.0 * k.size)(np.uint64(seed), k, out)
    return out


def poisson_weights(seed: int, keys: npt.ArrayLike, n_resamples: int, *,
                    first: int = 0) -> np.ndarray:
    """Poisson(1) weights (int64, n_resamples × n) of items ``keys`` in replicates
    ``first .. first + n_resamples − 1``."""
    h = item_hashes(seed, keys)
    out = np.zeros((n_resamples, h.size), dtype=np.int64)
    _kernels.pick(_kernels.poisson_weights, 10.0 * out.size)(
        h, np.uint64(first), _kernels.POISSON_CDF, out)
    return out


def poisson_counts(seed: int, keys: npt.ArrayLike, groups: npt.ArrayLike, n_groups: int,
                   n_resamples: int, *, first: int = 0) -> np.ndarray:
    """Σ of the items' Poisson weights per group (int64, n_resamples × n_groups)."""
    h = item_hashes(seed, keys)
    g = np.ascontiguousarray(groups, dtype=np.int64)
    out = np.zeros((n_resamples, int(n_groups)), dtype=np.int64)
    _kernels.pick(_kernels.poisson_counts, 10.0 * n_resamples * h.size)(
        h, g, np.uint64(first), _kernels.POISSON_CDF, out)
    return out


def poisson_pattern_counts(seed: int, keys: npt.ArrayLike, rows: npt.ArrayLike,
                           n_resamples: int, *, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One chunk's part of a Poisson bootstrap: ``(patterns, counts)``.

    ``patterns`` are the distinct rows of the chunk (sorted), ``counts[b, p]``
    the sum of the Poisson weights of its items with that row in replicate
    ``first + b``: exact integers, so chunks combine exactly
    (:func:`combine_pattern_counts`), in any order and any split.
    """
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    patterns, groups = np.unique(rows, axis=0, return_inverse=True)
    counts = poisson_counts(seed, keys, groups.ravel(), patterns.shape[0], n_resamples,
                            first=first)
    return patterns, counts


def combine_pattern_counts(parts: Sequence[tuple[np.ndarray, np.ndarray]]
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Merge chunks' ``(patterns, counts)`` by pattern (integer sums: exact)."""
    patterns = np.concatenate([p for p, _ in parts])
    counts = np.concatenate([c for _, c in parts], axis=1)
    merged, inverse = np.unique(patterns, axis=0, return_inverse=True)
    out = np.zeros((counts.shape[0], merged.shape[0]), dtype=np.int64)
    np.add.at(out.T, inverse.ravel(), counts.T)
    return merged, out


def poisson_replicate_sums(seed: int, item_ids: Any, rows: npt.ArrayLike,
                           n_resamples: int) -> np.ndarray:
    """``Σ_i w_ib rows_i`` for Poisson(1) weights keyed by ``(seed, item id, b)``.

    Apply it chunk by chunk and add the results (equal up to rounding), or
    combine :func:`poisson_pattern_counts` of the chunks and take
    :func:`replicate_sums` of the merged patterns (bit-identical to the whole).
    """
    patterns, counts = poisson_pattern_counts(seed, item_keys(item_ids), rows, n_resamples)
    return replicate_sums(counts, patterns)
