"""The :class:`SoftLabels` container: per-instance label distributions and reference labels.

Soft labels are what a voter pool or a crowd leaves behind for each instance:
a probability distribution over the K classes (the CILN paper's p̄_i, its
eq. (1)) together with a reference label y_i (the ground truth, or the
majority vote when there is none). Every instance-dependence statistic of
:mod:`noise_models.instance` takes one; the helpers at the end (``soft_iv``,
``fmt_classes``, ``align_by_name``) are shared by their modules.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import check_number
from agreement import Ratings, ShapeError

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["SoftLabels"]

#: Default tolerance on a row sum: ``|Σ_c p_ic − 1| ≤ atol``. Loose enough for
#: float32 soft-max outputs over a few hundred classes, tight enough to catch
#: counts or scores passed by mistake.
DEFAULT_ATOL = 1e-6

_EMPTY_RULES = ("raise", "drop")


# ----------------------------------------------------------------------------- helpers
def _as_float_matrix(data: Any, name: str) -> np.ndarray:
    """A numeric 2-D view or copy of ``data`` (array-like or DataFrame values)."""
    if isinstance(data, pd.DataFrame):
        try:
            arr = data.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"`{name}` must hold numbers; its columns have dtypes {list(data.dtypes)}."
            ) from None
        return arr
    arr = np.asarray(data)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"`{name}` must hold numbers; got an array of dtype {arr.dtype}."
            ) from None
    return arr


def _index(values: Sequence[Hashable] | None, n: int, name: str, what: str) -> pd.Index:
    if values is None:
        return pd.RangeIndex(n, name=name)
    idx = pd.Index(values)
    if idx.name is None:
        idx = idx.rename(name)
    if len(idx) != n:
        raise ShapeError(f"`{what}` has {len(idx)} entries but the data has {n}.")
    if idx.has_duplicates:
        dup = list(idx[idx.duplicated()][:3])
        raise ValueError(f"`{what}` has duplicate entries, e.g. {dup}; ids must be unique.")
    return idx


def _py(value: Any) -> Any:
    """A numpy scalar as the Python scalar, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _describe_row(instances: pd.Index, i: int) -> str:
    ident = instances[i]
    return f"row {i}" if isinstance(instances, pd.RangeIndex) and ident == i else (
        f"row {i} (instance {ident!r})"
    )


def check_distributions(
    arr: np.ndarray, atol: float, name: str, instances: pd.Index, *, prefix: str = ""
) -> None:
    """Raise a clear ValueError unless every row of ``arr`` is a distribution.

    A row is a distribution when it is finite, has no negative entry and sums
    to 1 within ``atol``.
    """
    row, why = _kernels.first_bad_row(arr, atol)
    if row < 0:
        return
    where = prefix + _describe_row(instances, row)
    values = arr[row]
    if why == 1:
        raise ValueError(
            f"`{name}` {where} holds NaN or inf; every row must be a probability "
            "distribution over the classes. Drop or repair that instance."
        )
    if why == 2:
        bad = float(values[np.flatnonzero(values < 0)[0]])
        raise ValueError(
            f"`{name}` {where} has a negative entry ({bad!r}); a probability distribution "
            "is non-negative. Pass probabilities (e.g. softmax outputs), not logits or scores."
        )
    total = float(values.sum())
    raise ValueError(
        f"`{name}` {where} sums to {total!r}, not 1 (tolerance `atol`={atol!r}). "
        "Normalise the rows (`p / p.sum(axis=1, keepdims=True)`), or pass counts through "
        "`SoftLabels.from_ratings(Ratings.from_counts(...))`, or raise `atol`."
    )


