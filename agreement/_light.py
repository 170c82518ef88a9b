"""Light's κ over the annotator pairs that co-rated items (Light 1971).

Light's κ is the mean of Cohen's κ over pairs of annotators. Only pairs that
rated items in common have a κ at all, so per-pair statistics are kept only
for them: with up to 100 annotators by the column kernels of
:mod:`agreement._kernels`, with more in ``k × k`` arrays or as one entry per
(item, co-rating pair) (:mod:`agreement._kernels_light`), whichever is
smaller. A
pair enters the mean when it co-rated at least two items and its chance
agreement is below 1; with a single common item its κ is 0 or undefined
whatever the annotators do, and was once counted as 0.

The standard error is the delta method over the mean of the pairs' Gwet
linearisations (see :mod:`agreement._variance`), computed in one more pass.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.lazy import lazy_module
from agreement._item_stats import PE_TOL
from agreement._ratings import Ratings
from agreement._result import AgreementResult
from agreement._variance import variance
from agreement._weights import Weights

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_kl = lazy_module("agreement._kernels_light")

__all__ = ["COLUMN_MAX_PAIRS", "DENSE_MAX_PAIRS", "MIN_COMMON_ITEMS", "PairStats", "light",
           "stats_from_sums"]

# Up to this many annotator pairs the column kernels of agreement._kernels (one
# vectorised loop over items per pair) are fastest: a 50-annotator design is 4× faster.
COLUMN_MAX_PAIRS = 4950  # k ≤ 100
# Up to this many annotator pairs the pair sums may live in k × k arrays.
DENSE_MAX_PAIRS = 2_000_000
# A pair's κ needs at least this many items rated by both.
MIN_COMMON_ITEMS = 2
# Up to this many annotator pairs the pair sums may live in the upper triangle (16 bytes
# a pair: 320 MB at most) when most pairs co-rate (many annotators on shared items).
TRIANGLE_MAX_PAIRS = 20_000_000


class PairStats(NamedTuple):
    """Sums over items of the co-rating pairs ``(a[p], b[p])``, ``a < b``."""

    a: np.ndarray  # first annotator of each pair
    b: np.ndarray  # second annotator
    both: np.ndarray  # items both rated
    agree: np.ndarray  # their weighted agreement on those items
    onehot: np.ndarray  # (k, m): items each annotator put in each category
    n: int  # items with a rating
    n2: int  # items with two or more ratings
    # ss(b1, bb, ba, beta0, center, usable) = Σ_i (x_i − center)² over rated items
    ss: Callable[..., float]


def _pair_stats(codes: np.ndarray, m: int, w: np.ndarray, n_items: int) -> PairStats:
    k = codes.shape[1]
    # k × k arrays when they are smaller than one entry per co-rating visit (and not
    # huge): memory stays within a constant factor of the ratings either way.
    if k * (k - 1) // 2 <= DENSE_MAX_PAIRS and k * k <= _kl.count_visits(codes):
        both, agree, onehot, n, n2 = _kl.dense_sums(codes, m, w)
        ja, jb = np.nonzero(both)

        def ss(b1, bb, ba, beta0, center, usable):
            bb_full = np.zeros((k, k))
            ba_full = np.zeros((k, k))
            bb_full[ja[usable], jb[usable]] = bb
            ba_full[ja[usable], jb[usable]] = ba
            return _kl.dense_ss(codes, w, b1, bb_full, ba_full, beta0, center)

        return PairStats(ja, jb, both[ja, jb], agree[ja, jb], onehot, n, n2, ss)
    keys, vals, items, onehot, n, n2 = _kl.sparse_visits(codes, m, w)
    uniq, inv = np.unique(keys, return_inverse=True)

    def ss_sparse(b1, bb, ba, beta0, center, usable):
        bb_all = np.zeros(uniq.size)
        ba_all = np.zeros(uniq.size)
        bb_all[usable] = bb
        ba_all[usable] = ba
        x = _kl.onehot_values(codes, b1, beta0)
        x += np.bincount(items, weights=bb_all[inv] + vals * ba_all[inv], minlength=n_items)
        rated = ~np.isnan(x)
        return float(np.sum((x[rated] - center) ** 2))

    return PairStats(uniq // k, uniq % k,
                     np.bincount(inv, minlength=uniq.size).astype(np.float64),
                     np.bincount(inv, weights=vals, minlength=uniq.size), onehot, n, n2,
                     ss_sparse)


def stats_from_sums(sums: np.ndarray, k: int, m: int,
                    column_ss: Callable[[np.ndarray, float], float]) -> PairStats:
    """:class:`PairStats` from the pair-family column sums of :mod:`agreement._item_stats`
    (``rated, pairable, x[j, c], both[j, l], agree[j, l]``), for few annotators;
    ``column_ss(beta, center)`` is the matching sum-of-squares pass."""
    npairs = k * (k - 1) // 2
    ja, jb = np.triu_indices(k, 1)
    both = sums[2 + k * m:2 + k * m + npairs]
    agree = sums[2 + k * m + npairs:2 + k * m + 2 * npairs]
    co = np.flatnonzero(both > 0)

    def ss(b1, bb, ba, beta0, center, usable):
        beta = np.zeros(sums.size)
        beta[0] = beta0
        beta[2:2 + k * m] = b1.ravel()
        beta[2 + k * m + co[usable]] = bb
        beta[2 + k * m + npairs + co[usable]] = ba
        return column_ss(beta, center)

    return PairStats(ja[co], jb[co], both[co], agree[co], sums[2:2 + k * m].reshape(k, m),
                     round(sums[0]), round(sums[1]), ss)


def light(r: Ratings, wts: Weights, n_pop: float | None,
          stats: PairStats | None = None) -> AgreementResult:
    """Light's κ of ``r`` with weights ``wts`` (validated by the caller)."""
    codes = r.require_raters("`light_kappa`")
    k, m = codes.shape[1], r.n_categories
    w = wts.matrix
    npairs = k * (k - 1) // 2
    if stats is None and npairs > DENSE_MAX_PAIRS and npairs <= TRIANGLE_MAX_PAIRS \
            and 2 * npairs <= _kl.count_visits(codes):
        return _light_triangle(r, codes, wts, n_pop)
    st = _pair_stats(codes, m, w, r.n_items) if stats is None else stats
    ja, jb, both, agree, onehot, n, n2 = st.a, st.b, st.both, st.agree, st.onehot, st.n, st.n2
    ng = onehot.sum(axis=1)
    valid = ng > 0
    n_raters = int(valid.sum())
    p = np.divide(onehot, ng[:, None], out=np.zeros_like(onehot), where=valid[:, None])
    pa = agree / both
    pe = np.einsum("pc,cl,pl->p", p[ja], w, p[jb])
    q = 1.0 - pe
    ok = (both >= MIN_COMMON_ITEMS) & (q > PE_TOL)
    n_ok = int(ok.sum())
    notes, common, undefined = _checked(r, wts, k, n_raters, n, n2, n_ok, int(both.size))
    if undefined is not None:
        return undefined
    kap = (pa[ok] - pe[ok]) / q[ok]
    value = float(kap.mean())
    _standard_error_checks(n, n_pop, notes, stacklevel=5)
    se = _standard_error(st, w, p, ng, pe, kap, ok, n_pop)
    return AgreementResult(value=value, observed=float(pa[ok].mean()),
                           expected=float(pe[ok].mean()), standard_error=se,
                           notes=tuple(notes), **common)


