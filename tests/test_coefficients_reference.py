"""Published values and independent implementations of the agreement coefficients.

Each expected number names its source and is tested to its printed precision.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

import agreement as ag
from agreement import Ratings


def _coders_by_units(path) -> Ratings:
    frame = pd.read_csv(path, index_col=0)
    return Ratings.from_wide(frame.T)


def _close(value, printed, decimals):
    # A printed value p with d decimals stands for the interval p ± 0.5·10^-d.
    return abs(value - printed) <= 0.5 * 10.0**-decimals + 1e-12


# ---------------------------------------------------------------- Fleiss (1971)
def test_fleiss_1971_raw_and_counts(test_data):
    # Fleiss (1971), Psychological Bulletin 76:378: κ = 0.430 (also R irr::kappam.fleiss).
    raw = pd.read_csv(test_data / "fleiss1971_diagnoses_raw.csv", index_col=0)
    counts = pd.read_csv(test_data / "fleiss1971_diagnoses_counts.csv", index_col=0)
    from_raw = ag.fleiss_kappa(Ratings.from_wide(raw))
    from_counts = ag.fleiss_kappa(Ratings.from_counts(counts))
    assert _close(from_raw.value, 0.430, 3)
    assert from_counts.value == pytest.approx(from_raw.value, abs=1e-14)
    assert from_counts.standard_error == pytest.approx(from_raw.standard_error, abs=1e-14)
    assert from_raw.n_items == 30 and from_raw.n_raters == 6 and from_raw.n_categories == 5


def test_fleiss_1971_matches_statsmodels(test_data):
    counts = pd.read_csv(test_data / "fleiss1971_diagnoses_counts.csv", index_col=0)
    expected = inter_rater.fleiss_kappa(counts.to_numpy(), method="fleiss")
    res = ag.fleiss_kappa(Ratings.from_counts(counts))
    assert res.value == pytest.approx(expected, abs=1e-12)


def test_wikipedia_fleiss_example(test_data):
    # Wikipedia, "Fleiss' kappa", worked example: 10 subjects × 14 raters, κ = 0.210;
    # P̄ = 0.378, P̄e = 0.213.
    counts = pd.read_csv(test_data / "wikipedia_fleiss_10subjects_14raters_counts.csv",
                         index_col=0)
    res = ag.fleiss_kappa(Ratings.from_counts(counts))
    assert _close(res.value, 0.210, 3)
    assert _close(res.observed, 0.378, 3)
    assert _close(res.expected, 0.213, 3)


# ------------------------------------------------------------------- Cohen's κ
def test_sas_proc_freq_kappa(test_data):
    # SAS/STAT PROC FREQ documentation, agreement example: simple kappa 0.4842,
    # ASE 0.1380, 95% confidence limits 0.2137 and 0.7547 (normal).
    table = pd.read_csv(test_data / "sas_cohen_kappa_3x3_table10.csv").to_numpy()
    res = ag.cohen_kappa(Ratings.from_contingency(table))
    assert _close(res.value, 0.4842, 4)
    assert _close(res.standard_error, 0.1380, 4)
    assert res.ci_method == "normal"
    low, high = res.confidence_interval(0.95)
    assert _close(low, 0.2137, 4) and _close(high, 0.7547, 4)


def test_cohen_1968_weighted_kappa(test_data):
    # Cohen (1968), Psychological Bulletin 70:213: κ = .492, and κ_w = .348 with the
    # disagreement weights v = (0 1 3; 1 0 6; 3 6 0), i.e. agreement weights 1 - v/6.
    prop = pd.read_csv(test_data / "cohen1968_proportions_3x3.csv").to_numpy()
    ratings = Ratings.from_contingency(np.rint(prop * 200))
    v = np.array([[0, 1, 3], [1, 0, 6], [3, 6, 0]])
    assert _close(ag.cohen_kappa(ratings).value, 0.492, 3)
    assert _close(ag.cohen_kappa(ratings, weights=1 - v / 6).value, 0.348, 3)


def test_artstein_poesio_2008(test_data):
    # Artstein & Poesio (2008), Computational Linguistics 34:555, running example:
    # A_o = 0.88, Scott's π = 0.7995, Bennett's S = 0.82 (three categories).
    long = pd.read_csv(test_data / "artstein_poesio2008_example_long.csv")
    ratings = Ratings.from_long(long, item="item", rater="coder", label="label")
    assert _close(ag.percent_agreement(ratings).value, 0.88, 2)
    assert _close(ag.scott_pi(ratings).value, 0.7995, 4)
    assert _close(ag.brennan_prediger(ratings).value, 0.82, 2)


# ------------------------------------------------- Gwet's irrCAC 1.0 vignettes
# cac.raw4raters is Krippendorff's (2011) example C as R irr, NLTK and Gwet print it.
# irrCAC 1.0 vignettes (2021-08-15), "Calculating Chance-corrected Agreement
# Coefficients" and "Weighted Chance-corrected Agreement Coefficients":
# (function, weights, pa, pe, coefficient, se) — irrCAC rounds the coefficient and
# its SE to 5 decimals and prints pa/pe to 7 significant digits.
GWET_RAW4RATERS = [
    ("percent_agreement", None, 0.8181818, 0.0, 0.8181818, 0.12561),
    ("gwet_ac1", None, 0.8181818, 0.1903212, 0.77544, 0.14295),
    ("fleiss_kappa", None, 0.8181818, 0.2387153, 0.76117, 0.15302),
    ("conger_kappa", None, 0.8181818, 0.2334252, 0.76282, 0.14917),
    ("brennan_prediger", None, 0.8181818, 0.2, 0.77273, 0.14472),
    ("percent_agreement", "quadratic", 0.9753788, 0.0, 0.9753788, 0.09062),
    ("gwet_ac1", "quadratic", 0.9753788, 0.7137044, 0.914, 0.10396),
    ("fleiss_kappa", "quadratic", 0.9753788, 0.8177083, 0.86494, 0.14603),
    ("conger_kappa", "quadratic", 0.9753788, 0.8269638, 0.85771, 0.14367),
    ("brennan_prediger", "quadratic", 0.9753788, 0.75, 0.90152, 0.11089),
]


@pytest.mark.parametrize(("name", "weights", "pa", "pe", "value", "se"), GWET_RAW4RATERS)
def test_irrcac_raw4raters(test_data, name, weights, pa, pe, value, se):
    ratings = _coders_by_units(test_data / "krippendorff2011_C_variant_irr_nltk_gwet.csv")
    res = getattr(ag, name)(ratings, weights=weights)
    assert res.observed == pytest.approx(pa, abs=5e-8)
    assert res.expected == pytest.approx(pe, abs=5e-8)
    assert _close(res.value, value, 5)
    assert _close(res.standard_error, se, 5)
    assert res.n_items == 12 and res.n_pairable == 11 and res.ci_method == "t"


def test_irrcac_raw4raters_interval(test_data):
    # irrCAC prints Fleiss' κ 95% CI "(0.424,1)": t with 11 df, upper bound capped at 1.
    ratings = _coders_by_units(test_data / "krippendorff2011_C_variant_irr_nltk_gwet.csv")
    res = ag.fleiss_kappa(ratings)
    low, high = res.confidence_interval(0.95)
    assert _close(low, 0.424, 3) and high == 1.0
    assert res.clipped() and any("clipped to the range [-1, 1]" in n for n in res.notes)


# cont3x3abstractors, 2 raters, n = 100 (irrCAC overview and weighting vignettes).
# kappa2.table uses the Fleiss-Cohen-Everitt variance, as cohen_kappa does. The
# table versions of Scott, AC1, BP and PA divide Gwet's sum of squares by n, the raw
# (multi-rater) versions by n - 1, so ours are sqrt(n / (n - 1)) times larger.
GWET_ABSTRACTORS = [
    ("cohen_kappa", None, 0.7964094, 0.05891072, False),
    ("scott_pi", None, 0.7962397, 0.05905473, True),
    ("gwet_ac1", None, 0.8493305, 0.04321747, True),
    ("brennan_prediger", None, 0.835, 0.04693346, True),
    ("percent_agreement", None, 0.89, 0.03128898, True),
    ("cohen_kappa", "quadratic", 0.8921569, 0.03535151, False),
    ("scott_pi", "quadratic", 0.8921093, 0.03539506, True),
    ("gwet_ac1", "quadratic", 0.9402369, 0.01792019, True),
    ("brennan_prediger", "quadratic", 0.9175, 0.02346673, True),
    ("percent_agreement", "quadratic", 0.9725, 0.007822244, True),
]


@pytest.mark.parametrize(("name", "weights", "value", "se", "rescale"), GWET_ABSTRACTORS)
def test_irrcac_cont3x3abstractors(shared_data, name, weights, value, se, rescale):
    table = pd.read_csv(shared_data / "gwet_cont3x3abstractors.csv", index_col=0)
    res = getattr(ag, name)(Ratings.from_contingency(table), weights=weights)
    n = 100
    assert res.value == pytest.approx(value, abs=5e-8)
    ours = res.standard_error * (np.sqrt((n - 1) / n) if rescale else 1.0)
    assert ours == pytest.approx(se, abs=5e-9 if se < 0.01 else 5e-8)


# distrib.6raters: the first 15 patients of Fleiss (1971) as a count table (irrCAC
# overview and weighting vignettes; quadratic weights over 1..5).
GWET_DISTRIB6 = [
    ("gwet_ac1", None, 0.4448007, 0.08418757),
    ("fleiss_kappa", None, 0.4139265, 0.08119291),
    ("brennan_prediger", None, 0.4388889, 0.08312142),
    ("gwet_ac1", "quadratic", 0.4837438, 0.1058227),
    ("fleiss_kappa", "quadratic", 0.2511909, 0.1457381),
    ("brennan_prediger", "quadratic", 0.4177778, 0.1067493),
]


@pytest.mark.parametrize(("name", "weights", "value", "se"), GWET_DISTRIB6)
def test_irrcac_distrib6raters(test_data, name, weights, value, se):
    counts = pd.read_csv(test_data / "fleiss1971_diagnoses_counts.csv", index_col=0)
    ratings = Ratings.from_counts(counts.iloc[:15])
    res = getattr(ag, name)(ratings, weights=weights)
    assert res.value == pytest.approx(value, abs=5e-8)
    assert res.standard_error == pytest.approx(se, abs=5e-8)


def test_irrcac_dist4cat(shared_data):
    # irrCAC overview vignette: gwet.ac1.dist(cac.dist4cat[, 2:4]) gives AC1 = 0.3518903.
    frame = pd.read_csv(shared_data / "gwet_cac_dist4cat.csv", index_col=0)
    res = ag.gwet_ac1(Ratings.from_counts(frame[["a", "b", "c"]]))
    assert res.value == pytest.approx(0.3518903, abs=5e-8)


# Gwet's other example data sets, against the independent Python port of irrCAC
# (afergadis/irrCAC, test/unit/irrCAC/raw: values to 3 decimals): (pa, pe, value,
# se, CI low, CI high capped at 1).
IRRCAC_PORT = {
    ("gwet_cac_ben_gerry.csv", "gwet_ac1"): (0.727, 0.194, 0.661, 0.184, 0.257, 1),
    ("gwet_cac_ben_gerry.csv", "fleiss_kappa"): (0.727, 0.222, 0.649, 0.191, 0.228, 1),
    ("gwet_cac_ben_gerry.csv", "conger_kappa"): (0.727, 0.205, 0.657, 0.179, 0.262, 1),
    ("gwet_cac_raw_g1g2.csv", "gwet_ac1"): (0.744, 0.187, 0.685, 0.134, 0.396, 0.973),
    ("gwet_cac_raw_g1g2.csv", "fleiss_kappa"): (0.744, 0.252, 0.657, 0.150, 0.333, 0.981),
    ("gwet_cac_raw_g1g2.csv", "conger_kappa"): (0.744, 0.249, 0.659, 0.146, 0.343, 0.974),
    ("gwet_cac_raw5obser.csv", "gwet_ac1"): (0.616, 0.236, 0.497, 0.122, 0.235, 0.758),
    ("gwet_cac_raw5obser.csv", "fleiss_kappa"): (0.616, 0.291, 0.458, 0.120, 0.199, 0.716),
    ("gwet_cac_raw5obser.csv", "conger_kappa"): (0.616, 0.276, 0.469, 0.117, 0.219, 0.719),
    ("gwet_cac_raw_gender.csv", "gwet_ac1"): (0.456, 0.312, 0.208, 0.091, 0.014, 0.403),
    ("gwet_cac_raw_gender.csv", "fleiss_kappa"): (0.456, 0.375, 0.129, 0.141, -0.172, 0.430),
    ("gwet_cac_raw_gender.csv", "conger_kappa"): (0.456, 0.347, 0.166, 0.121, -0.094, 0.426),
}
_RATER_COLUMNS = {
    "gwet_cac_ben_gerry.csv": ["Ben", "Gerry"],
    "gwet_cac_raw_g1g2.csv": ["Rater1", "Rater2", "Rater3", "Rater4"],
    "gwet_cac_raw5obser.csv": [f"Observer{i}" for i in range(1, 6)],
    "gwet_cac_raw_gender.csv": ["RaterA", "RaterB", "RaterC", "RaterD"],
}


@pytest.mark.parametrize(("file", "name"), sorted(IRRCAC_PORT))
def test_gwet_example_data_vs_irrcac_port(shared_data, file, name):
    frame = pd.read_csv(shared_data / file, index_col=0)[_RATER_COLUMNS[file]]
    res = getattr(ag, name)(Ratings.from_wide(frame))
    pa, pe, value, se, low, high = IRRCAC_PORT[file, name]
    ci = res.confidence_interval(0.95)
    for ours, printed in [(res.observed, pa), (res.expected, pe), (res.value, value),
                          (res.standard_error, se), (ci.low, low), (min(ci.high, 1.0), high)]:
        assert _close(ours, printed, 3), (ours, printed)


# ------------------------------------------ independent implementations, many data
def _random_complete(rng, n, k, m):
    # Every category used (so sklearn's label set is ours): the first m cells hold
    # each category once, in random places.
    x = rng.integers(0, m, size=n * k)
    x[rng.permutation(n * k)[:m]] = np.arange(m)
    return x.reshape(n, k)


def test_fleiss_matches_statsmodels_on_random_data():
    # statsmodels' fleiss_kappa (aggregate_raters) on complete data, to 1e-10.
    rng = np.random.default_rng(20240601)
    for trial in range(150):
        m, k = rng.integers(2, 7), rng.integers(2, 9)
        n = rng.integers(m, 60)
        x = _random_complete(rng, n, k, m)
        if trial % 3 == 0:  # some agreement structure, not only noise
            x[: n // 2] = x[: n // 2, :1]
        table, _ = inter_rater.aggregate_raters(x, n_cat=m)
        expected = inter_rater.fleiss_kappa(table, method="fleiss")
        ours = ag.fleiss_kappa(x).value
        assert ours == pytest.approx(expected, abs=1e-10, rel=1e-10)
        assert ag.fleiss_kappa(Ratings.from_counts(table)).value == pytest.approx(
            expected, abs=1e-10, rel=1e-10)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_matches_sklearn_on_random_data(weights):
    # scikit-learn's cohen_kappa_score (none, linear, quadratic), to 1e-10. Labels
    # 0..m-1 all used, so its label-index distances equal our category values'.
    rng = np.random.default_rng(7)
    for trial in range(150):
        m = rng.integers(2, 7)
        n = rng.integers(m, 200)
        x = _random_complete(rng, n, 2, m)
        if trial % 2:
            agree = rng.random(n) < 0.6
            x[agree, 1] = x[agree, 0]
        expected = cohen_kappa_score(x[:, 0], x[:, 1], weights=weights)
        ours = ag.cohen_kappa(x, weights=weights).value
        assert ours == pytest.approx(expected, abs=1e-10, rel=1e-10)


def test_cohen_matches_sklearn_with_string_labels():
    # String labels take their sorted order 1..m, as sklearn's label indices do.
    rng = np.random.default_rng(3)
    labels = np.array(["bad", "fair", "good", "great"])
    x = labels[_random_complete(rng, 80, 2, 4)]
    ratings = Ratings.from_wide(x, categories=list(labels))
    for weights in (None, "linear", "quadratic"):
        expected = cohen_kappa_score(x[:, 0], x[:, 1], weights=weights)
        assert ag.cohen_kappa(ratings, weights=weights).value == pytest.approx(expected,
                                                                               abs=1e-10)