def _label_codes(labels: Any, n: int, classes: pd.Index, instances: pd.Index) -> np.ndarray:
    """Reference labels as int32 codes ``0..K-1``.

    Labels are class names when the classes are not integers; integer labels
    with non-integer classes are codes. When the classes are integers (the
    default ``0..K-1`` included), labels are always class names.
    """
    if isinstance(labels, pd.Series):
        if not labels.index.equals(instances):
            idx = labels.index
            if len(idx) != n or idx.has_duplicates or not idx.isin(instances).all():
                raise ValueError(
                    "the index of `labels` does not match the instance ids; labels are "
                    "aligned by id, never by position. Pass `labels.to_numpy()` to align "
                    "by position, or give `labels` the instances' index."
                )
            labels = labels.reindex(instances)
        values = labels.to_numpy()
    else:
        values = np.asarray(labels)
    if values.ndim != 1:
        raise ShapeError(
            f"`labels` must be one-dimensional (one label per instance); got shape {values.shape}."
        )
    if len(values) != n:
        raise ShapeError(f"`labels` has {len(values)} entries but `probs` has {n} rows.")
    missing = np.asarray(pd.isna(values), dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"`labels` is missing at {_describe_row(instances, i)} ({int(missing.sum())} "
            "missing in all); every instance needs a reference label."
        )
    k = len(classes)
    integer_classes = pd.api.types.is_integer_dtype(classes.dtype)
    numeric = values.dtype.kind in "iuf"
    if numeric:
        as_int = values.astype(np.int64) if values.dtype.kind == "f" else values
        if values.dtype.kind == "f" and not np.array_equal(as_int, values):
            i = int(np.flatnonzero(as_int != values)[0])
            raise ValueError(
                f"`labels` must be class names or integer codes; got {_py(values[i])!r} at "
                f"{_describe_row(instances, i)}."
            )
        if not integer_classes:
            codes = np.asarray(as_int, dtype=np.int64)
            bad = (codes < 0) | (codes >= k)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"`labels` is out of range at {_describe_row(instances, i)}: code "
                    f"{codes[i]} but there are {k} classes (codes 0..{k - 1})."
                )
            return codes.astype(np.int32)
        values = as_int
        codes = _lookup_int_names(values, classes)
    else:
        codes = None
    if codes is None:
        codes = classes.get_indexer(values)
    bad = codes < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        shown = list(classes) if k <= 12 else [*list(classes[:12]), "..."]
        kind = "out of range" if numeric else "not a class"
        raise ValueError(
            f"`labels` is {kind} at {_describe_row(instances, i)}: {_py(values[i])!r} is not "
            f"among the classes {shown}."
        )
    return codes.astype(np.int32)


def _lookup_int_names(values: np.ndarray, classes: pd.Index) -> np.ndarray | None:
    """Codes of integer labels among integer class names by a dense table (-1 = absent).

    ``Index.get_indexer`` hashes every label; with millions of instances a
    lookup table over the span of the class names is many times faster.
    None when the span is too wide for a table.
    """
    names = classes.to_numpy(dtype=np.int64)
    lo, hi = int(names.min()), int(names.max())
    if hi - lo > 1_000_000:
        return None
    table = np.full(hi - lo + 1, -1, dtype=np.int32)
    table[names - lo] = np.arange(len(names), dtype=np.int32)
    return _kernels.lookup_labels(values, lo, table)


def _argmax_labels(probs: np.ndarray) -> tuple[np.ndarray, int]:
    """Plurality label of each row (lowest class on ties) and the number of tied rows."""
    codes = np.argmax(probs, axis=1).astype(np.int32)
    top = probs[np.arange(len(probs)), codes]
    ties = int(np.count_nonzero((probs == top[:, None]).sum(axis=1) > 1))
    return codes, ties