def _light_triangle(r: Ratings, codes: np.ndarray, wts: Weights,
                    n_pop: float | None) -> AgreementResult:
    """Light's κ of many annotators who share items: pair sums over the upper triangle,
    κ, its mean and the SE accumulated pair by pair (no per-pair temporaries)."""
    k, m = codes.shape[1], r.n_categories
    onehot, n, n2, sk, spa, spe, n_ok, n_co, ss_of = _kl.triangle_light(
        codes, m, wts.matrix, MIN_COMMON_ITEMS, PE_TOL)
    n_raters = int((onehot.sum(axis=1) > 0).sum())
    notes, common, undefined = _checked(r, wts, k, n_raters, n, n2, n_ok, n_co)
    if undefined is not None:
        return undefined
    value = sk / n_ok
    _standard_error_checks(n, n_pop, notes, stacklevel=5)
    se = math.sqrt(max(variance(ss_of(value, n), n, "gwet", n_pop), 0.0)) if n >= 2 else math.nan
    return AgreementResult(value=value, observed=spa / n_ok, expected=spe / n_ok,
                           standard_error=se, notes=tuple(notes), **common)


def _standard_error_checks(n: int, n_pop: float | None, notes: list[str], *,
                           stacklevel: int) -> None:
    """Both ways to Light's κ: the finite population holds the rated items; the standard
    error needs two of them (a warning and a note otherwise)."""
    if n_pop is not None and n_pop < n:
        raise ValueError(
            f"`n_population` ({n_pop:g}) must be at least the number of rated items ({n}).")
    if n < 2:
        warnings.warn("the standard error of Light's kappa needs at least two rated items; "
                      "NaN returned.", DegenerateDataWarning, stacklevel=stacklevel)
        notes.append("standard error undefined: fewer than two rated items")
    if n_pop is not None:
        notes.append(f"finite-population correction for N = {n_pop:g}")


