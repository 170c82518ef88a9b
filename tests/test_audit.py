"""κ audits (SPEC §2.5): κ read as the easy fraction, and the range of κ for given agreement.

Reference: Beigman Klebanov & Beigman (2009), §3.1–3.3 (seeds/003).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from agreement import Ratings, fleiss_kappa
from goldnoise.datasets import load_fleiss1971
from noise_models import (
    KappaAuditResult,
    KappaRangeResult,
    audit_kappa,
    kappa_range,
    noise_bound,
)


# ------------------------------------------------------------------------ audit_kappa
def test_kappa_point_eight_example():
    # SPEC §2.5 / paper §3.1 and §3.3: κ = 0.8, n = 1000, k = 2, p = 0.5 -> 800 easy, 900
    # agreed, "an estimate of 11% noise" (exact 100/900 = 0.1111), γ = 13.9% (exact 125/900;
    # the paper prints 13.8%, truncated).
    a = audit_kappa(0.8, n=1000, n_raters=2, p=0.5)
    assert isinstance(a, KappaAuditResult)
    assert a.easy_items == 800 and a.expected_agreed == 900 and a.agreed == 900
    assert a.point_noise == pytest.approx(100 / 900)
    assert a.gamma == 125 / 900 and a.bound.hidden_hard == 125
    assert a.kappa_interval is None and a.threshold_in_interval is None


def test_five_annotator_reading():
    # Paper §3.3: with five annotators κ = 0.637 says about 637 of 1000 items are easy,
    # "captured quite precisely by the 660 agreements, yielding a noise estimate of 3.5%"
    # (exact (660 - 637)/660 = 3.48%); and §3.2: the 660 agreed items are "within the noise
    # rate of γ = 5%" (the exact bound is 31/660 = 4.70%).
    a = audit_kappa(0.637, n=1000, n_raters=5, category_shares=[0.5, 0.5])
    assert a.p == 0.0625 and a.agreed == 660
    assert a.point_noise == pytest.approx(23 / 660)
    assert round(a.point_noise, 3) == 0.035
    assert a.bound.hidden_hard == 31
    assert a.gamma == noise_bound(1000, 340, 0.0625).gamma == 31 / 660 <= 0.05


def test_default_p_is_two_equiprobable_categories():
    a = audit_kappa(0.8, n=1000, n_raters=3)
    assert a.p == 0.25 and any("equiprobable" in note for note in a.notes)
    neg = audit_kappa(-0.1, n=100, n_raters=2)
    assert neg.easy_items == 0.0 and any("negative" in note for note in neg.notes)


def test_audit_from_ratings():
    r = Ratings.from_wide(load_fleiss1971())
    a = audit_kappa(r, threshold=0.67)
    ref = fleiss_kappa(r)
    assert a.kappa == ref.value
    assert a.kappa_interval == ref.confidence_interval(0.95)  # default confidence_level
    assert a.threshold_in_interval is False  # Fleiss (1971): κ = 0.430, far below 0.67
    assert audit_kappa(r, threshold=0.45).threshold_in_interval is True
    assert a.agreed == int((load_fleiss1971().nunique(axis=1) == 1).sum())
    assert a.gamma == noise_bound(r).gamma and a.kappa_result is not None
    # κ·n = 12.9 "easy" items but only 5 unanimous: the κ reading does not fit; noted
    assert a.point_noise == 0.0 and any("does not fit" in note for note in a.notes)
    b = audit_kappa(r, p=0.01, alpha=0.9)
    assert b.p == 0.01 and b.gamma == noise_bound(30, 30 - a.agreed, 0.01, alpha=0.9).gamma
    # alpha is the bound's confidence only; κ's interval has its own level
    assert b.kappa_interval == ref.confidence_interval(0.95)
    c = audit_kappa(r, confidence_level=0.8)
    assert c.kappa_interval == ref.confidence_interval(0.8) and c.gamma == a.gamma
    with pytest.raises(ValueError, match="`confidence_level` must be in"):
        audit_kappa(r, confidence_level=95)
    d = a.to_dict()
    assert d["kappa_low"] == a.kappa_interval.low and a.to_frame().shape == (1, len(d))
    assert "outside the interval" in repr(a)


@pytest.mark.parametrize("args,kwargs,exc,match", [
    ((0.8,), {"n_raters": 2}, TypeError, "needs `n`"),
    ((0.8,), {"n": 100}, TypeError, "needs `n`"),
    ((1.2,), {"n": 100, "n_raters": 2}, ValueError, r"`kappa` must be in \[-1, 1\]"),
    (("0.8",), {"n": 100, "n_raters": 2}, TypeError, "`kappa` must be a number"),
    ((0.8,), {"n": 100, "n_raters": 1}, ValueError, "`n_raters` must be >= 2"),
    ((0.8,), {"n": 100, "n_raters": 2, "p": 0.5, "category_shares": [0.5, 0.5]}, TypeError,
     "not both"),
    ((0.8,), {"n": 100, "n_raters": 2, "threshold": 2}, ValueError, "`threshold` must be in"),
    ((0.8,), {"n": 100, "n_raters": 2, "alpha": 5}, ValueError, "`alpha` must be in"),
    ((0.0,), {"n": 1, "n_raters": 5, "p": 0.01}, ValueError, "no item is expected"),
    (([["a", "a"], ["a", "b"]],), {"n": 2}, TypeError, "come from the data"),
])
def test_audit_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        audit_kappa(*args, **kwargs)


# ------------------------------------------------------------------------ kappa_range
def fleiss_by_hand(table: np.ndarray) -> float:
    """The paper's eq. (2) (Siegel & Castellan's K), written out."""
    n, _ = table.shape
    k = table.sum(axis=1)[0]
    pj = table.sum(axis=0) / (n * k)
    pe = float(np.sum(pj**2))
    pa = float(np.mean((table * (table - 1)).sum(axis=1) / (k * (k - 1))))
    return (pa - pe) / (1 - pe)


def test_paper_five_annotators():
    # Paper §3.2: 660 of 1000 unanimous among five annotators, equiprobable categories.
    # "from κ = 0.73 when all disagreements are split 4-to-1": exact 0.728.
    # "to κ = 0.52 when all disagreements are split 3-to-2": the exact value of that table is
    # 0.592 (PA = (660 + 340·0.4)/1000 = 0.796, PE = 0.5); the paper's 0.52 is not what its
    # eq. (2) gives, and the exact computation governs.
    # "the most likely measurement would be about κ = 0.637" (twice as many 3-to-2 as 4-to-1):
    # the multinomial mode has 112 4-to-1 and 228 3-to-2 splits, κ = 0.6368.
    res = kappa_range(1000, 660, 5)
    assert isinstance(res, KappaRangeResult)
    assert res.highest == pytest.approx(0.728, abs=1e-12)
    assert res.lowest == pytest.approx(0.592, abs=1e-12)
    assert res.most_likely == pytest.approx(0.637, abs=5e-4)
    table = res.count_table("most_likely").to_numpy()
    splits = np.sort(table, axis=1)[:, ::-1]
    assert int((splits[:, 0] == 4).sum()) == 112 and int((splits[:, 0] == 3).sum()) == 228
    for which in ("lowest", "most_likely", "highest"):
        t = res.count_table(which).to_numpy()
        assert t.shape == (1000, 2) and (t.sum(axis=1) == 5).all()
        assert int((t.max(axis=1) == 5).sum()) == 660
        value = getattr(res, which)
        assert value == pytest.approx(fleiss_by_hand(t), abs=1e-12)
        assert value == pytest.approx(sm_fleiss_kappa(t), abs=1e-12)  # statsmodels cross-check
    assert res.lowest <= res.most_likely <= res.highest


def test_two_annotators_single_value():
    # Paper §3.1: two annotators, 900 of 1000 agreed, equiprobable: κ = 0.8 whatever the pattern
    res = kappa_range(1000, 900, 2)
    assert res.lowest == res.most_likely == res.highest == pytest.approx(0.8)


def test_several_categories():
    shares = [0.2, 0.3, 0.5]
    res = kappa_range(600, 420, 4, category_shares=shares)
    for which in ("lowest", "most_likely", "highest"):
        t = res.count_table(which).to_numpy()
        assert getattr(res, which) == pytest.approx(sm_fleiss_kappa(t), abs=1e-12)
    low = np.sort(res.count_table("lowest").to_numpy()[420:], axis=1)[:, ::-1]
    assert (low == [2, 1, 1]).all()  # most even split of 4 over 3 categories
    high = np.sort(res.count_table("highest").to_numpy()[420:], axis=1)[:, ::-1]
    assert (high == [3, 1, 0]).all()
    assert res.lowest < res.most_likely < res.highest
    assert res.to_dict()["n_raters"] == 4 and "KappaRangeResult(" in repr(res)


@pytest.mark.parametrize("args,kwargs,exc,match", [
    ((100, 101, 3), {}, ValueError, "`agreed` cannot exceed `n`"),
    ((100, 50, 1), {}, ValueError, "`n_raters` must be >= 2"),
    ((100, 50, 3), {"category_shares": [1.0, 0.0]}, ValueError, "all weight on one category"),
    ((100, 50, 40), {"category_shares": [0.1] * 10}, ValueError, "possible vote patterns"),
    ((100, 50.5, 3), {}, ValueError, "`agreed` must be a whole number"),
])
def test_kappa_range_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        kappa_range(*args, **kwargs)


def test_count_table_validation():
    with pytest.raises(ValueError, match="`which` must be"):
        kappa_range(100, 50, 3).count_table("middle")


@given(st.integers(0, 12), st.lists(st.floats(0.01, 1.0), min_size=2, max_size=4))
def test_mode_allocation_is_the_multinomial_mode(total, weights):
    # kappa_range spreads its unanimous items over the categories as the mode of
    # Multinomial(agreed, shares) (its Notes): the unanimous rows of the count table it
    # builds, per category, against the mode found by enumeration. Two items more than the
    # agreed ones are disagreed (kappa needs two items even when agreed = 0).
    probs = np.array(weights) / np.sum(weights)
    table = kappa_range(total + 2, total, 2, category_shares=probs).count_table().to_numpy()
    got = (table == 2).sum(axis=0)
    assert got.sum() == total and len(table) == total + 2
    best = max(stats.multinomial.logpmf(np.array(x), total, probs)
               for x in itertools.product(range(total + 1), repeat=len(probs))
               if sum(x) == total)
    assert stats.multinomial.logpmf(got, total, probs) == pytest.approx(best, abs=1e-9)
    assert math.isfinite(best)


def test_no_false_note_when_every_item_has_the_same_number_of_ratings():
    # Many annotators in all, each item rated by exactly 3 (as Snow et al.'s RTE: 164
    # workers, 10 ratings per item): the ratings per item do not vary.
    rng = np.random.default_rng(0)
    codes = np.full((60, 12), np.nan)
    for i in range(60):
        who = rng.choice(12, size=3, replace=False)
        codes[i, who] = rng.integers(0, 2, size=3) if i % 3 else 1
    res = audit_kappa(Ratings.from_wide(codes))
    assert not any("vary" in note for note in res.notes)
    codes[0, :] = np.nan
    codes[0, :2] = 1  # now one item has 2 ratings, the others 3
    res = audit_kappa(Ratings.from_wide(codes))
    assert any("ratings per item vary" in note for note in res.notes)
