"""Krippendorff's α with his own metrics, and its per-unit sufficient statistics.

α is ``1 − D_o / D_e`` over the *pairable* units (units with two or more
ratings). Both disagreements come from sums over units, so α is a finalize
step over unit sums (:func:`alpha_in_memory`; :mod:`agreement._partial` over
chunks), and these are importable for the bootstrap over items and for chunked
input:

* :func:`count_patterns` + :func:`alpha_from_counts`: each item's statistic is
  its category-count vector; a replicate is ``alpha_from_counts(patterns,
  values, level, weights=np.bincount(keys, weights=w))`` (few categories);
* :func:`alpha_sums` (with ``item_weights``) + :func:`alpha_from_sums`: one
  streaming pass per replicate, any number of categories;
* :func:`alpha_unit_terms`: per-unit scalars ``(r_u, q_u)`` (not ordinal);
* :func:`coincidence_matrix` + :func:`alpha_from_coincidences`.

Notation (Krippendorff 2011): unit u has ``r_u`` ratings; ``o_ck`` is the
coincidence matrix ``Σ_u (#ordered pairs of distinct ratings of u valued c, k)
/ (r_u − 1)``; ``n_c = Σ_k o_ck`` (the pairable values in category c) and
``n = Σ_c n_c``;

    D_o = Σ_ck o_ck δ²_ck / n,        D_e = Σ_ck n_c n_k δ²_ck / (n (n − 1)).

No m × m matrix is needed for the metrics used here: with
``q_u = Σ_{j≠j'} δ²(x_uj, x_uj') / (r_u − 1)``, ``n D_o = Σ_u q_u``, and
``D_e`` needs only ``n_c``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import check_option
from agreement._ratings import Ratings, as_ratings
from agreement._result import AgreementResult, with_clip_note
from agreement._weights import weight_matrix

# Numba kernels, imported at first use (import agreement stays fast).
_ka = lazy_module("agreement._kernels_alpha")
_kernels = lazy_module("agreement._kernels")

__all__ = [
    "AlphaParts",
    "AlphaSums",
    "alpha_from_coincidences",
    "alpha_from_counts",
    "alpha_from_sums",
    "alpha_sums",
    "alpha_unit_terms",
    "coincidence_matrix",
    "count_patterns",
]

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _kind(level: str) -> int:
    """The kernels' metric code of ``level`` (looked up at call time: kernels load lazily)."""
    return {
        "nominal": _ka.KIND_NOMINAL,
        "ordinal": _ka.KIND_INTERVAL,  # the ordinal metric is the interval one on mid-ranks
        "interval": _ka.KIND_INTERVAL,
        "ratio": _ka.KIND_RATIO,
    }[level]


class AlphaSums(NamedTuple):
    """Sums over pairable units from which α is finalized.

    Attributes
    ----------
    n_c : ndarray of float64, shape (m,)
        Pairable values in each category, ``Σ_u w_u a_uc`` over units with
        ``r_u ≥ 2`` (the coincidence marginals).
    d_o : float
        ``Σ_u w_u q_u``, i.e. ``n · D_o``, under the level's metric (for
        ``"ordinal"``, the interval metric on the mid-ranks of these ``n_c``).
    n_units : float
        Pairable units, ``Σ_u w_u``.
    """

    n_c: np.ndarray
    d_o: float
    n_units: float


class AlphaParts(NamedTuple):
    """α and its disagreements: ``alpha = 1 − d_o / d_e`` (NaN if ``d_e`` is 0).

    ``scale`` is the largest metric difference δ² between two declared
    categories; ``1 − d_o / scale`` and ``1 − d_e / scale`` are the observed
    and expected agreement reported in :class:`AgreementResult`.
    """

    alpha: float
    d_o: float
    d_e: float
    scale: float


# ----------------------------------------------------------------- validation
def _check_level(level: Any) -> str:
    if not isinstance(level, str):
        raise TypeError(
            f"`level` must be a string, one of {LEVELS}; got {type(level).__name__} {level!r}."
        )
    return check_option(level, "level", LEVELS,
                        hint="Levels are matched exactly (no abbreviations, lower case).")


