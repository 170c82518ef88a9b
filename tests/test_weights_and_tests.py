"""Gwet's named weights, non-symmetric Cohen weights, tests against a null value,
per-category κ and clipped intervals (reference values name their source)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import agreement as ag
from agreement import Ratings, category_kappas, named_weights

ALL = ("percent_agreement", "fleiss_kappa", "scott_pi", "cohen_kappa", "conger_kappa",
       "light_kappa", "brennan_prediger", "gwet_ac1")


# --------------------------------------------------------------- named weights
def test_named_weights_match_irrcac_formulas_on_1_to_3():
    # irrCAC vignette "Weighted Chance-corrected Agreement Coefficients": the
    # *.weights(1:3) matrices (R/weights.gen.r), written out by hand.
    h = 1 - 1 / np.sqrt(2)
    expected = {
        "identity": np.eye(3),
        "linear": [[1, .5, 0], [.5, 1, .5], [0, .5, 1]],
        "quadratic": [[1, .75, 0], [.75, 1, .75], [0, .75, 1]],
        "ordinal": [[1, 2 / 3, 0], [2 / 3, 1, 2 / 3], [0, 2 / 3, 1]],
        "radical": [[1, h, 0], [h, 1, h], [0, h, 1]],
        # ratio: 1 − ((k−l)/(k+l))² / ((3−1)/(3+1))²
        "ratio": [[1, 1 - (1 / 3) ** 2 / .25, 0], [1 - (1 / 3) ** 2 / .25, 1, 1 - (1 / 5) ** 2 / .25],
                  [0, 1 - (1 / 5) ** 2 / .25, 1]],
        # circular: sin²(π(k−l)/3) is 3/4 for every off-diagonal pair → all 0
        "circular": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        # bipolar: (k−l)²/((k+l−2)(6−k−l)): (1,2) 1/3, (1,3) 4/4, (2,3) 1/3
        "bipolar": [[1, 2 / 3, 0], [2 / 3, 1, 2 / 3], [0, 2 / 3, 1]],
    }
    for name, w in expected.items():
        np.testing.assert_allclose(named_weights(name, [1, 2, 3]), w, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", ag._weights.WEIGHT_NAMES)
def test_named_weights_are_valid_agreement_weights(name):
    w = named_weights(name, [0.0, 1.0, 2.5, 4.0, 7.0])
    assert np.allclose(np.diag(w), 1) and np.allclose(w, w.T)
    assert w.min() >= -1e-12 and w.max() <= 1 + 1e-12


def test_ordinal_weights_use_ranks_only():
    assert np.allclose(named_weights("ordinal", [1, 2, 10]), named_weights("ordinal", [1, 2, 3]))


def test_ratio_weights_refuse_negative_values():
    with pytest.raises(ValueError, match="`weights='ratio'` needs non-negative"):
        ag.fleiss_kappa([[-1, 1], [1, 1]], weights="ratio")


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("weights", ["ordinal", "radical", "ratio", "circular", "bipolar"])
def test_every_coefficient_takes_every_named_weighting(name, weights):
    data = [[1, 2, 2], [3, 3, 2], [1, 1, 1], [2, 3, 3], [1, 2, 1]]
    if name in ("cohen_kappa", "scott_pi"):
        data = [row[:2] for row in data]
    fn = getattr(ag, name)
    res = fn(data, weights=weights)
    r = Ratings.from_wide(data)
    same = fn(data, weights=named_weights(weights, r.category_values))
    assert res.value == pytest.approx(same.value, abs=1e-14)
    assert res.weights == weights
    assert any(f"{weights} weights over the category values 1=1, 2=2, 3=3" in n
               for n in res.notes)


def test_identity_weights_are_unweighted():
    data = [[1, 2, 2], [3, 3, 2], [1, 1, 1]]
    assert ag.fleiss_kappa(data, weights="identity").value == ag.fleiss_kappa(data).value


def test_gwet_irrcac_quadratic_fleiss_raw4raters(test_data):
    # irrCAC vignette "Weighted Chance-corrected Agreement Coefficients":
    # fleiss.kappa.raw(cac.raw4raters, weights="quadratic") 0.86494 (already pinned with
    # "quadratic"); the same with the matrix from named_weights.
    data = pd.read_csv(test_data / "krippendorff2011_C_variant_irr_nltk_gwet.csv",
                       index_col=0).T
    r = Ratings.from_wide(data)
    res = ag.fleiss_kappa(r, weights=named_weights("quadratic", r.category_values))
    assert res.value == pytest.approx(0.86494, abs=5e-6)


# ------------------------------------------------------- non-symmetric weights
def _cohen_reference(x, y, w, m):
    """Cohen (1968): κ_w = (Σ w_ab p_ab − Σ w_ab p_a· p_·b) / (1 − Σ w_ab p_a· p_·b)."""
    p = np.zeros((m, m))
    for a, b in zip(x, y, strict=True):
        p[a, b] += 1
    p /= p.sum()
    po = (w * p).sum()
    pe = (w * np.outer(p.sum(1), p.sum(0))).sum()
    return (po - pe) / (1 - pe)


def test_cohen_non_symmetric_weights_match_definition():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, 200)
    y = np.where(rng.random(200) < 0.6, x, rng.integers(0, 3, 200))
    w = np.array([[1, .2, .5], [.7, 1, 0], [0, .9, 1]])
    res = ag.cohen_kappa(np.column_stack([x, y]), weights=w)
    assert res.value == pytest.approx(_cohen_reference(x, y, w, 3), abs=1e-12)
    # Swapping the annotators is the same as transposing the weights.
    swapped = ag.cohen_kappa(np.column_stack([y, x]), weights=w.T)
    assert swapped.value == pytest.approx(res.value, abs=1e-12)
    assert swapped.standard_error == pytest.approx(res.standard_error, abs=1e-12)
    assert any("non-symmetric weights" in n for n in res.notes)


def test_cohen_non_symmetric_path_agrees_with_symmetric_path():
    # The non-symmetric code path with a symmetric matrix nudged by 1e-9 gives the
    # FCE result of the symmetric path (SAS PROC FREQ example, linear weights).
    r = Ratings.from_contingency([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    sym = ag.cohen_kappa(r, weights="linear")
    w = named_weights("linear", r.category_values).copy()
    w[0, 1] -= 1e-9
    asym = ag.cohen_kappa(r, weights=w)
    assert asym.value == pytest.approx(sym.value, abs=1e-8)
    assert asym.standard_error == pytest.approx(sym.standard_error, abs=1e-8)
    assert asym.null_standard_error == pytest.approx(sym.null_standard_error, abs=1e-8)


def test_cohen_1968_symmetric_disagreement_weights(test_data):
    # Cohen (1968), Psychological Bulletin 70:213: weighted κ .348 with disagreement
    # weights v = (0,1,3; 1,0,6; 3,6,0), i.e. agreement weights 1 − v/6.
    p = np.loadtxt(test_data / "cohen1968_proportions_3x3.csv", delimiter=",", skiprows=1)
    r = Ratings.from_contingency(np.round(p * 200))
    v = np.array([[0, 1, 3], [1, 0, 6], [3, 6, 0]])
    assert ag.cohen_kappa(r, weights=1 - v / 6).value == pytest.approx(0.348, abs=5e-4)


def test_cohen_1968_non_symmetric_weights(test_data):
    # Cohen (1968): weighted κ .353 with the non-symmetric disagreement weights
    # v = (0,1,4; 1,0,6; 2,2,0) (rows: the first judge), as R psych's cohen.kappa
    # example transcribes them ("Cohen reports kw = .353"). Agreement weights 1 − v/6.
    p = np.loadtxt(test_data / "cohen1968_proportions_3x3.csv", delimiter=",", skiprows=1)
    r = Ratings.from_contingency(np.round(p * 200))
    v = np.array([[0, 1, 4], [1, 0, 6], [2, 2, 0]])
    res = ag.cohen_kappa(r, weights=1 - v / 6)
    assert res.value == pytest.approx(0.353, abs=5e-4)
    assert res.weights == "custom" and res.ci_method == "normal"
    # The orientation matters: transposed weights give another coefficient.
    assert ag.cohen_kappa(r, weights=1 - v.T / 6).value == pytest.approx(0.4206, abs=5e-5)


@pytest.mark.parametrize("name", [n for n in ALL if n != "cohen_kappa"])
def test_other_coefficients_refuse_non_symmetric_weights(name):
    w = np.array([[1, .2], [.5, 1]])
    with pytest.raises(ValueError, match=r"Only `cohen_kappa` .* accepts a non-symmetric"):
        getattr(ag, name)([[1, 2], [2, 2], [1, 1]], weights=w)


def test_cohen_non_symmetric_weights_need_complete_data():
    w = np.array([[1, .2], [.5, 1]])
    with pytest.raises(ValueError, match="needs every rated item rated by both"):
        ag.cohen_kappa([[1, 2], [2, 2], [1, np.nan]], weights=w)


# ------------------------------------------------------------------- tests
def test_cohen_null_ase_sas_table10(test_data):
    # SAS/STAT PROC FREQ documentation, agreement example (Table 10): simple kappa
    # ASE under H0 0.1484, Z 3.2626, two-sided Pr > |Z| 0.0011; weighted kappa
    # (Cicchetti-Allison = linear weights) 0.4701, ASE under H0 0.1426.
    t = pd.read_csv(test_data / "sas_cohen_kappa_3x3_table10.csv").to_numpy()
    r = Ratings.from_contingency(t)
    test = ag.cohen_kappa(r).test()
    assert test.standard_error == pytest.approx(0.1484, abs=5e-5)
    assert test.statistic == pytest.approx(3.2626, abs=5e-5)
    assert test.pvalue == pytest.approx(0.0011, abs=5e-5)
    assert test.method.startswith("Fleiss, Cohen & Everitt") and test.distribution == "normal"
    weighted = ag.cohen_kappa(r, weights="linear")
    assert weighted.value == pytest.approx(0.4701, abs=5e-5)
    assert weighted.test().standard_error == pytest.approx(0.1426, abs=5e-5)


def test_cohen_null_variance_matches_unweighted_closed_form():
    # Fleiss, Cohen & Everitt (1969): unweighted var₀ = [p_e + p_e² − Σ p_i· p_·i
    # (p_i· + p_·i)] / (n (1 − p_e)²).
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, 300)
    y = np.where(rng.random(300) < 0.5, x, rng.integers(0, 4, 300))
    res = ag.cohen_kappa(np.column_stack([x, y]))
    p1, p2 = np.bincount(x, minlength=4) / 300, np.bincount(y, minlength=4) / 300
    pe = p1 @ p2
    var0 = (pe + pe**2 - np.sum(p1 * p2 * (p1 + p2))) / (300 * (1 - pe) ** 2)
    assert res.null_standard_error == pytest.approx(math.sqrt(var0), rel=1e-12)
    assert res.value == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)


def test_fleiss_null_variance_fleiss_nee_landis(test_data):
    # Fleiss' κ of Fleiss (1971) 0.430; R irr kappam.fleiss(diagnoses) prints z = 17.7
    # (Fleiss, Nee & Landis 1979 variance under H0; pyirr's test_kappam_fleiss pins both).
    counts = pd.read_csv(test_data / "fleiss1971_diagnoses_counts.csv", index_col=0)
    res = ag.fleiss_kappa(Ratings.from_counts(counts))
    t = res.test()
    assert res.value == pytest.approx(0.430, abs=5e-4)
    assert t.statistic == pytest.approx(17.7, abs=0.05)
    assert t.method.startswith("Fleiss, Nee & Landis")


def test_wald_test_for_other_coefficients_and_nonzero_null():
    data = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [2, 2, 2], [1, 1, 1]]
    res = ag.gwet_ac1(data)
    t = res.test(0.2)
    assert t.method.startswith("Wald") and t.distribution == "t"
    assert t.statistic == pytest.approx((res.value - 0.2) / res.standard_error)
    from scipy import stats
    assert t.pvalue == pytest.approx(2 * stats.t.sf(abs(t.statistic), res.n_items - 1))
    assert res.test(0.2, alternative="greater").pvalue == pytest.approx(
        stats.t.sf(t.statistic, res.n_items - 1))
    # A non-zero null for Fleiss' κ uses the analytic SE, not the H0 one.
    fk = ag.fleiss_kappa(data)
    assert fk.test(0.1).standard_error == fk.standard_error


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"null": "0"}, TypeError, "`null` must be a number"),
    ({"null": math.inf}, ValueError, "`null` must be finite"),
    ({"alternative": "two_sided"}, ValueError, "`alternative` must be one of"),
])
def test_test_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        ag.fleiss_kappa([[1, 1], [1, 2], [2, 2]]).test(**kwargs)


# ------------------------------------------------------------ per-category κ
def test_category_kappas_fleiss_1971(test_data):
    # Fleiss (1971), per-diagnosis κ_j with var₀ = 2/(N n (n − 1)) (Fleiss, Nee &
    # Landis 1979), as R irr kappam.fleiss(diagnoses, detail = TRUE) prints them:
    # κ 0.245, 0.245, 0.520, 0.471, 0.566 (also pinned by pyirr's test_kappam_fleiss_detail);
    # z 5.192, 5.192, 11.031, 9.994, 12.009.
    counts = pd.read_csv(test_data / "fleiss1971_diagnoses_counts.csv", index_col=0)
    table = category_kappas(Ratings.from_counts(counts))
    assert list(table.columns) == ["category", "kappa", "standard_error", "z", "p_value"]
    assert list(table["category"]) == list(counts.columns)
    np.testing.assert_allclose(table["kappa"], [0.245, 0.245, 0.520, 0.471, 0.566], atol=5e-4)
    np.testing.assert_allclose(table["z"], [5.192, 5.192, 11.031, 9.994, 12.009], atol=5e-4)
    assert table["standard_error"].iloc[0] == pytest.approx(math.sqrt(2 / (30 * 6 * 5)))


def test_category_kappas_average_to_fleiss_kappa(test_data):
    raw = pd.read_csv(test_data / "fleiss1971_diagnoses_raw.csv", index_col=0)
    r = Ratings.from_wide(raw)
    table = category_kappas(r)
    p = r.counts.sum(axis=0) / r.counts.sum()
    pq = p * (1 - p)
    assert (pq @ table["kappa"]) / pq.sum() == pytest.approx(ag.fleiss_kappa(r).value, abs=1e-12)


def test_category_kappas_binary_equals_fleiss():
    data = [[1, 1, 2], [1, 2, 2], [2, 2, 2], [1, 1, 1], [1, 2, 1]]
    table = category_kappas(data)
    assert np.allclose(table["kappa"], ag.fleiss_kappa(data).value)


def test_category_kappas_unequal_ratings_warn():
    with pytest.warns(ag.DegenerateDataWarning, match="same number of ratings on every item"):
        table = category_kappas([[1, 1, 2], [1, 2, np.nan], [2, 2, 2]])
    assert table["standard_error"].isna().all() and table["kappa"].notna().all()


def test_category_kappas_refuse_no_pairs():
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        category_kappas([[1, np.nan], [np.nan, 2]])


# --------------------------------------------------------------- clipping
def test_percent_agreement_interval_clipped_krippendorff_c(test_data):
    # Krippendorff (2011) example C: the Wald t interval of percent agreement was
    # [0.54, 1.09]; it is clipped to [0, 1] and the result says so.
    data = pd.read_csv(test_data / "krippendorff2011_C_4coders_12units.csv", index_col=0).T
    res = ag.percent_agreement(data)
    low, high = res.confidence_interval()
    assert high == 1.0 and 0.5 < low < 0.6
    assert res.clipped() and not res.clipped(0.5)
    assert any("clipped to the range [0, 1]" in n for n in res.notes)
    assert res.value_range == (0.0, 1.0)


def _fleiss_null_se_reference(counts):
    """Fleiss, Nee & Landis (1979): var0(kappa) = 2 / (N n (n - 1)) [(sum p_j q_j)^2 -
    sum p_j q_j (q_j - p_j)] / (sum p_j q_j)^2, every item with n ratings (loops)."""
    rows = [list(map(float, row)) for row in counts]
    n_items, n = len(rows), sum(rows[0])
    m = len(rows[0])
    p = [sum(row[j] for row in rows) / (n_items * n) for j in range(m)]
    spq = sum(pj * (1 - pj) for pj in p)
    tail = sum(pj * (1 - pj) * ((1 - pj) - pj) for pj in p)
    return math.sqrt(2 / (n_items * n * (n - 1)) * (spq ** 2 - tail) / spq ** 2)


def _cohen_null_se_reference(x, y, w, m):
    """Fleiss, Cohen & Everitt (1969), as SAS prints "ASE under H0": var0(kappa_w) =
    [sum_ab p_a. p_.b (w_ab - (wbar_a. + wbar_.b))^2 - P_e^2] / (n (1 - P_e)^2) (loops)."""
    n = len(x)
    p1 = [sum(1 for v in x if v == a) / n for a in range(m)]
    p2 = [sum(1 for v in y if v == b) / n for b in range(m)]
    pe = sum(p1[a] * p2[b] * w[a][b] for a in range(m) for b in range(m))
    wa = [sum(p2[b] * w[a][b] for b in range(m)) for a in range(m)]
    wb = [sum(p1[a] * w[a][b] for a in range(m)) for b in range(m)]
    total = sum(p1[a] * p2[b] * (w[a][b] - (wa[a] + wb[b])) ** 2
                for a in range(m) for b in range(m))
    return math.sqrt((total - pe * pe) / (n * (1 - pe) ** 2))


def test_null_standard_errors_cost_nothing_until_asked():
    # Fleiss' SE under H0 needs a pass over the items: it is computed on first use only
    # (issue 16: it made every call 10x slower); Cohen's comes from the marginals the
    # kernel already summed. Both equal the published formulas' direct computation.
    import pickle

    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(500, 5))
    r = ag.Ratings.from_wide(x)
    res = ag.fleiss_kappa(r)
    assert callable(res._null_se)  # not computed yet
    want = _fleiss_null_se_reference(r.counts)
    assert res.test().standard_error == pytest.approx(want, rel=1e-12)
    assert res.null_standard_error == pytest.approx(want, rel=1e-12)
    assert not callable(res._null_se)  # cached
    fresh = ag.fleiss_kappa(r)
    again = pickle.loads(pickle.dumps(fresh))
    assert again.null_standard_error == pytest.approx(want, rel=1e-12)
    assert fresh.to_dict()["null_standard_error"] == pytest.approx(want, rel=1e-12)
    for weights in (None, "linear", "quadratic"):
        two = ag.Ratings.from_wide(x[:, :2])
        res = ag.cohen_kappa(two, weights=weights)
        w = ag.named_weights(weights or "identity", two.categories) if weights else \
            np.eye(two.n_categories)
        want = _cohen_null_se_reference(two.codes[:, 0].tolist(), two.codes[:, 1].tolist(),
                                        np.asarray(w).tolist(), two.n_categories)
        assert res.null_standard_error == pytest.approx(want, rel=1e-12)