# ----------------------------------------------------------------------------- container
class SoftLabels:
    """Per-instance label distributions with reference labels.

    ``probs[i]`` is the label distribution p̄_i of instance ``i`` over the K
    classes (CILN paper, §II-B) and ``labels[i]`` its reference label y_i —
    the ground truth when it is known, otherwise e.g. the majority vote.

    Parameters
    ----------
    probs : array_like or pandas.DataFrame, shape (n_instances, n_classes)
        One probability distribution per row: finite, non-negative, summing
        to 1 within ``atol``. Rows are used as given (not renormalised). A
        DataFrame's columns name the classes and its index the instances.
    labels : array_like or pandas.Series, shape (n_instances,)
        Reference labels: class names, or integer codes ``0..K-1`` when the
        classes are not integers. A Series is aligned to the instances by its
        index (never by position).
    classes, instances : sequence, optional
        Class names and instance ids when ``probs`` is not a DataFrame.
        Default ``0..K-1`` and ``0..n-1``.
    atol : float, default 1e-6
        Tolerance on each row sum, ``|Σ_c p_ic − 1| ≤ atol``.
    copy : bool, default True
        Copy ``probs``. With ``False`` a float64 C-ordered input is kept as a
        read-only view (no extra memory); do not modify the array afterwards.

    Attributes
    ----------
    probs : ndarray of float64, shape (n_instances, n_classes)
        The distributions, read-only.
    labels : ndarray of int32, shape (n_instances,)
        Reference-label codes ``0..K-1``, read-only.
    classes : pandas.Index
        Class names, in code order.
    instances : pandas.Index
        Instance ids (unique).
    notes : tuple of str
        How the object was built (ties broken, items dropped, ...).

    Raises
    ------
    TypeError
        If ``probs`` is not numeric.
    ShapeError
        If ``probs`` is not two-dimensional with at least one row and two
        classes, or ``labels``/``classes``/``instances`` have the wrong length.
    ValueError
        If a row is not a distribution (NaN/inf, a negative entry, a sum off
        1 by more than ``atol``), a label is missing or not a class, or ids
        are duplicated.

    See Also
    --------
    SoftLabels.from_voters : average voters' distributions (eq. (1)).
    SoftLabels.from_ratings : vote shares of a :class:`agreement.Ratings`.

    Examples
    --------
    >>> from noise_models import SoftLabels
    >>> soft = SoftLabels([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]], [0, 1, 0],
    ...                   classes=["cat", "dog"])
    >>> soft
    SoftLabels(3 instances, 2 classes ['cat', 'dog'])
    >>> soft.to_frame()
              cat  dog label
    instance
    0         0.9  0.1   cat
    1         0.3  0.7   dog
    2         0.5  0.5   cat
    """

    __slots__ = ("_labels", "_probs", "classes", "instances", "notes")

    def __init__(
        self,
        probs: Any,
        labels: Any,
        *,
        classes: Sequence[Hashable] | None = None,
        instances: Sequence[Hashable] | None = None,
        atol: float = DEFAULT_ATOL,
        copy: bool = True,
    ) -> None:
        if labels is None:
            raise TypeError(
                "`labels` is required: the reference label of each instance. "
                "`SoftLabels.from_array(probs)` takes each row's most probable class instead."
            )
        arr, cls_idx, inst_idx = _probs_iv(probs, classes, instances, atol, copy)
        codes = _label_codes(labels, arr.shape[0], cls_idx, inst_idx)
        self._set(arr, codes, cls_idx, inst_idx, ())

    # ----------------------------------------------------------------- internals
    def _set(self, probs, codes, classes, instances, notes) -> None:
        probs = probs.view()
        probs.setflags(write=False)
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        codes.setflags(write=False)
        self._probs = probs
        self._labels = codes
        self.classes = classes
        self.instances = instances
        self.notes = tuple(notes)

    @classmethod
    def _new(cls, probs, codes, classes, instances, notes=()) -> SoftLabels:
        # Trusted constructor for already validated parts.
        obj = object.__new__(cls)
        obj._set(np.ascontiguousarray(probs, dtype=np.float64), codes, classes, instances, notes)
        return obj

    # ----------------------------------------------------------------- factories
    @classmethod
    def from_array(
        cls,
        probs: Any,
        labels: Any = None,
        *,
        classes: Sequence[Hashable] | None = None,
        instances: Sequence[Hashable] | None = None,
        atol: float = DEFAULT_ATOL,
        copy: bool = True,
    ) -> SoftLabels:
        """Build from an instances × classes array, with or without reference labels.

        Parameters
        ----------
        probs, classes, instances, atol, copy
            As for :class:`SoftLabels`.
        labels : array_like or pandas.Series, optional
            Reference labels. Default: each row's most probable class (the
            plurality label; ties go to the lowest class code, and their
            number is recorded in :attr:`notes`).

        Returns
        -------
        SoftLabels

        Examples
        --------
        >>> SoftLabels.from_array([[0.2, 0.8], [0.6, 0.4]]).labels
        array([1, 0], dtype=int32)
        """
        arr, cls_idx, inst_idx = _probs_iv(probs, classes, instances, atol, copy)
        notes: list[str] = []
        if labels is None:
            codes, ties = _argmax_labels(arr)
            notes.append("reference labels: each row's most probable class"
                         + (f" ({ties} ties broken to the lowest class)" if ties else ""))
        else:
            codes = _label_codes(labels, arr.shape[0], cls_idx, inst_idx)
        return cls._new(arr, codes, cls_idx, inst_idx, notes)

    @classmethod
    def from_voters(
        cls,
        voters: Any,
        labels: Any,
        *,
        classes: Sequence[Hashable] | None = None,
        instances: Sequence[Hashable] | None = None,
        atol: float = DEFAULT_ATOL,
    ) -> SoftLabels:
        """Average the voters' distributions, p̄_i = (1/M) Σ_m p_i^(m) (CILN eq. (1)).

        Parameters
        ----------
        voters : array_like, shape (n_voters, n_instances, n_classes), or sequence/mapping of DataFrames
            Each voter's predictive distribution for each instance. Every
            voter's rows must be distributions (checked one by one, so a bad
            voter cannot hide in the average). DataFrames (instances × classes)
            are aligned to the first one by index and columns.
        labels : array_like or pandas.Series, shape (n_instances,)
            Reference (ground-truth) labels y_i, as for :class:`SoftLabels`.
        classes, instances : sequence, optional
            Names when ``voters`` is an array.
        atol : float, default 1e-6
            Tolerance on each voter's row sums.

        Returns
        -------
        SoftLabels

        Notes
        -----
        The arithmetic mean is the expected label distribution of a voter
        drawn uniformly from the pool (CILN §II-B). The voters' own
        distributions are not kept; to draw hard labels by the paper's
        one-voter protocol pass the voters to :func:`sample_hard_labels`.

        Examples
        --------
        >>> v = [[[1.0, 0.0], [0.5, 0.5]],      # voter 1, two instances
        ...      [[0.0, 1.0], [0.5, 0.5]]]      # voter 2
        >>> SoftLabels.from_voters(v, [0, 1]).probs
        array([[0.5, 0.5],
               [0.5, 0.5]])
        """
        arr, cls_idx, inst_idx = voters_iv(voters, classes, instances, atol)
        codes = _label_codes(labels, arr.shape[1], cls_idx, inst_idx)
        # CILN eq. (1); summed in voter order.
        mean = arr.sum(axis=0) / arr.shape[0]
        return cls._new(mean, codes, cls_idx, inst_idx,
                        [f"mean of {arr.shape[0]} voters' distributions (CILN eq. (1))"])

    @classmethod
    def from_ratings(
        cls, ratings: Ratings, labels: Any = None, *, empty: str = "raise"
    ) -> SoftLabels:
        """Vote shares of annotators' labels: p̄_ic = a[i, c] / r[i].

        Parameters
        ----------
        ratings : agreement.Ratings
            Wide, long or count-table ratings; the categories become the classes.
        labels : array_like or pandas.Series, optional
            Reference labels for every item of ``ratings`` (before any drop).
            Default: the majority vote, ties to the lowest category code (their
            number is recorded in :attr:`notes`).
        empty : {"raise", "drop"}, default "raise"
            What to do with items that have no rating (no distribution):
            refuse them, or drop them (the count dropped is recorded in
            :attr:`notes`).

        Returns
        -------
        SoftLabels

        Raises
        ------
        TypeError
            If ``ratings`` is not a :class:`agreement.Ratings`.
        ValueError
            If an item has no rating and ``empty="raise"``, if every item is
            empty, or ``empty`` is not one of the rules.

        Examples
        --------
        >>> from agreement import Ratings
        >>> r = Ratings.from_counts([[3, 1], [0, 4]], categories=["no", "yes"])
        >>> soft = SoftLabels.from_ratings(r)
        >>> soft.probs
        array([[0.75, 0.25],
               [0.  , 1.  ]])
        >>> list(soft.reference_labels)
        ['no', 'yes']
        """
        if not isinstance(ratings, Ratings):
            raise TypeError(
                f"`ratings` must be an agreement.Ratings; got {type(ratings).__name__}. "
                "Build one with `Ratings.from_wide`, `from_long` or `from_counts`."
            )
        if empty not in _EMPTY_RULES:
            raise ValueError(f"`empty` must be one of {_EMPTY_RULES}; got {empty!r}.")
        counts = ratings.counts
        r = counts.sum(axis=1, dtype=np.int64)
        classes = ratings.categories.rename("class")
        items = ratings.items.rename("instance") if ratings.items.name in (None, "item") \
            else ratings.items
        if items.has_duplicates:
            raise ValueError("the items of `ratings` have duplicate ids; ids must be unique.")
        notes: list[str] = ["vote shares a[i, c] / r[i]"]
        codes = None
        if labels is not None:
            codes = _label_codes(labels, len(items), classes, items)
        keep = r > 0
        if not keep.all():
            n_empty = int((~keep).sum())
            if empty == "raise" or n_empty == len(r):
                first = list(items[~keep][:3])
                if n_empty == len(r):
                    raise ValueError("every item of `ratings` is without a rating.")
                raise ValueError(
                    f"{n_empty} item(s) of `ratings` have no rating and so no label "
                    f"distribution (e.g. {first}). Pass `empty=\"drop\"` to leave them out."
                )
            counts, r, items = counts[keep], r[keep], items[keep]
            if codes is not None:
                codes = codes[keep]
            notes.append(f"{n_empty} item(s) without a rating dropped")
        probs = counts / r[:, None].astype(np.float64)
        if codes is None:
            codes, ties = _argmax_labels(counts)
            notes.append("reference labels: majority vote"
                         + (f" ({ties} ties broken to the lowest class)" if ties else ""))
        return cls._new(probs, codes, classes, items, notes)

    # ----------------------------------------------------------------- properties
    @property
    def probs(self) -> npt.NDArray[np.float64]:
        return self._probs

    @property
    def labels(self) -> npt.NDArray[np.int32]:
        return self._labels

    @property
    def n_instances(self) -> int:
        return self._probs.shape[0]

    @property
    def n_classes(self) -> int:
        return self._probs.shape[1]

    @property
    def reference_labels(self) -> pd.Series:
        """The reference labels as a categorical Series of class names, indexed by instance."""
        cat = pd.Categorical.from_codes(self._labels, categories=self.classes)
        return pd.Series(cat, index=self.instances, name="label")

    @property
    def class_counts(self) -> pd.Series:
        """Number of instances whose reference label is each class, ``N_k = |I_k|``."""
        counts = np.bincount(self._labels, minlength=self.n_classes)
        return pd.Series(counts, index=self.classes, name="count")

    # ----------------------------------------------------------------- exports
    def to_frame(self, *, label_column: Hashable = "label") -> pd.DataFrame:
        """Instances × classes DataFrame of the distributions plus a label column.

        Parameters
        ----------
        label_column : hashable, default "label"
            Name of the column of reference labels (class names); ``None``
            leaves it out.

        Raises
        ------
        ValueError
            If ``label_column`` is also a class name.
        """
        frame = pd.DataFrame(self._probs, index=self.instances, columns=self.classes)
        frame.columns.name = None
        if label_column is not None:
            if label_column in self.classes:
                raise ValueError(
                    f"`label_column`={label_column!r} is also a class name; choose another "
                    "or pass `label_column=None`."
                )
            frame[label_column] = self.reference_labels
        return frame

    def take(self, indices: npt.ArrayLike) -> SoftLabels:
        """A new SoftLabels with the instances at the given positions.

        Ids are kept, unless a position repeats (a bootstrap draw): the ids are
        then ``0..len(indices)-1``, since ids must be unique.
        """
        idx = np.asarray(indices, dtype=np.intp)
        if idx.ndim != 1:
            raise ShapeError(f"`indices` must be one-dimensional; got shape {idx.shape}.")
        instances = self.instances[idx]
        if instances.has_duplicates:
            instances = pd.RangeIndex(len(idx), name=self.instances.name)
        return SoftLabels._new(self._probs[idx], self._labels[idx], self.classes, instances,
                               self.notes)

    def __len__(self) -> int:
        return self.n_instances

    def __repr__(self) -> str:
        cats = list(self.classes)
        shown = repr(cats) if len(cats) <= 8 else repr(cats[:8])[:-1] + ", ...]"
        return f"SoftLabels({self.n_instances} instances, {self.n_classes} classes {shown})"


