"""Light's κ over the annotator pairs that co-rated items."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import agreement as ag
from agreement import DegenerateDataWarning, _coefficients, _light


def reference_light(x: np.ndarray, w: np.ndarray, cats: list) -> float:
    """Straight from the definition: mean over pairs with ≥ 2 common items of Cohen's κ
    (PA over the common items, each annotator's marginals over the items they rated)."""
    kappas = []
    index = {c: i for i, c in enumerate(cats)}
    for j, l_ in itertools.combinations(range(x.shape[1]), 2):
        a, b = x[:, j], x[:, l_]
        both = ~np.isnan(a) & ~np.isnan(b)
        if both.sum() < 2:
            continue
        pa = np.mean([w[index[u], index[v]] for u, v in zip(a[both], b[both], strict=True)])
        pj = np.array([np.mean(a[~np.isnan(a)] == c) for c in cats])
        pl = np.array([np.mean(b[~np.isnan(b)] == c) for c in cats])
        pe = pj @ w @ pl
        if 1 - pe > 1e-12:
            kappas.append((pa - pe) / (1 - pe))
    return float(np.mean(kappas)) if kappas else math.nan


def use_layout(layout: str, monkeypatch) -> None:
    """Force the column kernels, the k × k arrays or the sparse visits."""
    if layout != "column":
        monkeypatch.setattr(_coefficients, "COLUMN_MAX_PAIRS", -1)
    if layout == "sparse":
        monkeypatch.setattr(_light, "DENSE_MAX_PAIRS", -1)


@pytest.mark.parametrize("layout", ["column", "dense", "sparse"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_light_matches_definition(seed, layout, monkeypatch):
    use_layout(layout, monkeypatch)
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 4, (40, 7)).astype(float)
    x[rng.random(x.shape) < 0.45] = np.nan
    for weights in (None, "quadratic"):
        res = ag.light_kappa(x, weights=weights)
        r = ag.Ratings.from_wide(x)
        w = np.eye(3) if weights is None else ag.named_weights(weights, r.category_values)
        assert res.value == pytest.approx(reference_light(x, w, [1.0, 2.0, 3.0]), abs=1e-12)


@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("weights", [None, "linear"])
def test_layouts_agree(layout, weights, monkeypatch):
    rng = np.random.default_rng(9)
    x = rng.integers(0, 3, (80, 9)).astype(float)
    x[rng.random(x.shape) < 0.5] = np.nan
    column = ag.light_kappa(x, weights=weights)
    use_layout(layout, monkeypatch)
    other = ag.light_kappa(x, weights=weights)
    assert other.value == pytest.approx(column.value, abs=1e-13)
    assert other.standard_error == pytest.approx(column.standard_error, abs=1e-13)
    assert other.notes == column.notes


def test_many_annotators_with_one_rating_each_is_nan_not_zero():
    # 600 annotators, one rating each, 3 per item: every pair co-rated one item, so no
    # pair has a κ. It used to print κ = 0.0000 with SE 0.
    n_items, per_item = 200, 3
    x = np.full((n_items, n_items * per_item), np.nan)
    rng = np.random.default_rng(4)
    for i in range(n_items):
        x[i, i * per_item:(i + 1) * per_item] = rng.integers(0, 2, per_item)
    with pytest.warns(DegenerateDataWarning, match=r"none of the 600 annotator pairs"):
        res = ag.light_kappa(x)
    assert math.isnan(res.value) and math.isnan(res.standard_error)
    assert any("undefined: 0 of 600 co-rating pairs usable" in n for n in res.notes)
    assert any("179100 pairs never co-rated" in n for n in res.notes)


def test_pairs_with_one_common_item_are_left_out_and_counted_in_the_note():
    x = np.array([[1, 1, np.nan], [2, 2, np.nan], [1, 2, 1], [2, np.nan, 2]], dtype=float)
    res = ag.light_kappa(x)
    # (0, 1) co-rated 3 items, (0, 2) 2 items, (1, 2) 1 item: two usable pairs.
    assert any("over 2 of the 3 annotator pairs" in n for n in res.notes)
    assert res.value == pytest.approx(reference_light(x, np.eye(2), [1.0, 2.0]), abs=1e-12)


def test_many_annotators_sharing_items_use_the_triangle_and_agree():
    # Issue 22: 10 items × 5,000 annotators took 40 s and 8 GB (one entry per (item, pair)
    # visit). The upper-triangle path must give what the k × k and sparse paths give.
    import agreement._light as L

    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (30, 300)).astype(float)
    x[rng.random(x.shape) < 0.3] = np.nan
    r = ag.Ratings.from_wide(x)
    for weights in (None, "linear"):
        want = ag.light_kappa(r, weights=weights)
        old = L.DENSE_MAX_PAIRS
        try:
            L.DENSE_MAX_PAIRS = 10  # force the triangle path
            got = ag.light_kappa(r, weights=weights)
        finally:
            L.DENSE_MAX_PAIRS = old
        assert got.value == pytest.approx(want.value, abs=1e-12)
        assert got.standard_error == pytest.approx(want.standard_error, rel=1e-9)
        assert got.observed == pytest.approx(want.observed, abs=1e-12)
        assert got.expected == pytest.approx(want.expected, abs=1e-12)
        assert got.notes == want.notes


def test_light_bootstrap_refuses_annotators_squared_rows():
    from agreement import bootstrap

    rng = np.random.default_rng(1)
    x = np.full((50, 150), np.nan)
    for i in range(50):
        x[i, rng.choice(150, 4, replace=False)] = rng.integers(0, 2, 4)
    with pytest.raises(ValueError, match="at most 100 annotators"):
        bootstrap("light_kappa", x, n_resamples=10, rng=0)
