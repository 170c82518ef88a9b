"""Input defects found when trying goldnoise as a new user would (one test each)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import agreement as ag
from agreement import LabelWarning, Ratings


# -------------------------------------------------------- from_counts exactness
@pytest.mark.parametrize("table", [
    np.array([[2**31 + 7, 1], [3, 0]], dtype=np.int64),
    np.array([[2.0**31, 0.0]]),
    pd.DataFrame({"a": [2**40], "b": [0]}),
])
def test_from_counts_refuses_counts_int32_cannot_hold(table):
    # A count ≥ 2**31 used to wrap to a negative number ("-2147483641 ratings").
    with pytest.raises(ValueError, match=r"counts up to 2147483647 \(2\*\*31 - 1\)"):
        Ratings.from_counts(table)


def test_from_counts_refuses_item_totals_int32_cannot_hold():
    with pytest.raises(ValueError, match="has an item with 2147483648 ratings"):
        Ratings.from_counts(np.array([[2**30, 2**30]], dtype=np.int64))


def test_from_counts_keeps_large_counts_exact():
    big = 2**31 - 1
    r = Ratings.from_counts(np.array([[big, 0], [0, 5]], dtype=np.int64))
    assert int(r.counts[0, 0]) == big and r.n_ratings == big + 5


# -------------------------------------------------------------- look-alikes
@pytest.mark.parametrize(("column", "shown"), [
    ([1, "1", 2, 2], "1 vs '1'"),
    ([" 1", "1", "2", "2"], "' 1' vs '1'"),
    (["\u00e9", "e\u0301", "a", "a"], r"'\\xe9' vs 'e\\u0301'"),
])
def test_lookalike_labels_warn_and_normalize(column, shown):
    data = np.array([column, column[::-1]], dtype=object).T
    with pytest.warns(LabelWarning, match=f"look alike are separate categories: {shown}"):
        r = Ratings.from_wide(data)
    assert r.n_categories == 3
    fixed = Ratings.from_wide(data, normalize_labels=True)
    assert fixed.n_categories == 2


def test_normalize_labels_reads_numeric_strings_as_numbers():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["1", " 2", "3 "]})  # one stray string column
    r = Ratings.from_wide(frame, normalize_labels=True)
    assert list(r.categories) == [1, 2, 3] and r.ordered
    assert ag.cohen_kappa(r).value == pytest.approx(1.0)
    long = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["x", "y", "x", "y"],
                         "label": ["a ", "a", "b", "b"]})
    assert Ratings.from_long(long, normalize_labels=True).n_categories == 2


def test_normalize_labels_must_be_bool():
    with pytest.raises(TypeError, match="`normalize_labels` must be True or False"):
        Ratings.from_wide([[1, 2]], normalize_labels="yes")


# -------------------------------------------------------- wide-format item ids
def test_wide_refuses_duplicated_item_ids():
    frame = pd.DataFrame([[1, 2], [1, 1], [2, 2]], index=[7, 7, 8])
    with pytest.raises(ValueError, match=r"duplicated item ids, e.g. 7 \(1 repeated row"):
        Ratings.from_wide(frame)
    with pytest.raises(ValueError, match="duplicated item ids"):
        Ratings.from_wide([[1, 2], [1, 1]], items=["a", "a"])


def test_wide_refuses_missing_item_ids():
    frame = pd.DataFrame([[1, 2], [1, 1], [2, 2]], index=[1.0, np.nan, 3.0])
    with pytest.raises(ValueError, match="1 missing item id"):
        Ratings.from_wide(frame)


# ------------------------------------------------------------ plain values
def test_messages_print_plain_values():
    frame = pd.DataFrame([[1, 2, 2], [1, 1, 1]], index=np.array([266, 267]))
    with pytest.raises(ValueError, match=r"item 266 has 3") as info:
        ag.scott_pi(frame)
    assert "np." not in str(info.value)
    with pytest.raises(ValueError, match=r"label 3\.0 is not among") as info:
        Ratings.from_wide(np.array([[1.0, 3.0]]), categories=[1.0, 2.0])
    assert "np." not in str(info.value)
    long = pd.DataFrame({"item": np.array([266, 266]), "rater": ["a", "a"], "label": [1, 2]})
    with pytest.raises(ValueError, match=r"annotator 'a' rated item 266 more than once"):
        Ratings.from_long(long)


# --------------------------------------------------------------- replicates
def test_from_long_replicates_separate():
    long = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": ["x", "x", "y", "x", "x", "y"],
                         "label": [1, 2, 1, 2, 2, 2]})
    with pytest.raises(ValueError, match="Pass `replicates='separate'`"):
        Ratings.from_long(long)
    with pytest.raises(ValueError, match="`replicates` must be 'error' or 'separate'"):
        Ratings.from_long(long, replicates="merge")
    r = Ratings.from_long(long, replicates="separate")
    assert list(r.raters) == [("x", 0), ("x", 1), ("y", 0)]
    assert r.annotator_of.tolist() == [0, 0, 1] and list(r.annotators) == ["x", "y"]
    assert r.has_replicates and r.take([1]).annotator_of.tolist() == [0, 0, 1]
    assert r.codes.tolist() == [[0, 1, 0], [1, 1, 1]]
    plain = Ratings.from_wide([[1, 2]])
    assert plain.annotator_of.tolist() == [0, 1] and not plain.has_replicates


def test_normalize_labels_on_numpy_string_arrays():
    data = np.array([["1", "2"], ["2", " 2"], ["3", "3"]])
    r = Ratings.from_wide(data, normalize_labels=True)
    assert list(r.categories) == [1, 2, 3]
    with pytest.warns(LabelWarning, match=r"'2' vs ' 2'"):
        assert Ratings.from_wide(data).n_categories == 4


def test_latent_class_single_category_message_is_plain():
    from noise_models import LatentClassModel

    with pytest.raises(ValueError, match=r"single category \(1\)"):
        LatentClassModel("confusion").fit(np.array([[1, 1], [1, 1]]))
