"""The coefficients of rating scales: ICC (six forms), Lin's CCC and Kendall's W.

Reference values: Shrout & Fleiss's (1979) own table; pingouin's ``intraclass_corr``
(a test reference only); slow implementations written here from the definitions
(two-way ANOVA by loops, the CCC from its pairwise formula, W from Friedman's
statistic in scipy); interval coverage by simulation with ``binomtest``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import agreement as ag
import noise_models
from agreement import DegenerateDataWarning

FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
PINGOUIN_TYPE = {"ICC1": "ICC(1,1)", "ICC2": "ICC(A,1)", "ICC3": "ICC(C,1)",
                 "ICC1k": "ICC(1,k)", "ICC2k": "ICC(A,k)", "ICC3k": "ICC(C,k)"}


def _close(value, printed, decimals):
    # A printed value p with d decimals stands for the interval p ± 0.5·10^-d.
    return abs(value - printed) <= 0.5 * 10.0**-decimals + 1e-12


# ------------------------------------------------------------ Shrout & Fleiss (1979)
def test_shrout_fleiss_1979_table(test_data):
    # Shrout & Fleiss (1979), Psychological Bulletin 86:420, Table 4 (data) and the
    # values printed in its text/Table 5: .17, .29, .71, .44, .62, .91 (also R psych::ICC(sf)).
    x = pd.read_csv(test_data / "shrout_fleiss1979_table4.csv", index_col=0)
    assert x.shape == (6, 4)
    table = ag.icc(x).to_frame()
    printed = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62,
               "ICC3k": 0.91}
    for form, value in printed.items():
        assert _close(table.loc[form, "value"], value, 2), (form, table.loc[form, "value"])
    # The ANOVA of their Table 3: BMS 11.24, WMS 6.26, JMS 32.49, EMS 1.02 (2 decimals).
    res = ag.icc(x)
    assert _close(res.ms_items, 11.24, 2) and _close(res.ms_within, 6.26, 2)
    assert _close(res.ms_raters, 32.49, 2) and _close(res.ms_error, 1.02, 2)


# ------------------------------------------------------------------------ pingouin
def _pingouin(x: np.ndarray) -> pd.DataFrame:
    pg = pytest.importorskip("pingouin")
    long = pd.DataFrame(x).rename_axis("item").reset_index().melt(
        id_vars="item", var_name="rater", value_name="score")
    saved = dict(pg.options)
    pg.options["round.column.CI95"] = None  # pingouin prints its intervals to 2 decimals
    try:
        with warnings.catch_warnings():  # pingouin's own use of pandas deprecations
            warnings.simplefilter("ignore")
            out = pg.intraclass_corr(long, "item", "rater", "score", nan_policy="omit")
    finally:
        pg.options.clear()
        pg.options.update(saved)
    return out.set_index("Type")


@pytest.mark.parametrize("seed, n, k, missing", [(0, 30, 4, 0.0), (1, 12, 2, 0.0),
                                                  (2, 50, 6, 0.05), (3, 8, 3, 0.0),
                                                  (4, 200, 5, 0.02)])
def test_equals_pingouin(seed, n, k, missing):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1)) * 2 + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    x = np.round(x * 3) / 3 + 10
    if missing:
        x[rng.random(x.shape) < missing] = np.nan
    ref = _pingouin(x)
    res = ag.icc(x)
    table = res.to_frame()
    for form in FORMS:
        want = ref.loc[PINGOUIN_TYPE[form]]
        got = table.loc[form]
        assert got["value"] == pytest.approx(want["ICC"], abs=1e-6), form
        assert got["f_statistic"] == pytest.approx(want["F"], rel=1e-6), form
        assert got["df1"] == want["df1"] and got["df2"] == want["df2"], form
        assert got["p_value"] == pytest.approx(want["pval"], rel=1e-6, abs=1e-12), form
        low, high = want["CI95"]
        assert got["ci_low"] == pytest.approx(low, abs=1e-6), form
        assert got["ci_high"] == pytest.approx(high, abs=1e-6), form
    n_complete = int((~np.isnan(x).any(axis=1)).sum())
    assert res.n_items == n_complete and res.n_dropped == n - n_complete
    assert (res.notes != ()) == (n_complete < n)


# ------------------------------------------------------------- slow references
def _anova_reference(x):
    """Two-way ANOVA mean squares by loops over the cells (the textbook definitions)."""
    n, k = len(x), len(x[0])
    grand = sum(sum(row) for row in x) / (n * k)
    row_means = [sum(row) / k for row in x]
    col_means = [sum(x[i][j] for i in range(n)) / n for j in range(k)]
    ssr = k * sum((m - grand) ** 2 for m in row_means)
    ssc = n * sum((m - grand) ** 2 for m in col_means)
    sst = sum((x[i][j] - grand) ** 2 for i in range(n) for j in range(k))
    ssw = sum((x[i][j] - row_means[i]) ** 2 for i in range(n) for j in range(k))
    sse = sst - ssr - ssc
    return {"msr": ssr / (n - 1), "msc": ssc / (k - 1), "mse": sse / ((n - 1) * (k - 1)),
            "msw": ssw / (n * (k - 1)), "n": n, "k": k}


def _icc_reference(x, form):
    a = _anova_reference(x)
    msr, msc, mse, msw, n, k = a["msr"], a["msc"], a["mse"], a["msw"], a["n"], a["k"]
    return {"ICC1": (msr - msw) / (msr + (k - 1) * msw),
            "ICC2": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
            "ICC3": (msr - mse) / (msr + (k - 1) * mse),
            "ICC1k": (msr - msw) / msr,
            "ICC2k": (msr - mse) / (msr + (msc - mse) / n),
            "ICC3k": (msr - mse) / msr}[form]


def _ccc_reference(x):
    """The overall CCC from its pairwise form: Σ_{j<l} 2σ_jl / Σ_{j<l} (σ_j² + σ_l² + Δμ²)."""
    n, k = len(x), len(x[0])
    cols = [[x[i][j] for i in range(n)] for j in range(k)]
    mean = [sum(c) / n for c in cols]

    def cov(a, b):
        return sum((cols[a][i] - mean[a]) * (cols[b][i] - mean[b]) for i in range(n)) / n

    num = den = 0.0
    for j in range(k):
        for l_ in range(j + 1, k):
            num += 2 * cov(j, l_)
            den += cov(j, j) + cov(l_, l_) + (mean[j] - mean[l_]) ** 2
    return num / den


@pytest.mark.parametrize("seed", range(4))
def test_icc_and_ccc_equal_slow_references(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(3, 25), rng.integers(2, 6)
    x = rng.integers(1, 8, size=(n, k)).astype(float) + rng.normal(size=(n, 1))
    rows = x.tolist()
    table = ag.icc(x).to_frame()
    for form in FORMS:
        assert table.loc[form, "value"] == pytest.approx(_icc_reference(rows, form),
                                                         rel=1e-10, abs=1e-12)
    assert ag.lin_ccc(x).value == pytest.approx(_ccc_reference(rows), rel=1e-10)


def test_lin_ccc_two_raters_equals_lins_formula_and_descTools_se():
    # Lin (1989): ρ_c = 2 s_xy / (s_x² + s_y² + (x̄ − ȳ)²), moments with divisor n; the SE
    # of DescTools::CCC (Lin 1989 with the 2000 correction), written out here.
    rng = np.random.default_rng(5)
    a = rng.normal(10, 2, 40)
    b = 0.9 * a + rng.normal(1, 1, 40)
    res = ag.lin_ccc(np.column_stack([a, b]))
    n = a.size
    sx2, sy2 = a.var(), b.var()
    sxy = np.mean((a - a.mean()) * (b - b.mean()))
    p = 2 * sxy / (sx2 + sy2 + (a.mean() - b.mean()) ** 2)
    r = np.corrcoef(a, b)[0, 1]
    u = (b.mean() - a.mean()) / (sx2 * sy2) ** 0.25
    sep = math.sqrt(((1 - r**2) * p**2 * (1 - p**2) / r**2 + 2 * p**3 * (1 - p) * u**2 / r
                     - 0.5 * p**4 * u**4 / r**2) / (n - 2))
    t = math.atanh(p)
    q = stats.norm.ppf(0.975)
    assert res.value == pytest.approx(p, rel=1e-12)
    assert res.precision == pytest.approx(r, rel=1e-12)
    assert res.standard_error == pytest.approx(sep, rel=1e-10)
    assert res.ci_low == pytest.approx(math.tanh(t - q * sep / (1 - p**2)), rel=1e-10)
    assert res.ci_high == pytest.approx(math.tanh(t + q * sep / (1 - p**2)), rel=1e-10)
    assert res.interval_method == "lin"


def test_lin_ccc_se_at_zero_correlation_is_the_formulas_limit():
    # Uncorrelated annotators (r = 0, ρ_c = 0): Lin's terms divide ρ_c by r, whose ratio
    # is c = 2 σ_a σ_b / (σ_a² + σ_b² + (μ_a − μ_b)²), so var = c² / (n − 2) (found by
    # hypothesis: the formula as printed divided by zero); and next to r = 0 the printed
    # formula approaches that value.
    x = np.array([[1.0, 4.0], [1.0, 2.0], [2.0, 3.0]])
    res = ag.lin_ccc(x)
    a, b = x[:, 0], x[:, 1]
    c = 2 * math.sqrt(a.var() * b.var()) / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)
    assert res.value == pytest.approx(0.0, abs=1e-15)
    assert res.standard_error == pytest.approx(c / math.sqrt(3 - 2), rel=1e-12)
    near = ag.lin_ccc(np.array([[1.0, 4.0], [1.0, 2.0], [2.0, 3.0 + 1e-6]]))
    assert near.standard_error == pytest.approx(res.standard_error, rel=1e-4)


def test_an_icc_whose_denominator_cancels_is_undefined_at_every_scale():
    # ICC2k's msr + (msc − mse)/n is exactly 0 here; at a tenth of the scale rounding left
    # 1e-16 and the form read 1.6e16 (found by the invariance property test)
    x = np.array([[1.0, 6.0], [5.0, 2.0], [5.0, 6.0], [6.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        for z in (x, 0.1 * x, 1e6 * x + 3):
            values = ag.icc(z).to_frame()["value"]
            assert np.isnan(values["ICC2k"])
            np.testing.assert_allclose(values.drop("ICC2k"), [-0.5, -1.0, -0.6, -2.0, -3.0],
                                       rtol=1e-9)


def test_kendall_w_equals_friedman():
    # W = χ²_F / (m (n − 1)), χ²_F Friedman's tie-corrected statistic with items as
    # treatments and annotators as blocks (scipy.stats.friedmanchisquare).
    rng = np.random.default_rng(7)
    for _ in range(5):
        n, m = rng.integers(3, 12), rng.integers(2, 7)
        x = rng.integers(1, 5, size=(n, m)).astype(float)
        if np.all(x == x[0]):
            continue
        chi2, p = stats.friedmanchisquare(*x)
        res = ag.kendall_w(x)
        assert res.value == pytest.approx(chi2 / (m * (n - 1)), rel=1e-10)
        assert res.chi_square == pytest.approx(chi2, rel=1e-10)
        assert res.p_value == pytest.approx(p, rel=1e-8)
    for _ in range(3):  # without ties, the mean Spearman correlation over pairs
        n, m = rng.integers(3, 12), rng.integers(2, 7)
        x = np.argsort(rng.random((n, m)), axis=0).astype(float)
        res = ag.kendall_w(x)
        rho = [stats.spearmanr(x[:, a], x[:, b])[0] for a in range(m) for b in range(a + 1, m)]
        assert res.mean_spearman == pytest.approx(np.mean(rho), rel=1e-8, abs=1e-12)


def test_kendall_w_textbook_example():
    # A textbook worked example ("The Kendall coefficient of concordance W", ranking of
    # 10 projects by 4 judges A-D, no ties): rank sums 10, 8, 12, 16, 21, 22, 25, 31, 37,
    # 38, mean 22, Σ D² = 1048, so W = 12 · 1048 / (4² (10³ − 10)) = 0.794.
    ranks = np.array([[1, 2, 3, 4], [3, 1, 2, 2], [4, 4, 1, 3], [5, 5, 5, 1], [2, 6, 7, 6],
                      [8, 3, 4, 7], [6, 8, 6, 5], [7, 7, 8, 9], [10, 10, 9, 8],
                      [9, 9, 10, 10]], dtype=float)
    res = ag.kendall_w(ranks)
    assert _close(res.value, 0.794, 3)
    assert res.value == pytest.approx(12 * 1048 / (16 * 990), rel=1e-12)
    assert res.tie_correction == 0 and res.df == 9


# --------------------------------------------------------------------- properties
@st.composite
def _scale_data(draw):
    n = draw(st.integers(3, 12))
    k = draw(st.integers(2, 5))
    vals = draw(st.lists(st.integers(1, 7), min_size=n * k, max_size=n * k))
    x = np.array(vals, dtype=float).reshape(n, k)
    perm_i = draw(st.permutations(range(n)))
    perm_j = draw(st.permutations(range(k)))
    a = draw(st.floats(0.1, 10))
    b = draw(st.floats(-50, 50))
    return x, np.array(perm_i), np.array(perm_j), a, b


def _quiet(fn, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fn(x)


@given(_scale_data())
def test_invariances(data):
    x, pi, pj, a, b = data
    y = x[pi][:, pj]
    z = a * x + b
    for fn in (lambda v: _quiet(ag.icc, v).to_frame()["value"].to_numpy(),
               lambda v: np.array([_quiet(ag.lin_ccc, v).value]),
               lambda v: np.array([_quiet(ag.kendall_w, v).value])):
        base = fn(x)
        # permuting items and annotators changes nothing; nor does one affine change of
        # the scale for every annotator (a > 0)
        np.testing.assert_allclose(fn(y), base, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(fn(z), base, rtol=1e-6, atol=1e-8)


@given(_scale_data())
def test_kendall_w_invariant_under_increasing_transform_of_one_annotator(data):
    x, *_ = data
    y = x.copy()
    y[:, 0] = np.exp(y[:, 0])  # strictly increasing: the ranks do not change
    np.testing.assert_allclose(_quiet(ag.kendall_w, y).value, _quiet(ag.kendall_w, x).value,
                               rtol=1e-12, atol=1e-12)


def test_all_missing_annotator_and_incomplete_items():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20, 3)) + rng.normal(size=(20, 1))
    base = ag.icc(x).to_frame()["value"]
    with_empty = np.column_stack([x, np.full(20, np.nan)])
    res = ag.icc(with_empty)
    np.testing.assert_allclose(res.to_frame()["value"], base, rtol=1e-12)
    assert any("without a rating" in n for n in res.notes)
    gap = x.copy()
    gap[[2, 5], 1] = np.nan
    res = ag.icc(gap)
    np.testing.assert_allclose(res.to_frame()["value"],
                               ag.icc(np.delete(x, [2, 5], axis=0)).to_frame()["value"],
                               rtol=1e-12)
    assert res.n_dropped == 2 and "listwise" in res.notes[0]


def test_a_crowd_design_is_pointed_to_alpha_and_the_one_way_icc():
    # 12 items, each rated by 3 of 9 annotators: listwise deletion leaves no item, and the
    # advice to leave out annotators who rated few items cannot help; alpha can, and the
    # one-way ICC
    x = np.full((12, 9), np.nan)
    for i in range(12):
        x[i, [(i + d) % 9 for d in (0, 3, 6)]] = [1.0, 2.0, 2.0 + i % 3]
    for fn in (ag.lin_ccc, ag.kendall_w):
        with pytest.raises(ValueError, match=r"12 items have two or more ratings: .*"
                                             r"Krippendorff's alpha at the interval level"):
            fn(x)
    with pytest.raises(ValueError, match=r"form='ICC2' needs annotators crossed with items; "
                                         r"here each item has 3 ratings .* form='ICC1'"):
        ag.icc(x)
    x[0, 0] = np.nan  # unequal numbers of ratings: no one-way form either, alpha
    with pytest.raises(ValueError, match=r"Krippendorff's alpha at the interval level"):
        ag.icc(x, form="ICC1")
    with pytest.raises(ValueError, match=r"got 0\. Listwise deletion keeps only complete "
                                         r"items: leave out the annotators who rated few "
                                         r"items\.$"):
        ag.icc(np.where(np.eye(3, 2) == 1, 1.0, np.nan))  # no item rated twice: the plain advice


def _crowd(seed, n=60, k=4, pool=25):
    """Numbers on a scale, each item rated by k of ``pool`` annotators: (the wide matrix
    with NaN, the same ratings in a long frame with the rating's slot 0..k-1 in the
    item)."""
    g = np.random.default_rng(seed)
    x = np.full((n, pool), np.nan)
    rows = []
    for i in range(n):
        who = g.choice(pool, k, replace=False)
        true = g.normal()
        for s, j in enumerate(who):
            x[i, j] = round(true + g.normal(scale=0.8), 1)
            rows.append((i, s, j, x[i, j]))
    return x, pd.DataFrame(rows, columns=["item", "slot", "rater", "score"])


@pytest.mark.parametrize("seed", range(3))
def test_one_way_icc_on_a_crowd_design_equals_pingouin_on_the_items_ratings(seed):
    # Shrout & Fleiss's case 1: each item rated by k annotators of its own. pingouin (and
    # psych) need a complete items x raters table; the one-way forms do not read who rated,
    # so pingouin on the ratings numbered 1..k within each item is the reference
    x, long = _crowd(seed)
    ref = _pingouin(long.pivot(index="item", columns="slot", values="score").to_numpy())
    for form, name in (("ICC1", "ICC(1,1)"), ("ICC1k", "ICC(1,k)")):
        res = ag.icc(x, form=form)
        assert res.value == pytest.approx(ref.loc[name, "ICC"], rel=1e-10)
        assert res.f_statistic == pytest.approx(ref.loc[name, "F"], rel=1e-10)
        assert (res.df1, res.df2) == (ref.loc[name, "df1"], ref.loc[name, "df2"])
        np.testing.assert_allclose(res.confidence_interval(), ref.loc[name, "CI95"], rtol=1e-8)
        assert (res.n_items, res.n_raters) == (60, 4) and "annotators of its own" in res.notes[0]
    table = ag.icc(x, form="ICC1").to_frame()
    assert table.loc[["ICC2", "ICC3", "ICC2k", "ICC3k"], ["value", "f_statistic"]].isna().all(
        axis=None)
    # the bootstrap rows read the same ratings: their sums finalize to the same value
    st = ag.item_statistics(ag.Ratings.from_wide(x), "icc1")
    assert st.finalize(st.sums()).value == pytest.approx(ag.icc(x, form="ICC1").value,
                                                         rel=1e-12)


def test_ratings_and_labels_read_alike():
    x = np.array([[1, 2, 2], [3, 3, 4], [5, 4, 5], [2, 2, 1], [4, 5, 5]])
    r = ag.Ratings.from_wide(x)
    assert ag.icc(r).value == pytest.approx(ag.icc(x).value, rel=1e-12)
    assert ag.lin_ccc(r).value == pytest.approx(ag.lin_ccc(x).value, rel=1e-12)
    assert ag.kendall_w(r).value == pytest.approx(ag.kendall_w(x).value, rel=1e-12)


def test_confidence_interval_at_other_levels():
    x = np.random.default_rng(1).normal(size=(30, 4)) + np.random.default_rng(2).normal(
        size=(30, 1))
    for form in FORMS:
        res = ag.icc(x, form=form)
        assert res.confidence_interval() == (res.ci_low, res.ci_high)
        assert res.confidence_interval(0.95) == pytest.approx((res.ci_low, res.ci_high))
        lo90, hi90 = res.confidence_interval(0.9)
        lo99, hi99 = res.confidence_interval(0.99)
        assert lo99 < lo90 < res.value < hi90 < hi99
        assert ag.icc(x, form=form, confidence_level=0.9).confidence_interval() == \
            pytest.approx((lo90, hi90))
    res = ag.lin_ccc(x)
    assert res.interval_method == "jackknife"
    lo90, hi90 = res.confidence_interval(0.9)
    assert res.ci_low < lo90 < res.value < hi90 < res.ci_high


# ----------------------------------------------------------------- coverage
def _random_effects(rng, n, k, rho, rater_sd=0.0):
    """x_ij = μ + a_i + b_j + e_ij with var(a) = ρ, var(e) = 1 − ρ (var(b) = rater_sd²)."""
    a = rng.normal(0, math.sqrt(rho), size=(n, 1))
    b = rng.normal(0, rater_sd, size=(1, k))
    return 5 + a + b + rng.normal(0, math.sqrt(1 - rho), size=(n, k))


def _coverage(reps, seed):
    rng = np.random.default_rng(seed)
    n, k, rho = 25, 4, 0.6
    hits = dict.fromkeys(("ICC1", "ICC3", "ICC2", "ccc", "ccc3"), 0)
    for _ in range(reps):
        # one-way data (no rater effect): ICC1 and ICC3 both estimate ρ; the CCC too
        t1 = ag.icc(_random_effects(rng, n, k, rho)).to_frame()
        hits["ICC1"] += t1.loc["ICC1", "ci_low"] <= rho <= t1.loc["ICC1", "ci_high"]
        hits["ICC3"] += t1.loc["ICC3", "ci_low"] <= rho <= t1.loc["ICC3", "ci_high"]
        # two-way random effects: ICC2 = σ_a² / (σ_a² + σ_b² + σ_e²)
        sb = 0.5
        t2 = ag.icc(_random_effects(rng, n, k, rho, sb)).to_frame()
        true2 = rho / (1 + sb * sb)
        hits["ICC2"] += t2.loc["ICC2", "ci_low"] <= true2 <= t2.loc["ICC2", "ci_high"]
        c = ag.lin_ccc(_random_effects(rng, n, 2, rho))
        hits["ccc"] += c.ci_low <= rho <= c.ci_high
        c = ag.lin_ccc(_random_effects(rng, n, 3, rho))  # the jackknife interval
        hits["ccc3"] += c.ci_low <= rho <= c.ci_high
    return hits


def _check_coverage(hits, reps, alpha):
    for name, h in hits.items():
        p = stats.binomtest(int(h), reps, 0.95).pvalue
        # ICC1/ICC3 exact; ICC2 (Satterthwaite) and Lin's interval approximate
        assert p > alpha or h / reps > 0.95, (name, h / reps, p)


def test_interval_coverage_quick():
    reps = 150
    _check_coverage(_coverage(reps, 11), reps, 1e-3)


@pytest.mark.slow
def test_interval_coverage_full():
    reps = 1000
    _check_coverage(_coverage(reps, 12), reps, 1e-3)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("fn", [ag.icc, ag.lin_ccc, ag.kendall_w])
def test_bad_input(fn):
    with pytest.raises(ValueError, match="at least 2 annotators"):
        fn(np.array([[1.0], [2.0], [3.0]]))
    with pytest.raises(ValueError, match="at least 2 items"):
        fn(np.array([[1.0, 2.0, 3.0]]))
    with pytest.raises(ValueError, match="at least 2 items"):
        fn(np.array([[1.0, np.nan], [np.nan, 2.0], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="numeric ratings"):
        fn([["a", "b"], ["b", "b"], ["a", "a"]])
    with pytest.raises(ValueError, match="finite"):
        fn(np.array([[1.0, np.inf], [2.0, 2.0]]))
    with pytest.warns(DegenerateDataWarning, match="undefined"):
        res = fn(np.full((5, 3), 4.0))
    assert math.isnan(res.value) and any("undefined" in n for n in res.notes)


def test_bad_options():
    with pytest.raises(ValueError, match="`form` must be one of"):
        ag.icc([[1, 2], [2, 3]], form="icc2")
    with pytest.raises(ValueError, match="`confidence_level`"):
        ag.icc([[1, 2], [2, 3]], confidence_level=95)
    with pytest.raises(ValueError, match="`confidence_level`"):
        ag.lin_ccc([[1, 2], [2, 3]], confidence_level=1.5)


def test_inputs_not_mutated():
    x = np.array([[1.0, 2.0, np.nan], [2.0, 3.0, 3.0], [4.0, 4.0, 5.0], [1.0, 1.0, 2.0]])
    before = x.copy()
    ag.icc(x), ag.lin_ccc(x), ag.kendall_w(x)
    np.testing.assert_array_equal(x, before)


# ------------------------------------------------- per-item rows: bootstrap and swap test
def test_item_statistics_finalize_equals_the_functions():
    rng = np.random.default_rng(4)
    x = np.round(rng.normal(size=(40, 1)) + rng.normal(size=(40, 3)) + 4).clip(1, 7)
    x[3, 1] = np.nan  # listwise deletion is in the rows: a zero row
    table = ag.icc(x).to_frame()
    for name in ag.SCALE_STATISTICS:
        st = ag.item_statistics(x, name)
        got = st.finalize(st.sums()).value
        want = (ag.lin_ccc(x).value if name == "lin_ccc"
                else table.loc[ag.coefficient_info(name).chance, "value"])
        assert got == pytest.approx(want, rel=1e-10), name
        # a bootstrap draw is the coefficient of the drawn items
        mult = rng.multinomial(40, np.full(40, 1 / 40))
        drawn = np.repeat(x, mult, axis=0)
        want = (ag.lin_ccc(drawn).value if name == "lin_ccc"
                else ag.icc(drawn).to_frame().loc[ag.coefficient_info(name).chance, "value"])
        assert st.finalize(st.sums(mult)).value == pytest.approx(want, rel=1e-9), name


def test_item_statistics_refuse_labels_and_options():
    with pytest.raises(ValueError, match="numeric ratings"):
        ag.item_statistics([["a", "b"], ["b", "b"]], "icc2")
    with pytest.raises(ValueError, match="do not apply"):
        ag.item_statistics([[1, 2], [2, 2]], "icc2", level="interval")


def test_bootstrap_and_swap_test_take_scale_coefficients_by_name():

    rng = np.random.default_rng(8)
    truth = rng.normal(size=(120, 1))
    x = np.round(truth * 1.5 + rng.normal(size=(120, 4)) + 4).clip(1, 7)
    b = ag.bootstrap(["icc2", "lin_ccc"], x, n_resamples=300, rng=0)
    assert b.estimate[0] == pytest.approx(ag.icc(x).value, rel=1e-12)
    assert b.estimate[1] == pytest.approx(ag.lin_ccc(x).value, rel=1e-12)
    # the percentile interval and the exact F interval agree roughly on 120 items
    lo, hi = ag.icc(x).confidence_interval()
    assert abs(b.interval.low[0] - lo) < 0.05 and abs(b.interval.high[0] - hi) < 0.05
    r = ag.Ratings.from_wide(x, raters=["h1", "h2", "h3", "judge"])
    res = noise_models.swap_test(r, ["judge"], coefficient="icc2", level=None, n_resamples=100,
                               rng=0)
    assert res.humans == pytest.approx(ag.icc(x[:, :3]).value, rel=1e-12)
    swaps = [ag.icc(x[:, [a, b_, 3]]).value for a, b_ in ((1, 2), (0, 2), (0, 1))]
    assert res.swap.loc["judge", "with_candidate"] == pytest.approx(np.mean(swaps), rel=1e-12)
    assert res.join.loc["judge", "with_candidate"] == pytest.approx(ag.icc(x).value, rel=1e-12)


# ------------------------------------------------------------------- study size
def test_walter_closed_form_and_its_power():
    import simulation

    # Walter, Eliasziw & Donner (1998), eq. 7, by hand: ρ1 0.8, ρ0 0.6, k 2, one-sided 0.05,
    # power 0.8: θ0 1.5, θ1 4, C0 = 4/9, n = 1 + 2·2·(z_.95 + z_.8)² / (ln C0)² = 38.61 -> 39.
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    by_hand = 1 + 4 * z**2 / math.log(4 / 9) ** 2
    plan = simulation.study_size_for_power("icc1", expected=0.8, null=0.6, power=0.8,
                                           n_raters=2)
    assert plan.n_items == math.ceil(by_hand) == 39 and plan.method == "closed-form"
    assert plan.achieved_power == pytest.approx(0.80, abs=0.02)
    # the F test at that size, simulated from one-way random-effects data, has that power
    rng = np.random.default_rng(21)
    reps, rejected = 400, 0
    crit = stats.f.ppf(0.95, 38, 39) * (1 + 2 * 1.5)
    for _ in range(reps):
        x = _random_effects(rng, 39, 2, 0.8)
        res = ag.icc(x, form="ICC1")
        rejected += res.f_statistic > crit
    assert stats.binomtest(rejected, reps, plan.achieved_power).pvalue > 1e-3
    with pytest.raises(ValueError, match="closed form"):
        simulation.study_size_for_width("icc1", expected=0.8, target=0.1)


# ------------------------------------------------------------------------- CLI
def _cli(capsys, *argv):
    from goldnoise._cli import main

    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _scale_file(tmp_path):
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(80, 1)) * 1.2 + rng.normal(size=(80, 4)) * 0.8 + 3)
    frame = pd.DataFrame(x.clip(1, 5).astype(int), columns=["h1", "h2", "h3", "judge"])
    path = tmp_path / "scale.csv"
    frame.rename_axis("item").to_csv(path)
    return path, frame


def test_cli_audit_judge_and_study_take_scale_coefficients(tmp_path, capsys):
    path, frame = _scale_file(tmp_path)
    status, out, err = _cli(capsys, "audit", path, "--layout", "wide", "--item", "item",
                            "--no-latent", "--coefficients", "icc2", "kendall_w")
    assert status == 0, err
    assert f"{ag.icc(frame.to_numpy()).value:.4f}" in out and "Kendall's W" in out
    # the audit shows a scale's rows when its level makes the numbers a scale
    status, out, err = _cli(capsys, "audit", path, "--layout", "wide", "--item", "item",
                            "--no-latent", "--level", "interval")
    assert status == 0, err
    assert "ICC(2,1)" in out and "Lin's concordance correlation" in out
    status, out, err = _cli(capsys, "audit", path, "--layout", "wide", "--item", "item",
                            "--no-latent")
    assert status == 0, err
    assert "ICC(2,1)" not in out  # nominal by default: numbers may be class codes
    status, out, err = _cli(capsys, "judge", path, "--layout", "wide", "--item", "item",
                            "--candidates", "judge", "--margin", "0.05", "--coefficient",
                            "icc2", "--resamples", "50", "--latent-resamples", "0")
    assert status == 0, err
    humans = ag.icc(frame[["h1", "h2", "h3"]].to_numpy()).value
    assert f"icc2 {humans:.3f}" in out and "ICC(2,1)" in out
    status, out, err = _cli(capsys, "study", "icc1", "--expected", "0.8", "--null", "0.6",
                            "--power", "0.8", "--raters", "2")
    assert status == 0, err
    assert "icc1: 39 items (closed-form)" in out
    status, out, err = _cli(capsys, "study", "icc1", "--expected", "0.8", "--half-width", "0.1")
    assert status != 0 and "Walter" in err and "Traceback" not in err


def test_nullable_integer_frame_reads_missing_as_missing():
    frame = pd.DataFrame({"a": pd.array([1, 2, 3, None, 5], dtype="Int64"),
                          "b": pd.array([1, 3, 3, 4, 4], dtype="Int64")})
    res = ag.icc(frame)
    want = ag.icc(np.array([[1, 1], [2, 3], [3, 3], [5, 4]], dtype=float))
    assert res.value == pytest.approx(want.value, rel=1e-12) and res.n_dropped == 1
