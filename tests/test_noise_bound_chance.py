"""Chance agreement on a hard item (SPEC §2.1) and the noise bound from ratings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agreement import EstimationWarning, Ratings
from goldnoise.datasets import load_fleiss1971
from noise_models import chance_agreement, noise_bound


def slow_chance(codes: np.ndarray, m: int):
    """q and p_i from the definition, with plain loops (missing = -1)."""
    n, k = codes.shape
    rated = codes >= 0
    r = rated.sum(axis=1)
    dis = [r[i] >= 2 and len({c for c in codes[i] if c >= 0}) > 1 for i in range(n)]
    q = np.zeros((k, m))
    for j in range(k):
        labs = [codes[i, j] for i in range(n) if dis[i] and codes[i, j] >= 0]
        for c in labs:
            q[j, c] += 1
        if labs:
            q[j] /= len(labs)
    p = np.full(n, np.nan)
    for i in range(n):
        if r[i] >= 2:
            p[i] = sum(math.prod(q[j, c] for j in range(k) if codes[i, j] >= 0)
                       for c in range(m))
    return q, p, np.array(dis)


def test_two_category_formula():
    # Paper §2: p = Π_j q_j + Π_j (1 - q_j) for two categories.
    q = np.array([[0.3, 0.7], [0.6, 0.4], [0.5, 0.5]])
    res = chance_agreement(q=q)
    assert res.p == pytest.approx(0.3 * 0.6 * 0.5 + 0.7 * 0.4 * 0.5)
    assert res.source == "q" and res.q.shape == (3, 2)


def test_identical_coins():
    # Paper §3.1 and §3.2: equiprobable categories, p = 0.5 for two and 0.0625 for five.
    assert chance_agreement(category_shares=[0.5, 0.5], n_raters=2).p == 0.5
    assert chance_agreement(category_shares=[0.5, 0.5], n_raters=5).p == 0.0625
    assert chance_agreement(category_shares=[0.2, 0.3, 0.5], n_raters=3).p == pytest.approx(
        0.2**3 + 0.3**3 + 0.5**3)


def test_from_complete_ratings_matches_slow_reference():
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 3, size=(200, 4))
    codes[:80] = codes[:80, :1]  # some unanimous items
    r = Ratings.from_wide(codes)
    res = chance_agreement(r)
    q_ref, p_ref, dis = slow_chance(r.codes, 3)
    np.testing.assert_allclose(res.q.to_numpy(), q_ref)
    np.testing.assert_allclose(res.p_items, p_ref)
    assert res.p == pytest.approx(p_ref[0]) and not res.heterogeneous
    assert res.n_disagreed == int(dis.sum()) and res.n_items == 200
    assert float(res) == res.p


def test_from_ratings_with_missing_matches_slow_reference():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 2, size=(300, 6)).astype(float)
    codes[rng.random(codes.shape) < 0.4] = np.nan
    r = Ratings.from_wide(codes)
    res = chance_agreement(r)
    q_ref, p_ref, _ = slow_chance(r.codes, r.n_categories)
    np.testing.assert_allclose(res.q.to_numpy(), q_ref)
    np.testing.assert_allclose(res.p_items, p_ref, equal_nan=True)
    assert res.heterogeneous
    eligible = r.ratings_per_item >= 2
    assert res.n_items == int(eligible.sum())
    assert res.p == pytest.approx(np.nanmean(p_ref))
    assert any("fewer than two ratings" in note for note in res.notes)


def test_pooled_and_count_tables():
    wide = Ratings.from_wide([["a", "a", "a"], ["a", "b", "b"], ["b", "b", "a"], ["b", "b", "b"]])
    counts = Ratings.from_counts(wide.counts, categories=wide.categories)
    pooled = chance_agreement(counts)
    assert pooled.pooled and pooled.q.index.tolist() == ["pooled"]
    # disagreed items: (a, b, b) and (b, b, a): pooled q = (2/6, 4/6); p = q_a^3 + q_b^3
    assert pooled.p == pytest.approx((1 / 3) ** 3 + (2 / 3) ** 3)
    assert chance_agreement(wide, pooled=True).p == pytest.approx(pooled.p)
    with pytest.raises(ValueError, match="count table"):
        chance_agreement(counts, pooled=False)


def test_annotator_without_disagreed_items_gets_pooled_q():
    codes = np.array([[0, 1, np.nan], [1, 0, np.nan], [0, 0, 0], [np.nan, 1, 1]])
    res = chance_agreement(Ratings.from_wide(codes))
    # annotator 2 rated no disagreed item: pooled q over the other two = (2/4, 2/4)
    np.testing.assert_allclose(res.q.iloc[2].to_numpy(), [0.5, 0.5])
    assert any("rated no disagreed item" in note for note in res.notes)


def test_no_disagreement_warns_and_falls_back():
    r = Ratings.from_wide([["a", "a"], ["b", "b"], ["a", "a"], ["a", "a"]])
    with pytest.warns(EstimationWarning, match="no disagreed items"):
        res = chance_agreement(r)
    # labels over all items: each annotator (3/4 a, 1/4 b): p = 9/16 + 1/16
    assert res.p == pytest.approx(10 / 16)


@pytest.mark.parametrize("kwargs,exc,match", [
    ({}, TypeError, "exactly one of"),
    ({"ratings": [[1, 2]], "q": [[1.0]]}, TypeError, "exactly one of"),
    ({"category_shares": [0.5, 0.5]}, TypeError, "needs `n_raters`"),
    ({"category_shares": [0.5, 0.5], "n_raters": 1}, ValueError, "`n_raters` must be >= 2"),
    ({"category_shares": [0.5, 0.6], "n_raters": 2}, ValueError, "must sum to 1"),
    ({"category_shares": [1.5, -0.5], "n_raters": 2}, ValueError, "non-negative"),
    ({"category_shares": "ab", "n_raters": 2}, TypeError, "sequence of numbers"),
    ({"q": [[0.5, 0.6]]}, ValueError, "row 0 sums to"),
    ({"q": [0.5, 0.5]}, ValueError, "2-D array"),
    ({"q": [["a", "b"]]}, TypeError, "must hold numbers"),
    ({"q": [[0.5, 0.5]], "n_raters": 2}, TypeError, "`n_raters` goes with"),
    ({"ratings": [[1, 2]], "n_raters": 2}, TypeError, "`n_raters` goes with"),
    ({"q": [[0.5, 0.5]], "pooled": True}, TypeError, "`pooled` applies only"),
    ({"ratings": [[1, 2]], "pooled": "yes"}, TypeError, "`pooled` must be"),
    ({"ratings": [[1], [2]]}, ValueError, "no item has two or more ratings"),
])
def test_chance_agreement_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        chance_agreement(**kwargs)


@given(st.integers(0, 2**32 - 1), st.booleans())
def test_chance_invariant_to_relabelling_and_permutations(seed, with_missing):
    # Renaming categories, reordering annotators or items changes neither p nor the bound.
    rng = np.random.default_rng(seed)
    n, k, m = 60, 4, 3
    codes = rng.integers(0, m, size=(n, k)).astype(float)
    codes[: n // 3] = codes[: n // 3, :1]
    if with_missing:
        codes[rng.random(codes.shape) < 0.2] = np.nan
    base = chance_agreement(Ratings.from_wide(codes))
    relabel = np.array(["z", "x", "y"], dtype=object)
    items, raters = rng.permutation(n), rng.permutation(k)
    shuffled = codes[items][:, raters]
    names = np.where(np.isnan(shuffled), None, relabel[np.nan_to_num(shuffled).astype(int)])
    other = chance_agreement(Ratings.from_wide(names))
    assert other.p == pytest.approx(base.p, rel=1e-12)
    np.testing.assert_allclose(other.p_items, base.p_items[items], rtol=1e-12)
    if base.n_disagreed < base.n_items:
        a, b = noise_bound(Ratings.from_wide(codes)), noise_bound(Ratings.from_wide(names))
        assert (a.t0, a.n, a.d) == (b.t0, b.n, b.d)


# ------------------------------------------------------------------- noise_bound(ratings)
def test_noise_bound_from_complete_ratings_is_closed_form():
    rng = np.random.default_rng(2)
    n = 1000
    easy = rng.random(n) < 0.8
    truth = rng.integers(0, 2, n)
    labels = np.where(easy[:, None], truth[:, None], rng.integers(0, 2, (n, 2)))
    r = Ratings.from_wide(labels)
    res = noise_bound(r)
    chance = chance_agreement(r)
    ref = noise_bound(n, chance.n_disagreed, chance.p)
    assert (res.t0, res.gamma, res.p) == (ref.t0, ref.gamma, ref.p)
    assert res.chance is not None and res.method == "negative-binomial closed form"
    assert res.d == int((labels[:, 0] != labels[:, 1]).sum())


def test_noise_bound_from_ratings_with_missing_uses_per_item_p():
    rng = np.random.default_rng(9)
    n, k = 600, 5
    easy = rng.random(n) < 0.7
    truth = rng.integers(0, 2, n)
    labels = np.where(easy[:, None], truth[:, None], rng.integers(0, 2, (n, k))).astype(float)
    labels[rng.random((n, k)) < 0.3] = np.nan
    r = Ratings.from_wide(labels)
    res = noise_bound(r)
    assert res.method == "per-item exact (Poisson-binomial)"
    assert any("own p_i" in note for note in res.notes)
    # the per-item bound lies between the bounds at the smallest and the largest p_i
    vals = res.chance.p_items[res.chance.eligible]
    lo = noise_bound(res.n, res.d, float(vals.min())).t0
    hi = noise_bound(res.n, res.d, float(vals.max())).t0
    assert lo <= res.t0 <= hi
    assert res.posterior.pmf(np.arange(res.d, res.n + 1)).sum() == pytest.approx(1.0)


def test_noise_bound_ratings_validation():
    r = Ratings.from_wide([["a", "b"], ["b", "a"]])
    with pytest.raises(ValueError, match="no agreed subset"):
        noise_bound(r)
    with pytest.raises(TypeError, match="come from the data"):
        noise_bound(Ratings.from_wide([["a", "a"], ["a", "b"]]), 1, 0.5)
    with pytest.raises(ValueError, match="`alpha` must be in"):
        noise_bound(Ratings.from_wide([["a", "a"], ["a", "b"]]), alpha=2)


def test_noise_bound_on_fleiss_1971():
    # The bundled data set: 30 patients, 6 rating slots each (complete). The slots are not the
    # same psychiatrists, so q is pooled over slots here (pooled=True is what a count table
    # would give); per-slot q gives a different (also valid) p.
    frame = load_fleiss1971()
    r = Ratings.from_wide(frame)
    res = noise_bound(r)
    unanimous = int((frame.nunique(axis=1) == 1).sum())
    assert res.n == 30 and res.agreed == unanimous
    counts = Ratings.from_counts(pd.DataFrame(r.counts, columns=r.categories))
    pooled = noise_bound(counts)
    assert pooled.chance.pooled and pooled.n == 30 and pooled.d == res.d
    assert 0 <= pooled.gamma <= 1 and 0 <= res.gamma <= 1
