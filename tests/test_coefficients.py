"""Behaviour of the coefficient functions: results, conventions, input validation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import agreement as ag
from agreement import DegenerateDataWarning, Ratings, ShapeError

ALL = [ag.percent_agreement, ag.fleiss_kappa, ag.scott_pi, ag.cohen_kappa, ag.conger_kappa,
       ag.light_kappa, ag.brennan_prediger, ag.gwet_ac1]
MULTI = [ag.percent_agreement, ag.fleiss_kappa, ag.conger_kappa, ag.light_kappa,
         ag.brennan_prediger, ag.gwet_ac1]
COUNT_OK = [ag.percent_agreement, ag.fleiss_kappa, ag.brennan_prediger, ag.gwet_ac1]
NEED_RATERS = [ag.cohen_kappa, ag.conger_kappa, ag.light_kappa]

TWO = np.array([[1, 1], [1, 2], [2, 2], [3, 3], [2, 3], [1, 1]], dtype=float)
THREE = np.array([[1, 1, 1], [1, 2, 2], [2, 2, 2], [3, 3, 1], [np.nan, 3, 3]])


# --------------------------------------------------------------- result objects
@pytest.mark.parametrize("fn", ALL)
def test_result_fields(fn):
    res = fn(TWO)
    assert isinstance(res, ag.AgreementResult)
    assert res.value == pytest.approx(
        (res.observed - res.expected) / (1 - res.expected)) or fn is ag.percent_agreement
    assert res.n_items == 6 and res.n_pairable == 6 and res.n_raters == 2
    assert res.n_categories == 3 and res.weights is None
    assert res.standard_error > 0
    low, high = res.confidence_interval(0.9)
    assert low < res.value < high
    assert isinstance(res.to_dict(), dict) and repr(res).startswith("AgreementResult(")


def test_percent_agreement_is_the_mean_pairwise_agreement_and_reports_unanimity():
    res = ag.percent_agreement(THREE)
    # items: 1, 1/3, 1, 1/3, 1 → 11/15; unanimous: items 1, 3, 5.
    assert res.value == pytest.approx(11 / 15) and res.expected == 0.0
    assert "unanimous items: 3 of 5 (60.0%)" in res.notes


def test_missing_conventions_are_noted():
    x = np.array([[1, 1], [2, np.nan], [np.nan, np.nan], [2, 2], [1, 2]])
    res = ag.fleiss_kappa(x)
    assert res.n_items == 4 and res.n_pairable == 3
    assert any("without ratings dropped" in note for note in res.notes)
    assert any("one rating count in the marginals only" in note for note in res.notes)
    # Gwet (2014): the single-rating item counts in π: π = (1 + 0 + 0 + .5, ...)/4.
    pi = np.array([1.5, 2.5]) / 4
    pa = (1 + 1 + 0) / 3
    assert res.expected == pytest.approx(pi @ pi)
    assert res.value == pytest.approx((pa - pi @ pi) / (1 - pi @ pi))


def test_cohen_uses_fce_and_normal_interval_with_complete_data():
    res = ag.cohen_kappa(TWO)
    assert res.ci_method == "normal"
    assert any("Fleiss, Cohen & Everitt" in note for note in res.notes)
    low, _ = res.confidence_interval(0.95)
    assert res.value - low == pytest.approx(1.959963984540054 * res.standard_error)
    t_low, _ = res.confidence_interval(0.95, method="t")
    assert t_low < low


def test_cohen_with_missing_ratings_is_conger_with_two_annotators():
    x = np.vstack([TWO, [[1, np.nan], [np.nan, 3]]])
    cohen, conger = ag.cohen_kappa(x), ag.conger_kappa(x)
    assert cohen.value == pytest.approx(conger.value, abs=1e-14)
    assert cohen.standard_error == pytest.approx(conger.standard_error, abs=1e-14)
    assert cohen.ci_method == "t"


def test_two_annotators_identities():
    # With two annotators: Fleiss = Scott, Conger = Light = Cohen (point estimates).
    assert ag.fleiss_kappa(TWO).value == pytest.approx(ag.scott_pi(TWO).value, abs=1e-14)
    cohen = ag.cohen_kappa(TWO).value
    assert ag.conger_kappa(TWO).value == pytest.approx(cohen, abs=1e-14)
    assert ag.light_kappa(TWO).value == pytest.approx(cohen, abs=1e-14)


def test_brennan_prediger_counts_declared_categories():
    # PE = 1/m over the declared categories, used or not.
    r3 = Ratings.from_wide(TWO)
    r5 = Ratings.from_wide(TWO, categories=[1, 2, 3, 4, 5])
    assert ag.brennan_prediger(r3).expected == pytest.approx(1 / 3)
    assert ag.brennan_prediger(r5).expected == pytest.approx(1 / 5)
    # Fleiss' κ ignores unused categories (π_c = 0), unweighted.
    assert ag.fleiss_kappa(r5).value == pytest.approx(ag.fleiss_kappa(r3).value)


def test_weight_names_and_labels():
    res = ag.gwet_ac1(TWO, weights="quadratic")
    assert res.coefficient == "Gwet's AC2" and res.weights == "quadratic"
    assert ag.gwet_ac1(TWO).coefficient == "Gwet's AC1"
    custom = ag.fleiss_kappa(TWO, weights=np.eye(3))
    assert custom.weights == "custom"
    assert custom.value == pytest.approx(ag.fleiss_kappa(TWO).value)


def test_named_weights_use_category_values():
    # Numeric labels 1, 2, 10: linear weights follow the values, not the ranks.
    x = np.array([[1, 2], [2, 10], [10, 10], [1, 1]])
    w = ag.fleiss_kappa(x, weights="linear")
    expected_pa = (1 - 1 / 9 + 1 - 8 / 9 + 1 + 1) / 4
    assert w.observed == pytest.approx(expected_pa)


def test_weights_on_unordered_labels_are_noted():
    x = [["b", "a"], ["a", "a"], ["c", "b"]]
    res = ag.fleiss_kappa(x, weights="linear")
    assert any("unordered labels" in note for note in res.notes)
    declared = Ratings.from_wide(x, categories=["c", "b", "a"])
    assert not any("unordered" in n for n in ag.fleiss_kappa(declared, weights="linear").notes)


def test_finite_population_correction():
    plain = ag.fleiss_kappa(THREE)
    fpc = ag.fleiss_kappa(THREE, n_population=10)
    assert fpc.standard_error == pytest.approx(plain.standard_error * math.sqrt(1 - 5 / 10))
    assert ag.fleiss_kappa(THREE, n_population=5).standard_error == 0.0
    assert any("finite-population" in note for note in fpc.notes)


def test_annotators_without_ratings_are_ignored_and_noted():
    x = np.column_stack([TWO, np.full(len(TWO), np.nan)])
    res = ag.conger_kappa(x)
    assert res.n_raters == 2
    assert any("without ratings ignored" in note for note in res.notes)
    assert res.value == pytest.approx(ag.conger_kappa(TWO).value)


@pytest.mark.parametrize("fn", ALL)
def test_accepts_dataframes_and_ratings(fn):
    frame = pd.DataFrame(TWO, columns=["ann", "bob"])
    assert fn(frame).value == pytest.approx(fn(Ratings.from_wide(TWO)).value)


@pytest.mark.parametrize("fn", COUNT_OK)
def test_count_tables(fn):
    r = Ratings.from_wide(THREE)
    assert fn(Ratings.from_counts(r.counts)).value == pytest.approx(fn(r).value)


def test_input_is_not_mutated():
    x = THREE.copy()
    ag.light_kappa(x, weights="linear")
    np.testing.assert_array_equal(x, THREE)


# ------------------------------------------------------------ Ratings.from_contingency
def test_from_contingency_dataframe_and_categories():
    table = pd.DataFrame([[3, 1], [0, 2]], index=["no", "yes"], columns=["no", "yes"])
    r = Ratings.from_contingency(table, raters=("A", "B"))
    assert list(r.categories) == ["no", "yes"] and list(r.raters) == ["A", "B"]
    np.testing.assert_array_equal(np.bincount(r.codes[:, 0]), [4, 2])  # row sums
    np.testing.assert_array_equal(np.bincount(r.codes[:, 1]), [3, 3])  # column sums
    np.testing.assert_array_equal(r.counts.sum(axis=0), [7, 5])
    assert ag.cohen_kappa(r).n_items == 6


@pytest.mark.parametrize(("table", "error", "match"), [
    ([[1, 2, 3], [4, 5, 6]], ShapeError, "square"),
    ([[1, -1], [0, 2]], ValueError, "non-negative whole-number"),
    ([[0.5, 0.5], [0, 0]], ValueError, "multiply by the number of items"),
    ([[0, 0], [0, 0]], ValueError, "every count is zero"),
    ([["a", "b"], ["c", "d"]], TypeError, "numeric counts"),
])
def test_from_contingency_bad_tables(table, error, match):
    with pytest.raises(error, match=match):
        Ratings.from_contingency(table)


def test_from_contingency_mismatched_labels():
    table = pd.DataFrame([[1, 0], [0, 1]], index=["a", "b"], columns=["b", "a"])
    with pytest.raises(ValueError, match="same categories in the same order"):
        Ratings.from_contingency(table)


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fn", ALL)
def test_unknown_weights_string(fn):
    with pytest.raises(ValueError, match=r"`weights` must be None, one of 'identity', 'linear', 'quadratic', 'ordinal'"):
        fn(TWO, weights="quadratc")


@pytest.mark.parametrize("bad", [2, 0.5, True, b"linear", {"a": 1}])
def test_weights_of_the_wrong_type(bad):
    with pytest.raises(TypeError, match="`weights` must be"):
        ag.fleiss_kappa(TWO, weights=bad)


@pytest.mark.parametrize(("matrix", "error", "match"), [
    (np.eye(2), ShapeError, r"must be a 3 × 3 matrix"),
    (np.ones(3), ShapeError, r"must be a 3 × 3 matrix"),
    (np.array([["1", "0", "0"]] * 3), TypeError, "dtype"),
    (np.where(np.eye(3) > 0, 1.0, np.nan), ValueError, "finite"),
    (np.eye(3) * 2, ValueError, r"in \[0, 1\]"),
    (np.full((3, 3), 0.5), ValueError, "ones on its diagonal"),
    (np.array([[1, 0.2, 0], [0.4, 1, 0], [0, 0, 1]]), ValueError, "symmetric"),
])
def test_bad_weight_matrices(matrix, error, match):
    with pytest.raises(error, match=match):
        ag.fleiss_kappa(TWO, weights=matrix)


@pytest.mark.parametrize(("bad", "error", "match"), [
    ("100", TypeError, "`n_population` must be None or a number"),
    (True, TypeError, "`n_population` must be None or a number"),
    (-5, ValueError, "`n_population` must be positive"),
    (float("nan"), ValueError, "`n_population` must be positive"),
    (3, ValueError, "at least the number of rated items"),
])
def test_bad_population_size(bad, error, match):
    with pytest.raises(error, match=match):
        ag.fleiss_kappa(TWO, n_population=bad)


@pytest.mark.parametrize("fn", ALL)
def test_all_missing(fn):
    with pytest.raises(ValueError, match="every rating is missing"):
        fn(np.full((4, 2), np.nan))


@pytest.mark.parametrize("fn", [f for f in ALL if f is not ag.cohen_kappa])
def test_one_annotator(fn):
    match = "no item has two or more ratings|at least two annotators"
    with pytest.raises(ValueError, match=match):
        fn(np.array([[1], [2], [1]]))


def test_cohen_needs_exactly_two_annotators():
    with pytest.raises(ValueError, match="needs exactly two annotators; these ratings have 3"):
        ag.cohen_kappa(THREE)
    with pytest.raises(ValueError, match="needs exactly two annotators"):
        ag.cohen_kappa(np.array([[1, np.nan], [2, np.nan]]))


def test_no_pairable_item():
    x = np.array([[1, np.nan], [np.nan, 2], [2, np.nan]])
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        ag.fleiss_kappa(x)
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        ag.conger_kappa(x)


def test_scott_pi_needs_at_most_two_ratings_per_item():
    with pytest.raises(ValueError, match="at most two ratings per item; item 0 has 3"):
        ag.scott_pi(THREE)
    sparse = np.array([[1, 1, np.nan], [np.nan, 2, 2], [1, np.nan, 2]])
    assert ag.scott_pi(sparse).value == pytest.approx(ag.fleiss_kappa(sparse).value)


@pytest.mark.parametrize("fn", NEED_RATERS)
def test_count_tables_refused_where_annotators_matter(fn):
    with pytest.raises(ValueError, match="needs each annotator's own labels"):
        fn(Ratings.from_counts([[2, 0], [1, 1]]))


def test_ragged_input():
    with pytest.raises(ShapeError, match="two-dimensional"):
        ag.fleiss_kappa([[1, 2], [1]])


def test_three_dimensional_input():
    with pytest.raises(ShapeError, match="two-dimensional"):
        ag.fleiss_kappa(np.ones((2, 2, 2)))


# ------------------------------------------------------------- degenerate data
ONE_CATEGORY = np.array([[1, 1], [1, 1], [1, np.nan]])


@pytest.mark.parametrize("fn", [ag.fleiss_kappa, ag.scott_pi, ag.cohen_kappa,
                                ag.conger_kappa, ag.brennan_prediger])
def test_one_category_is_nan_with_a_warning(fn):
    with pytest.warns(DegenerateDataWarning, match="chance agreement is 1"):
        res = fn(ONE_CATEGORY)
    assert math.isnan(res.value) and math.isnan(res.standard_error)
    assert any(note.startswith("undefined") for note in res.notes)
    assert all(math.isnan(x) for x in res.confidence_interval())


def test_one_category_gwet_and_light():
    with pytest.warns(DegenerateDataWarning, match="at least two categories"):
        assert math.isnan(ag.gwet_ac1(ONE_CATEGORY).value)
    with pytest.warns(DegenerateDataWarning, match="none of the 1 annotator pairs that co-rated"):
        assert math.isnan(ag.light_kappa(ONE_CATEGORY).value)


def test_one_category_used_of_two_declared():
    # κ-type coefficients are undefined, AC1 is 1 (its chance agreement is 0) and
    # percent agreement is 1: documented behaviour, no warning for the latter two.
    r = Ratings.from_wide(ONE_CATEGORY, categories=[1, 2])
    assert ag.gwet_ac1(r).value == 1.0
    assert ag.percent_agreement(r).value == 1.0
    with pytest.warns(DegenerateDataWarning):
        ag.fleiss_kappa(r)


def test_standard_error_needs_two_items():
    with pytest.warns(DegenerateDataWarning, match="needs at least two rated items"):
        res = ag.fleiss_kappa(np.array([[1, 2, 2]]), weights=None)
    assert res.value == pytest.approx(-0.5) and math.isnan(res.standard_error)


# ---------------------------------------------------------- per-item statistics
def test_item_statistics_sums_and_finalize():
    st = ag.item_statistics(THREE, "conger_kappa", weights="linear")
    assert st.values.shape == (5, len(st.columns)) and not st.values.flags.writeable
    assert st.columns[:3] == ("rated", "pairable", "agreement")
    fin = st.finalize(st.sums())
    res = ag.conger_kappa(THREE, weights="linear")
    assert fin.value == pytest.approx(res.value, abs=1e-14)
    assert fin.n_items == 5 and fin.n_pairable == 5


@pytest.mark.parametrize("name", ["percent_agreement", "fleiss_kappa", "scott_pi",
                                  "cohen_kappa", "conger_kappa", "light_kappa",
                                  "brennan_prediger", "gwet_ac1"])
def test_item_statistics_resample_and_chunks(name):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=(40, 2)).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    st = ag.item_statistics(x, name, weights="quadratic")
    # a bootstrap draw with multiplicities = the coefficient of the resampled items
    draw = rng.integers(0, 40, size=40)
    mult = np.bincount(draw, minlength=40)
    resampled = getattr(ag, name)(x[draw], weights="quadratic").value
    assert st.finalize(st.sums(mult)).value == pytest.approx(resampled, abs=1e-12)
    # many draws at once
    many = np.stack([mult, np.ones(40)])
    values = st.finalize(st.sums(many)).value
    assert values.shape == (2,) and values[0] == pytest.approx(resampled, abs=1e-12)
    # chunks of items add their sums
    halves = [ag.item_statistics(Ratings.from_wide(x, categories=[0.0, 1.0, 2.0]).take(idx),
                                 name, weights="quadratic")
              for idx in (np.arange(20), np.arange(20, 40))]
    total = halves[0].sums() + halves[1].sums()
    assert st.finalize(total).value == pytest.approx(st.finalize(st.sums()).value, abs=1e-12)


def test_item_statistics_accepts_functions_and_count_tables():
    st = ag.item_statistics(Ratings.from_counts([[2, 0], [1, 1], [0, 3]]), ag.fleiss_kappa)
    assert st.coefficient == "fleiss_kappa" and st.values.shape == (3, 6)
    assert "ItemStatistics(fleiss_kappa" in repr(st)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"coefficient": "fleiss"}, ValueError, "`coefficient` must be one of"),
    ({"coefficient": 3}, TypeError, "`coefficient` must be the name"),
])
def test_item_statistics_bad_coefficient(kwargs, error, match):
    with pytest.raises(error, match=match):
        ag.item_statistics(TWO, **kwargs)


def test_item_statistics_bad_multiplicity_and_sums():
    st = ag.item_statistics(TWO, "fleiss_kappa")
    with pytest.raises(ValueError, match="`multiplicity` must have shape"):
        st.sums(np.ones(5))
    with pytest.raises(ValueError, match="finite and non-negative"):
        st.sums(-np.ones(6))
    with pytest.raises(ValueError, match="`sums` must end with an axis of 7 columns"):
        st.finalize(np.ones(3))
    with pytest.raises(ValueError, match="needs each annotator's own labels"):
        ag.item_statistics(Ratings.from_counts([[2, 0]]), "cohen_kappa")


# ------------------------------------------- fast coding of integral label matrices
def _codes_by_definition(values):
    """Numeric labels coded from the definition: the categories are the sorted distinct
    finite labels (integers for integer input, else floats), a rating's code is its
    label's place among them, -1 for NaN; int8 codes up to 127 categories, else int16."""
    flat = np.asarray(values, dtype=np.float64)
    if np.isinf(flat).any():
        raise ValueError("labels contain inf; use NaN for a missing rating.")
    finite = ~np.isnan(flat)
    if not finite.any():
        raise ValueError("every rating is missing: there is nothing to measure.")
    cats = sorted(set(flat[finite].tolist()))
    place = {v: i for i, v in enumerate(cats)}
    dtype = np.int8 if len(cats) <= 127 else np.int16
    codes = np.array([[place[v] if v == v else -1 for v in row] for row in flat.tolist()],
                     dtype=dtype)
    if values.dtype.kind in "iu":
        cats = [int(v) for v in cats]
    return codes, pd.Index(cats, name="category")


