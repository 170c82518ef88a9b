"""Krippendorff's α: invariances (hypothesis), the per-unit API for the bootstrap,
thread-count independence, and the calibration of Gwet's standard error."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from _goldnoise_lib import patterns as _patterns
from agreement import Ratings, krippendorff_alpha
from agreement import _kernels_alpha as _ka
from agreement._krippendorff import (
    AlphaSums,
    alpha_from_coincidences,
    alpha_from_counts,
    alpha_from_sums,
    alpha_sums,
    alpha_unit_terms,
    coincidence_matrix,
    count_patterns,
)

LEVELS = ("nominal", "ordinal", "interval", "ratio")


@st.composite
def codes_matrices(draw, max_n=30, max_k=6, max_m=6):
    """An items × raters code matrix (-1 missing) with at least two pairable
    units and two distinct pairable values (so α and its SE are defined)."""
    n = draw(st.integers(2, max_n))
    k = draw(st.integers(2, max_k))
    m = draw(st.integers(2, max_m))
    codes = draw(hnp.arrays(np.int8, (n, k), elements=st.integers(-1, m - 1)))
    pairable = codes[(codes >= 0).sum(axis=1) >= 2]
    assume(pairable.shape[0] >= 2)
    assume(np.unique(pairable[pairable >= 0]).size >= 2)
    return codes, m


def as_values(codes, values):
    """Float labels (NaN missing) from codes and the categories' values."""
    out = np.full(codes.shape, np.nan)
    out[codes >= 0] = np.asarray(values, dtype=float)[codes[codes >= 0]]
    return out


def alpha(data, level, categories):
    return krippendorff_alpha(Ratings.from_wide(data, categories=list(categories)), level=level)


def close(a, b, tol=1e-9):
    return a == pytest.approx(b, abs=tol, rel=tol)


# ------------------------------------------------------------------ invariances
@given(codes_matrices(), st.randoms(use_true_random=False), st.sampled_from(LEVELS))
def test_permuting_units_and_coders_changes_nothing(cm, rnd, level):
    codes, m = cm
    values = np.arange(1.0, m + 1)
    rows = list(range(codes.shape[0]))
    cols = list(range(codes.shape[1]))
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    a = alpha(as_values(codes, values), level, values)
    b = alpha(as_values(codes[np.ix_(rows, cols)], values), level, values)
    assert close(b.value, a.value) and close(b.standard_error, a.standard_error)
    assert (b.observed, b.expected, b.n_items) == pytest.approx((a.observed, a.expected, a.n_items))


@given(codes_matrices(), st.permutations(list(range(6))))
def test_relabelling_categories_leaves_nominal_alpha(cm, perm):
    codes, m = cm
    names = np.array([f"label-{p}" for p in perm[:m]], dtype=object)
    labels = np.where(codes >= 0, names[np.maximum(codes, 0)], None)
    a = krippendorff_alpha(as_values(codes, np.arange(m)))
    b = krippendorff_alpha(labels)
    assert close(b.value, a.value) and close(b.standard_error, a.standard_error)


@given(codes_matrices(), st.floats(0.1, 10.0), st.booleans(), st.floats(-100.0, 100.0))
def test_affine_values_leave_interval_alpha(cm, scale, flip, shift):
    codes, m = cm
    values = np.cumsum(np.linspace(1.0, 2.0, m))  # unequal spacing
    moved = (-scale if flip else scale) * values + shift
    a = alpha(as_values(codes, values), "interval", values)
    b = alpha(as_values(codes, moved), "interval", np.sort(moved))
    assert close(b.value, a.value) and close(b.standard_error, a.standard_error)
    # observed/expected are scaled by δ²_max over the declared categories: invariant too
    assert close(b.observed, a.observed) and close(b.expected, a.expected)


