"""The :class:`Ratings` container: one coding of labels, kept once.

Every function in goldnoise takes a :class:`Ratings` (or anything
:func:`as_ratings` can wrap). Labels of any type are coded to integers once,
here; the original category names are kept for reporting.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from _goldnoise_lib.errors import LabelWarning, ShapeError
from agreement._encoding import (
    _as_index,
    _category_values,
    _check_flag,
    _check_item_ids,
    _check_no_repeats,
    _code_dtype,
    _declared,
    _encode,
    _encoding_kernels,
    _exact_counts,
    _kernels,
    _long_ids,
    _long_labels,
    _replicate_columns,
)
from agreement._ratings_views import describe, export_options, gold_accuracy, rater_positions

__all__ = ["Ratings", "as_ratings"]


class Ratings:
    """Labels that annotators gave items, coded once.

    Build one with :meth:`from_wide`, :meth:`from_long` or :meth:`from_counts`;
    every public goldnoise function also accepts the raw array or DataFrame
    and wraps it with :func:`as_ratings`.

    Attributes
    ----------
    codes : ndarray of int8 or int16, shape (n_items, n_raters), or None
        Category codes ``0..m-1``, ``-1`` for a missing rating. ``None`` for
        data built from a count table, which carries no annotator identity.
    counts : ndarray of int32, shape (n_items, n_categories)
        ``a[i, c]``, the number of annotators who put item ``i`` in category
        ``c`` (SPEC §1). Exact: :meth:`from_counts` refuses counts above
        2**31 − 1.
    categories : pandas.Index
        The category names, in code order. Unused declared categories are kept.
    category_values : ndarray of float64, shape (n_categories,)
        Numeric values of the categories (the labels themselves when numeric,
        else their declared order ``1..m``), used by weights and by
        Krippendorff's interval and ratio metrics.
    ordered : bool
        Whether the categories have a meaningful order (numeric labels, an
        ordered categorical, or an explicit ``categories=``).
    items, raters : pandas.Index
        Item and annotator (rater column) identifiers.
    annotator_of : ndarray of intp, shape (n_raters,)
        The annotator of each rater column, an index into ``annotators``;
        columns that are replicates of one annotator
        (``from_long(..., replicates="separate")``) share it.

    Examples
    --------
    >>> from agreement import Ratings
    >>> r = Ratings.from_wide([["a", "a"], ["a", "b"], ["b", None]])
    >>> r
    Ratings(3 items, 2 raters, 2 categories ['a', 'b'], 5 ratings, 1 missing)
    >>> r.counts
    array([[2, 0],
           [1, 1],
           [0, 1]], dtype=int32)
    """

    __slots__ = ("_annotator_of", "_annotators", "_codes", "_counts", "categories",
                 "category_values", "items", "ordered", "raters")

    def __init__(
        self,
        codes: npt.NDArray[np.integer] | None,
        categories: pd.Index,
        *,
        items: pd.Index,
        raters: pd.Index,
        counts: npt.NDArray[np.integer] | None = None,
        ordered: bool = False,
        category_values: npt.NDArray[np.floating] | None = None,
    ) -> None:
        # Internal constructor: inputs are already validated by the factories.
        m = len(categories)
        if codes is not None:
            # The compact code type whatever the caller built (a kernel compiles once per
            # argument type: int64 codes compiled every kernel a second time).
            compact = _code_dtype(m)
            dtype = compact if np.iinfo(compact).max >= m else None
            codes = np.ascontiguousarray(codes, dtype=dtype)
            codes.setflags(write=False)
        if counts is not None:
            counts = np.ascontiguousarray(counts, dtype=np.int32)
            counts.setflags(write=False)
        self._codes = codes
        self._counts = counts
        self.categories = categories
        self.category_values = (
            _category_values(categories) if category_values is None
            else np.asarray(category_values, dtype=np.float64)
        )
        self.category_values.setflags(write=False)
        self.items = items
        self.raters = raters
        self.ordered = bool(ordered)
        self._annotator_of: np.ndarray | None = None
        self._annotators: pd.Index | None = None
        if m < 1:
            raise ValueError("no categories: every rating is missing.")

    # ------------------------------------------------------------------ factories
    @classmethod
    def from_wide(
        cls,
        data: Any,
        *,
        categories: Sequence[Any] | None = None,
        items: Sequence[Hashable] | None = None,
        raters: Sequence[Hashable] | None = None,
        normalize_labels: bool = False,
    ) -> Ratings:
        """Build from an items × annotators table.

        Parameters
        ----------
        data : array_like or pandas.DataFrame, shape (n_items, n_raters)
            ``data[i, j]`` is the label annotator ``j`` gave item ``i``; NaN,
            None, ``pd.NA`` or NaT mean "not rated". Labels may be strings,
            ints, floats, booleans or pandas categoricals. A DataFrame's index
            gives the item ids and its columns the annotator ids.
        categories : sequence, optional
            The categories in their order. Unused categories still count (in
            ``m`` and in weights). Default: the observed labels in natural
            order, or a categorical's own categories.
        items, raters : sequence, optional
            Ids for the rows and columns when ``data`` is not a DataFrame.
        normalize_labels : bool, default False
            Strip surrounding spaces, apply Unicode NFC, and read numeric
            strings as numbers when every label is numeric, so that ``1``,
            ``'1'`` and ``' 1'`` are one category. Without it, labels that
            print alike but differ stay separate and a :class:`LabelWarning`
            names them.

        Returns
        -------
        Ratings

        Raises
        ------
        ShapeError
            If ``data`` is not two-dimensional or is empty.
        ValueError
            If every rating is missing, a label is not among ``categories``, or
            item ids are duplicated or missing (as :meth:`from_long` refuses them).

        Examples
        --------
        >>> import numpy as np
        >>> Ratings.from_wide(np.array([[1, 2], [2, 2], [np.nan, 1]])).categories
        Index([1.0, 2.0], dtype='float64', name='category')
        """
        declared_order = categories is not None
        if isinstance(data, pd.DataFrame):
            if items is None:
                items = data.index
            if raters is None:
                raters = data.columns
            cat_dtypes = [dt for dt in data.dtypes if isinstance(dt, pd.CategoricalDtype)]
            if categories is None and cat_dtypes and len(cat_dtypes) == data.shape[1]:
                first = cat_dtypes[0]
                if all(list(dt.categories) == list(first.categories) for dt in cat_dtypes):
                    categories = list(first.categories)
                    declared_order = bool(first.ordered)
            frame_values = data.to_numpy(dtype=object) if (
                cat_dtypes or any(dt.kind not in "iufb" for dt in data.dtypes)
            ) else data.to_numpy()
            values = frame_values
        else:
            values = np.asarray(data, dtype=object) if not isinstance(data, np.ndarray) else data
        if values.ndim != 2:
            raise ShapeError(
                f"`data` must be two-dimensional (items × annotators); got {values.ndim} "
                f"dimension(s) with shape {values.shape}. For one annotator's labels use "
                "`data.reshape(-1, 1)`; for long data use `Ratings.from_long`."
            )
        n, k = values.shape
        if n == 0 or k == 0:
            raise ShapeError(f"`data` is empty (shape {values.shape}).")
        item_index = _as_index(items, n, "item")
        _check_item_ids(item_index)
        codes, cats = _encode(values, categories, normalize=_check_flag(normalize_labels))
        ordered = declared_order or cats.dtype.kind in "iuf"
        return cls(codes, cats, items=item_index,
                   raters=_as_index(raters, k, "rater"), ordered=ordered)

    @classmethod
    def from_long(
        cls,
        frame: pd.DataFrame,
        *,
        item: Hashable = "item",
        rater: Hashable = "rater",
        label: Hashable = "label",
        categories: Sequence[Any] | None = None,
        replicates: str = "error",
        normalize_labels: bool = False,
    ) -> Ratings:
        """Build from a long table with one row per rating.

        Parameters
        ----------
        frame : pandas.DataFrame
            One row per rating.
        item, rater, label : hashable
            Column names of the item id, the annotator id and the label.
            Rows with a missing label are ignored.
        categories : sequence, optional
            As in :meth:`from_wide`.
        replicates : {"error", "separate"}, default "error"
            What to do when an annotator rated the same item more than once.
            ``"error"`` refuses it; ``"separate"`` keeps the r-th rating of
            each (item, annotator) as its own column ``(annotator, r)`` (in
            order of appearance) and records in :attr:`annotator_of` which
            annotator each column belongs to, so that latent-class models can
            share one confusion matrix across an annotator's replicates.
            Agreement coefficients treat the replicate columns as annotators.
        normalize_labels : bool, default False
            As in :meth:`from_wide`.

        Returns
        -------
        Ratings
            Items and annotators in order of first appearance.

        Raises
        ------
        KeyError
            If a named column is missing.
        ValueError
            If an annotator rated the same item twice and ``replicates`` is
            ``"error"``, or ``replicates`` is unknown.

        Examples
        --------
        >>> import pandas as pd
        >>> long = pd.DataFrame({"item": [1, 1, 2], "rater": ["x", "y", "x"],
        ...                      "label": ["pos", "neg", "pos"]})
        >>> Ratings.from_long(long).counts
        array([[1, 1],
               [0, 1]], dtype=int32)
        """
        item_codes, item_ids, rater_codes, rater_ids = _long_ids(frame, item, rater, label)
        if replicates not in ("error", "separate"):
            raise ValueError(
                f"`replicates` must be 'error' or 'separate'; got {replicates!r}."
            )
        normalize = _check_flag(normalize_labels)
        # A repeated (item, annotator) is found while the codes are scattered; the label
        # coding runs first, so its errors and warnings wait until the repeats are known
        # (a repeat is reported first, as it always was).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LabelWarning)
            try:
                codes_flat, cats, declared_order = _long_labels(frame[label], categories,
                                                                normalize)
                label_error = None
            except (ValueError, TypeError) as err:
                label_error = err
        codes = None
        if label_error is None:
            codes = _encoding_kernels.scatter_long(item_codes, rater_codes, codes_flat,
                                                   len(item_ids), len(rater_ids))
        annotator_of = None
        if codes is None and replicates == "error":  # a repeat is reported first
            _check_no_repeats(frame, item, rater)
        for w in caught:
            if issubclass(w.category, LabelWarning):
                warnings.warn(w.message, w.category, stacklevel=2)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if label_error is not None:
            raise label_error
        if codes is None:
            codes, rater_index, annotator_of = _replicate_columns(
                frame[[item, rater]], item_codes, len(item_ids), rater_codes, rater_ids,
                codes_flat)
            annotator_ids = pd.Index(rater_ids, name="rater")
        else:
            rater_index = pd.Index(rater_ids, name="rater")
        ordered = declared_order or cats.dtype.kind in "iuf"
        out = cls(codes, cats, items=pd.Index(item_ids, name="item"),
                  raters=rater_index, ordered=ordered)
        if annotator_of is not None:
            out._annotator_of = annotator_of
            out._annotators = annotator_ids
        return out

    @classmethod
    def from_export(cls, path: str | Path, tool: str, *, item: Hashable | None = None,
                    label: Hashable | None = None,
                    categories: Sequence[Any] | None = None) -> Ratings:
        """Build from an annotation tool's item-level export.

        Parameters
        ----------
        path : str or path
            The export file.
        tool : {"labelstudio", "prodigy", "mturk"}
            Label Studio's JSON export (a classification: ``choices`` results,
            several annotators' ``annotations`` per task, the task ``id`` as item);
            Prodigy's JSONL answers (``db-out``: the annotator in
            ``_annotator_id``; a choice task's accepted option, or a binary task's
            accept/reject, ``ignore`` left out); or Amazon Mechanical Turk's batch
            results CSV (``WorkerId``, ``HITId``, ``Answer.*``; rejected
            assignments left out).
        item : hashable, optional
            MTurk: the column of item ids (default ``HITId``, e.g. ``Input.id``).
        label : hashable, optional
            MTurk: the answer column when there are several ``Answer.*``; Label
            Studio: the choices control (``from_name``) when there are several.
        categories : sequence, optional
            Declared categories, as in :meth:`from_long`.

        Returns
        -------
        Ratings

        Raises
        ------
        ValueError
            For a file the tool's reader cannot read, naming the file, the task or
            line, and the fix (several choices selected, several answer columns,
            no annotator id, ...).

        Examples
        --------
        >>> import json, pathlib, tempfile
        >>> from agreement import Ratings
        >>> tasks = [{"id": i, "annotations": [
        ...     {"completed_by": a, "result": [{"type": "choices", "from_name": "mood",
        ...                                     "value": {"choices": [lab]}}]}
        ...     for a, lab in zip([1, 2], labels)]}
        ...     for i, labels in enumerate([["pos", "pos"], ["neg", "pos"], ["neg", "neg"]])]
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "export.json"
        >>> _ = path.write_text(json.dumps(tasks))
        >>> r = Ratings.from_export(path, "labelstudio")
        >>> r.n_items, r.n_raters, list(r.categories)
        (3, 2, ['neg', 'pos'])
        """
        from agreement._exports import read_export

        long = read_export(path, tool, **export_options(tool, item, label))
        return cls.from_long(long, item="item", rater="rater", label="label",
                             categories=categories)

    @classmethod
    def from_counts(
        cls,
        table: Any,
        *,
        categories: Sequence[Any] | None = None,
        items: Sequence[Hashable] | None = None,
    ) -> Ratings:
        """Build from an items × categories table of counts ``a[i, c]``.

        A count table carries no annotator identity: coefficients that need
        each annotator's own labels (Cohen, Conger, the latent-class models
        with per-annotator parameters) refuse it.

        Parameters
        ----------
        table : array_like or pandas.DataFrame, shape (n_items, n_categories)
            Non-negative integer counts. A DataFrame's columns name the
            categories and its index the items.
        categories : sequence, optional
            Category names when ``table`` is not a DataFrame.
        items : sequence, optional
            Item ids when ``table`` is not a DataFrame.

        Returns
        -------
        Ratings

        Raises
        ------
        ValueError
            For negative, fractional or missing counts, or a count (or an
            item's total) above 2**31 − 1, which int32 cannot hold exactly.

        Examples
        --------
        >>> Ratings.from_counts([[3, 0], [1, 2]], categories=["yes", "no"]).n_raters
        3
        """
        if isinstance(table, pd.DataFrame):
            if categories is None:
                categories = list(table.columns)
            if items is None:
                items = table.index
            arr = table.to_numpy()
        else:
            arr = np.asarray(table)
        if arr.ndim != 2:
            raise ShapeError(
                f"`table` must be two-dimensional (items × categories); got shape {arr.shape}."
            )
        if arr.size == 0:
            raise ShapeError(f"`table` is empty (shape {arr.shape}).")
        try:
            arrf = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError("`table` must hold numeric counts.") from None
        if not np.all(np.isfinite(arrf)) or np.any(arrf < 0) or np.any(arrf != np.round(arrf)):
            raise ValueError("`table` must hold non-negative whole-number counts (no NaN).")
        counts = _exact_counts(arr, arrf)
        if counts.sum() == 0:
            raise ValueError("`table` holds no ratings: every count is zero.")
        n, m = counts.shape
        if categories is None:
            cats = pd.RangeIndex(m, name="category")
        else:
            cats = pd.Index(list(categories), name="category")
            if len(cats) != m:
                raise ShapeError(f"`categories` has {len(cats)} names but `table` has {m} columns.")
        ordered = cats.dtype.kind in "iuf"
        r = counts.sum(axis=1)
        return cls(None, cats, items=_as_index(items, n, "item"),
                   raters=pd.RangeIndex(int(r.max()), name="rater"), counts=counts,
                   ordered=ordered)

    @classmethod
    def from_contingency(
        cls,
        table: Any,
        *,
        categories: Sequence[Any] | None = None,
        raters: Sequence[Hashable] = ("rater 1", "rater 2"),
    ) -> Ratings:
        """Build two annotators' ratings from their m × m contingency table.

        ``table[c, l]`` counts the items the first annotator put in category
        ``c`` and the second in ``l``; the table is expanded to one item per
        count (items in row-major cell order), so every coefficient, Cohen's
        κ included, applies.

        Parameters
        ----------
        table : array_like or pandas.DataFrame, shape (m, m)
            Non-negative whole-number counts. A DataFrame's index (rows, first
            annotator) names the categories; its columns must name the same
            categories in the same order.
        categories : sequence, optional
            Category names in table order when ``table`` is not a DataFrame.
            Default: ``0..m-1``.
        raters : pair of hashables, default ("rater 1", "rater 2")
            Names of the row and column annotators.

        Returns
        -------
        Ratings

        Raises
        ------
        ShapeError
            If the table is not square or is empty.
        ValueError
            If counts are negative, fractional or all zero, or the DataFrame's
            rows and columns name different categories.

        Examples
        --------
        >>> r = Ratings.from_contingency([[2, 1], [0, 3]], categories=["no", "yes"])
        >>> r.to_wide().to_numpy().tolist()
        [['no', 'no'], ['no', 'no'], ['no', 'yes'], ['yes', 'yes'], ['yes', 'yes'], ['yes', 'yes']]
        """
        if isinstance(table, pd.DataFrame):
            if categories is None:
                if list(table.index) != list(table.columns):
                    raise ValueError(
                        "the contingency table's rows and columns must name the same "
                        f"categories in the same order; got rows {list(table.index)} and "
                        f"columns {list(table.columns)}. Reorder them or pass `categories=`."
                    )
                categories = list(table.index)
            arr = table.to_numpy()
        else:
            arr = np.asarray(table)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0:
            raise ShapeError(
                f"`table` must be a non-empty square m × m contingency table; got shape "
                f"{arr.shape}."
            )
        try:
            arrf = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError("`table` must hold numeric counts.") from None
        if not np.all(np.isfinite(arrf)) or np.any(arrf < 0) or np.any(arrf != np.round(arrf)):
            raise ValueError(
                "`table` must hold non-negative whole-number counts; for proportions, "
                "multiply by the number of items first."
            )
        if arrf.sum() == 0:
            raise ValueError("`table` holds no ratings: every count is zero.")
        m = arr.shape[0]
        cats = (pd.RangeIndex(m, name="category") if categories is None
                else _declared(categories))
        if len(cats) != m:
            raise ShapeError(f"`categories` has {len(cats)} names but `table` is {m} × {m}.")
        if len(raters) != 2:
            raise ValueError(f"`raters` must name two annotators; got {list(raters)}.")
        counts = arrf.astype(np.int64).ravel()
        cells = np.repeat(np.arange(m * m), counts)
        codes = np.column_stack([cells // m, cells % m]).astype(_code_dtype(m))
        ordered = categories is not None or cats.dtype.kind in "iuf"
        return cls(codes, cats, items=pd.RangeIndex(len(codes), name="item"),
                   raters=pd.Index(list(raters), name="rater"), ordered=ordered)

    # ---------------------------------------------------------------- properties
    @property
    def codes(self) -> npt.NDArray[np.integer] | None:
        return self._codes

    @property
    def has_raters(self) -> bool:
        """Whether annotator identity is known (False for count tables)."""
        return self._codes is not None

    @property
    def counts(self) -> npt.NDArray[np.int32]:
        if self._counts is None:
            counts = _kernels.item_counts(self._codes, len(self.categories))
            counts.setflags(write=False)
            self._counts = counts
        return self._counts

    @property
    def annotator_of(self) -> npt.NDArray[np.intp]:
        """For each rater column, the index of its annotator in :attr:`annotators`.

        ``np.arange(n_raters)`` unless :meth:`from_long` kept replicates
        (``replicates="separate"``): then an annotator's replicate columns
        share one index.
        """
        if self._annotator_of is None:
            out = np.arange(self.n_raters)
        else:
            out = self._annotator_of.copy()
        out.setflags(write=False)
        return out

    @property
    def annotators(self) -> pd.Index:
        """The distinct annotators (:attr:`raters` unless replicates were kept)."""
        return self.raters if self._annotators is None else self._annotators

    @property
    def has_replicates(self) -> bool:
        """Whether some annotator has several rater columns (replicated ratings)."""
        return self._annotator_of is not None

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_raters(self) -> int:
        return len(self.raters)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def ratings_per_item(self) -> npt.NDArray[np.int64]:
        """``r[i]``, the number of ratings on each item."""
        return self.counts.sum(axis=1, dtype=np.int64)

    @property
    def n_ratings(self) -> int:
        return int(self.counts.sum(dtype=np.int64))

    @property
    def agreed(self) -> npt.NDArray[np.bool_]:
        """The unanimously agreed items: two or more ratings, all the same category.

        These are the candidate gold standard whose noise the easy/hard bound
        γ measures (``agreed.sum()`` is its ``n − d``).

        Examples
        --------
        >>> from agreement import Ratings
        >>> Ratings.from_wide([["a", "a"], ["a", "b"], ["b", None]]).agreed
        array([ True, False, False])
        """
        counts = self.counts
        per_item = counts.sum(axis=1, dtype=np.int64)
        return (per_item >= 2) & (counts.max(axis=1) == per_item)

    def majority_labels(self) -> pd.Series:
        """The most chosen label of each item (ties: the first category; unrated items: NA).

        Examples
        --------
        >>> from agreement import Ratings
        >>> Ratings.from_wide([["a", "a"], ["a", "b"], ["b", None]]).majority_labels().tolist()
        ['a', 'a', 'b']
        """
        counts = self.counts
        labels = pd.Series(self.categories[counts.argmax(axis=1)], index=self.items, name="label")
        rated = counts.sum(axis=1) > 0
        return labels if rated.all() else labels.astype(object).where(rated, pd.NA)

    def describe(self) -> pd.Series:
        """Counts of the data: items, annotators, ratings per item, agreed and disagreed items.

        Returns
        -------
        pandas.Series
            ``n_items``, ``n_raters``, ``n_categories``, ``n_ratings``;
            ``ratings_per_item_min``, ``ratings_per_item_max`` and
            ``ratings_per_item_mean`` over the rated items (0, 0 and NaN when no
            item is rated); ``items_with_one_rating``, ``items_with_two_or_more``
            (the items on which annotators can agree or disagree),
            ``agreed_items`` (unanimous: :attr:`agreed`) and ``disagreed_items``
            (two or more ratings, not unanimous). Counts are ints, the mean a float.

        Examples
        --------
        >>> from agreement import Ratings
        >>> r = Ratings.from_wide([["a", "a", "a"], ["a", "b", None], ["b", None, None]])
        >>> d = r.describe()
        >>> d[["ratings_per_item_min", "ratings_per_item_max", "ratings_per_item_mean"]].tolist()
        [1, 3, 2.0]
        >>> d[["items_with_one_rating", "agreed_items", "disagreed_items"]].tolist()
        [1, 1, 1]
        """
        return describe(self)

    def gold_accuracy(self, gold: Any) -> pd.Series:
        """How often the majority vote and the unanimous labels are the gold labels.

        Parameters
        ----------
        gold : pandas.Series or dict
            The true label by item id, for all items or some; ids that are not
            items of the ratings are ignored.

        Returns
        -------
        pandas.Series
            ``items_with_gold`` (items whose gold label is one of the categories),
            ``unknown_gold`` (items whose gold label is none of them: not compared);
            ``majority_items`` (rated items with gold) and ``majority_accuracy``, the
            share of them whose :meth:`majority_labels` (ties: the first category) is
            the gold label; ``unanimous_items`` (:attr:`agreed` items with gold),
            ``unanimous_wrong``, ``unanimous_wrong_share`` and ``unanimous_accuracy``
            (``1 − unanimous_wrong_share``). A share is NaN when it has no item.

        Examples
        --------
        >>> from agreement import Ratings
        >>> r = Ratings.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["b", "b"]])
        >>> acc = r.gold_accuracy({0: "a", 1: "b", 2: "a", 3: "b", 9: "a"})
        >>> acc[["items_with_gold", "majority_accuracy", "unanimous_items",
        ...      "unanimous_wrong"]].tolist()
        [4, 0.5, 3, 1]
        """
        return gold_accuracy(self, gold)

    def require_raters(self, what: str) -> npt.NDArray[np.integer]:
        """Return ``codes``, or raise a clear error for count-table data."""
        if self._codes is None:
            raise ValueError(
                f"{what} needs each annotator's own labels, but these ratings were built "
                "from a count table. Build them with `Ratings.from_wide` or `from_long`."
            )
        return self._codes

    # ------------------------------------------------------------------ exports
    def to_wide(self) -> pd.DataFrame:
        """Items × annotators DataFrame of the original labels (missing = NaN/None)."""
        codes = self.require_raters("`to_wide`")
        cats = np.asarray(self.categories, dtype=object)
        out = np.where(codes >= 0, cats[np.maximum(codes, 0)], None)
        frame = pd.DataFrame(out, index=self.items, columns=self.raters)
        if self.categories.dtype.kind in "iuf":
            frame = frame.astype("float64")
        return frame

    def to_long(self) -> pd.DataFrame:
        """Long DataFrame with columns ``item``, ``rater``, ``label`` (rated cells only)."""
        codes = self.require_raters("`to_long`")
        ii, jj = np.nonzero(codes >= 0)
        return pd.DataFrame({
            "item": self.items[ii], "rater": self.raters[jj],
            "label": self.categories[codes[ii, jj]],
        })

    def counts_frame(self) -> pd.DataFrame:
        """Items × categories DataFrame of ``a[i, c]``."""
        return pd.DataFrame(self.counts, index=self.items, columns=self.categories)

    def take(self, items: npt.ArrayLike) -> Ratings:
        """A new Ratings with the items at the given positions (e.g. a bootstrap draw)."""
        idx = np.asarray(items, dtype=np.intp)
        out = Ratings(
            None if self._codes is None else self._codes[idx],
            self.categories, items=self.items[idx], raters=self.raters,
            counts=None if self._counts is None else self._counts[idx],
            ordered=self.ordered, category_values=self.category_values,
        )
        out._annotator_of = self._annotator_of
        out._annotators = self._annotators
        return out

    def select(self, *, raters: npt.ArrayLike) -> Ratings:
        """The same items rated by some of the rater columns only.

        Parameters
        ----------
        raters : array_like of int or of bool
            The rater columns to keep: positions in :attr:`raters` (in the order
            given; negative ones from the end), or a mask of :attr:`n_raters` values.

        Returns
        -------
        Ratings
            The kept columns with their ids on every item; the categories, their
            order and values are the whole's (a coefficient of the subset reads on
            the same scale); replicate columns keep their annotator.

        Raises
        ------
        TypeError
            For positions that are not integers.
        ValueError
            For ratings without rater columns (a count table).
        IndexError
            For a position outside ``range(-n_raters, n_raters)``, a mask's length.

        Examples
        --------
        >>> from agreement import Ratings
        >>> r = Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"]], raters=["x", "y", "z"])
        >>> r.select(raters=[2, 0]).to_wide()
        rater  z  x
        item
        0      b  a
        1      b  b
        """
        codes = self.require_raters("`Ratings.select`")
        idx = rater_positions(raters, self.n_raters)
        out = Ratings(codes[:, idx], self.categories, items=self.items,
                      raters=self.raters[idx], ordered=self.ordered,
                      category_values=self.category_values)
        if self._annotator_of is not None:
            kept, out._annotator_of = np.unique(self._annotator_of[idx], return_inverse=True)
            out._annotators = self.annotators[kept]
        return out

    def __repr__(self) -> str:
        cats = list(self.categories)
        shown = repr(cats) if len(cats) <= 8 else repr(cats[:8])[:-1] + ", ...]"
        total = self.n_items * self.n_raters
        missing = f", {total - self.n_ratings} missing" if self.has_raters else ""
        return (f"Ratings({self.n_items} items, {self.n_raters} raters, {self.n_categories} "
                f"categories {shown}, {self.n_ratings} ratings{missing})")


def as_ratings(data: Any, **kwargs: Any) -> Ratings:
    """Wrap anything goldnoise accepts as ratings.

    A :class:`Ratings` passes through unchanged (``kwargs`` must then be
    empty); an array or DataFrame is read as wide data (items × annotators).

    Examples
    --------
    >>> as_ratings([[1, 1], [1, 2]]).n_items
    2
    """
    if isinstance(data, Ratings):
        if kwargs:
            raise TypeError(
                f"options {sorted(kwargs)} apply only when building Ratings from raw data."
            )
        return data
    if isinstance(data, pd.Series):
        raise ShapeError(
            "a Series is one-dimensional; pass an items × annotators DataFrame, or a "
            "long frame to `Ratings.from_long`."
        )
    return Ratings.from_wide(data, **kwargs)
