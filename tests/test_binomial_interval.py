"""_goldnoise_lib.binomial_interval: the one interval of a binomial share, against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from _goldnoise_lib.binomial import binomial_interval

proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint


@pytest.mark.parametrize(("method", "reference"), [("exact", "beta"), ("wilson", "wilson")])
def test_equals_statsmodels_proportion_confint(method, reference):
    worst = 0.0
    for n in (1, 2, 5, 10, 37, 100, 1000):
        for k in range(0, n + 1, max(1, n // 13)):
            for level in (0.8, 0.95, 0.99):
                lo, hi = binomial_interval(k, n, level, method=method)
                lo2, hi2 = proportion_confint(k, n, alpha=1 - level, method=reference)
                worst = max(worst, abs(lo - lo2), abs(hi - hi2))
    assert worst < 1e-12


def test_vectorised_and_empty_sample():
    k, n = np.array([0, 3, 10, 0]), np.array([10, 10, 10, 0])
    lo, hi = binomial_interval(k, n, 0.95)
    for i in range(3):
        assert (lo[i], hi[i]) == binomial_interval(int(k[i]), int(n[i]), 0.95)
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert math.isnan(lo[3]) and math.isnan(hi[3])
    with pytest.raises(ValueError, match="`method`"):
        binomial_interval(1, 2, method="wald")


def test_one_binomial_interval_in_the_codebase():
    # the Clopper-Pearson / Wilson formulas live in _goldnoise_lib.binomial only
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = sorted(str(p.relative_to(root)) for pkg in ("agreement", "noise_models",
                                                        "simulation", "goldnoise")
                   for p in (root / pkg).rglob("*.py")
                   if any(f in p.read_text() for f in ("beta.ppf", "proportion_confint")))
    assert found == []