@given(codes_matrices(), st.floats(0.1, 10.0))
def test_increasing_maps_leave_ordinal_alpha_and_scaling_leaves_ratio_alpha(cm, scale):
    codes, m = cm
    values = np.arange(1.0, m + 1)
    # Ordinal α sees only the order: any increasing map leaves it unchanged.
    a = alpha(as_values(codes, values), "ordinal", values)
    b = alpha(as_values(codes, np.exp(values)), "ordinal", np.exp(values))
    assert close(b.value, a.value) and close(b.standard_error, a.standard_error)
    # Ratio α: invariant to a change of unit.
    a = alpha(as_values(codes, values), "ratio", values)
    b = alpha(as_values(codes, scale * values), "ratio", scale * values)
    assert close(b.value, a.value) and close(b.standard_error, a.standard_error)


@given(codes_matrices(), st.sampled_from(LEVELS), st.integers(0, 6))
def test_an_all_missing_coder_changes_nothing(cm, level, where):
    codes, m = cm
    values = np.arange(1.0, m + 1)
    data = as_values(codes, values)
    where = min(where, data.shape[1])
    wider = np.insert(data, where, np.nan, axis=1)
    a = alpha(data, level, values)
    b = alpha(wider, level, values)
    assert close(b.value, a.value, 1e-12) and close(b.standard_error, a.standard_error, 1e-12)
    assert b.n_items == a.n_items and b.n_raters == a.n_raters + 1


@given(codes_matrices(), st.sampled_from(LEVELS))
def test_values_stay_in_range(cm, level):
    codes, m = cm
    values = np.arange(1.0, m + 1)
    res = alpha(as_values(codes, values), level, values)
    assert res.value <= 1.0 + 1e-12
    assert res.observed <= 1.0 + 1e-12 and res.expected < 1.0
    assert res.standard_error >= 0.0
    assert res.value == pytest.approx((res.observed - res.expected) / (1.0 - res.expected))
    # Perfect agreement on every pairable unit gives α = 1.
    r = (codes >= 0).sum(axis=1)
    if np.all([np.unique(row[row >= 0]).size == 1 for row in codes[r >= 2]]):
        assert res.value == pytest.approx(1.0)


@given(codes_matrices(), st.sampled_from(LEVELS))
def test_count_table_gives_the_wide_answer(cm, level):
    codes, m = cm
    values = np.arange(1.0, m + 1)
    wide = Ratings.from_wide(as_values(codes, values), categories=list(values))
    counts = Ratings.from_counts(wide.counts, categories=list(values))
    a = krippendorff_alpha(wide, level=level)
    b = krippendorff_alpha(counts, level=level)
    assert close(b.value, a.value, 1e-12) and close(b.standard_error, a.standard_error, 1e-12)


# ------------------------------------------------------- per-unit API (bootstrap)
@pytest.mark.parametrize("level", LEVELS)
def test_item_weights_equal_resampled_items(level):
    # A bootstrap replicate as multiplicities: every route gives the α of the
    # explicitly resampled data.
    rng = np.random.default_rng(5)
    n, k, m = 300, 4, 5
    truth = rng.integers(0, m, n)
    codes = np.where(rng.random((n, k)) < 0.6, truth[:, None], rng.integers(0, m, (n, k)))
    codes[rng.random((n, k)) < 0.3] = -1
    codes = codes.astype(np.int8)
    values = np.array([0.0, 1.0, 2.5, 4.0, 7.0])
    ratings = Ratings.from_wide(as_values(codes, values))
    for _ in range(3):
        idx = rng.integers(0, n, n)
        w = np.bincount(idx, minlength=n).astype(float)
        expected = krippendorff_alpha(ratings.take(idx), level=level).value
        assert alpha_from_sums(alpha_sums(codes, values, level, item_weights=w), values,
                               level).alpha == pytest.approx(expected, abs=1e-12)
        o = coincidence_matrix(codes, m, item_weights=w)
        assert alpha_from_coincidences(o, values, level).alpha == pytest.approx(expected,
                                                                              abs=1e-12)
        keys, patterns = count_patterns(codes, m)
        f = np.bincount(keys, weights=w, minlength=len(patterns))
        assert alpha_from_counts(patterns, values, level, weights=f).alpha == pytest.approx(
            expected, abs=1e-12)
        assert alpha_from_counts(ratings.counts, values, level, weights=w).alpha == \
            pytest.approx(expected, abs=1e-12)
        if level != "ordinal":
            r, q = alpha_unit_terms(codes, values, level)
            pair = (r >= 2).astype(float)
            sums = AlphaSums((w * pair) @ ratings.counts, float(w @ q), float(w @ pair))
            assert alpha_from_sums(sums, values, level).alpha == pytest.approx(expected,
                                                                              abs=1e-12)


