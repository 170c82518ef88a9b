"""partial -> combine -> finalize equals the in-memory statistic (no engine involved).

Every covered statistic is computed over random splits of the items into
chunks (any number, any sizes, in any combine order) and compared with the
in-memory function on the same data to 1e-12 (SPEC §3, "Larger than memory").
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreement
from agreement import (
    STATISTICS,
    Ratings,
    combine_sums,
    finalize_sums,
    partial_sums,
    ratings_chunk,
    ratings_schema,
)
from noise_models import (
    SoftLabels,
    noise_rate,
    noise_transition_heterogeneity,
    soft_combine,
    soft_finalize,
    soft_partial,
    tv_distance,
)

RTOL = 1e-12


def _ratings(seed, n=120, k=4, m=4, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, m + 1, size=n)
    x = np.where(rng.random((n, k)) < 0.6, truth[:, None],
                 rng.integers(1, m + 1, size=(n, k))).astype(float)
    x[rng.random((n, k)) < missing] = np.nan
    return Ratings.from_wide(x)


def _split(n, n_chunks, rng):
    order = rng.permutation(n)
    cuts = np.sort(rng.choice(np.arange(1, n), size=n_chunks - 1, replace=False))
    return np.split(order, cuts)


def _close(a, b):
    for field in ("value", "observed", "expected", "standard_error"):
        x, y = getattr(a, field), getattr(b, field)
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=RTOL, abs=1e-14)
    assert (a.n_items, a.n_pairable, a.n_raters, a.notes) == (b.n_items, b.n_pairable,
                                                              b.n_raters, b.notes)


def _options(name):
    if name == "krippendorff_alpha":
        return [{"level": lvl} for lvl in ("nominal", "ordinal", "interval", "ratio")]
    return [{"weights": None}, {"weights": "linear"}]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_chunks=st.integers(1, 7))
def test_every_statistic_over_random_chunks(seed, n_chunks):
    r = _ratings(seed)
    rng = np.random.default_rng(seed)
    chunks = _split(r.n_items, n_chunks, rng)
    for name in STATISTICS:
        if name in ("cohen_kappa", "scott_pi"):
            continue  # two annotators: below
        for opts in _options(name):
            parts = [partial_sums(r.take(idx), name, **opts) for idx in chunks]
            rng.shuffle(parts)  # any combine order
            got = finalize_sums(functools.reduce(combine_sums, parts))
            _close(got, getattr(agreement, name)(r, **opts))


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_two_annotator_coefficients(missing):
    r = _ratings(3, n=200, k=2, missing=missing)
    chunks = _split(r.n_items, 5, np.random.default_rng(0))
    for name in ("cohen_kappa", "scott_pi", "fleiss_kappa"):
        for weights in (None, "quadratic"):
            parts = [partial_sums(r.take(i), name, weights=weights) for i in chunks]
            _close(finalize_sums(functools.reduce(combine_sums, parts)),
                   getattr(agreement, name)(r, weights=weights))


def test_count_table_chunks():
    table = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                      [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                      [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    r = Ratings.from_counts(table)
    for name in ("fleiss_kappa", "gwet_ac1", "krippendorff_alpha"):
        parts = [partial_sums(r.take(i), name) for i in ([0, 1, 2], [3, 4, 5, 6], [7, 8, 9])]
        _close(finalize_sums(functools.reduce(combine_sums, parts)),
               getattr(agreement, name)(r))


def test_n_population_and_degenerate_warning():
    r = _ratings(5)
    s = combine_sums(partial_sums(r.take(range(60)), "gwet_ac1"),
                     partial_sums(r.take(range(60, 120)), "gwet_ac1"))
    _close(finalize_sums(s, n_population=500), agreement.gwet_ac1(r, n_population=500))
    one = Ratings.from_wide([["a", "a"], ["a", "a"], ["a", "a"]])
    s = combine_sums(partial_sums(one.take([0]), "fleiss_kappa"),
                     partial_sums(one.take([1, 2]), "fleiss_kappa"))
    with pytest.warns(agreement.DegenerateDataWarning, match="undefined") as rec:
        assert math.isnan(finalize_sums(s).value)
    assert rec[0].filename == __file__


def test_chunks_coded_with_one_schema():
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 3], "rater": list("abababc"),
                          "label": ["x", "y", "y", "y", "x", "x", "z"]})
    schema = ratings_schema(frame["label"], frame["rater"])
    a = ratings_chunk(frame[frame["item"] < 3], schema)
    b = ratings_chunk(frame[frame["item"] == 3], schema)
    mem = Ratings.from_long(frame)
    for name in ("conger_kappa", "fleiss_kappa", "krippendorff_alpha"):
        _close(finalize_sums(combine_sums(partial_sums(a, name), partial_sums(b, name))),
               getattr(agreement, name)(mem))


def test_validation():
    r = _ratings(1)
    with pytest.raises(ValueError, match="`statistic` must be one of"):
        partial_sums(r, "kappa")
    with pytest.raises(TypeError, match="`statistic` must be one of"):
        partial_sums(r, 3)
    with pytest.raises(TypeError, match="`chunk` must be a Ratings"):
        partial_sums(r.codes, "fleiss_kappa")
    with pytest.raises(ValueError, match="do not match"):
        combine_sums(partial_sums(r, "fleiss_kappa"), partial_sums(r, "gwet_ac1"))
    with pytest.raises(ValueError, match="do not match"):
        combine_sums(partial_sums(r, "fleiss_kappa"),
                     partial_sums(r, "fleiss_kappa", weights="linear"))
    with pytest.raises(TypeError, match="two PartialSums"):
        combine_sums(partial_sums(r, "fleiss_kappa"), 1)
    with pytest.raises(TypeError, match="must be a PartialSums"):
        finalize_sums({})
    with pytest.raises(ValueError, match="needs each annotator's own labels"):
        partial_sums(Ratings.from_counts([[1, 1], [2, 0]]), "conger_kappa")
    wide = Ratings.from_wide(np.tile(np.arange(1, 3), (5, 150)))
    with pytest.raises(ValueError, match="per-item columns"):
        partial_sums(wide, "conger_kappa")
    many = Ratings.from_wide(np.arange(60).reshape(20, 3) % 25)
    with pytest.raises(ValueError, match="at most 20 categories"):
        partial_sums(many, "krippendorff_alpha", level="ordinal")
    with pytest.raises(ValueError, match="no unit has two or more ratings"):
        finalize_sums(partial_sums(Ratings.from_wide([[1, np.nan]]), "krippendorff_alpha"))
    frame = pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": ["x", "y"]})
    schema = ratings_schema(["x", "y"], ["a"])
    with pytest.raises(ValueError, match="more than once"):
        ratings_chunk(frame, schema)
    with pytest.raises(ValueError, match="not among the schema's categories"):
        ratings_chunk(frame.assign(label=["x", "q"], rater=["a", "a"]).iloc[[1]], schema)
    with pytest.raises(ValueError, match="not in the schema's annotators"):
        ratings_chunk(frame.assign(rater=["b", "b"]).iloc[[0]], schema)


# ------------------------------------------------------------------ soft labels
def _soft(seed, n=500, k=4):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(k, 0.7), size=n)
    labels = rng.integers(0, k - 1, size=n)  # the last class has no instance
    ref = rng.dirichlet(np.ones(k), size=n)
    return SoftLabels(probs, labels, classes=list("abcd")), ref


@pytest.mark.parametrize("n_chunks", [1, 3, 10])
def test_soft_labels_over_chunks(n_chunks):
    soft, ref = _soft(n_chunks)
    chunks = _split(soft.n_instances, n_chunks, np.random.default_rng(1))
    parts = [soft_partial(soft.take(i), ref[i]) for i in chunks]
    rate, nth, tv = soft_finalize(functools.reduce(soft_combine, parts))
    want_rate, want_nth = noise_rate(soft), noise_transition_heterogeneity(soft)
    want_tv = tv_distance(soft, ref)
    assert rate.rate == pytest.approx(want_rate.rate, rel=RTOL)
    pd.testing.assert_series_equal(rate.class_rates, want_rate.class_rates, rtol=RTOL)
    assert nth.nth == pytest.approx(want_nth.nth, rel=RTOL)
    pd.testing.assert_frame_equal(nth.transition, want_nth.transition, rtol=RTOL)
    pd.testing.assert_series_equal(nth.class_nth, want_nth.class_nth, rtol=RTOL)
    assert nth.notes == want_nth.notes
    assert (tv.mean, tv.std, tv.sem) == pytest.approx((want_tv.mean, want_tv.std, want_tv.sem),
                                                      rel=RTOL)
    pd.testing.assert_series_equal(tv.values.sort_index(), want_tv.values.sort_index(),
                                   check_names=False)


def test_soft_labels_nth_small_without_cancellation():
    # Class-conditional noise plus a tiny perturbation: nth ~ 1e-20, which the
    # Σ‖p‖² − N‖p̄‖² form would lose entirely.
    rng = np.random.default_rng(0)
    base = np.array([[0.9, 0.1], [0.2, 0.8]])
    labels = rng.integers(0, 2, size=1000)
    probs = base[labels] + np.outer(rng.normal(0, 1e-10, 1000), [1.0, -1.0])
    soft = SoftLabels(probs, labels)
    parts = [soft_partial(soft.take(i)) for i in np.array_split(np.arange(1000), 4)]
    _, nth, _ = soft_finalize(functools.reduce(soft_combine, parts))
    assert nth.nth == pytest.approx(noise_transition_heterogeneity(soft).nth, rel=1e-9)
    assert nth.nth > 0


def test_null_standard_errors_over_chunks():
    # Fleiss, Nee & Landis (1979) for Fleiss' κ and Fleiss, Cohen & Everitt (1969) for
    # Cohen's κ, under H0, need complete data; the chunked finalize gives the same.
    full = _ratings(9, n=150, k=4, missing=0.0)
    two = _ratings(10, n=150, k=2, missing=0.0)
    for r, name in ((full, "fleiss_kappa"), (two, "cohen_kappa")):
        parts = [partial_sums(r.take(i), name) for i in np.array_split(np.arange(150), 4)]
        got = finalize_sums(functools.reduce(combine_sums, parts))
        want = getattr(agreement, name)(r)
        assert math.isfinite(want.null_standard_error)
        assert got.null_standard_error == pytest.approx(want.null_standard_error, rel=RTOL)
    part = _ratings(9, n=150, k=4, missing=0.3)  # unequal ratings per item: NaN both ways
    got = finalize_sums(partial_sums(part, "fleiss_kappa"))
    assert math.isnan(got.null_standard_error)
    assert math.isnan(agreement.fleiss_kappa(part).null_standard_error)
