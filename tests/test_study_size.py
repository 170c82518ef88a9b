"""Planning an agreement study (SPEC §8): closed forms, the simulation design, the search."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import binomtest

import agreement
from simulation import (
    StudyPlan,
    simulate_study,
    study_size_for_minimum,
    study_size_for_power,
    study_size_for_width,
    study_tradeoff,
)
from simulation.study import _closed_form as cf
from simulation.study._design import Design

# ----------------------------------------------------------------------------- closed forms


def test_cantor_example_is_117():
    # Cantor (1996) / R irr N.cohen.kappa(0.5, 0.5, 0.85, 0.7, alpha=0.05, power=0.8):
    # the formula gives 116.35 (issue text); sizes round up.
    raw, info = cf.cantor_power_size(0.85, 0.7, 0.8, 0.05, np.array([0.5, 0.5]),
                                     np.array([0.5, 0.5]), "greater")
    assert raw == pytest.approx(116.35, abs=0.005)
    # Hand computation from the FCE variance: Q0 = 0.51, Q1 = 0.2775 at p_e = 0.5.
    assert info["Q0"] == pytest.approx(0.51, abs=1e-12)
    assert info["Q1"] == pytest.approx(0.2775, abs=1e-12)
    plan = study_size_for_power("cohen_kappa", expected=0.85, null=0.7, power=0.8,
                                category_shares=[0.5, 0.5], alternative="greater",
                                method="closed-form", n_sims=50, n_bootstrap_sims=0, rng=0)
    assert plan.n_items == 117 and plan.method == "closed-form"


@pytest.mark.parametrize("minimum, expected", [(0.8, 139), (0.667, 81)])
def test_bloch_kraemer_as_krippendorff_tabulates(minimum, expected):
    # Krippendorff (2004, §11.4.4) table: 4 equiprobable categories, p = 0.05:
    # alpha_min 0.800 -> 139, 0.667 -> 81 values; the ATLAS.ti manual's reading of his
    # table calls them "codings" (one coder's value for one unit), two coders each.
    plan = study_size_for_minimum(minimum, significance=0.05, n_categories=4)
    assert plan.n_ratings == expected
    assert plan.n_items == math.ceil(expected / 2)  # units, each coded by both coders
    assert plan.goal == "minimum" and "Bloch" in plan.formula


def _fce_reference(table):
    """Fleiss, Cohen & Everitt (1969) n·Var(κ̂), written from the published formula."""
    p = np.asarray(table, float)
    k = len(p)
    r, c = p.sum(1), p.sum(0)
    pe = sum(r[i] * c[i] for i in range(k))
    po = sum(p[i][i] for i in range(k))
    kap = (po - pe) / (1 - pe)
    a = sum(p[i][i] * (1 - (r[i] + c[i]) * (1 - kap)) ** 2 for i in range(k))
    b = (1 - kap) ** 2 * sum(p[i][j] * (c[i] + r[j]) ** 2
                             for i in range(k) for j in range(k) if i != j)
    return (a + b - (kap - pe * (1 - kap)) ** 2) / (1 - pe) ** 2


@pytest.mark.parametrize("kappa, a1, b1", [(0.6, 0.7, 0.6), (0.4, 0.5, 0.5), (0.8, 0.3, 0.35),
                                           (0.2, 0.9, 0.85), (0.0, 0.5, 0.6)])
def test_fce_variance_equals_agreement_cohen_se(kappa, a1, b1):
    # Independent implementation: agreement.cohen_kappa's FCE standard error on a large
    # table with the same cell shares gives n·SE² = Q.
    table = cf.cohen_table(kappa, np.array([a1, 1 - a1]), np.array([b1, 1 - b1]))
    assert table.sum() == pytest.approx(1.0)
    assert table.sum(axis=1) == pytest.approx([a1, 1 - a1])
    n = 1_000_000
    counts = np.round(table * n).astype(int)
    res = agreement.cohen_kappa(agreement.Ratings.from_contingency(counts))
    assert res.value == pytest.approx(kappa, abs=2e-5)
    q = cf.fce_unit_variance(table)
    assert q == pytest.approx(_fce_reference(table), rel=1e-12)
    assert res.standard_error**2 * counts.sum() == pytest.approx(q, rel=1e-4)


@pytest.mark.parametrize("rate1, rate2, k1, k0, power, sided", [
    (0.5, 0.5, 0.85, 0.7, 0.8, "greater"), (0.3, 0.3, 0.6, 0.4, 0.9, "greater"),
    (0.7, 0.6, 0.5, 0.2, 0.8, "two-sided"), (0.2, 0.25, 0.7, 0.5, 0.8, "greater")])
def test_cantor_grid_from_the_published_formula(rate1, rate2, k1, k0, power, sided):
    # Cantor (1996): n = [(z_{1-a} sqrt(Q0) + z_{1-b} sqrt(Q1)) / (k1 - k0)]^2, a halved
    # when two-sided; Q from the FCE variance (reference above, written independently).
    def table(k):
        pe = rate1 * rate2 + (1 - rate1) * (1 - rate2)
        po = k * (1 - pe) + pe
        p11 = (po - 1 + rate1 + rate2) / 2
        return [[p11, rate1 - p11], [rate2 - p11, 1 - rate1 - rate2 + p11]]

    a = 0.05 / 2 if sided == "two-sided" else 0.05
    want = ((ndtri(1 - a) * math.sqrt(_fce_reference(table(k0)))
             + ndtri(power) * math.sqrt(_fce_reference(table(k1)))) / (k1 - k0)) ** 2
    got, _ = cf.cantor_power_size(k1, k0, power, 0.05, np.array([rate1, 1 - rate1]),
                                  np.array([rate2, 1 - rate2]), sided)
    assert got == pytest.approx(want, rel=1e-12)
    plan = study_size_for_power("cohen_kappa", expected=k1, null=k0, power=power, alternative=sided,
                                category_shares=[[rate1, 1 - rate1], [rate2, 1 - rate2]],
                                method="closed-form", n_sims=20, n_bootstrap_sims=0, rng=1)
    assert plan.n_items == math.ceil(want - 1e-9)


def test_closed_form_width_and_simulation_agree_for_cohen():
    # The asymptotic half-width formula and the simulated mean half-width at its n.
    plan = study_size_for_width("cohen_kappa", expected=0.6, target=0.1, method="closed-form",
                                n_sims=400, n_bootstrap_sims=0, rng=3)
    row = plan.table[(plan.table.n_items == plan.n_items)].iloc[0]
    assert row.mean_half_width == pytest.approx(0.1, rel=0.06)


# ----------------------------------------------------------------------------- the design


@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "conger_kappa", "light_kappa",
                                         "krippendorff_alpha", "gwet_ac1", "brennan_prediger",
                                         "percent_agreement"])
def test_design_population_value(coefficient):
    # A large simulated study has the coefficient's value near the planned one.
    design = Design(coefficient, 4, np.array([0.5, 0.3, 0.2]), 0.0, 7)
    labels = design.draw(0, 60_000, 0.55)
    res = getattr(agreement, coefficient)(agreement.Ratings.from_wide(labels))
    assert res.value == pytest.approx(0.55, abs=4 * res.standard_error + 1e-3)


def test_design_interval_alpha_population_value():
    design = Design("krippendorff_alpha", 3, np.full(5, 0.2), 0.0, 2, level="interval")
    labels = design.draw(0, 60_000, 0.7)
    res = agreement.krippendorff_alpha(agreement.Ratings.from_wide(labels), level="interval")
    assert res.value == pytest.approx(0.7, abs=4 * res.standard_error + 1e-3)


def test_draws_are_common_random_numbers():
    # The first n items of a larger draw are the draw at size n (sizes share draws).
    design = Design("fleiss_kappa", 3, np.full(3, 1 / 3), 0.2, 11)
    big, small = design.draw(4, 500, 0.5), design.draw(4, 120, 0.5)
    np.testing.assert_array_equal(big[:120], small)
    assert not np.array_equal(design.draw(5, 120, 0.5), small)


def test_missing_share():
    design = Design("fleiss_kappa", 5, np.full(4, 0.25), 0.2, 0)
    labels = design.draw(0, 20_000, 0.5)
    assert np.isnan(labels).mean() == pytest.approx(0.2, abs=0.005)


# ----------------------------------------------------------------------------- the search


def test_simulation_plan_width_is_the_smallest_n_meeting_it():
    plan = study_size_for_width("fleiss_kappa", expected=0.6, target=0.1, n_raters=5,
                                n_categories=4, n_sims=200, n_bootstrap_sims=0, rng=0)
    assert plan.method == "simulation"
    search = plan.table[plan.table.stage == "search"].set_index("n_items")
    assert search.loc[plan.n_items, "mean_half_width"] <= 0.1
    below = search[search.index < plan.n_items]
    assert len(below) and below.iloc[-1]["mean_half_width"] > 0.1
    assert plan.n_items - below.index.max() <= max(1, int(0.005 * plan.n_items))


def test_simulation_plan_power():
    plan = study_size_for_power("fleiss_kappa", expected=0.6, null=0.4, power=0.8, n_raters=3,
                                n_categories=3, missing=0.1, n_sims=200, n_bootstrap_sims=0,
                                rng=2)
    assert plan.achieved_power >= 0.8
    # An independent check at the planned size with other seeds: power close to 0.8.
    t = simulate_study("fleiss_kappa", n_items=plan.n_items, expected=0.6, null=0.4,
                       n_raters=3, n_categories=3, missing=0.1, bootstrap=False, n_sims=600,
                       rng=99)
    assert 0.72 <= t.loc[0, "power"] <= 0.9


def test_plan_is_reproducible_and_prints():
    kw = dict(expected=0.7, target=0.15, n_raters=3, n_sims=100, n_bootstrap_sims=20,
              n_resamples=99)
    a = study_size_for_width("gwet_ac1", rng=5, **kw)
    b = study_size_for_width("gwet_ac1", rng=5, **kw)
    assert a.n_items == b.n_items
    assert a.table.equals(b.table)
    assert isinstance(a, StudyPlan) and float(a) == a.n_items
    d = a.to_dict()
    json.dumps(d)
    assert d["n_items"] == a.n_items and len(d["table"]) == len(a.table)
    assert "gwet_ac1" in a.summary() and a.recommended_interval in ("analytic", "percentile",
                                                                    "bca")
    assert "<table" in a._repr_html_()
    assert set(a.to_frame().interval) == {"analytic", "percentile", "bca"}


def test_pilot_sets_the_design_and_a_range():
    design = Design("fleiss_kappa", 4, np.array([0.6, 0.4]), 0.0, 3)
    pilot = design.draw(0, 60, 0.5)
    plan = study_size_for_width("fleiss_kappa", target=0.12, pilot=pilot, n_sims=100,
                                n_bootstrap_sims=0, rng=0)
    res = agreement.fleiss_kappa(pilot)
    assert plan.expected == pytest.approx(res.value)
    assert plan.n_raters == 4
    assert plan.n_range is not None and plan.n_range[0] <= plan.n_range[1]
    assert any("pilot" in n for n in plan.notes)


def test_tradeoff_more_raters_fewer_items():
    t = study_tradeoff("fleiss_kappa", expected=0.5, target=0.12, raters=[2, 3, 6],
                       cost_per_rating=1.0, cost_per_item=5.0, n_sims=100, n_bootstrap_sims=0,
                       rng=0)
    items = t.table.set_index("n_raters")["n_items"]
    assert items[2] > items[3] > items[6]
    assert t.cost == t.table["cost"].min()
    assert (t.table["cost"] == t.table["n_items"] * 5.0 + t.table["n_ratings"]).all()


# ----------------------------------------------------------------------------- coverage


def test_gwet_small_sample_cell():
    # Gwet (2016, Educ. Psychol. Meas. 76(4), Table 1): q = 2, prevalence 0.75, agreement
    # for cause 0.85, n = 10: 95% intervals cover 0.521 (Cohen), 0.547 (Brennan-Prediger),
    # 0.555 (AC1). Our analytic intervals in his design, within simulation error (2,000
    # studies here, an unknown number there: 4 binomial SEs of 2,000 draws).
    design = Design("brennan_prediger", 2, np.array([0.75, 0.25]), 0.0, 0, "uniform")
    assert design.easy_share(0.85) == pytest.approx(0.85)
    for coefficient, published in (("brennan_prediger", 0.547), ("gwet_ac1", 0.555),
                                   ("cohen_kappa", 0.521)):
        lam_design = Design(coefficient, 2, np.array([0.75, 0.25]), 0.0, 0, "uniform")
        value = lam_design.value_at(0.85)
        t = simulate_study(coefficient, n_items=10, expected=value,
                           category_shares=[0.75, 0.25], chance="uniform", bootstrap=False,
                           n_sims=2000, rng=17)
        assert t.loc[0, "coverage"] == pytest.approx(published, abs=0.045), coefficient


@pytest.mark.parametrize("n_check", [pytest.param(4000, marks=pytest.mark.slow), 1000])
@pytest.mark.parametrize("coefficient, kw", [
    ("cohen_kappa", dict(expected=0.6, target=0.1)),
    ("fleiss_kappa", dict(expected=0.6, target=0.08, n_raters=5, n_categories=4,
                          missing=0.2)),
    ("krippendorff_alpha", dict(expected=0.7, target=0.08, n_raters=3, n_categories=5,
                                level="interval")),
])
def test_planned_size_covers(coefficient, kw, n_check):
    # At the planned n the recommended interval covers within ±1.5 points of nominal over
    # 4,000 fresh studies (other seeds than the plan's); the default run checks 1,000
    # (±3 points, 4.3 binomial SDs) with the same binomial test.
    plan = study_size_for_width(coefficient, n_sims=300, n_bootstrap_sims=0, rng=4,
                                method="simulation", **kw)
    design_kw = {k: v for k, v in kw.items() if k not in ("target",)}
    t = simulate_study(coefficient, n_items=plan.n_items, bootstrap=False, n_sims=n_check,
                       rng=123, **design_kw)
    covered = round(t.loc[0, "coverage"] * n_check)
    assert abs(covered / n_check - 0.95) <= (0.015 if n_check >= 4000 else 0.03)
    assert binomtest(covered, n_check, 0.95).pvalue > 1e-3


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(expected=0.6, target=0.0), ValueError, "`target` must be in"),
    (dict(expected=0.6, target=-0.1), ValueError, "`target` must be in"),
    (dict(expected=1.5, target=0.1), ValueError, "`expected` must be in"),
    (dict(expected=0.6, target=0.1, category_shares=[0.5, 0.4]), ValueError, "sum to 1"),
    (dict(expected=0.6, target=0.1, method="exact"), ValueError, "`method` must be one of"),
    (dict(expected=0.6, target=0.1, confidence_level=95), ValueError, "confidence_level"),
    (dict(expected=0.3, null=0.5, power=0.8), ValueError, "must be above `null`"),
    (dict(expected=0.6, null=0.4, power=1.0), ValueError, "`power` must be in"),
    (dict(target=0.1), TypeError, "`expected`"),
    (dict(expected=0.6, target=0.1, n_raters=3), ValueError, "two raters"),
    (dict(expected=0.6, target=0.1, missing=1.0), ValueError, "`missing`"),
    (dict(expected=0.6, target=0.1, level="interval"), ValueError, "`level` applies"),
])
def test_bad_input(kwargs, error, match):
    entry = study_size_for_width if "target" in kwargs else study_size_for_power
    with pytest.raises(error, match=match):
        entry("cohen_kappa", n_sims=20, n_bootstrap_sims=0, **kwargs)


def test_bad_input_other():
    with pytest.raises(ValueError, match="`coefficient` must be one of"):
        study_size_for_width("kappa", expected=0.5, target=0.1)
    with pytest.raises(ValueError, match="no closed form"):
        study_size_for_width("fleiss_kappa", expected=0.5, target=0.1, method="closed-form")
    with pytest.raises(ValueError, match="not reachable"):
        study_size_for_width("cohen_kappa", expected=0.95, target=0.1,
                             category_shares=[[0.9, 0.1], [0.5, 0.5]])
    with pytest.raises(ValueError, match="outside what raters"):
        study_size_for_width("percent_agreement", expected=0.2, target=0.1, n_categories=2)
    with pytest.raises(ValueError, match="max_items"):
        study_size_for_width("fleiss_kappa", expected=0.5, target=0.01, max_items=40,
                             n_sims=20, n_bootstrap_sims=0, rng=0)
    with pytest.raises(ValueError, match="two raters only"):
        study_tradeoff("cohen_kappa", expected=0.5, target=0.1)


# ----------------------------------------------------------------------------- the command


def _run(capsys, *argv):
    from goldnoise._cli import main

    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_closed_forms(capsys):
    status, out, _ = _run(capsys, "study", "krippendorff_alpha", "--minimum", "0.8",
                          "--categories", "4")
    # one unit, Krippendorff's: his table's 139 are values (codings), 70 units of two
    # coders -- not "139 values" beside "about 278 ratings" (twice his size)
    assert status == 0 and "139 values, 70 units" in out and "(2 coders per unit)" in out
    assert "278" not in out and "ratings" not in out
    status, out, _ = _run(capsys, "study", "cohen_kappa", "--expected", "0.85", "--null", "0.7",
                          "--power", "0.8", "--sims", "50", "--bootstrap-sims", "0",
                          "--format", "json")
    report = json.loads(out)
    assert status == 0 and report["sections"]["plan"]["values"]["n_items"] == 117


def test_cli_plan_section_is_the_plans_summary(capsys):
    # One wording: `goldnoise study` prints the plan's summary() (notes as the section's
    # notes), with the command's options in place of Python's parameters.
    status, out, _ = _run(capsys, "study", "fleiss_kappa", "--expected", "0.6",
                          "--half-width", "0.15", "--sims", "50", "--bootstrap-sims", "0")
    plan = study_size_for_width("fleiss_kappa", expected=0.6, target=0.15, n_sims=50,
                                n_bootstrap_sims=0, rng=0)
    lines = plan.summary().splitlines()
    assert status == 0 and lines[0].startswith("fleiss_kappa: ")
    printed = out.splitlines()
    start = printed.index("  " + lines[0])
    shown = [line.replace("`assurance`", "--assurance") for line in lines]
    assert printed[start:start + len(lines)] == ["  " + line.strip() for line in shown]
    assert "set --assurance" in out


def test_cli_pilot_and_tradeoff(capsys):
    status, out, _ = _run(capsys, "study", "fleiss_kappa", "--example", "fleiss1971",
                          "--half-width", "0.15", "--sims", "50", "--bootstrap-sims", "0",
                          "--tradeoff", "3", "6")
    assert status == 0
    assert "pilot" in out and "cheapest:" in out


@pytest.mark.parametrize("argv, match", [
    (["fleiss_kappa", "--expected", "0.6"], "exactly one goal"),
    (["fleiss_kappa", "--expected", "0.6", "--half-width", "0.1", "--power", "0.8"],
     "exactly one goal"),
    (["fleiss_kappa", "--expected", "0.6", "--null", "0.3"], "go together"),
    (["fleiss_kappa", "--half-width", "0.1"], "give --expected"),
    (["cohen_kappa", "--expected", "0.6", "--half-width", "0.1", "--raters", "3"],
     "--raters 3"),
    (["fleiss_kappa", "--expected", "0.6", "--half-width", "0.1", "--shares", "0.5", "0.4"],
     "--shares must sum to 1"),
    (["fleiss_kappa", "--expected", "0.6", "--half-width", "0.1", "--method", "closed-form"],
     "--method simulation"),
    (["fleiss_kappa", "--expected", "0.5", "--null", "0.7", "--power", "0.8"],
     "--alternative greater"),
])
def test_cli_bad_input_one_line(capsys, argv, match):
    status, _out, err = _run(capsys, "study", *argv)
    assert status == 2
    assert match in err and len(err.strip().splitlines()) == 1
    assert "`" not in err.split("error:", 1)[1].replace("`cohen_kappa`", "").replace(
        "`fleiss_kappa`", "").replace("`conger_kappa`", "")


def _flack_max_tau(mrg, kappa):
    """R irr 0.84.1 `N2.cohen.kappa`'s MaxTau (Flack, Afifi, Lachenbruch & Schouten 1988),
    ported line by line: the largest Fleiss-Cohen-Everitt SE of kappa over every agreement
    table with marginals `mrg` (both raters) and the given kappa, by linear programming."""
    from scipy.optimize import linprog

    mrg = np.asarray(mrg, float)
    d = len(mrg)
    pie = float((mrg ** 2).sum())
    pi0 = kappa + pie * (1 - kappa)
    part1 = pi0 * (1 - pie) ** 2
    part3 = (pi0 * pie - 2 * pie + pi0) ** 2
    m = np.array([[-(1 - pi0) * 2 * mrg[i] * (2 * (1 - pie) - (1 - pi0) * 2 * mrg[i]) if i == j
                   else (1 - pi0) ** 2 * (mrg[i] + mrg[j]) ** 2 for j in range(d)]
                  for i in range(d)])
    rows = [np.kron(np.eye(d)[i], np.ones(d)) for i in range(d)]
    cols = [np.kron(np.ones(d), np.eye(d)[j]) for j in range(d)]
    a_eq = np.array(rows + cols + [np.ones(d * d), np.eye(d).ravel()])
    b_eq = np.r_[mrg, mrg, 1.0, pi0]
    part2 = -linprog(-m.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * d * d).fun
    return math.sqrt(part1 + part2 - part3) / (1 - pie) ** 2


@pytest.mark.parametrize("mrg, k1, k0", [([0.5, 0.5], 0.85, 0.7), ([0.3, 0.7], 0.6, 0.4),
                                         ([0.2, 0.8], 0.8, 0.5)])
def test_two_categories_match_flack_et_al(mrg, k1, k0):
    """With two categories the agreement table is fixed by the marginals and kappa, so
    Flack et al.'s worst case over tables (irr's N2.cohen.kappa) is Cantor's size: equal.
    (With more categories N2.cohen.kappa maximises over tables and goldnoise simulates the
    easy/hard model's table: the README names that difference.)"""
    from scipy.stats import norm

    t0, t1 = _flack_max_tau(mrg, k0), _flack_max_tau(mrg, k1)
    flack = math.ceil(((norm.ppf(0.95) * t0 + norm.ppf(0.8) * t1) / (k0 - k1)) ** 2)
    plan = study_size_for_power("cohen_kappa", expected=k1, null=k0, power=0.8, category_shares=mrg,
                                method="closed-form", n_sims=10, n_bootstrap_sims=0, rng=0)
    assert plan.n_items == flack


# ----------------------------------------------------------------------------- one entry per goal


def test_entries_per_goal_errors():
    with pytest.raises(ValueError, match="`target` must be in"):
        study_size_for_width("fleiss_kappa", expected=0.6, target=0.0)
    with pytest.raises(ValueError, match="must be above `null`"):
        study_size_for_power("fleiss_kappa", expected=0.5, null=0.7, power=0.8)
    with pytest.raises(TypeError, match="target"):
        study_size_for_width("fleiss_kappa", expected=0.6)
    with pytest.raises(TypeError, match="power"):
        study_size_for_power("fleiss_kappa", expected=0.6, null=0.3)