# ----------------------------------------------------------------------------- validation
def _probs_iv(
    probs: Any,
    classes: Sequence[Hashable] | None,
    instances: Sequence[Hashable] | None,
    atol: Any,
    copy: bool,
) -> tuple[np.ndarray, pd.Index, pd.Index]:
    """Validate and normalise ``probs``; return (float64 C array, classes, instances)."""
    atol = check_number(atol, "atol", positive=False)
    if isinstance(probs, SoftLabels):
        raise TypeError("`probs` is already a SoftLabels; use it as it is.")
    if isinstance(probs, pd.DataFrame):
        if classes is not None or instances is not None:
            raise ValueError(
                "`probs` is a DataFrame: its columns are the classes and its index the "
                "instances; do not also pass `classes` or `instances`."
            )
        classes, instances = probs.columns, probs.index
    arr = _as_float_matrix(probs, "probs")
    if arr.ndim != 2:
        raise ShapeError(
            f"`probs` must be two-dimensional (instances × classes); got shape {arr.shape}."
        )
    n, k = arr.shape
    if n == 0:
        raise ShapeError(f"`probs` has no rows (shape {arr.shape}).")
    if k < 2:
        raise ShapeError(
            f"`probs` needs at least two classes (columns); got shape {arr.shape}."
        )
    cls_idx = _index(classes, k, "class", "classes")
    inst_idx = _index(instances, n, "instance", "instances")
    if copy:
        arr = np.array(arr, dtype=np.float64, order="C", copy=True)
    else:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    check_distributions(arr, atol, "probs", inst_idx)
    return arr, cls_idx, inst_idx