def _check_values(values: npt.ArrayLike, level: str) -> np.ndarray:
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("`values` must be a non-empty 1-D array (one value per category).")
    if not np.all(np.isfinite(values)):
        raise ValueError("the category values must be finite.")
    if level == "ratio" and np.any(values < 0):
        raise ValueError(
            "`level='ratio'` needs non-negative category values (a ratio scale has an "
            f"absolute zero); the smallest value is {float(values.min())!r}. Use "
            "`level='interval'`, or shift the labels."
        )
    return values


def _krippendorff_alpha_iv(ratings: Any, level: Any,
                           weights: Any = None) -> tuple[Ratings, str, np.ndarray, Any]:
    if level is not None and weights is not None:
        raise ValueError(
            "pass either `level=` (Krippendorff's metrics) or `weights=` (Gwet's agreement "
            f"weights), not both; got level={level!r} and weights={_shown(weights)}."
        )
    if weights is not None:
        r = as_ratings(ratings)
        return r, "weights", r.category_values, weight_matrix(weights, r)
    level = _check_level("nominal" if level is None else level)
    r = as_ratings(ratings)
    if level != "nominal" and not r.ordered:
        raise ValueError(
            f"`level={level!r}` needs ordered categories, but {list(r.categories[:5])}"
            f"{' ...' if r.n_categories > 5 else ''} have no declared order. Pass the "
            "categories in order (`Ratings.from_wide(data, categories=[...])` or an ordered "
            "categorical), use numeric labels, or use `level='nominal'`."
        )
    values = _check_values(r.category_values, level)
    return r, level, values, None


def _shown(weights: Any) -> str:
    return repr(weights) if isinstance(weights, str) else f"a {type(weights).__name__}"


def _weighted_state(r: Ratings, w: np.ndarray):
    """α with agreement weights ``w`` (δ = 1 − w), from the items' count vectors."""
    m = r.n_categories
    if r.codes is None:
        counts, freq = r.counts, np.ones(r.n_items)
    else:
        hist = _patterns.count_histogram(r.codes, m)
        if hist is not None:
            _, counts, freq = hist
            freq = freq.astype(np.float64)
        else:
            counts, freq = r.counts, np.ones(r.n_items)
    r_all = counts.sum(axis=1)
    keep = (r_all >= 2) & (freq > 0)
    if not keep.any():
        return None
    a = counts[keep].astype(np.float64)
    f = freq[keep]
    ru = r_all[keep].astype(np.float64)
    delta = 1.0 - w
    n_c = f @ a
    q = np.einsum("pc,pc->p", a @ delta, a) / (ru - 1.0)
    sums = AlphaSums(n_c, float(f @ q), float(f.sum()))
    total = float(n_c.sum())
    if total <= 1.0 or np.count_nonzero(n_c > 0) < 2:
        parts = AlphaParts(math.nan, sums.d_o / total, 0.0, 1.0)
        return parts, sums, None, (a, f, ru, q)
    g = delta @ n_c
    d_o = sums.d_o / total
    d_e = float(n_c @ g) / (total * (total - 1.0))
    parts = AlphaParts(1.0 - d_o / d_e if d_e > 0 else math.nan, d_o, d_e, 1.0)
    return parts, sums, g, (a, f, ru, q)


def _codes_of(ratings: Ratings) -> np.ndarray:
    """The code matrix; for count-table data, one row of codes per item."""
    if ratings.codes is not None:
        return ratings.codes
    counts = ratings.counts
    n, m = counts.shape
    r = counts.sum(axis=1, dtype=np.int64)
    width = max(int(r.max()), 1)
    dtype = np.int8 if m <= np.iinfo(np.int8).max else np.int16
    codes = np.full((n, width), -1, dtype=dtype)
    flat = counts.ravel()
    cats = np.repeat(np.tile(np.arange(m, dtype=dtype), n), flat)
    rows = np.repeat(np.arange(n), r)
    starts = np.repeat(np.cumsum(r) - r, r)
    codes[rows, np.arange(rows.size) - starts] = cats
    return codes


