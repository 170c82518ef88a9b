"""``Ratings.from_long`` against a pure-Python reference from its definition.

The reference walks the rows in order: items and annotators are numbered in order
of first appearance, a repeated (item, annotator) is refused, and the labels are
pivoted into an items × annotators table that ``Ratings.from_wide`` codes (the
general coding path, which the long reader's fast paths must reproduce exactly:
codes, categories, order, warnings and errors).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement import LabelWarning, Ratings


def reference(frame, categories=None):
    """Items × annotators by a loop over the rows; coded by ``from_wide``."""
    items, raters, cells = {}, {}, {}
    for it, ra, lab in zip(frame["item"], frame["rater"], frame["label"], strict=True):
        i = items.setdefault(it, len(items))
        j = raters.setdefault(ra, len(raters))
        if (i, j) in cells:
            raise ValueError(f"annotator {ra!r} rated item {it!r} more than once")
        cells[i, j] = lab
    labels = frame["label"]
    if isinstance(labels.dtype, pd.CategoricalDtype):
        dtype = labels.dtype
        wide = pd.DataFrame({j: pd.Series([cells.get((i, j)) for i in range(len(items))],
                                          dtype=dtype) for j in range(len(raters))})
        return Ratings.from_wide(wide, items=list(items), raters=list(raters),
                                 categories=categories)
    table = np.full((len(items), len(raters)), None, dtype=object)
    for (i, j), lab in cells.items():
        table[i, j] = None if pd.isna(lab) else lab
    if labels.dtype.kind == "f":
        table = table.astype(np.float64)
    return Ratings.from_wide(table, items=list(items), raters=list(raters),
                             categories=categories)


def outcome(build):
    """(Ratings or the error's type, the LabelWarnings' texts)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LabelWarning)
        try:
            out = build()
        except ValueError as err:
            out = ("error", "more than once" in str(err) or str(err))
    # a look-alike group lists its labels in the order the reader met them, which differs
    # between the long reader and the wide reference: compare the groups as sets
    return out, [_unordered(str(w.message)) for w in caught
                 if issubclass(w.category, LabelWarning)]


def _unordered(message):
    head, sep, rest = message.partition("categories: ")
    if not sep:
        return message
    groups, _, tail = rest.partition(". They differ")
    return (head, tuple(sorted(tuple(sorted(g.split(" vs "))) for g in groups.split("; "))),
            tail)


def assert_same(frame, categories=None):
    got, got_warned = outcome(lambda: Ratings.from_long(frame, categories=categories))
    want, want_warned = outcome(lambda: reference(frame, categories))
    assert got_warned == want_warned
    if isinstance(want, tuple):
        assert got == want
        return
    np.testing.assert_array_equal(got.codes, want.codes)
    assert got.codes.dtype == want.codes.dtype
    assert list(got.categories) == list(want.categories)
    assert got.categories.dtype == want.categories.dtype
    assert list(got.items) == list(want.items) and list(got.raters) == list(want.raters)
    assert got.items.dtype == pd.Index(frame["item"].unique()).dtype
    lab = frame["label"]
    declared = categories is not None or (isinstance(lab.dtype, pd.CategoricalDtype)
                                          and lab.cat.ordered)
    assert got.ordered == (declared or want.categories.dtype.kind in "iuf")


POOLS = {
    "text": ["pos", "neg", "neu", "Neg", " pos", "é", "e\u0301"],
    "int": [3, 1, 7, 2, 10],
    "float": [0.5, 1.5, 2.0, -1.0],
}


