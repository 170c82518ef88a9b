"""The Ratings container: coding, missing values, input validation."""

import numpy as np
import pandas as pd
import pytest

from agreement import Ratings, ShapeError, as_ratings


def test_wide_strings_with_missing():
    r = Ratings.from_wide([["a", "a"], ["a", "b"], ["b", None]])
    assert list(r.categories) == ["a", "b"]
    np.testing.assert_array_equal(r.codes, [[0, 0], [0, 1], [1, -1]])
    np.testing.assert_array_equal(r.counts, [[2, 0], [1, 1], [0, 1]])
    assert r.n_ratings == 5


def test_wide_numeric_keeps_numeric_categories():
    r = Ratings.from_wide(np.array([[1, 3], [3, 3], [7, 1]]))
    assert list(r.categories) == [1, 3, 7]
    np.testing.assert_array_equal(r.category_values, [1.0, 3.0, 7.0])
    assert r.ordered


def test_float_labels_and_nan():
    r = Ratings.from_wide(np.array([[0.5, np.nan], [0.25, 0.5]]))
    assert list(r.categories) == [0.25, 0.5]
    np.testing.assert_array_equal(r.codes, [[1, -1], [0, 1]])


def test_declared_categories_keep_unused():
    r = Ratings.from_wide([["lo", "hi"]], categories=["lo", "mid", "hi"])
    assert r.n_categories == 3
    np.testing.assert_array_equal(r.counts, [[1, 0, 1]])
    np.testing.assert_array_equal(r.category_values, [1, 2, 3])


def test_categorical_frame_uses_its_categories():
    dt = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    df = pd.DataFrame({"x": pd.Series(["low", "high"], dtype=dt),
                       "y": pd.Series(["mid", None], dtype=dt)})
    r = Ratings.from_wide(df)
    assert list(r.categories) == ["low", "mid", "high"] and r.ordered
    np.testing.assert_array_equal(r.codes, [[0, 1], [2, -1]])


def test_pd_na_missing():
    df = pd.DataFrame({"a": pd.array([1, pd.NA, 2], dtype="Int64"),
                       "b": pd.array([1, 2, pd.NA], dtype="Int64")})
    r = Ratings.from_wide(df)
    np.testing.assert_array_equal(r.codes, [[0, 0], [-1, 1], [1, -1]])


def test_long_matches_wide():
    wide = pd.DataFrame({"r1": ["x", "y", "x"], "r2": ["x", "x", None]}, index=[10, 11, 12])
    long = Ratings.from_wide(wide).to_long()
    back = Ratings.from_long(long)
    np.testing.assert_array_equal(back.counts, Ratings.from_wide(wide).counts)
    assert list(back.items) == [10, 11, 12]


def test_counts_table():
    r = Ratings.from_counts(pd.DataFrame({"yes": [3, 1], "no": [0, 2]}))
    assert not r.has_raters and r.n_raters == 3
    with pytest.raises(ValueError, match="needs each annotator's own labels"):
        r.require_raters("Cohen's kappa")


def test_input_not_mutated():
    arr = np.array([[1.0, np.nan], [2.0, 1.0]])
    before = arr.copy()
    Ratings.from_wide(arr)
    np.testing.assert_array_equal(arr, before)


def test_codes_are_read_only():
    r = Ratings.from_wide([[1, 2]])
    with pytest.raises(ValueError, match="read-only"):
        r.codes[0, 0] = 1


@pytest.mark.parametrize(
    ("data", "exc", "match"),
    [
        ([1, 2, 3], ShapeError, "two-dimensional"),
        (np.empty((0, 2)), ShapeError, "empty"),
        ([[None, None]], ValueError, "every rating is missing"),
        (np.array([[np.nan, np.nan]]), ValueError, "every rating is missing"),
        (np.array([[1.0, np.inf]]), ValueError, "inf"),
    ],
)
def test_bad_wide_input(data, exc, match):
    with pytest.raises(exc, match=match):
        Ratings.from_wide(data)


def test_label_outside_categories():
    with pytest.raises(ValueError, match="not among `categories`"):
        Ratings.from_wide([["a", "b"]], categories=["a"])


def test_long_duplicates_and_columns():
    df = pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": [1, 2]})
    with pytest.raises(ValueError, match="more than once"):
        Ratings.from_long(df)
    with pytest.raises(KeyError, match="not a column"):
        Ratings.from_long(df, label="answer")


def test_bad_counts():
    with pytest.raises(ValueError, match="non-negative whole-number"):
        Ratings.from_counts([[1.5, 2]])
    with pytest.raises(ValueError, match="no ratings"):
        Ratings.from_counts([[0, 0]])


def test_as_ratings_passthrough_and_series():
    r = Ratings.from_wide([[1, 2]])
    assert as_ratings(r) is r
    with pytest.raises(ShapeError, match="one-dimensional"):
        as_ratings(pd.Series([1, 2]))


def test_take_subsets_items():
    r = Ratings.from_wide([[1, 1], [1, 2], [2, 2]])
    sub = r.take([2, 0])
    np.testing.assert_array_equal(sub.counts, [[0, 2], [2, 0]])


def test_select_keeps_the_chosen_rater_columns():
    r = Ratings.from_wide([["a", "a", "b"], ["b", "c", None]], raters=["x", "y", "z"])
    sub = r.select(raters=[2, 0])
    assert list(sub.raters) == ["z", "x"] and sub.raters.equals(r.raters[[2, 0]])
    np.testing.assert_array_equal(sub.codes, r.codes[:, [2, 0]])
    assert sub.categories.equals(r.categories)  # 'c' stays, though no kept column uses it
    assert sub.items.equals(r.items) and sub.ordered == r.ordered
    mask = r.select(raters=np.array([True, False, True]))
    np.testing.assert_array_equal(mask.codes, r.codes[:, [0, 2]])
    np.testing.assert_array_equal(r.select(raters=[-1]).codes, r.codes[:, [2]])
    assert r.select(raters=[]).n_raters == 0
    with pytest.raises(IndexError, match="range"):
        r.select(raters=[3])
    with pytest.raises(IndexError, match="one value per rater column"):
        r.select(raters=np.array([True, False]))
    with pytest.raises(TypeError, match="positions"):
        r.select(raters=["x"])
    with pytest.raises(ValueError, match=r"`Ratings\.select` needs"):
        Ratings.from_counts([[2, 0], [1, 1]]).select(raters=[0])


def test_select_keeps_replicates_with_their_annotator():
    frame = pd.DataFrame({"item": [1, 1, 2, 1, 2], "rater": ["a", "b", "a", "a", "c"],
                          "label": ["x", "y", "y", "y", "x"]})
    r = Ratings.from_long(frame, replicates="separate")
    assert list(r.raters) == [("a", 0), ("a", 1), ("b", 0), ("c", 0)]
    sub = r.select(raters=[1, 3, 0])
    assert list(sub.annotators) == ["a", "c"]
    np.testing.assert_array_equal(sub.annotator_of, [0, 1, 0])