def _checked(r: Ratings, wts: Weights, k: int, n_raters: int, n: int, n2: int, n_ok: int,
             n_co: int) -> tuple[list[str], dict[str, Any], AgreementResult | None]:
    """The checks, notes and shared fields of both ways to Light's κ; with no usable pair
    (``n_ok == 0``) also its undefined result."""
    if n_raters < 2:
        raise ValueError(
            f"`light_kappa` needs at least two annotators with ratings; got {n_raters}.")
    if n2 == 0:
        raise ValueError(
            f"`light_kappa`: no item has two or more ratings ({k} annotator column(s)), so "
            "there is no observed agreement. Agreement needs at least two ratings of some item.")
    notes: list[str] = list(wts.notes)
    if k - n_raters:
        notes.append(f"{k - n_raters} annotator(s) without ratings ignored")
    if n < r.n_items:
        notes.append(f"{r.n_items - n} item(s) without ratings dropped")
    notes.append(
        f"mean of the pairwise Cohen's kappas over {n_ok} of the {n_co} annotator pairs that "
        f"co-rated items (a pair needs {MIN_COMMON_ITEMS} or more items rated by both and "
        f"chance agreement below 1; {n_raters * (n_raters - 1) // 2 - n_co} pairs never "
        "co-rated); observed and expected are the means of the pairs' PA and PE")
    common = dict(coefficient="Light's kappa", n_items=n, n_pairable=n2, n_raters=n_raters,
                  n_categories=r.n_categories, ci_method="t", weights=wts.name)
    if n_ok:
        return notes, common, None
    warnings.warn(
        f"Light's kappa is undefined: none of the {n_co} annotator pairs that co-rated "
        f"items has a Cohen's kappa (each needs {MIN_COMMON_ITEMS} or more items rated by "
        "both and chance agreement below 1); NaN returned.",
        DegenerateDataWarning, stacklevel=5)
    notes.append(f"undefined: 0 of {n_co} co-rating pairs usable")
    return notes, common, AgreementResult(value=math.nan, observed=math.nan, expected=math.nan,
                                          standard_error=math.nan, notes=tuple(notes), **common)


def _standard_error(st: PairStats, w, p, ng, pe, kap, ok, n_pop) -> float:
    # Mean over usable pairs of u_jl,i = (n/n_jl)(κ*_jl,i − κ_jl) on the items the pair
    # rated (either annotator), κ*_jl,i Gwet's linearisation of the pair's Cohen κ.
    # `pe` is every co-rating pair's, `kap` the usable pairs' (`ok`) κ.
    n = st.n
    if n < 2:
        return math.nan
    a, b, both, pe = st.a[ok], st.b[ok], st.both[ok], pe[ok]
    value, n_ok = float(kap.mean()), kap.size
    k, m = p.shape
    qp = 1.0 - pe
    npq = ng[a] + ng[b] - both  # items rated by either annotator of the pair
    scale = n / npq / n_ok
    ta = (npq / ng[a])[:, None] * (p[b] @ w - pe[:, None])
    tb = (npq / ng[b])[:, None] * (p[a] @ w - pe[:, None])
    b1 = np.zeros((k, m))
    np.add.at(b1, a, scale[:, None] * (-(1.0 - kap)[:, None] * ta / qp[:, None] - kap[:, None]))
    np.add.at(b1, b, scale[:, None] * (-(1.0 - kap)[:, None] * tb / qp[:, None] - kap[:, None]))
    bb = scale * (-(npq / both) * pe / qp + kap)
    ba = scale * (npq / both) / qp
    ss = st.ss(b1, bb, ba, value, value, ok)
    return math.sqrt(max(variance(ss, n, "gwet", n_pop), 0.0))