def voters_iv(
    voters: Any,
    classes: Sequence[Hashable] | None,
    instances: Sequence[Hashable] | None,
    atol: Any,
) -> tuple[np.ndarray, pd.Index, pd.Index]:
    """Validate voters' distributions; return (float64 (M, n, K) array, classes, instances)."""
    atol = check_number(atol, "atol", positive=False)
    frames: list[pd.DataFrame] | None = None
    if isinstance(voters, Mapping):
        frames = list(voters.values())
    elif isinstance(voters, (list, tuple)) and voters and all(
        isinstance(v, pd.DataFrame) for v in voters
    ):
        frames = list(voters)
    if frames is not None:
        if not frames or not all(isinstance(v, pd.DataFrame) for v in frames):
            raise TypeError("`voters` given as a mapping must map voter names to DataFrames.")
        if classes is not None or instances is not None:
            raise ValueError(
                "`voters` are DataFrames: their columns are the classes and their index the "
                "instances; do not also pass `classes` or `instances`."
            )
        first = frames[0]
        cls_idx = _index(first.columns, first.shape[1], "class", "classes")
        inst_idx = _index(first.index, first.shape[0], "instance", "instances")
        aligned = []
        for m, frame in enumerate(frames):
            if frame.shape != first.shape or not (
                frame.columns.isin(first.columns).all() and frame.index.isin(first.index).all()
                and not frame.columns.has_duplicates and not frame.index.has_duplicates
            ):
                raise ValueError(
                    f"voter {m} does not have the same instances and classes as voter 0; "
                    "every voter must score the same instances over the same classes."
                )
            aligned.append(_as_float_matrix(frame.reindex(index=first.index,
                                                          columns=first.columns), "voters"))
        arr = np.ascontiguousarray(np.stack(aligned), dtype=np.float64)
    else:
        arr = np.ascontiguousarray(_as_float_matrix(voters, "voters"), dtype=np.float64)
        if arr.ndim != 3:
            raise ShapeError(
                "`voters` must be three-dimensional (voters × instances × classes); got "
                f"shape {arr.shape}."
            )
        cls_idx = _index(classes, arr.shape[2], "class", "classes")
        inst_idx = _index(instances, arr.shape[1], "instance", "instances")
    n_voters, n, k = arr.shape
    if n_voters == 0 or n == 0:
        raise ShapeError(f"`voters` is empty (shape {arr.shape}).")
    if k < 2:
        raise ShapeError(f"`voters` needs at least two classes; got shape {arr.shape}.")
    for m in range(n_voters):
        check_distributions(arr[m], atol, "voters", inst_idx, prefix=f"voter {m}, ")
    return arr, cls_idx, inst_idx


