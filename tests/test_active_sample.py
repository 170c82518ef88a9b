"""Active human labels: ``active_sample`` and ``judge_estimate(..., inclusion=, scores=)``.

References: the estimator written from its definition (Zrnic & Candès 2024, eq. for
the mean: θ̂ = mean(λf + (Y − λf)ξ/π)); ``ppi_mean`` for soft scores without
inclusion; width and coverage against a uniform sample of the same budget by
simulation (a soft judge sure on 85% of items, humans who err 3% of the time).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from noise_models import active_sample, judge_estimate, ppi_mean


def _draw(g, n=2000, sure=0.85, herr=0.03):
    unsure = g.random(n) > sure
    p = np.where(unsure, g.uniform(0.3, 0.7, n), np.where(g.random(n) < 0.3, 0.99, 0.01))
    y = g.random(n) < p
    hum = np.column_stack([np.where(g.random(n) < herr, ~y, y) for _ in range(3)]).astype(float)
    return p, hum, (p > 0.5).astype(float)


def _estimand():
    g = np.random.default_rng(123)
    return float(np.mean([_draw(g, 20000)[1].mean() for _ in range(50)]))


def _compare(n_rep, budget=200, n=2000):
    theta = _estimand()
    wa = wu = ca = cu = 0.0
    for s in range(n_rep):
        g = np.random.default_rng(s)
        p, hum, judge = _draw(g, n)
        act = active_sample(p, budget=budget, rng=g)
        tab = np.column_stack([hum, judge])
        ta = tab.copy()
        ta[~act.labelled, :3] = np.nan
        ra = judge_estimate(ta, 3, category=1.0, inclusion=act, scores=p)
        lab = np.zeros(n, bool)
        lab[g.choice(n, int(act.labelled.sum()), replace=False)] = True
        tu = tab.copy()
        tu[~lab, :3] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ru = judge_estimate(tu, 3, category=1.0, scores=p)
        wa += ra.high - ra.low
        wu += ru.high - ru.low
        ca += ra.low <= theta <= ra.high
        cu += ru.low <= theta <= ru.high
    return wa / wu, int(ca), int(cu)


def _check(n_rep):
    ratio, ca, _ = _compare(n_rep)
    assert ratio <= 0.9                      # at least 10% narrower than uniform
    assert stats.binomtest(ca, n_rep, 0.92, alternative="less").pvalue > 0.01
    return ratio, ca


def test_active_narrower_than_uniform():
    _check(60)


@pytest.mark.slow
def test_active_narrower_than_uniform_full():
    _ratio, ca = _check(200)
    assert ca / 200 >= 0.92


def test_estimate_from_definition():
    g = np.random.default_rng(4)
    n = 300
    p = g.uniform(0, 1, n)
    y = (g.random(n) < p).astype(float)
    act = active_sample(p, budget=60, rng=1)
    tab = np.column_stack([y, (p > 0.5).astype(float)])
    tab[~act.labelled, 0] = np.nan
    res = judge_estimate(tab, 1, category=1.0, inclusion=act.inclusion, scores=p)
    xi, pi = act.labelled, act.inclusion
    lam = res.lam
    t = lam * p + np.where(xi, (y - lam * p) / pi, 0.0)
    assert res.estimate == pytest.approx(t.mean(), abs=1e-12)
    assert res.standard_error == pytest.approx(t.std(ddof=1) / np.sqrt(n), abs=1e-12)
    a = np.where(xi, y / pi, 0.0)
    assert res.classical_estimate == pytest.approx(a.mean(), abs=1e-12)   # Horvitz–Thompson


def test_hard_labels_give_the_uniform_design():
    hard = np.r_[np.zeros(50), np.ones(50)]
    res = active_sample(hard, budget=20, rng=0)
    # a 0/1 "probability" says the judge is sure everywhere: no item is more uncertain
    np.testing.assert_allclose(res.inclusion, 0.2)
    assert res.variance_ratio == pytest.approx(1.0)


def test_never_worse_than_uniform_by_its_measure():
    g = np.random.default_rng(0)
    for _ in range(5):
        res = active_sample(g.uniform(0, 1, 400), budget=50)
        assert res.variance_ratio <= 1.0 + 1e-12
        assert res.inclusion.min() >= 0.1 * 50 / 400 - 1e-12
        assert res.budget == pytest.approx(50)


def test_log_probabilities_and_per_class_scores():
    p = np.array([0.1, 0.5, 0.9, 0.3])
    a = active_sample(p, budget=2)
    b = active_sample(np.log(np.column_stack([1 - p, p])), budget=2, category=1)
    np.testing.assert_allclose(a.inclusion, b.inclusion)


def test_soft_scores_are_not_replaced_by_the_top_class():
    g = np.random.default_rng(2)
    n = 500
    p = g.uniform(0, 1, n)
    y = (g.random(n) < p).astype(float)
    tab = np.column_stack([y, (p > 0.5).astype(float)])
    tab[100:, 0] = np.nan
    res = judge_estimate(tab, 1, category=1.0, scores=p)
    ref = ppi_mean(y[:100], p[:100], p[100:])
    assert res.estimate == pytest.approx(ref.estimate, abs=1e-12)
    hard = judge_estimate(tab, 1, category=1.0)
    assert hard.estimate != pytest.approx(res.estimate, abs=1e-6)


def test_bad_input():
    with pytest.raises(ValueError, match="budget"):
        active_sample([0.2, 0.4], budget=3)
    with pytest.raises(ValueError, match="probabilities in"):
        active_sample([0.2, 1.4], budget=1)
    with pytest.raises(ValueError, match="name the class"):
        active_sample([[0.2, 0.8]], budget=1)
    tab = np.column_stack([[1.0, 0.0, np.nan], [1.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="in \\(0, 1\\]"):
        judge_estimate(tab, 1, category=1.0, inclusion=[0.5, 0.0, 0.5])


def test_judge_plan_both_ways():
    from simulation import judge_plan

    g = np.random.default_rng(0)
    n = 20000
    p = np.where(g.random(n) > 0.85, g.uniform(0.3, 0.7, n),
                 np.where(g.random(n) < 0.3, 0.99, 0.01))
    kw = dict(target=0.02, correlation=0.7, sd=0.46, within_sd=0.3, n_judged=n, category=1)
    plan = judge_plan(**kw, judge_scores=p)
    assert plan.active_n_items < plan.n_items
    # the active budget is worth the uniform plan (and one item fewer is not)
    assert active_sample(p, budget=plan.active_n_items).uniform_equivalent >= plan.n_items
    assert active_sample(p, budget=plan.active_n_items - 1).uniform_equivalent < plan.n_items
    hard = judge_plan(**kw, judge_scores=(p > 0.5).astype(float))
    assert hard.active_n_items == hard.n_items          # hard labels: uniform, no saving
    assert judge_plan(**kw).active_n_items is None
