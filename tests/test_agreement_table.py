"""agreement_table: every coefficient on the same data, one row each."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import agreement as ag
from agreement import DegenerateDataWarning, Ratings

THREE = np.array([[1, 1, 1], [1, 2, 2], [2, 2, 2], [3, 3, 1], [np.nan, 3, 3], [2, 2, 3]])
TWO = THREE[:, :2]


def test_rows_and_columns_for_three_annotators():
    table = ag.agreement_table(THREE)
    assert list(table.columns) == ["value", "standard_error", "ci_low", "ci_high", "ci_method",
                                   "observed", "expected", "n_items", "n_pairable",
                                   "n_raters", "notes"]
    assert list(table.index) == [
        "Percent agreement", "Cohen's kappa", "Scott's pi", "Fleiss' kappa",
        "Conger's kappa", "Light's kappa", "Brennan-Prediger", "Gwet's AC1",
        "Krippendorff's alpha (nominal)", "Krippendorff's alpha (ordinal)",
        "Krippendorff's alpha (interval)"]
    assert math.isnan(table.loc["Cohen's kappa", "value"])
    assert "exactly two annotators" in table.loc["Cohen's kappa", "notes"]
    assert "at most two ratings per item" in table.loc["Scott's pi", "notes"]


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_values_are_the_functions(weights):
    table = ag.agreement_table(TWO, weights=weights, confidence_level=0.9)
    ac = "Gwet's AC2" if weights else "Gwet's AC1"
    for label, fn in [("Percent agreement", ag.percent_agreement),
                      ("Cohen's kappa", ag.cohen_kappa), ("Scott's pi", ag.scott_pi),
                      ("Fleiss' kappa", ag.fleiss_kappa), ("Conger's kappa", ag.conger_kappa),
                      ("Light's kappa", ag.light_kappa),
                      ("Brennan-Prediger", ag.brennan_prediger), (ac, ag.gwet_ac1)]:
        res = fn(TWO, weights=weights)
        row = table.loc[label]
        assert row["value"] == pytest.approx(res.value)
        assert row["standard_error"] == pytest.approx(res.standard_error)
        low, high = res.confidence_interval(0.9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
        assert row["ci_method"] == res.ci_method
        assert row["n_items"] == res.n_items
    alpha = ag.krippendorff_alpha(TWO, level="interval")
    assert table.loc["Krippendorff's alpha (interval)", "value"] == pytest.approx(alpha.value)


def test_count_tables_skip_annotator_coefficients():
    counts = Ratings.from_counts([[3, 0, 0], [1, 2, 0], [0, 1, 2], [0, 0, 3]])
    table = ag.agreement_table(counts)
    for label in ("Cohen's kappa", "Conger's kappa", "Light's kappa"):
        assert math.isnan(table.loc[label, "value"])
        assert "count table" in table.loc[label, "notes"]
        assert pd.isna(table.loc[label, "n_items"])
    assert table.loc["Fleiss' kappa", "value"] == pytest.approx(ag.fleiss_kappa(counts).value)
    assert not math.isnan(table.loc["Krippendorff's alpha (nominal)", "value"])


def test_unordered_labels_give_only_nominal_alpha():
    table = ag.agreement_table([["a", "b"], ["a", "a"], ["b", "b"], ["c", "c"]])
    alpha_rows = [i for i in table.index if i.startswith("Krippendorff")]
    assert alpha_rows == ["Krippendorff's alpha (nominal)"]


def test_degenerate_data_warn_once_and_say_why():
    x = np.array([[1, 1], [1, 1], [1, 1]])
    with pytest.warns(DegenerateDataWarning, match="undefined on these data") as record:
        table = ag.agreement_table(x)
    assert len([w for w in record if issubclass(w.category, DegenerateDataWarning)]) == 1
    assert math.isnan(table.loc["Fleiss' kappa", "value"])
    assert "chance agreement is 1" in table.loc["Fleiss' kappa", "notes"]
    assert table.loc["Percent agreement", "value"] == 1.0


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"confidence_level": "0.9"}, TypeError, "`confidence_level` must be a number"),
    ({"confidence_level": 1.5}, ValueError, r"`confidence_level` must be in \(0, 1\)"),
    ({"weights": "cubic"}, ValueError, "`weights` must be None"),
    ({"weights": np.eye(2)}, ValueError, r"must be a 3 × 3 matrix"),
])
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        ag.agreement_table(THREE, **kwargs)


def test_scale_rows_when_named():
    scale = ["icc1", "icc2", "icc3", "lin_ccc", "kendall_w"]
    table = ag.agreement_table(THREE, coefficients=scale)
    assert list(table.index) == ["ICC(1,1)", "ICC(2,1)", "ICC(3,1)",
                                 "Lin's concordance correlation", "Kendall's W"]
    # the scale's rows are the functions' (listwise deletion of the item with a gap)
    assert table.loc["ICC(2,1)", "value"] == pytest.approx(ag.icc(THREE).value)
    assert (table.loc["ICC(2,1)", "ci_low"], table.loc["ICC(2,1)", "ci_high"]) == \
        pytest.approx(tuple(ag.icc(THREE).confidence_interval()))
    assert table.loc["ICC(2,1)", "n_items"] == 5 and "1 item(s)" in table.loc["ICC(2,1)",
                                                                              "notes"]
    assert table.loc["Lin's concordance correlation", "value"] == pytest.approx(
        ag.lin_ccc(THREE).value)
    assert table.loc["Kendall's W", "value"] == pytest.approx(ag.kendall_w(THREE).value)
    assert not any(i.startswith("ICC") for i in ag.agreement_table(THREE).index)
    binary = np.array([[0, 1, 1], [1, 1, 1], [0, 0, 1], [1, 1, 0]])
    table = ag.agreement_table(binary, coefficients=["icc2k", "kendall_w"])
    assert list(table.index) == ["ICC(2,k)", "Kendall's W"]
    assert table.loc["ICC(2,k)", "value"] == pytest.approx(ag.icc(binary, form="ICC2k").value)
    text = ag.agreement_table([["a", "b"], ["b", "b"], ["a", "a"]], coefficients=["icc2"])
    assert "numeric ratings" in text.loc["ICC(2,1)", "notes"]
