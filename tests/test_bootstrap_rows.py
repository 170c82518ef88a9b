"""agreement.bootstrap_rows: the engine over rows the caller built."""

from __future__ import annotations

import numpy as np
import pytest

from agreement import bootstrap, bootstrap_rows, item_statistics


def test_equals_the_engine_on_a_coefficients_rows():
    # The engine merges items by pattern and orders the patterns by their rows; given the
    # same distinct rows, counts and seed, bootstrap_rows draws the same replicates.
    x = np.random.default_rng(0).integers(0, 3, size=(400, 4))
    x[:250] = x[:250, :1]
    ref = bootstrap("fleiss_kappa", x, n_resamples=500, rng=7, method="bca")
    st = item_statistics(x, "fleiss_kappa")
    rows, freq = np.unique(st.values, axis=0, return_counts=True)
    res = bootstrap_rows(rows, lambda s: np.asarray(st.finalize(s).value)[..., None],
                         names=["fleiss_kappa"], freq=freq, n_resamples=500, rng=7,
                         method="bca")
    assert res.estimate[0] == pytest.approx(ref.estimate[0], abs=1e-12)
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               atol=1e-12)
    assert (res.interval.low[0], res.interval.high[0]) == pytest.approx(
        (ref.interval.low[0], ref.interval.high[0]), abs=1e-12)


def test_paired_difference_of_two_means():
    rng = np.random.default_rng(1)
    a = rng.normal(size=300)
    b = a + rng.normal(scale=0.1, size=300) + 0.05  # strongly paired, shift 0.05
    rows = np.column_stack([np.ones(300), a, b])
    res = bootstrap_rows(rows, lambda s: s[..., 1:] / s[..., :1], names=["a", "b"],
                         n_resamples=2000, rng=0)
    d = res.difference("b", "a")
    assert d.estimate[0] == pytest.approx(np.mean(b - a))
    # the paired SE is that of the mean difference, far below either mean's SE
    assert d.standard_error[0] == pytest.approx(np.std(b - a, ddof=1) / np.sqrt(300), rel=0.1)
    assert d.interval.low[0] > 0


def test_bad_rows():
    with pytest.raises(ValueError, match="`rows` must be a non-empty 2-d array"):
        bootstrap_rows(np.ones(3), lambda s: s, names=["x"], n_resamples=10)
    with pytest.raises(ValueError, match="`freq` must give a non-negative count"):
        bootstrap_rows(np.ones((3, 2)), lambda s: s, names=["x"], freq=[1, 2],
                       n_resamples=10)
    with pytest.raises(ValueError, match="`n_resamples`"):
        bootstrap_rows(np.ones((3, 2)), lambda s: s, names=["x"], n_resamples=0)