# ------------------------------------------------------------- metric helpers
def _mid_ranks(values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal positions ``t_c = Σ_{g<c} n_g + n_c / 2``.

    His ordinal metric ``δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2`` equals
    ``t_k − t_c``, so ordinal α is interval α on these mid-ranks. Categories
    are ranked by their values; unused ones (``n_c = 0``) add nothing.
    """
    order = np.argsort(values, kind="stable")
    ns = n_c[order]
    t = np.empty_like(ns)
    t[order] = np.cumsum(ns) - ns / 2.0
    return t


def _metric_values(level: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    return _mid_ranks(values, n_c) if level == "ordinal" else values


def _scale(level: str, v: np.ndarray) -> float:
    """Largest δ² between two declared categories (v: the metric's values)."""
    if level == "nominal":
        return 1.0 if v.size > 1 else 0.0
    lo, hi = float(v.min()), float(v.max())
    if level == "ratio":
        # ((b − a)/(b + a))² grows with b and falls with a for 0 ≤ a ≤ b.
        return ((hi - lo) / (hi + lo)) ** 2 if hi + lo > 0 else 0.0
    return (hi - lo) ** 2


def _expected_terms(level: str, v: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """``g_c = Σ_k n_k δ²_ck``, so that ``n (n − 1) D_e = Σ_c n_c g_c``."""
    total = n_c.sum()
    if level == "nominal":
        return total - n_c
    if level == "ratio":
        return _ka.ratio_expected(v, n_c)
    # Σ_k n_k (v_c − v_k)² = n ((v_c − v̄)² + s²), v̄ and s² the n-weighted mean and variance
    mean = float(n_c @ v) / total
    var = float(n_c @ (v - mean) ** 2) / total
    return total * ((v - mean) ** 2 + var)


def _finalize(n_c: np.ndarray, d_o_sum: float, level: str, values: np.ndarray):
    v = _metric_values(level, values, n_c)
    total = float(n_c.sum())
    scale = _scale(level, v)
    if total <= 1.0 or np.count_nonzero(n_c > 0) < 2:
        # One value only: D_e = 0 and α = 0/0.
        return AlphaParts(math.nan, d_o_sum / total if total > 0 else math.nan, 0.0, scale), v, None
    g = _expected_terms(level, v, n_c)
    d_o = d_o_sum / total
    d_e = float(n_c @ g) / (total * (total - 1.0))
    return AlphaParts(1.0 - d_o / d_e, d_o, d_e, scale), v, g


# ------------------------------------------------- per-unit statistics (public)
def alpha_sums(
    codes: npt.ArrayLike,
    values: npt.ArrayLike,
    level: str,
    *,
    item_weights: npt.ArrayLike | None = None,
    parallel: bool | None = None,
) -> AlphaSums:
    """Unit sums of Krippendorff's α in one pass over the codes (two for ordinal).

    Parameters
    ----------
    codes : ndarray of int, shape (n_items, n_raters)
        Category codes ``0..m-1``, ``-1`` for missing (``Ratings.codes``).
    values : array_like of float, shape (m,)
        The categories' values (``Ratings.category_values``).
    level : {"nominal", "ordinal", "interval", "ratio"}
    item_weights : array_like of float, shape (n_items,), optional
        Multiplicity of each item, e.g. bootstrap counts; every sum becomes
        ``Σ_u w_u (...)``. Default: every item once.
    parallel : bool, optional
        Force the parallel or the serial kernel (default: by size).

    Returns
    -------
    AlphaSums
        Finalize with :func:`alpha_from_sums`.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, -1]], dtype=np.int8)
    >>> s = alpha_sums(codes, [1.0, 2.0], "nominal")
    >>> s.n_c, s.d_o, s.n_units
    (array([3., 3.]), 2.0, 3.0)
    >>> round(alpha_from_sums(s, [1.0, 2.0], "nominal").alpha, 4)
    0.4444
    """
    level = _check_level(level)
    values = _check_values(values, level)
    m = values.size
    kind = _kind(level)
    if level != "ordinal":
        return AlphaSums(*_ka.unit_sums(codes, values, kind, m, item_weights, parallel=parallel))
    # Ordinal: the metric depends on n_c, so one pass for n_c, one for D_o.
    n_c, _, n_units = _ka.unit_sums(codes, values, _ka.KIND_NOMINAL, m, item_weights,
                                    parallel=parallel)
    t = _mid_ranks(values, n_c)
    _, d_o, _ = _ka.unit_sums(codes, t, _ka.KIND_INTERVAL, m, item_weights, parallel=parallel)
    return AlphaSums(n_c, d_o, n_units)


def alpha_from_sums(sums: AlphaSums, values: npt.ArrayLike, level: str) -> AlphaParts:
    """Finalize α from :class:`AlphaSums` (possibly added over chunks or weighted).

    For ``"ordinal"`` the sums must come from :func:`alpha_sums` over the whole
    data at once (its ``d_o`` uses mid-ranks of the same ``n_c``); the other
    levels' sums add over chunks of items.
    """
    level = _check_level(level)
    values = _check_values(values, level)
    n_c = np.asarray(sums.n_c, dtype=np.float64)
    return _finalize(n_c, float(sums.d_o), level, values)[0]


def alpha_unit_terms(
    codes: npt.ArrayLike, values: npt.ArrayLike, level: str, *, parallel: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit statistics ``(r_u, q_u)`` for the nominal, interval and ratio levels.

    ``r_u`` is the number of ratings of unit u and ``q_u = Σ_{j≠j'} δ²(x_uj,
    x_uj') / (r_u − 1)`` its disagreement (0 when ``r_u < 2``). With the item ×
    category counts ``a`` (``Ratings.counts``) and item weights ``w``:
    ``AlphaSums(n_c=(w · [r ≥ 2]) @ a, d_o=w @ q, n_units=w @ [r ≥ 2])``.
    The ordinal metric depends on the marginals, so it has no per-unit scalar:
    use :func:`coincidence_matrix` or :func:`alpha_sums` with ``item_weights``.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0, 1], [0, -1, -1]], dtype=np.int8)
    >>> alpha_unit_terms(codes, [1.0, 2.0], "interval")
    (array([3, 1]), array([2., 0.]))
    """
    level = _check_level(level)
    if level == "ordinal":
        raise ValueError(
            "the ordinal metric depends on the marginals n_c, so it has no per-unit "
            "scalar statistic; use `coincidence_matrix` or `alpha_sums(..., item_weights=)`."
        )
    values = _check_values(values, level)
    return _ka.unit_terms(codes, values, _kind(level), values.size, parallel=parallel)


def coincidence_matrix(
    codes: npt.ArrayLike,
    m: int,
    *,
    item_weights: npt.ArrayLike | None = None,
    parallel: bool | None = None,
) -> np.ndarray:
    """Krippendorff's coincidence matrix ``o = Σ_u w_u o_u`` (m × m, float64).

    ``o_u[c, k]`` is the number of ordered pairs of distinct ratings of unit u
    valued (c, k), divided by ``r_u − 1``; units with one rating add nothing.
    Memory is O(m²) (plus O(m²) per chunk), never O(n m²); for thousands of
    categories use :func:`alpha_sums`.

    Examples
    --------
    >>> import numpy as np
    >>> coincidence_matrix(np.array([[0, 0, 1], [1, 1, -1]], dtype=np.int8), 2)
    array([[1., 1.],
           [1., 2.]])
    """
    m = int(m)
    if m < 1 or m > 4096:
        raise ValueError(f"`m` must be in 1..4096 for a dense coincidence matrix; got {m}.")
    return _ka.coincidences(codes, m, item_weights, parallel=parallel)


def alpha_from_coincidences(o: npt.ArrayLike, values: npt.ArrayLike, level: str) -> AlphaParts:
    """Finalize α from a coincidence matrix (Krippendorff 2011, the general form).

    Examples
    --------
    >>> import numpy as np
    >>> o = np.array([[1., 1.], [1., 2.]])
    >>> round(alpha_from_coincidences(o, [1.0, 2.0], "nominal").alpha, 4)
    0.3333
    """
    level = _check_level(level)
    values = _check_values(values, level)
    o = np.asarray(o, dtype=np.float64)
    if o.shape != (values.size, values.size):
        raise ValueError(f"`o` must be {values.size} × {values.size}; got shape {o.shape}.")
    n_c = o.sum(axis=1)
    delta = _metric_matrix(level, _metric_values(level, values, n_c))
    return _finalize(n_c, float((o * delta).sum()), level, values)[0]


def alpha_from_counts(
    counts: npt.ArrayLike,
    values: npt.ArrayLike,
    level: str,
    *,
    weights: npt.ArrayLike | None = None,
) -> AlphaParts:
    """Finalize α from item × category counts ``a[u, c]``, rows weighted.

    The rows may be the items themselves (``Ratings.counts``) or the distinct
    count vectors from :func:`count_patterns` with their frequencies; rows
    with fewer than two ratings are not pairable and are ignored. For a
    bootstrap over items with multiplicities ``w``: ``weights=np.bincount(keys,
    weights=w, minlength=len(patterns))``. Memory O(rows · m + m²). Like every
    ``alpha_from_*`` function it returns ``alpha = NaN`` without a warning when
    only one category is pairable (``d_e = 0``); the caller decides.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[2, 0], [1, 1], [0, 2], [0, 1]])
    >>> round(alpha_from_counts(a, [1.0, 2.0], "nominal").alpha, 4)
    0.4444
    >>> round(alpha_from_counts(a[:3], [1.0, 2.0], "nominal", weights=[1, 1, 2]).alpha, 4)
    0.5
    """
    level = _check_level(level)
    values = _check_values(values, level)
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.shape[1] != values.size:
        raise ValueError(
            f"`counts` must be 2-D with {values.size} columns (one per category); "
            f"got shape {counts.shape}."
        )
    w = np.ones(counts.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (counts.shape[0],):
        raise ValueError(f"`weights` must have shape ({counts.shape[0]},); got {w.shape}.")
    state = _counts_state(counts, w, values, level)
    if state is None:
        raise ValueError("no row of `counts` with positive weight has two or more ratings.")
    return state[0]


def _metric_matrix(level: str, v: np.ndarray) -> np.ndarray:
    """δ²_ck for every pair of categories (v: the metric's values)."""
    if level == "nominal":
        return 1.0 - np.eye(v.size)
    if level == "ratio":
        s = v[:, None] + v[None, :]
        return np.divide(v[:, None] - v[None, :], s, out=np.zeros_like(s), where=s != 0) ** 2
    return (v[:, None] - v[None, :]) ** 2


def count_patterns(codes: npt.ArrayLike, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each item's category-count vector, as an index into the distinct ones.

    Returns ``(keys, patterns)``: ``patterns`` (P × m, int64) are the distinct
    count vectors ``a[u, :]`` that occur and ``keys`` (n_items,) the row of
    each item. This is the per-item statistic of α (for k annotators and m
    categories with ``C(k + m, m) ≤ 2^17``): α, its SE and any bootstrap
    replicate follow from ``patterns`` and the frequencies of ``keys``
    (:func:`alpha_from_counts`).

    Examples
    --------
    >>> import numpy as np
    >>> keys, patterns = count_patterns(np.array([[0, 0], [1, 0], [0, 0]], dtype=np.int8), 2)
    >>> keys, patterns
    (array([0, 1, 0]), array([[2, 0],
           [1, 1]]))
    """
    m = int(m)
    keyed = _patterns.count_keys(codes, m)
    if keyed is None:
        k = np.asarray(codes).shape[1]
        raise ValueError(
            f"{k} annotators and {m} categories give more than {_patterns.COUNT_MAX_BINS} "
            "count patterns; use the streaming unit sums (`alpha_sums`) instead.")
    raw, n_bins = keyed
    present = np.zeros(n_bins, dtype=bool)
    present[raw] = True
    observed = np.flatnonzero(present)
    index = np.cumsum(present) - 1
    k = np.asarray(codes).shape[1]
    return index[raw], _patterns.decode_counts(observed, k, m)


def _counts_state(counts, freq, values, level):
    """α over weighted count rows: ``(parts, sums, v, g, rows)`` or None if nothing pairable."""
    r_all = counts.sum(axis=1)
    keep = (r_all >= 2) & (freq > 0)
    if not keep.any():
        return None
    a = counts[keep].astype(np.float64)
    f = freq[keep]
    r = r_all[keep].astype(np.float64)
    n_c = f @ a
    v = _metric_values(level, values, n_c)
    # q_u = Σ_{c,k} a_uc (a_uk − [c = k]) δ²_ck / (r_u − 1); δ²_cc = 0
    q = np.einsum("pc,pc->p", a @ _metric_matrix(level, v), a) / (r - 1.0)
    sums = AlphaSums(n_c, float(f @ q), float(f.sum()))
    parts, v, g = _finalize(n_c, sums.d_o, level, values)
    return parts, sums, v, g, (a, f, r, q)


# ----------------------------------------------------------------- the statistic
def _gwet_constants(parts: AlphaParts, sums: AlphaSums, g: np.ndarray):
    """Gwet's (2014) constants for the linearised variance of α (irrCAC 1.0).

    With agreement weights ``W = 1 − δ²/scale`` and, over the n pairable
    units, ``r̄`` the mean ratings per unit and ``π_c = n_c / (n r̄)``:
    ``p'_a = 1 − D_o/scale``, ``p_e = Σ W π π``, ``α' = (p'_a − p_e)/(1 − p_e)``
    and ``(Wπ)_c = 1 − g_c / (n r̄ scale)``. Per unit
    ``p_a,u = (r_u − q_u/scale)/r̄ − p_a (r_u − r̄)/r̄`` with
    ``p_a = (1 − ε) p'_a + ε``, ``ε = 1/(n r̄)`` (irrCAC's correction term),
    ``p_e,u = Σ_j (Wπ)_{x_uj} / r̄ − p_e (r_u − r̄)/r̄``,
    ``α*_u = (p_a,u − p_e)/(1 − p_e) − 2 (1 − α') (p_e,u − p_e)/(1 − p_e)``,
    and ``var = Σ_u (α*_u − α')² / (n (n − 1))``.
    """
    total = float(sums.n_c.sum())
    scale = parts.scale
    pa_p = 1.0 - parts.d_o / scale
    pe = 1.0 - float(sums.n_c @ g) / (total * total * scale)
    alpha_p = (pa_p - pe) / (1.0 - pe)
    wpi = 1.0 - g / (total * scale)
    eps = 1.0 / total
    pa = (1.0 - eps) * pa_p + eps  # irrCAC's p_a, used in the per-unit correction term
    return total / sums.n_units, pa, pe, alpha_p, wpi, scale


def _se_streaming(codes, level, v, g, parts: AlphaParts, sums: AlphaSums) -> float:
    rbar, pa, pe, alpha_p, wpi, scale = _gwet_constants(parts, sums, g)
    acc = _ka.gwet_se_sum(codes, v, _kind(level), wpi, rbar, pa, pe, alpha_p, scale)
    n = sums.n_units
    return math.sqrt(acc / (n * (n - 1.0)))


def _se_counts(rows, parts: AlphaParts, sums: AlphaSums, g: np.ndarray) -> float:
    a, f, r, q = rows
    rbar, pa, pe, alpha_p, wpi, scale = _gwet_constants(parts, sums, g)
    dr = (r - rbar) / rbar
    pa_u = (r - q / scale) / rbar - pa * dr
    pe_u = (a @ wpi) / rbar - pe * dr
    x = (pa_u - pe) / (1.0 - pe) - 2.0 * (1.0 - alpha_p) * (pe_u - pe) / (1.0 - pe)
    n = sums.n_units
    return math.sqrt(float(f @ (x - alpha_p) ** 2) / (n * (n - 1.0)))


def _compute(r: Ratings, level: str, values: np.ndarray):
    """``(parts, sums, se_fn)`` by the fastest route; None if nothing is pairable.

    Few categories and annotators: one Numba pass builds the histogram of the
    items' count vectors, and everything else is exact arithmetic on those
    (at most 2^17) vectors. Otherwise: streaming unit sums, then one more pass
    for the SE (and one more for ordinal's marginals).
    """
    m = r.n_categories
    if r.codes is None and m <= 64:
        state = _counts_state(r.counts, np.ones(r.n_items), values, level)
    else:
        codes = _codes_of(r)
        # The distinct count vectors (a histogram, or a sort on small crowd data), not
        # the streaming kernels (compiling the unit sums and the SE pass cost a first
        # audit of dog about 1.5 s of CPU).
        found = _patterns.count_patterns(codes, m, lambda: _kernels.item_counts(codes, m))
        if found is not None:
            patterns, freq = found
            state = _counts_state(patterns, freq.astype(np.float64), values, level)
        else:
            sums = alpha_sums(codes, values, level)
            if sums.n_units == 0:
                return None
            parts, v, g = _finalize(sums.n_c, sums.d_o, level, values)
            return parts, sums, lambda: _se_streaming(codes, level, v, g, parts, sums)
    if state is None:
        return None
    parts, sums, _, g, rows = state
    return parts, sums, lambda: _se_counts(rows, parts, sums, g)


def alpha_in_memory(ratings: Any, *, level: str | None = None,
                    weights: Any = None) -> AgreementResult:
    """Krippendorff's α of in-memory ratings (:func:`~agreement.krippendorff_alpha` calls this)."""
    r, level, values, wts = _krippendorff_alpha_iv(ratings, level, weights)
    if wts is not None:
        state = _weighted_state(r, wts.matrix)
        computed = None if state is None else (
            state[0], state[1],
            (lambda st=state: _se_counts(st[3], st[0], st[1], st[2])))
    else:
        computed = _compute(r, level, values)
    if computed is None:
        raise ValueError(
            "no unit has two or more ratings, so Krippendorff's α has no pairable values. "
            "α needs at least one item rated by two annotators."
        )
    parts, sums, standard_error = computed
    return alpha_result(parts, sums, standard_error, level=level, n_rows=r.n_items,
                        n_raters=r.n_raters, n_categories=r.n_categories, stacklevel=4,
                        wts=wts)


def alpha_result(parts: AlphaParts, sums: AlphaSums, standard_error: Any, *, level: str,
                 n_rows: int, n_raters: int, n_categories: int,
                 stacklevel: int, wts: Any = None) -> AgreementResult:
    """The AgreementResult of α from its finalized parts (``standard_error()`` is lazy)."""
    n_units = round(sums.n_units)
    total = round(float(sums.n_c.sum()))
    notes = [
        f"pairable units only: {n_units} of {n_rows} items have two or more ratings "
        f"({total} pairable values)",
    ]
    if level == "ordinal":
        notes.append("Krippendorff's rank-based ordinal metric (mid-ranks of the pairable values)")
    if wts is not None:
        notes.extend(wts.notes)
        notes.append("metric δ = 1 - w (Gwet's weighted α, as irrCAC krippen.alpha.raw)")
    elif level != "nominal":
        notes.append(f"observed = 1 - D_o/{parts.scale:.6g}, expected = 1 - D_e/{parts.scale:.6g} "
                     "(metric scaled to at most 1 over the declared categories)")
    se = math.nan
    if math.isnan(parts.alpha):
        warnings.warn(
            "Krippendorff's α is undefined: every pairable value is in the same category, "
            "so the expected disagreement D_e is 0. Returning NaN.",
            DegenerateDataWarning, stacklevel=stacklevel,
        )
        notes.append("undefined: one category among the pairable values (D_e = 0)")
    elif n_units < 2:
        warnings.warn(
            "only one unit is pairable: the standard error of Krippendorff's α is undefined "
            "and is NaN.", DegenerateDataWarning, stacklevel=stacklevel,
        )
        notes.append("standard error undefined with one pairable unit")
    else:
        se = standard_error()
        notes.append("SE: Gwet's (2014) linearised variance as in irrCAC krippen.alpha.raw; "
                     "t interval, pairable units - 1 df")
    scale = parts.scale if parts.scale > 0 else 1.0
    return with_clip_note(AgreementResult(
        coefficient="Krippendorff's alpha",
        value=float(parts.alpha),
        observed=float(1.0 - parts.d_o / scale),
        expected=float(1.0 - parts.d_e / scale),
        n_items=n_units,
        n_pairable=n_units,
        n_raters=n_raters,
        n_categories=n_categories,
        standard_error=se,
        ci_method="t",
        weights=level if wts is None else (wts.name or "identity"),
        notes=tuple(notes),
        value_range=(-math.inf, 1.0),
    ))


# ------------------------------------------- per-unit rows for item_statistics
def alpha_columns(level: str, categories) -> tuple[str, ...]:
    """Column names of α's per-unit rows (see :func:`alpha_item_rows`)."""
    cats = [str(c) for c in categories]
    if level == "ordinal":
        pairs = [f"o[{cats[c]}, {cats[k]}]" for c, k in zip(*np.triu_indices(len(cats)),
                                                            strict=True)]
        return ("rated", "pairable", *pairs)
    return ("rated", "pairable", "d_o", *(f"n[{c}]" for c in cats))


def alpha_item_rows(counts: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Each unit's contribution to the sums α is finalized from.

    ``counts`` is the item × category count table ``a[u, c]``. Units with
    fewer than two ratings are not pairable and contribute only ``rated``.
    Every row is a function of the unit's coincidences ``o_u[c, k] = a_uc
    (a_uk − [c = k]) / (r_u − 1)`` (Krippendorff 2011):

    * nominal, interval, ratio: ``rated, pairable, d_o = Σ_ck o_u[c, k] δ²_ck``
      and ``n[c] = Σ_k o_u[c, k] = a_uc`` (the coincidence marginals);
    * ordinal, whose metric depends on the marginals of the whole sample:
      ``rated, pairable`` and ``o_u[c, k]`` for ``c ≤ k`` (the matrix is symmetric).
    """
    a = np.asarray(counts, dtype=np.float64)
    n, m = a.shape
    r = a.sum(axis=1)
    pair = r >= 2
    denom = np.where(pair, r - 1.0, 1.0)
    if level == "ordinal":
        iu, ku = np.triu_indices(m)
        o = a[:, iu] * (a[:, ku] - (iu == ku)) / denom[:, None]
        rows = np.zeros((n, 2 + iu.size))
        rows[:, 2:] = np.where(pair[:, None], o, 0.0)
    else:
        # q_u = Σ_ck a_uc (a_uk − [c = k]) δ²_ck / (r_u − 1); δ²_cc = 0
        q = np.einsum("uc,uc->u", a @ _metric_matrix(level, values), a) / denom
        rows = np.zeros((n, 3 + m))
        rows[:, 2] = np.where(pair, q, 0.0)
        rows[:, 3:] = np.where(pair[:, None], a, 0.0)
    rows[:, 0] = r >= 1
    rows[:, 1] = pair
    return rows


def alpha_finalize(sums: np.ndarray, values: np.ndarray, level: str):
    """``(alpha, observed, expected, n_pairable)`` from sums of α's rows (any leading axes).

    Vectorised over the leading axes (e.g. bootstrap replicates). ``alpha``
    is NaN where fewer than two pairable values or one category among them
    (``D_e = 0``); observed and expected are ``1 − D/δ²_max`` as in
    :func:`~agreement.krippendorff_alpha`.
    """
    s = np.asarray(sums, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    m = v.size
    lead = s.shape[:-1]
    n_units = s[..., 1]
    if level == "ordinal":
        iu, ku = np.triu_indices(m)
        o = np.zeros((*lead, m, m))
        o[..., iu, ku] = s[..., 2:]
        o[..., ku, iu] = s[..., 2:]
        n_c = o.sum(axis=-1)
        order = np.argsort(v, kind="stable")
        ns = n_c[..., order]
        t = np.empty_like(ns)
        t[..., order] = np.cumsum(ns, axis=-1) - ns / 2.0  # Krippendorff's mid-ranks
        delta = (t[..., :, None] - t[..., None, :]) ** 2
        d_o_sum = np.einsum("...ck,...ck->...", o, delta)
        metric = t
    else:
        n_c = s[..., 3:]
        d_o_sum = s[..., 2]
        metric = np.broadcast_to(v, n_c.shape)
    total = n_c.sum(axis=-1)
    if level == "nominal":
        de_num = total * total - np.einsum("...c,...c->...", n_c, n_c)
        scale = np.full(lead, 1.0 if m > 1 else 0.0)
    elif level == "ratio":
        de_num = np.einsum("...c,ck,...k->...", n_c, _metric_matrix("ratio", v), n_c)
        scale = np.full(lead, _scale("ratio", v))
    else:  # interval, and ordinal on the mid-ranks: Σ_ck n_c n_k (v_c − v_k)² = 2 N Σ_c n_c (v_c − v̄)²
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.einsum("...c,...c->...", n_c, metric) / total
        dev = metric - mean[..., None]
        de_num = 2.0 * total * np.einsum("...c,...c->...", n_c, dev * dev)
        scale = (metric.max(axis=-1) - metric.min(axis=-1)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (total > 1.0) & (np.count_nonzero(n_c > 0, axis=-1) >= 2) & (de_num > 0)
        d_o = np.where(total > 0, d_o_sum / np.where(total > 0, total, 1.0), np.nan)
        d_e = np.where(ok, de_num / np.where(ok, total * (total - 1.0), 1.0), 0.0)
        alpha = np.where(ok, 1.0 - d_o / np.where(ok, d_e, 1.0), np.nan)
        sc = np.where(scale > 0, scale, 1.0)
        observed = 1.0 - d_o / sc
        expected = 1.0 - d_e / sc
    return alpha, observed, expected, n_units
