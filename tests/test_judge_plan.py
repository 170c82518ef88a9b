"""``judge_plan``: human labels for a PPI interval's half-width or the swap test's power.

The formulas are checked three ways: against the variance of PPI++ written out by
hand, against the plan from a pilot simulated from the same model (the pilot path
estimates what the numbers path is given), and by simulating studies at the planned
size (the half-width and the power come out as planned). The swap difference is
checked against the ``krippendorff`` package (a test reference only).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreement import Ratings
from noise_models import swap_test
from simulation import JudgePlan, judge_plan

P, E_HUMAN, E_JUDGE = 0.3, 0.2, 0.12


def _truth_moments():
    """Exact moments of the model: class 1 with prevalence P, humans err with E_HUMAN,
    the judge with E_JUDGE, independently (binary labels, value 1 for class 1)."""
    tau2 = (1 - 2 * E_HUMAN) ** 2 * P * (1 - P)          # Var of an item's expected value
    sw2 = E_HUMAN * (1 - E_HUMAN)                          # one human's variance in an item
    q = P * (1 - E_JUDGE) + (1 - P) * E_JUDGE
    cov = (1 - 2 * E_HUMAN) * (1 - 2 * E_JUDGE) * P * (1 - P)
    return tau2, sw2, q * (1 - q), cov


def _given_plan(target, n_judged, ks=(1, 3)):
    tau2, sw2, var_f, cov = _truth_moments()
    sd = math.sqrt(tau2 + sw2)
    return judge_plan(target=target, correlation=cov / math.sqrt(var_f) / sd, sd=sd,
                      within_sd=math.sqrt(sw2), pilot_humans=1, n_judged=n_judged,
                      humans_per_item=ks, category=1)


def _study(g, n_items, n_labelled, k):
    t = g.random(n_items) < P
    table = np.full((n_items, k + 1), np.nan)
    table[:n_labelled, :k] = np.where(g.random((n_labelled, k)) < E_HUMAN,
                                      ~t[:n_labelled, None], t[:n_labelled, None])
    table[:, k] = np.where(g.random(n_items) < E_JUDGE, ~t, t)
    return table


def test_width_formula_by_hand():
    plan = _given_plan(0.02, 20_000)
    tau2, sw2, var_f, cov = _truth_moments()
    z = stats.norm.isf(0.025)
    for row in plan.table.itertuples():
        s2 = tau2 + sw2 / row.humans_per_item
        c2 = cov**2 / var_f
        n = row.n_items
        # PPI++ variance at the optimal λ with N − n unlabelled items (Angelopoulos, Duchi
        # & Zrnic 2023): σ²/n · (1 − ρ²(N − n)/N) = (σ² − c²)/n + c²/N
        half = z * math.sqrt((s2 - c2) / n + c2 / 20_000)
        assert half <= 0.02 < z * math.sqrt((s2 - c2) / (n - 1) + c2 / 20_000)
        assert row.classical_n_items == math.ceil(z * z * s2 / 0.02**2)
    assert plan.humans_per_item == int(plan.table.loc[
        plan.table["n_human_labels"].idxmin(), "humans_per_item"])
    assert plan.n_human_labels == plan.n_items * plan.humans_per_item
    assert float(plan) == plan.n_items and isinstance(plan, JudgePlan)
    assert plan.achieved <= 0.02


def test_pilot_recovers_the_given_plan():
    g = np.random.default_rng(7)
    pilot = _study(g, 6000, 6000, 3)
    from_pilot = judge_plan(pilot, 3, target=0.02, n_judged=20_000, humans_per_item=(1, 3),
                            category=1.0)
    given = _given_plan(0.02, 20_000)
    for a, b in zip(from_pilot.table["n_items"], given.table["n_items"], strict=True):
        assert a == pytest.approx(b, rel=0.12)
    assert from_pilot.source == "pilot" and given.source == "given"


def test_planned_width_is_reached_in_simulated_studies():
    from noise_models import judge_estimate

    n_judged = 6000
    plan = _given_plan(0.03, n_judged)
    row = plan.table.set_index("humans_per_item").loc[3]
    n = int(row["n_items"])
    g = np.random.default_rng(8)
    halves, hits, reps = [], 0, 400
    target_value = P * (1 - E_HUMAN) + (1 - P) * E_HUMAN
    for _ in range(reps):
        res = judge_estimate(_study(g, n_judged, n, 3), 3, category=1.0)
        halves.append((res.high - res.low) / 2)
        hits += res.low <= target_value <= res.high
    # the mean half-width is the planned one within 3% (it is ≤ 0.03 by ceil, not far below)
    assert np.mean(halves) == pytest.approx(0.03, rel=0.03)
    assert stats.binomtest(hits, reps, 0.95).pvalue > 0.001


def test_power_formula():
    plan = judge_plan(goal="power", margin=0.05, difference=0.01, difference_sd=0.4,
                      pilot_humans=3, power=0.9, confidence_level=0.9)
    z, zp = stats.norm.isf(0.05), stats.norm.ppf(0.9)
    assert plan.n_items == math.ceil(((z + zp) * 0.4 / 0.06) ** 2)
    assert plan.achieved >= 0.9
    assert plan.table["power"].is_monotonic_increasing
    assert plan.humans_per_item == 3
    assert any("finite-sample bias" in n for n in plan.notes)  # 381 items: below 500


def _swap_study(g, n, k=3, acc=0.85, judge_acc=0.85):
    t = g.random(n) < 0.4
    h = np.where(g.random((n, k)) < acc, t[:, None], ~t[:, None])
    j = np.where(g.random(n) < judge_acc, t, ~t)
    return pd.DataFrame(np.column_stack([h, j]).astype(int),
                        columns=[*(f"h{i}" for i in range(k)), "judge"])


def test_swap_difference_against_krippendorff():
    krippendorff = pytest.importorskip("krippendorff")
    data = _swap_study(np.random.default_rng(0), 60)
    data.iloc[::7, 1] = np.nan
    humans = ["h0", "h1", "h2"]
    res = swap_test(Ratings.from_wide(data), "judge", humans=humans, n_resamples=50,
                    rng=0).swap.loc["judge"]

    def alpha(cols):
        return krippendorff.alpha(data[cols].to_numpy(dtype=float).T,
                                  level_of_measurement="nominal")

    swapped = [alpha([c if c != h else "judge" for c in humans]) for h in humans]
    assert res["difference"] == pytest.approx(np.mean(swapped) - alpha(humans), abs=1e-12)
    assert res["low"] <= res["difference"] <= res["high"]


def test_power_from_a_pilot_matches_the_given_path():
    g = np.random.default_rng(1)
    pilot = _swap_study(g, 3000)
    plan = judge_plan(pilot, "judge", goal="power", margin=0.06, difference=0.0,
                      n_resamples=300, rng=0)
    sw = swap_test(Ratings.from_wide(pilot), "judge", n_resamples=300, rng=0).swap.loc["judge"]
    assert plan.difference_sd == sw["standard_error"] * math.sqrt(3000)
    given = judge_plan(goal="power", margin=0.06, difference=0.0,
                       difference_sd=sw["standard_error"] * math.sqrt(3000), pilot_humans=3)
    assert plan.n_items == given.n_items and plan.source == "pilot"


def test_planned_power_is_reached_in_simulated_studies():
    # A judge exactly as accurate as each human: the swap difference is 0 in expectation.
    g = np.random.default_rng(2)
    # 1,000 resamples: the pilot's SE from 200 varies by about 5% between seeds (0.0032 to
    # 0.0034 here), 10% in the planned items, enough to move the power by several points
    sw = swap_test(Ratings.from_wide(_swap_study(g, 20_000)), "judge", n_resamples=1000,
                   rng=0).swap.loc["judge"]
    # margin 0.05 plans about 740 items; at a few hundred items the coefficients'
    # finite-sample bias lowers the power by a few points (the plan's note says so below 500)
    plan = judge_plan(goal="power", margin=0.05, difference=0.0,
                      difference_sd=sw["standard_error"] * math.sqrt(20_000), pilot_humans=3)
    assert plan.n_items > 500 and not plan.notes
    reps, passed = 200, 0
    for r in range(reps):
        res = swap_test(Ratings.from_wide(_swap_study(g, plan.n_items)), "judge",
                        n_resamples=200, rng=r).swap.loc["judge"]
        passed += res["low"] > -0.05
    assert stats.binomtest(passed, reps, 0.8).pvalue > 0.01, (passed, plan.n_items)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({}, ValueError, "`target` is needed"),
    ({"target": 0.02}, ValueError, "give a `pilot`"),
    ({"goal": "power"}, ValueError, "`margin` is needed"),
    ({"goal": "power", "margin": 0.05}, ValueError, "give a `pilot`"),
    ({"goal": "power", "margin": 0.05, "difference": -0.1, "difference_sd": 0.5,
      "pilot_humans": 3}, ValueError, "not above −margin"),
    ({"goal": "power", "margin": 0.05, "difference": 0.0, "difference_sd": 0.5},
     ValueError, "`pilot_humans` must be"),
    ({"goal": "size"}, ValueError, "`goal` must be one of"),
    ({"target": 0.001, "correlation": 0.9, "sd": 0.5, "n_judged": 100}, ValueError,
     "no number of human labels reaches"),
    ({"target": 0.02, "correlation": 1.5, "sd": 0.5}, ValueError, "`correlation`"),
    ({"pilot": [[1, 1, 0]], "target": 0.02}, ValueError, "`candidate` is needed"),
    ({"goal": "power", "margin": 0.05, "coefficient": "scott_pi", "difference": 0.0,
      "difference_sd": 0.5, "pilot_humans": 3}, ValueError, "`coefficient` must be one of"),
])
def test_judge_plan_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        judge_plan(**kwargs)


def test_without_within_sd_only_the_pilot_design_is_planned():
    plan = judge_plan(target=0.03, correlation=0.6, sd=0.45, humans_per_item=(1, 2, 3))
    assert list(plan.table["humans_per_item"]) == [1]
    assert any("within-item SD is unknown" in n for n in plan.notes)


# ----------------------------------------------------------- one swap test for both


def _three_humans_and_judges(n=300, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)

    def noisy(p):
        return np.where(rng.random(n) < p, rng.integers(0, 3, n), truth)

    from agreement import Ratings

    x = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.25), noisy(0.15), noisy(0.6)])
    return Ratings.from_wide(x, raters=["h1", "h2", "h3", "good", "poor"])


def test_judge_audit_reports_the_swap_test():
    # judge_audit's swap and join tables are noise_models.swap_test's, with the audit's
    # bootstrap seed (the first of the two it draws from rng): bit-identical.
    import warnings

    import goldnoise as gn
    r = _three_humans_and_judges()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        audit = gn.judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=200, rng=4,
                               latent_resamples=0, level="nominal")
    seed_boot = int(np.random.default_rng(4).integers(2**63, size=2)[0])
    res = swap_test(r, ["good", "poor"], margin=0.05, n_resamples=200, rng=seed_boot)
    cols = list(audit.swap.columns)
    pd.testing.assert_frame_equal(res.swap[cols], audit.swap)
    pd.testing.assert_frame_equal(res.join[cols], audit.join)
    assert (res.humans, res.humans_low, res.humans_high) == (
        audit.human_reliability, audit.human_low, audit.human_high)


def test_judge_plan_swap_difference_is_the_swap_test_row():
    # judge_plan's pilot: the swap difference and its per-item SD are the swap test's row
    r = _three_humans_and_judges(seed=1)
    plan = judge_plan(r, "good", goal="power", margin=0.1, humans=["h1", "h2", "h3"],
                      n_resamples=300, rng=9)
    row = swap_test(r, "good", humans=["h1", "h2", "h3"], n_resamples=300, rng=9).swap.loc["good"]
    assert (plan.difference, plan.difference_sd) == (
        row["difference"], row["standard_error"] * math.sqrt(300))
    assert plan.humans_per_item == 3 and plan.source == "pilot"
    assert any(f"from a pilot of 300 items, 3 humans: swap difference {row['difference']:.4f}, "
               f"bootstrap SE {row['standard_error']:.4f}" in n for n in plan.notes)


def test_swap_test_result_protocol_and_bad_input():
    r = _three_humans_and_judges(seed=2)
    res = swap_test(r, ["good", "poor"], humans=["h1", "h2", "h3"], margin=0.05,
                    n_resamples=100, rng=0)
    assert float(res) == res.humans
    assert tuple(res.confidence_interval()) == (res.humans_low, res.humans_high)
    narrow = res.confidence_interval(0.5)  # the same replicates at another level
    assert res.humans_low <= narrow.low <= narrow.high <= res.humans_high
    d = res.to_dict()
    assert "bootstrap" not in d
    assert not any(k.startswith("_") for k in d)
    assert [row["candidate"] for row in d["swap"]] == ["good", "poor"]
    assert list(res.to_frame()["test"]) == ["swap", "swap", "join", "join"]
    assert "swap good" in res.summary() and "<table" in res._repr_html_()
    # the poor judge (errs 60% of the time) lowers agreement beyond any margin
    assert res.swap.loc["poor", "high"] < 0 and not res.swap.loc["poor", "non_inferior"]
    with pytest.raises(ValueError, match="not in the ratings"):
        swap_test(r, "gpt", n_resamples=10)
    with pytest.raises(ValueError, match="at least 2 humans"):
        swap_test(r, "good", humans=["h1"], n_resamples=10)
    with pytest.raises(ValueError, match="other than the candidates"):
        swap_test(r, "good", humans=["h1", "good"], n_resamples=10)