@st.composite
def long_frames(draw):
    n_items = draw(st.integers(1, 6))
    n_raters = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["text", "categorical", "int", "float"]))
    pool = POOLS["text" if kind == "categorical" else kind]
    pool = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    cells = draw(st.lists(st.tuples(st.integers(0, n_items - 1), st.integers(0, n_raters - 1),
                                     st.sampled_from(pool), st.booleans()),
                          min_size=1, max_size=14))
    # integer ids in a narrow range (coded by a table), in a wide one (hashed), or text
    ids = draw(st.sampled_from(["int", "wide", "text"]))
    item = [c[0] * 7 if ids == "int" else c[0] * 10**12 - 5 if ids == "wide"
            else f"item {c[0]}" for c in cells]
    rater = [c[1] if ids != "text" else f"w{c[1]}" for c in cells]
    labels = [None if missing else lab for _, _, lab, missing in cells]
    if kind == "categorical":
        cats = draw(st.permutations(POOLS["text"][:4] + pool))
        cats = list(dict.fromkeys(cats))
        label = pd.Series(pd.Categorical(labels, categories=cats,
                                         ordered=draw(st.booleans())))
    elif kind == "text":
        label = pd.Series(labels, dtype=draw(st.sampled_from([object, "str"])))
    elif kind == "int" and not any(v is None for v in labels):
        label = pd.Series(labels, dtype=np.int64)
    else:
        label = pd.Series([np.nan if v is None else v for v in labels], dtype=np.float64)
    return pd.DataFrame({"item": item, "rater": rater, "label": label})


@settings(max_examples=examples(300), deadline=None)
@given(long_frames())
def test_from_long_equals_the_reference(frame):
    assert_same(frame)


@settings(max_examples=examples(100), deadline=None)
@given(long_frames(), st.sampled_from([["pos", "neg", "neu"], ["neu", "pos", "neg", "Neg"]]))
def test_declared_categories_equal_the_reference(frame, categories):
    if frame["label"].dtype.kind in "O" or isinstance(frame["label"].dtype, pd.StringDtype):
        assert_same(frame, categories)


def test_repeat_after_a_missing_label_is_refused():
    # The first rating of (1, "a") has no label: its cell stays "not rated", yet the
    # second row repeats the pair.
    frame = pd.DataFrame({"item": [1, 2, 1], "rater": ["a", "a", "a"],
                          "label": [None, "x", "y"]})
    with pytest.raises(ValueError, match="rated item 1 more than once"):
        Ratings.from_long(frame)


def test_repeat_is_reported_before_a_label_error_or_warning():
    frame = pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": ["x", " x"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a LabelWarning would surface as an error here
        with pytest.raises(ValueError, match="more than once"):
            Ratings.from_long(frame)
        with pytest.raises(ValueError, match="more than once"):
            Ratings.from_long(frame, categories=["y"])


def test_categorical_warns_only_about_labels_that_occur():
    cats = ["a", " a", "b"]
    frame = pd.DataFrame({"item": [1, 1, 2], "rater": ["u", "v", "u"],
                          "label": pd.Categorical(["a", "b", "b"], categories=cats)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = Ratings.from_long(frame)
    assert list(r.categories) == cats
    frame.loc[2, "label"] = " a"
    with pytest.warns(LabelWarning, match="'a' vs ' a'"):
        Ratings.from_long(frame)


def test_replicates_separate_unchanged():
    frame = pd.DataFrame({"item": [1, 1, 2, 1], "rater": ["a", "b", "a", "a"],
                          "label": ["x", "y", "y", "y"]})
    r = Ratings.from_long(frame, replicates="separate")
    assert list(r.raters) == [("a", 0), ("a", 1), ("b", 0)]
    np.testing.assert_array_equal(r.codes, [[0, 1, 1], [1, -1, -1]])
    np.testing.assert_array_equal(r.annotator_of, [0, 0, 1])


def test_all_missing_labels_refused():
    frame = pd.DataFrame({"item": [1, 2], "rater": ["a", "a"],
                          "label": pd.Categorical([None, None], categories=["x"])})
    with pytest.raises(ValueError, match="every rating is missing"):
        Ratings.from_long(frame)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64])
def test_integer_ids_of_every_width_as_pandas_factorizes_them(dtype):
    rng = np.random.default_rng(5)
    item = rng.integers(0, 90, 400).astype(dtype)
    rater = rng.integers(0, 6, 400).astype(dtype)
    frame = pd.DataFrame({"item": item, "rater": rater, "label": rng.integers(0, 3, 400)})
    frame = frame.drop_duplicates(["item", "rater"])
    r = Ratings.from_long(frame)
    for got, col in ((r.items, "item"), (r.raters, "rater")):
        _codes, uniques = pd.factorize(frame[col])
        pd.testing.assert_index_equal(got, pd.Index(uniques, name=col))
