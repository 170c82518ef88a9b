"""Krippendorff's α: published values, the `krippendorff` package, a slow reference, bad input."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys

import krippendorff
import numpy as np
import pandas as pd
import pytest

from _goldnoise_lib import patterns as _patterns
from agreement import DegenerateDataWarning, Ratings, krippendorff_alpha
from agreement import _kernels_alpha as _ka
from agreement._krippendorff import (
    alpha_from_coincidences,
    alpha_from_counts,
    alpha_from_sums,
    alpha_sums,
    alpha_unit_terms,
    coincidence_matrix,
    count_patterns,
)

LEVELS = ("nominal", "ordinal", "interval", "ratio")


# --------------------------------------------------------------------- helpers
def coders_by_units(test_data, name: str) -> pd.DataFrame:
    """Read a "coders × units" table and return it as units × coders."""
    return pd.read_csv(test_data / name, index_col=0).T


def reference_alpha(data: np.ndarray, level: str, domain) -> float:
    """Krippendorff's α straight from his definition (Krippendorff 2011), slow.

    ``data`` is units × coders with NaN for missing; ``domain`` the declared
    values in order. Builds the coincidence matrix pair by pair.
    """
    dom = [float(v) for v in domain]
    idx = {v: i for i, v in enumerate(dom)}
    m = len(dom)
    o = [[0.0] * m for _ in range(m)]
    for row in data:
        vals = [float(v) for v in row if not math.isnan(v)]
        mu = len(vals)
        if mu < 2:
            continue  # not pairable
        for a in range(mu):
            for b in range(mu):
                if a != b:
                    o[idx[vals[a]]][idx[vals[b]]] += 1.0 / (mu - 1)
    n_c = [sum(o[c]) for c in range(m)]
    n = sum(n_c)

    def delta(c, k):
        if level == "nominal":
            return float(c != k)
        if level == "ordinal":
            lo, hi = min(c, k), max(c, k)
            return (sum(n_c[g] for g in range(lo, hi + 1)) - (n_c[c] + n_c[k]) / 2.0) ** 2
        vc, vk = dom[c], dom[k]
        if level == "interval":
            return (vc - vk) ** 2
        return 0.0 if vc + vk == 0 else ((vc - vk) / (vc + vk)) ** 2

    num = sum(o[c][k] * delta(c, k) for c in range(m) for k in range(m))
    den = sum(n_c[c] * n_c[k] * delta(c, k) for c in range(m) for k in range(m))
    return 1.0 - (n - 1.0) * num / den


def reference_gwet_se(data: np.ndarray, level: str, domain) -> float:
    """Gwet's SE of α, a line-by-line numpy transcription of irrCAC's
    ``krippen.alpha.raw`` (matrix form, with ``pa = (1 − ε) pa' + ε`` in the
    per-unit correction term), with weights ``1 − δ²/max δ²``."""
    dom = np.asarray(domain, dtype=float)
    m = dom.size
    agree = np.stack([(data == v).sum(axis=1) for v in dom], axis=1).astype(float)
    r_all = agree.sum(axis=1)
    n_c = agree[r_all >= 2].sum(axis=0)
    if level == "nominal":
        delta = 1.0 - np.eye(m)
    elif level == "ordinal":
        t = np.cumsum(n_c) - n_c / 2.0
        delta = (t[:, None] - t[None, :]) ** 2
    elif level == "interval":
        delta = (dom[:, None] - dom[None, :]) ** 2
    else:
        s = dom[:, None] + dom[None, :]
        delta = np.divide(dom[:, None] - dom[None, :], s, out=np.zeros_like(s), where=s != 0) ** 2
    w = 1.0 - delta / delta.max()
    agree_w = agree @ w.T
    keep = r_all >= 2
    agree, agree_w, ri = agree[keep], agree_w[keep], r_all[keep]
    rbar = ri.mean()
    n = agree.shape[0]
    sum_q = (agree * (agree_w - 1.0)).sum(axis=1)
    paprime = np.sum(sum_q / (rbar * (ri - 1.0))) / n
    pi = (agree / rbar).mean(axis=0)
    pe = np.sum(w * np.outer(pi, pi))
    alpha_prime = (paprime - pe) / (1.0 - pe)
    epsi = 1.0 / ri.sum()
    pa = (1.0 - epsi) * paprime + epsi
    pa_i = sum_q / (rbar * (ri - 1.0)) - pa * (ri - rbar) / rbar
    k_i = (pa_i - pe) / (1.0 - pe)
    pi_w = (w @ pi + w.T @ pi) / 2.0
    pe_i = (agree @ pi_w) / rbar - pe * (ri - rbar) / rbar
    x_i = k_i - 2.0 * (1.0 - alpha_prime) * (pe_i - pe) / (1.0 - pe)
    return float(np.sqrt(np.sum((x_i - alpha_prime) ** 2) / (n * (n - 1.0))))


def random_data(seed: int, n: int, k: int, m: int, missing: float, *, continuous=False):
    """Units × coders float data with NaN gaps, and its declared value domain.

    Coders agree more often than chance. The domain has one value no coder
    uses (unused declared categories must not matter), and includes 0.
    """
    rng = np.random.default_rng(seed)
    if continuous:
        domain = np.sort(np.concatenate([[0.0], rng.uniform(0.0, 50.0, m)]))
    else:
        domain = np.arange(m + 1, dtype=float)
    unused = rng.integers(0, m + 1)
    usable = np.delete(domain, unused)
    while True:
        truth = rng.integers(0, usable.size, n)
        noise = rng.integers(0, usable.size, (n, k))
        idx = np.where(rng.random((n, k)) < 0.6, truth[:, None], noise)
        data = usable[idx].astype(float)
        data[rng.random((n, k)) < missing] = np.nan
        r = (~np.isnan(data)).sum(axis=1)
        pairable = data[r >= 2]
        if pairable.size and np.unique(pairable[~np.isnan(pairable)]).size >= 2:
            return data, domain


def ours(data, level, domain) -> float:
    return krippendorff_alpha(Ratings.from_wide(data, categories=list(domain)), level=level).value


# ------------------------------------------------------------- published values
# Krippendorff (2011), example C, printed to 3 decimals.
@pytest.mark.parametrize(("level", "printed"), [
    ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)])
@pytest.mark.parametrize("name", [
    "krippendorff2011_C_4coders_12units.csv",
    # R irr / NLTK / Gwet's transcription: unit 12's lone value on another coder, same α
    "krippendorff2011_C_variant_irr_nltk_gwet.csv",
])
def test_krippendorff_2011_example_C(test_data, name, level, printed):
    res = krippendorff_alpha(coders_by_units(test_data, name), level=level)
    assert res.value == pytest.approx(printed, abs=5e-4)
    assert res.n_items == res.n_pairable == 11  # unit 12 has one value
    assert res.n_raters == 4 and res.n_categories == 5
    assert res.weights == level


def test_krippendorff_2011_example_A(test_data):
    # Krippendorff (2011), example A (binary, 2 coders): α = 0.095
    res = krippendorff_alpha(coders_by_units(test_data, "krippendorff2011_A_binary_2coders.csv"))
    assert res.value == pytest.approx(0.095, abs=5e-4)


def test_krippendorff_2011_example_B(test_data):
    # Krippendorff (2011), example B (nominal, 2 coders): α = 0.692
    res = krippendorff_alpha(coders_by_units(test_data, "krippendorff2011_B_nominal_2coders.csv"))
    assert res.value == pytest.approx(0.692, abs=5e-4)


@pytest.mark.parametrize(("level", "printed"), [("nominal", 0.691), ("interval", 0.811)])
def test_wikipedia_3_coders_15_units(test_data, level, printed):
    # The standard worked example (Wikipedia "Krippendorff's alpha"): 0.691 / 0.811
    data = coders_by_units(test_data, "wikipedia_krippendorff_3coders_15units.csv")
    assert krippendorff_alpha(data, level=level).value == pytest.approx(printed, abs=5e-4)


def test_hayes_krippendorff_2007_news_tone(test_data):
    # Hayes & Krippendorff (2007), Table 1 data, ordinal α printed as 0.7598
    data = pd.read_csv(test_data / "hayes_krippendorff2007_news_tone.csv", index_col=0)
    res = krippendorff_alpha(data, level="ordinal")
    assert res.value == pytest.approx(0.7598, abs=5e-5)
    assert res.n_items == 40 and res.n_raters == 5


def test_gwet_irrcac_standard_error_cac_raw4raters(test_data):
    # irrCAC vignette "Calculating Chance-corrected Agreement Coefficients" (Gwet):
    # krippen.alpha.raw(cac.raw4raters) -> coeff.val 0.74342, coeff.se 0.14557
    # (5 decimals). irrCAC uses p_a = (1 − ε) p'_a + ε in the per-unit correction
    # term; with p'_a the SE would be 0.14548. cac.raw4raters is this table.
    data = coders_by_units(test_data, "krippendorff2011_C_variant_irr_nltk_gwet.csv")
    res = krippendorff_alpha(data)
    assert res.value == pytest.approx(0.74342, abs=5e-6)
    assert res.standard_error == pytest.approx(0.14557, abs=5e-6)
    # irrCAC's t interval: pairable units − 1 = 10 df, upper bound clipped at 1.
    low, high = res.confidence_interval()
    assert low == pytest.approx(0.74342 - 2.228139 * 0.14557, abs=1e-4)
    assert high == 1.0 and res.clipped()
    assert any("clipped" in n for n in res.notes)


def test_gwet_irrcac_quadratic_weights_is_interval_alpha(test_data):
    # irrCAC vignette "Weighted Chance-corrected Agreement Coefficients":
    # krippen.alpha.raw(cac.raw4raters, weights = "quadratic") -> coeff.val 0.84911;
    # the SE printed there (0.12905) predates irrCAC's p_a correction term; the
    # irrCAC Python port (afergadis/irrCAC, tests/raw/test_krippendorff.py) prints
    # se 0.129 and CI (0.561, 1). Quadratic weights are the interval metric.
    data = coders_by_units(test_data, "krippendorff2011_C_variant_irr_nltk_gwet.csv")
    res = krippendorff_alpha(data, level="interval")
    assert res.value == pytest.approx(0.84911, abs=5e-6)
    assert res.standard_error == pytest.approx(0.129, abs=5e-4)
    weighted = krippendorff_alpha(data, weights="quadratic")
    assert weighted.value == pytest.approx(res.value, abs=1e-12)
    assert weighted.standard_error == pytest.approx(res.standard_error, abs=1e-12)


# irrCAC's krippen.alpha.raw(cac.raw4raters, weights=w), as the irrCAC Python port
# (afergadis/irrCAC, test/unit/irrCAC/raw/test_krippendorff.py) prints them to 3
# digits: (coefficient, se, CI lower bound); every upper bound is clipped to 1.
IRRCAC_WEIGHTED_ALPHA = {
    "identity": (0.743, 0.146, 0.419),
    "linear": (0.800, 0.135, 0.499),
    "quadratic": (0.849, 0.129, 0.561),
    "ordinal": (0.834, 0.131, 0.542),
    "radical": (0.772, 0.140, 0.461),
    "ratio": (0.797, 0.140, 0.484),
    "circular": (0.790, 0.141, 0.476),
    "bipolar": (0.835, 0.128, 0.549),
}


@pytest.mark.parametrize("weights", sorted(IRRCAC_WEIGHTED_ALPHA))
def test_irrcac_weighted_alpha_cac_raw4raters(test_data, weights):
    value, se, low = IRRCAC_WEIGHTED_ALPHA[weights]
    data = coders_by_units(test_data, "krippendorff2011_C_variant_irr_nltk_gwet.csv")
    res = krippendorff_alpha(data, weights=weights)
    assert res.value == pytest.approx(value, abs=5e-4)
    assert res.standard_error == pytest.approx(se, abs=5e-4)
    ci = res.confidence_interval()
    assert ci.low == pytest.approx(low, abs=5e-4) and ci.high == 1.0


def test_irrcac_alpha_cac_raw5obser(test_data):
    # irrCAC's cac.raw5obser (Gwet 2014), krippen.alpha.raw unweighted: 0.481, se 0.114,
    # CI (0.237, 0.724) (irrCAC Python port's test_krippendorff_kappa_raw5observers).
    data = pd.read_csv(test_data / "gwet_cac_raw5obser.csv", index_col=0)
    res = krippendorff_alpha(data)
    assert (res.value, res.standard_error) == pytest.approx((0.481, 0.114), abs=5e-4)
    assert tuple(res.confidence_interval()) == pytest.approx((0.237, 0.724), abs=5e-4)
    # Linear and Gwet-ordinal weights: the same α as the metric δ = 1 − w, computed by
    # hand from the coincidence matrix (Krippendorff 2011's general form).
    from agreement._weights import named_weights
    r = Ratings.from_wide(data)
    counts = r.counts.astype(float)
    pair = counts.sum(axis=1) >= 2
    a = counts[pair]
    o = (a[:, :, None] * a[:, None, :] - np.einsum("ic,cl->icl", a, np.eye(a.shape[1]))
         ) / (a.sum(axis=1) - 1)[:, None, None]
    o = o.sum(axis=0)
    n_c = o.sum(axis=1)
    for name in ("linear", "ordinal"):
        d = 1 - named_weights(name, r.category_values)
        expect = 1 - (n_c.sum() - 1) * (o * d).sum() / (np.outer(n_c, n_c) * d).sum()
        assert krippendorff_alpha(r, weights=name).value == pytest.approx(expect, abs=1e-12)


def test_weights_and_level_together_refused():
    with pytest.raises(ValueError, match=r"either `level=`.*or `weights=`"):
        krippendorff_alpha([[1, 2], [2, 2]], level="interval", weights="linear")
    with pytest.raises(ValueError, match="`weights` must be None, one of"):
        krippendorff_alpha([[1, 2], [2, 2]], weights="cubic")
    with pytest.raises(ValueError, match="must be symmetric"):
        krippendorff_alpha([[1, 2], [2, 2]], weights=[[1, 0.5], [0.2, 1]])


def test_gwet_ordinal_weights_differ_from_krippendorff_ordinal(test_data):
    # Hayes & Krippendorff (2007): ordinal α 0.7598 is Krippendorff's rank metric;
    # Gwet's ordinal weights depend on ranks only and give another value.
    data = pd.read_csv(test_data / "hayes_krippendorff2007_news_tone.csv", index_col=0)
    k = krippendorff_alpha(data, level="ordinal").value
    g = krippendorff_alpha(data, weights="ordinal").value
    assert k == pytest.approx(0.7598, abs=5e-5) and abs(g - k) > 1e-3


# irrCAC's distrib.6raters (15 patients × 5 diagnoses, 6 psychiatrists each), as printed
# in the irrCAC 1.0 vignette "Calculating Chance-corrected Agreement Coefficients".
DISTRIB_6RATERS = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6],
                   [0, 3, 0, 3, 0], [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0],
                   [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
                   [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]


@pytest.mark.parametrize(("level", "printed"), [("nominal", 0.4204384), ("interval", 0.259511)])
def test_gwet_irrcac_count_table_input(level, printed):
    # krippen.alpha.dist(distrib.6raters) -> 0.4204384 (vignette "Calculating ...") and,
    # with quadratic.weights(1:5), 0.259511 (vignette "Weighted ..."). Only α is compared:
    # irrCAC's .dist function keeps an older linearisation for the SE than .raw (0.0824
    # vs 0.0812 here); goldnoise follows .raw for every input.
    ratings = Ratings.from_counts(DISTRIB_6RATERS, categories=[1, 2, 3, 4, 5])
    res = krippendorff_alpha(ratings, level=level)
    assert res.value == pytest.approx(printed, abs=5e-7)
    assert res.n_items == 15 and res.n_raters == 6


def test_shared_data_copies_match(shared_data, test_data):
    # tests/data holds verbatim copies of the shared tables.
    for f in sorted(test_data.glob("*.csv")):
        if (shared_data / f.name).exists():
            assert f.read_bytes() == (shared_data / f.name).read_bytes(), f.name


# --------------------------------------------------- the `krippendorff` package
CASES = [
    # (seed, n units, k coders, m used values, missing rate, continuous values)
    (0, 6, 2, 2, 0.0, False), (1, 30, 3, 3, 0.2, False), (2, 60, 5, 5, 0.1, False),
    (3, 40, 7, 4, 0.5, False), (4, 100, 2, 6, 0.3, False), (5, 25, 4, 2, 0.4, False),
    (6, 80, 3, 12, 0.25, True), (7, 50, 6, 8, 0.0, True), (8, 120, 4, 5, 0.6, False),
    (9, 15, 10, 3, 0.3, False), (10, 70, 3, 30, 0.1, True), (11, 200, 5, 4, 0.15, False),
]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c[0]}-n{c[1]}-k{c[2]}-m{c[3]}")
def test_matches_krippendorff_package(case, level):
    seed, n, k, m, missing, continuous = case
    data, domain = random_data(seed, n, k, m, missing, continuous=continuous)
    # krippendorff.alpha takes coders × units with NaN gaps; value_domain declares
    # every category, the unused one included.
    expected = krippendorff.alpha(reliability_data=data.T, value_domain=domain,
                                  level_of_measurement=level)
    assert ours(data, level, domain) == pytest.approx(expected, abs=1e-10, rel=1e-10)


@pytest.mark.parametrize("level", LEVELS)
def test_continuous_values_match_krippendorff_package(level):
    # ~300 distinct continuous values: krippendorff builds units × V × V (still fits here).
    rng = np.random.default_rng(42)
    truth = rng.gamma(2.0, 10.0, 100)
    data = np.round(truth[:, None] + rng.normal(0.0, 3.0, (100, 3)), 2).clip(0.0)
    data[rng.random(data.shape) < 0.1] = np.nan
    expected = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
    got = krippendorff_alpha(data, level=level)
    assert got.value == pytest.approx(expected, abs=1e-10, rel=1e-10)
    assert got.n_categories > 250


# ------------------------------------------------------- slow reference and SE
ENGINES = ["patterns-packed", "patterns-rank", "streaming-counted", "streaming-walk"]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    """Force one of the four computation routes for 4 raters and 5 categories.

    patterns-*: one pass builds a histogram of the items' count vectors, keyed
    by the packed counts or by their rank; streaming-*: per-unit sums, with
    each unit counted per category first or its ratings walked one by one.
    """
    name = request.param
    if name == "patterns-rank":
        monkeypatch.setattr(_patterns, "COUNT_MAX_BINS", 1 << 10)
    elif name.startswith("streaming"):
        monkeypatch.setattr(_patterns, "COUNT_MAX_BINS", 0)
    if name == "streaming-walk":
        monkeypatch.setattr(_ka, "SMALL_M", 0)
    plan = _patterns.count_plan(4, 5)
    assert (plan is None) == name.startswith("streaming")
    if plan is not None:
        assert plan[2] == (name == "patterns-rank")
    assert _ka._metric(np.arange(5.0), 0, 4)[-1] == (name != "streaming-walk")
    return name


@pytest.mark.parametrize("parallel", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["serial", "parallel"])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", [20, 21, 22])
def test_kernels_match_reference(seed, level, parallel, engine, monkeypatch):
    # Force the serial or the parallel build whatever the size.
    monkeypatch.setattr(_ka, "PARALLEL_THRESHOLD", 0 if parallel else 10**18)
    monkeypatch.setattr(_patterns, "HISTOGRAM_PARALLEL_CELLS", 0 if parallel else 10**18)
    data, domain = random_data(seed, 45, 4, 4, 0.3, continuous=seed == 22)
    ratings = Ratings.from_wide(data, categories=list(domain))
    assert ratings.n_categories == 5 and ratings.n_raters == 4
    res = krippendorff_alpha(ratings, level=level)
    assert res.value == pytest.approx(reference_alpha(data, level, domain), abs=1e-12)
    assert res.standard_error == pytest.approx(reference_gwet_se(data, level, domain),
                                               abs=1e-12, rel=1e-10)
    values = ratings.category_values
    codes = ratings.codes
    # The coincidence route and the unit-sum route agree.
    o = coincidence_matrix(codes, ratings.n_categories, parallel=parallel)
    parts = alpha_from_coincidences(o, values, level)
    assert parts.alpha == pytest.approx(res.value, abs=1e-12)
    sums = alpha_sums(codes, values, level, parallel=parallel)
    assert sums.n_c == pytest.approx(o.sum(axis=1), abs=1e-12)
    assert alpha_from_sums(sums, values, level).alpha == pytest.approx(res.value, abs=1e-12)
    if level != "ordinal":
        r, q = alpha_unit_terms(codes, values, level, parallel=parallel)
        assert np.array_equal(r, ratings.ratings_per_item)
        assert q.sum() == pytest.approx(sums.d_o, abs=1e-10)


def test_pattern_ranks_are_a_bijection(monkeypatch):
    # Every count vector with sum ≤ k gets a distinct rank in 0..C(k+m, m)−1, and
    # decoding inverts it (k = 4 raters, m = 3 categories: C(7, 3) = 35 vectors).
    monkeypatch.setattr(_patterns, "COUNT_MAX_BINS", 1 << 6)  # 2^9 packed keys: too many
    _, table, use_rank, n_bins = _patterns.count_plan(4, 3)
    assert use_rank and n_bins == 35
    vectors = [v for v in itertools.product(range(5), repeat=3) if sum(v) <= 4]
    ranks = [sum(int(table[c, sum(v[:c]), v[c]]) for c in range(3)) for v in vectors]
    assert ranks == list(range(35))  # lexicographic order, no gaps
    decoded = _patterns.decode_counts(np.array(ranks), 4, 3)
    assert [tuple(row) for row in decoded] == vectors


def test_coincidence_matrix_example_C(test_data):
    # Krippendorff (2011), example C, printed coincidence marginals n_c = 9, 13, 10, 5, 3
    # (n = 40 pairable values) and, e.g., o_11 = 7, o_12 = 4/3, o_33 = 7 + 4/3... checked
    # here against the slow definition.
    data = coders_by_units(test_data, "krippendorff2011_C_4coders_12units.csv")
    ratings = Ratings.from_wide(data)
    o = coincidence_matrix(ratings.codes, ratings.n_categories)
    np.testing.assert_allclose(o.sum(axis=1), [9, 13, 10, 5, 3], atol=1e-12)
    np.testing.assert_allclose(o, o.T, atol=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_many_distinct_values_against_definition(level):
    # m in the thousands: no m × m matrix on the interval/ordinal path. Compare with
    # the definition evaluated by brute force over all pairs of pairable values.
    rng = np.random.default_rng(7)
    n, k = 400, 4
    truth = rng.uniform(1.0, 100.0, n)
    data = np.round(truth[:, None] + rng.normal(0.0, 5.0, (n, k)), 3).clip(0.5)
    data[rng.random(data.shape) < 0.2] = np.nan
    res = krippendorff_alpha(data, level=level)
    assert res.n_categories > 1000
    r = (~np.isnan(data)).sum(axis=1)
    rows = [row[~np.isnan(row)] for row in data[r >= 2]]
    pooled = np.concatenate(rows)
    dom = np.unique(pooled)
    if level == "ordinal":
        n_c = np.array([np.sum(pooled == v) for v in dom], dtype=float)
        t = np.cumsum(n_c) - n_c / 2.0
        to_t = dict(zip(dom, t, strict=True))
        rows = [np.array([to_t[v] for v in row]) for row in rows]
        pooled = np.concatenate(rows)

    def d2(a, b):
        if level == "nominal":
            return (a[:, None] != b[None, :]).astype(float)
        if level == "ratio":
            return ((a[:, None] - b[None, :]) / (a[:, None] + b[None, :])) ** 2
        return (a[:, None] - b[None, :]) ** 2

    num = sum(d2(row, row).sum() / (row.size - 1) for row in rows)
    den = d2(pooled, pooled).sum()
    expected = 1.0 - (pooled.size - 1) * num / den
    assert res.value == pytest.approx(expected, abs=1e-10)


def test_count_table_input_equals_wide_input():
    data, domain = random_data(3, 60, 5, 4, 0.3)
    wide = Ratings.from_wide(data, categories=list(domain))
    counts = Ratings.from_counts(wide.counts, categories=list(domain))
    for level in LEVELS:
        a = krippendorff_alpha(wide, level=level)
        b = krippendorff_alpha(counts, level=level)
        assert b.value == pytest.approx(a.value, abs=1e-12)
        assert b.standard_error == pytest.approx(a.standard_error, abs=1e-12)
        assert b.n_items == a.n_items


def test_unused_declared_categories_change_nothing_but_the_scale():
    data, _ = random_data(12, 50, 4, 3, 0.2)
    used = np.unique(data[~np.isnan(data)])
    wider = np.concatenate([[used.min() - 2.0], used, [used.max() + 5.0]]).clip(0.0)
    for level in LEVELS:
        a = krippendorff_alpha(Ratings.from_wide(data), level=level)
        b = krippendorff_alpha(Ratings.from_wide(data, categories=list(np.unique(wider))),
                               level=level)
        assert b.value == pytest.approx(a.value, abs=1e-12)
        assert b.standard_error == pytest.approx(a.standard_error, abs=1e-12)
        assert b.value == pytest.approx((b.observed - b.expected) / (1 - b.expected), abs=1e-12)
        if level == "interval":  # a wider range of values, a larger δ²_max
            assert b.observed > a.observed


def test_observed_expected_are_one_minus_disagreements(test_data):
    # Nominal: observed = 1 − D_o, expected = 1 − D_e; example C has D_o = 8/40 ... via o.
    ratings = Ratings.from_wide(coders_by_units(test_data, "krippendorff2011_C_4coders_12units.csv"))
    res = krippendorff_alpha(ratings)
    o = coincidence_matrix(ratings.codes, 5)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = (n - np.trace(o)) / n
    d_e = (n * n - np.sum(n_c**2)) / (n * (n - 1))
    assert res.observed == pytest.approx(1 - d_o, abs=1e-12)
    assert res.expected == pytest.approx(1 - d_e, abs=1e-12)
    assert res.value == pytest.approx((res.observed - res.expected) / (1 - res.expected))


def test_strings_with_declared_order_and_categorical():
    # The `krippendorff` package's own string example: ordinal α 0.815 with an ordered domain.
    order = ["very low", "low", "mid", "high", "very high"]
    c = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
                  [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0]]).T
    labels = np.where(c > 0, np.array([None, *order], dtype=object)[c], None)
    res = krippendorff_alpha(Ratings.from_wide(labels, categories=order), level="ordinal")
    assert res.value == pytest.approx(0.815, abs=5e-4)
    frame = pd.DataFrame(labels).astype(pd.CategoricalDtype(order, ordered=True))
    assert krippendorff_alpha(frame, level="ordinal").value == pytest.approx(res.value, abs=1e-12)
    assert krippendorff_alpha(labels).value == pytest.approx(0.743, abs=5e-4)  # nominal


def test_numba_disabled_gives_the_same_numbers(test_data):
    # The kernels as plain Python (NUMBA_DISABLE_JIT=1) agree with the compiled ones.
    path = test_data / "krippendorff2011_C_4coders_12units.csv"
    code = (
        "import pandas as pd; from agreement import krippendorff_alpha as ka\n"
        f"d = pd.read_csv({str(path)!r}, index_col=0).T\n"
        "for lv in ('nominal', 'ordinal', 'interval', 'ratio'):\n"
        "    r = ka(d, level=lv); print(repr(r.value), repr(r.standard_error))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}).stdout.split()
    data = coders_by_units(test_data, "krippendorff2011_C_4coders_12units.csv")
    for i, level in enumerate(LEVELS):
        res = krippendorff_alpha(data, level=level)
        assert float(out[2 * i]) == pytest.approx(res.value, abs=1e-13)
        assert float(out[2 * i + 1]) == pytest.approx(res.standard_error, abs=1e-13)


# ------------------------------------------------------------------ bad input
def test_unknown_level_is_an_error():
    data = [[1, 1], [1, 2], [2, 2]]
    with pytest.raises(ValueError, match=r"`level` must be one of .*got 'nomial'"):
        krippendorff_alpha(data, level="nomial")
    with pytest.raises(ValueError, match="`level` must be one of"):
        krippendorff_alpha(data, level="nom")  # no prefix matching
    with pytest.raises(ValueError, match="`level` must be one of"):
        krippendorff_alpha(data, level="Interval")  # exact match, lower case


@pytest.mark.parametrize("level", [1, ["nominal"], b"nominal"])
def test_level_must_be_a_string(level):
    with pytest.raises(TypeError, match="`level` must be a string"):
        krippendorff_alpha([[1, 1], [1, 2]], level=level)


def test_level_is_keyword_only():
    with pytest.raises(TypeError, match="positional"):
        krippendorff_alpha([[1, 1], [1, 2]], "nominal")


def test_no_pairable_units_is_an_error():
    with pytest.raises(ValueError, match="no unit has two or more ratings"):
        krippendorff_alpha([[1, np.nan], [np.nan, 2], [3, np.nan]])


def test_all_missing_is_an_error():
    with pytest.raises(ValueError, match="every rating is missing"):
        krippendorff_alpha(np.full((4, 3), np.nan))


@pytest.mark.parametrize("level", LEVELS)
def test_one_value_only_is_nan_with_warning(level):
    # D_e = 0: α = 0/0. Documented NaN with DegenerateDataWarning.
    with pytest.warns(DegenerateDataWarning, match="undefined.*same category"):
        res = krippendorff_alpha([[2, 2], [2, 2, ], [2, np.nan], [np.nan, 1]], level=level)
    assert math.isnan(res.value) and math.isnan(res.standard_error)
    assert res.expected == 1.0
    assert all(math.isnan(x) for x in res.confidence_interval())


def test_one_pairable_unit_has_nan_standard_error():
    with pytest.warns(DegenerateDataWarning, match="only one unit is pairable"):
        res = krippendorff_alpha([[1, 2], [1, np.nan], [np.nan, 2]])
    assert res.value == pytest.approx(reference_alpha(
        np.array([[1, 2], [1, np.nan], [np.nan, 2]], dtype=float), "nominal", [1, 2]))
    assert math.isnan(res.standard_error)


@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_ordered_levels_need_ordered_categories(level):
    with pytest.raises(ValueError, match="needs ordered categories"):
        krippendorff_alpha([["a", "b"], ["b", "b"], ["c", "a"]], level=level)


def test_ratio_needs_non_negative_values():
    with pytest.raises(ValueError, match="non-negative category values"):
        krippendorff_alpha([[-1, 2], [2, 2], [3, 1]], level="ratio")


def test_private_api_validation():
    codes = np.array([[0, 1], [1, 1]], dtype=np.int8)
    with pytest.raises(ValueError, match="no per-unit"):
        alpha_unit_terms(codes, [1.0, 2.0], "ordinal")
    with pytest.raises(ValueError, match=r"`m` must be in 1\.\.4096"):
        coincidence_matrix(codes, 10_000)
    with pytest.raises(ValueError, match=r"`item_weights` must have shape \(2,\)"):
        alpha_sums(codes, [1.0, 2.0], "nominal", item_weights=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"`o` must be 2 × 2"):
        alpha_from_coincidences(np.eye(3), [1.0, 2.0], "nominal")
    with pytest.raises(ValueError, match="must be finite"):
        alpha_sums(codes, [1.0, np.inf], "interval")
    with pytest.raises(TypeError, match="`level` must be a string"):
        alpha_sums(codes, [1.0, 2.0], 3)
    with pytest.raises(ValueError, match="more than 131072 count patterns"):
        count_patterns(np.zeros((3, 60), dtype=np.int8), 10)  # C(70, 10) vectors
    with pytest.raises(ValueError, match=r"`counts` must be 2-D with 2 columns"):
        alpha_from_counts(np.ones((3, 3)), [1.0, 2.0], "nominal")
    with pytest.raises(ValueError, match=r"`weights` must have shape \(3,\)"):
        alpha_from_counts(np.ones((3, 2)), [1.0, 2.0], "nominal", weights=[1.0])
    with pytest.raises(ValueError, match="no row of `counts` with positive weight"):
        alpha_from_counts(np.array([[1, 0], [0, 1]]), [1.0, 2.0], "nominal")
    # Degenerate replicates (one pairable category) are NaN, for the caller to handle.
    assert math.isnan(alpha_from_counts(np.array([[2, 0]]), [1.0, 2.0], "nominal").alpha)


@pytest.mark.slow
def test_parallel_kernels_load_from_the_cache(tmp_path):
    # cache=True on parallel kernels (pynndescent had trouble there): a second
    # process must load every kernel it uses instead of compiling it again.
    code = (
        "import numpy as np\n"
        "from agreement import krippendorff_alpha\n"
        "from agreement import _kernels_alpha as ka\n"
        "from _goldnoise_lib import _pattern_kernels as pk, patterns\n"
        "data = np.random.default_rng(0).integers(1, 6, (250_000, 5)).astype(float)\n"
        "krippendorff_alpha(data, level='interval')\n"
        "patterns.COUNT_MAX_BINS = 0\n"
        "krippendorff_alpha(data, level='ratio')\n"
        "kernels = [pk.count_histogram[1], ka._sums_parallel, ka._gwet_se_parallel,\n"
        "           ka._ratio_expected]\n"
        "print(' '.join(f'{sum(f.stats.cache_hits.values())},'\n"
        "               f'{sum(f.stats.cache_misses.values())}' for f in kernels))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env).stdout.split()
    assert all(pair.endswith(",1") for pair in first), first  # compiled once, cached
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env).stdout.split()
    assert second == ["1,0"] * 4, second  # every kernel loaded, none compiled


# ------------------------------------------- α's per-unit rows (item_statistics)
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_item_statistics_resample_equals_recomputation(level):
    from agreement import item_statistics

    rng = np.random.default_rng(3)
    x = rng.integers(1, 5, size=(30, 4)).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    st = item_statistics(x, "krippendorff_alpha", level=level)
    fin = st.finalize(st.sums())
    assert fin.value == pytest.approx(krippendorff_alpha(x, level=level).value, abs=1e-12)
    draws = rng.integers(0, 30, size=(5, 30))
    mult = np.stack([np.bincount(d, minlength=30) for d in draws])
    values = st.finalize(st.sums(mult)).value
    for d, v in zip(draws, values, strict=True):
        # the krippendorff package (Castro) on the resampled units, reliability data coders × units
        ref = krippendorff.alpha(x[d].T, level_of_measurement=level, value_domain=[1, 2, 3, 4])
        assert v == pytest.approx(ref, abs=1e-12)
        res = krippendorff_alpha(Ratings.from_wide(x[d], categories=[1.0, 2.0, 3.0, 4.0]),
                                 level=level)
        assert v == pytest.approx(res.value, abs=1e-12)
    parts = st.finalize(st.sums())
    res = krippendorff_alpha(x, level=level)
    assert (parts.observed, parts.expected) == pytest.approx((res.observed, res.expected),
                                                             abs=1e-12)
    assert parts.n_pairable == res.n_pairable


def test_alpha_item_statistics_chunks_add_and_validation():
    from agreement import item_statistics

    x = np.array([[1, 1, np.nan], [1, 2, 2], [2, 2, 2], [3, np.nan, np.nan], [1, 3, 3]])
    r = Ratings.from_wide(x, categories=[1.0, 2.0, 3.0])
    st = item_statistics(r, krippendorff_alpha, level="ratio")
    halves = [item_statistics(r.take(i), "krippendorff_alpha", level="ratio")
              for i in (np.arange(2), np.arange(2, 5))]
    total = halves[0].sums() + halves[1].sums()
    assert st.finalize(total).value == pytest.approx(st.finalize(st.sums()).value, abs=1e-14)
    assert st.values[3, :2].tolist() == [1.0, 0.0]  # one rating: rated, not pairable
    with pytest.raises(ValueError, match="`weights` does not apply to Krippendorff"):
        item_statistics(x, "krippendorff_alpha", weights="linear")
    with pytest.raises(ValueError, match="`level` applies to Krippendorff's α only"):
        item_statistics(x, "fleiss_kappa", level="interval")
    with pytest.raises(ValueError, match="`level` must be one of"):
        item_statistics(x, "krippendorff_alpha", level="nomial")
    one = item_statistics([[1, 1], [1, 1]], "krippendorff_alpha")
    assert np.isnan(one.finalize(one.sums()).value)  # D_e = 0: NaN, no warning here