def test_unit_sums_add_over_chunks_of_items():
    # Sums of disjoint chunks add up (nominal, interval, ratio), so chunked input works.
    rng = np.random.default_rng(8)
    codes = rng.integers(-1, 4, (500, 3)).astype(np.int8)
    values = np.array([1.0, 2.0, 4.0, 8.0])
    for level in ("nominal", "interval", "ratio"):
        whole = alpha_sums(codes, values, level)
        parts = [alpha_sums(c, values, level) for c in np.array_split(codes, 7)]
        added = AlphaSums(sum(p.n_c for p in parts), sum(p.d_o for p in parts),
                          sum(p.n_units for p in parts))
        assert alpha_from_sums(added, values, level).alpha == pytest.approx(
            alpha_from_sums(whole, values, level).alpha, abs=1e-12)


@pytest.mark.slow  # compiles the parallel builds (14 s of CPU on an empty cache)
@pytest.mark.parametrize("route", ["patterns", "streaming"])
def test_results_do_not_depend_on_the_thread_count(route, monkeypatch):
    if route == "streaming":
        monkeypatch.setattr(_patterns, "COUNT_MAX_BINS", 0)
    rng = np.random.default_rng(9)
    n, k = 220_000, 5  # above the parallel thresholds
    data = rng.integers(1, 6, (n, k)).astype(float)
    data[rng.random((n, k)) < 0.1] = np.nan
    ratings = Ratings.from_wide(data)
    assert ratings.codes.size >= max(_ka.PARALLEL_THRESHOLD, _patterns.HISTOGRAM_PARALLEL_CELLS)
    before = numba.get_num_threads()
    try:
        results = {}
        for threads in sorted({1, before}):
            numba.set_num_threads(threads)
            results[threads] = [
                (r.value, r.standard_error, r.observed, r.expected)
                for r in (krippendorff_alpha(ratings, level=lv) for lv in LEVELS)
            ]
    finally:
        numba.set_num_threads(before)
    first = results[1]
    assert all(v == first for v in results.values())  # bit for bit


# ---------------------------------------------------------- standard error
@pytest.mark.parametrize("level", LEVELS)
def test_gwet_standard_error_matches_the_spread_of_alpha(level):
    # Monte Carlo: 400 data sets from one model (150 units, 4 raters, 4 categories,
    # 15% missing). Gwet's linearised SE should match the standard deviation of α
    # across data sets; with 400 replicates that SD is known to about ±3.5%
    # (SE of an SD ≈ SD/√(2·399)), so a 12% band is wide for chance, narrow for a wrong
    # formula. (Seen: nominal 0.99, interval 1.02, ordinal 0.94 — its marginals are
    # treated as fixed — ratio 0.98.)
    rng = np.random.default_rng(2024)
    n, k, m, reps = 150, 4, 4, 400
    values = np.arange(1.0, m + 1)
    alphas, ses = [], []
    for _ in range(reps):
        truth = rng.choice(m, n, p=[0.4, 0.3, 0.2, 0.1])
        noise = np.clip(truth[:, None] + rng.integers(-1, 2, (n, k)), 0, m - 1)
        codes = np.where(rng.random((n, k)) < 0.6, truth[:, None], noise)
        codes[rng.random((n, k)) < 0.15] = -1
        res = krippendorff_alpha(Ratings.from_wide(as_values(codes, values),
                                                   categories=list(values)), level=level)
        alphas.append(res.value)
        ses.append(res.standard_error)
    ratio = np.mean(ses) / np.std(alphas, ddof=1)
    assert 0.88 < ratio < 1.12, ratio