@pytest.mark.parametrize("make", [
    lambda x: x, lambda x: x.astype(np.int8), lambda x: (x * 3 - 7).astype(np.int16),
    lambda x: x.astype(np.uint8), lambda x: np.where(x == 2, np.nan, x.astype(float)),
    lambda x: x * 0.5, lambda x: np.where(x == 1, np.inf, x.astype(float)),
    # gaps in the observed range (remap), a range wider than int8, negatives with NaN
    lambda x: x * 2 - 3, lambda x: np.where(x == 3, 200, x),
    lambda x: np.where(x == 0, np.nan, x * 1000.0 - 5000.0),
    lambda x: np.full(x.shape, np.nan),
    # float labels: own codes, shifted, gappy, wider than int8
    lambda x: x.astype(float), lambda x: x + 1.0, lambda x: np.where(x == 1, np.nan, x * 3.0),
    lambda x: np.where(x == 0, 126.0, x + 0.0), lambda x: np.where(x == 0, 127.0, x + 0.0),
    # the one-pass route covers ranges of up to 62 values; fractions fall back
    lambda x: np.where(x == 0, 61.0, x + 0.0), lambda x: np.where(x == 0, 62.0, x + 0.0),
    lambda x: x + 0.5, lambda x: np.where(x == 3, 2.5, x + 0.0),
    # integer labels 0..61 take a single speculative pass: shifted, gappy, at the edges
    lambda x: x + 1, lambda x: x * 2, lambda x: np.where(x == 0, 61, x),
    lambda x: np.where(x == 0, 62, x), lambda x: np.where(x == 0, -1, x).astype(np.int8),
])
def test_integral_label_fast_path_matches_general_path(make):
    # Ratings' coding of integral labels (two kernel passes) must code exactly as the
    # definition does; inputs it does not handle (fractions, inf) fall back to the general
    # path, which must too.
    rng = np.random.default_rng(1)
    values = make(rng.integers(0, 4, size=(300, 3)))
    try:
        expected = _codes_by_definition(values)
    except ValueError as err:
        with pytest.raises(ValueError, match=str(err)[:20]):
            Ratings.from_wide(values)
        return
    r = Ratings.from_wide(values)
    np.testing.assert_array_equal(r.codes, expected[0])
    assert r.codes.dtype == expected[0].dtype
    pd.testing.assert_index_equal(r.categories, expected[1])