# ----------------------------------------------------------------------------- shared by the statistics
def soft_iv(soft: Any, name: str = "soft") -> SoftLabels:
    """``soft`` itself when it is a :class:`SoftLabels`; else a TypeError saying how to build one."""
    if not isinstance(soft, SoftLabels):
        raise TypeError(
            f"`{name}` must be a SoftLabels; got {type(soft).__name__}. Build one with "
            "`SoftLabels(probs, labels)`, `SoftLabels.from_voters` or `SoftLabels.from_ratings`."
        )
    return soft


def fmt_classes(index: pd.Index) -> list[Any]:
    """At most eight entries of ``index`` for a message, ``"..."`` after them."""
    return list(index) if len(index) <= 8 else [*list(index[:8]), "..."]


def align_by_name(target: pd.Index, other: pd.Index, what: str, name: str) -> np.ndarray | None:
    """Positions in ``other`` of each entry of ``target``; None when already aligned."""
    if other.equals(target):
        return None
    if len(other) == len(target) and not other.has_duplicates and other.isin(target).all():
        return other.get_indexer(target)
    raise ValueError(
        f"the {what} of `{name}` {fmt_classes(other)} do not match those of `soft` "
        f"{fmt_classes(target)}; labelled inputs are aligned by name, never by position. "
        f"Pass `{name}` as a plain array (`.to_numpy()`) to align by position."
    )
