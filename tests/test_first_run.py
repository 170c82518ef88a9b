"""What the first audit compiles (issue 36 item 10): only the builds its data need.

A kernel's parallel build costs seconds to compile, more than the serial one; on data
below the sizes where it pays it is never used and so never compiled. Crowd data with many
annotators is wide but sparse: web (2,665 items × 177 annotators = 471,705 cells) compiled
the parallel α and item-count builds on its first audit (about 10 s of CPU) for passes that
take a fraction of a millisecond serially.
"""

from __future__ import annotations

import numpy as np
import pytest

from agreement import Ratings, krippendorff_alpha
from agreement import _kernels as _k
from agreement import _kernels_alpha as _ka
from agreement import _kernels_encoding as _ke


def _web_sized(seed: int = 0) -> Ratings:
    rng = np.random.default_rng(seed)
    n, k = 2665, 177
    codes = np.full((n, k), np.nan)
    for i in range(n):  # about 6 ratings per item, like web
        who = rng.choice(k, 6, replace=False)
        codes[i, who] = rng.integers(0, 5, 6)
    return Ratings.from_wide(codes)


def test_web_sized_data_take_the_serial_builds(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a parallel build was called")

    for name in ("_sums_parallel", "_gwet_se_parallel", "_unit_terms_parallel",
                 "_coincidences_parallel"):
        monkeypatch.setattr(_ka, name, refuse)
    monkeypatch.setattr(_k, "_item_counts_parallel", refuse)
    r = _web_sized()
    assert r.codes.size == 471_705
    res = krippendorff_alpha(r)
    assert np.isfinite(res.value) and np.isfinite(res.standard_error)
    assert _k.item_counts(r.codes, 5).sum() == (r.codes >= 0).sum()


@pytest.mark.parametrize("parallel", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_both_builds_agree_bit_for_bit_on_web_sized_data(parallel, monkeypatch):
    # The switch moves no result: the serial and parallel builds sum in the same order.
    from agreement import _krippendorff

    monkeypatch.setattr(_krippendorff._patterns, "COUNT_ROWS_MAX_CELLS", 0)  # the streaming kernels
    r = _web_sized(1)
    serial = krippendorff_alpha(r)
    monkeypatch.setattr(_ka, "PARALLEL_THRESHOLD", 0 if parallel else 10**18)
    again = krippendorff_alpha(r)
    assert (again.value, again.standard_error) == (serial.value, serial.standard_error)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_web_sized_alpha_compiles_no_streaming_kernel(level, monkeypatch):
    # Too many annotators and categories for the count histogram, but small: α and its SE
    # come from the items' distinct category counts (`item_counts`, `np.unique`), not the
    # streaming unit sums and SE pass (compiling those cost dog's first audit about 1.5 s
    # of CPU). Both routes are exact arithmetic on the same counts, summed in another
    # order: they agree to rounding, and α equals the reference implementation.
    import krippendorff

    from agreement import _krippendorff

    r = _web_sized(3)
    assert _krippendorff._patterns.count_histogram(r.codes, 5) is None
    monkeypatch.setattr(_krippendorff._patterns, "COUNT_ROWS_MAX_CELLS", 0)
    res = krippendorff_alpha(r, level=level)
    streamed = (res.value, res.standard_error)
    monkeypatch.undo()

    def refuse(*args, **kwargs):
        raise AssertionError("a streaming α kernel was called")

    for name in ("_sums_serial", "_sums_parallel", "_gwet_se_serial", "_gwet_se_parallel"):
        monkeypatch.setattr(_ka, name, refuse)
    res = krippendorff_alpha(r, level=level)
    assert res.value == pytest.approx(streamed[0], rel=1e-12)
    assert res.standard_error == pytest.approx(streamed[1], rel=1e-12)
    data = np.where(r.codes >= 0, r.codes.astype(float), np.nan).T
    want = krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                              value_domain=np.arange(5.0))
    assert res.value == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("name", ["percent_agreement", "fleiss_kappa", "gwet_ac1",
                                  "brennan_prediger"])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_web_sized_count_family_compiles_no_sum_kernel(name, weights, monkeypatch):
    # The count family on crowd-sized data: the rows of the items' distinct count vectors
    # (a sort of their keys), not the count family's sum and variance kernels (compiling
    # the two cost rte's first audit about 1.2 s of CPU); the same value and SE as those
    # kernels give, to rounding.
    import agreement
    from _goldnoise_lib import patterns

    r = _web_sized(4)
    fn = getattr(agreement, name)
    monkeypatch.setattr(patterns, "COUNT_ROWS_MAX_CELLS", 0)
    kernels = fn(r, weights=weights)
    monkeypatch.undo()

    def refuse(*args, **kwargs):
        raise AssertionError("a count-family sum kernel was called")

    for what in ("sums", "ss"):
        monkeypatch.setitem(_k._ITEM_KERNELS, ("count", what), (refuse, refuse))
    res = fn(r, weights=weights)
    assert res.value == pytest.approx(kernels.value, rel=1e-12)
    assert res.standard_error == pytest.approx(kernels.standard_error, rel=1e-12)


def test_distinct_counts_are_the_distinct_rows():
    from _goldnoise_lib import patterns

    rng = np.random.default_rng(5)
    counts = rng.integers(0, 4, (500, 5)).astype(np.int32)
    counts[::3] = counts[1::3][: len(counts[::3])]  # repeated rows
    rows, freq = patterns.distinct_counts(counts, 20)
    want, want_freq = np.unique(counts, axis=0, return_counts=True)
    order = np.lexsort(rows.T)  # distinct_counts orders by the key: last category first
    assert np.array_equal(rows[order], want[np.lexsort(want.T)])
    assert np.array_equal(freq[order], want_freq[np.lexsort(want.T)])
    assert freq.sum() == 500
    assert patterns.distinct_counts(counts, 2**14) is None  # 5 × 14 bits: no 62-bit key


def test_web_sized_latent_class_fit_takes_the_serial_builds(monkeypatch):
    # The EM's E-step and the posterior pass: serial below 1e6 cells (web's first audit
    # compiled both parallel builds, about 4.5 s of CPU, for passes of about a millisecond).
    import warnings

    from noise_models import LatentClassModel
    from noise_models.latent_class import _kernels as K

    def refuse(*args, **kwargs):
        raise AssertionError("a parallel build was called")

    monkeypatch.setattr(K, "_estep_parallel", refuse)
    monkeypatch.setattr(K, "_posterior_parallel", refuse)
    r = _web_sized(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = LatentClassModel("spam", n_starts=2, rng=0).fit(r)
    assert np.isfinite(fit.class_posterior).all()


@pytest.mark.parametrize("seed", range(4))
def test_small_reader_passes_equal_the_kernels(seed, monkeypatch):
    # The readers' one-pass helpers run in NumPy below `SMALL_PASS` labels (nothing to
    # compile on a first run of a crowd file): the same codes, values and verdicts as the
    # Numba passes they stand for.
    from agreement import _kernels_light as _kl

    rng = np.random.default_rng(seed)
    n = 3000
    labels = rng.integers(0, 5 + 20 * seed, n)
    ids = rng.integers(-50, 400, n) * (1 + seed)
    items, raters = rng.integers(0, 200, n), rng.integers(0, 30, n)
    if seed % 2:  # a repeated (item, annotator) cell
        items[-1], raters[-1] = items[7], raters[7]
    else:
        cells = np.unique(items * 30 + raters)
        items, raters = cells // 30, cells % 30
    lab = rng.integers(-1, 4, items.size).astype(np.int8)
    codes = np.where(rng.random((400, 12)) < 0.3, rng.integers(0, 3, (400, 12)), -1)
    codes = codes.astype(np.int8)

    def run():
        small = _ke.small_int_codes(labels)
        dense = _ke.dense_factorize(ids, 4)
        return (small, _ke.int_range(ids), dense,
                _ke.scatter_long(items, raters, lab, 200, 30), _kl.count_visits(codes))

    fast = run()
    monkeypatch.setattr(_ke, "SMALL_PASS", -1)
    monkeypatch.setattr(_kl, "_SMALL_VISITS", -1)
    slow = run()
    for a, b in zip(fast, slow, strict=True):
        if isinstance(a, tuple):
            assert len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                    assert np.asarray(x).dtype == np.asarray(y).dtype and np.array_equal(x, y)
        elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            assert a is not None and b is not None
            assert a.dtype == b.dtype and np.array_equal(a, b)
        else:
            assert a == b
    assert (fast[3] is None) == bool(seed % 2)


@pytest.mark.parametrize("k", [4, 12])
def test_count_family_patterns_compile_no_row_kernel(k, monkeypatch):
    # Few annotators (rating-pattern histogram) and more (count histogram): the count
    # family's rows come from the patterns' category counts in NumPy, not the row kernel
    # (compiling it and rebuilding codes from the counts cost a first audit about 0.7 s of
    # CPU). Fleiss' κ equals statsmodels' on the same data.
    from statsmodels.stats import inter_rater

    import agreement

    def refuse(*args, **kwargs):
        raise AssertionError("the count family's row kernel was called")

    monkeypatch.setitem(_k._ITEM_KERNELS, ("count", "rows"), (refuse, refuse))
    rng = np.random.default_rng(k)
    truth = rng.integers(0, 3, 400)
    labels = np.where(rng.random((400, k)) < 0.6, truth[:, None], rng.integers(0, 3, (400, k)))
    res = agreement.fleiss_kappa(Ratings.from_wide(labels.astype(float)))
    table, _ = inter_rater.aggregate_raters(labels)
    assert res.value == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-12)
