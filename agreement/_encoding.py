"""Coding labels for :class:`~agreement.Ratings`: missing values, categories and their order,
integer codes, numeric labels, look-alike labels and item ids."""

from __future__ import annotations

import unicodedata
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import LabelWarning, ShapeError, plain
from _goldnoise_lib.lazy import lazy_module

# Numba kernels, imported at first use (import agreement stays fast).
_encoding_kernels = lazy_module("agreement._kernels_encoding")
_kernels = lazy_module("agreement._kernels")  # the code matrix's counts (Ratings.counts)


_MAX_CATEGORIES = np.iinfo(np.int16).max


def _code_dtype(m: int) -> type[np.signedinteger]:
    return np.int8 if m <= np.iinfo(np.int8).max else np.int16


def _is_missing_array(values: np.ndarray) -> np.ndarray:
    """Boolean mask of NaN / None / pd.NA / NaT cells of an object or numeric array."""
    return np.asarray(pd.isna(values), dtype=bool)


def _sort_labels(labels: Sequence[Any]) -> list[Any]:
    """Natural order of observed labels: numeric order if all numeric, else by text."""
    labels = list(labels)
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
           for v in labels):
        return sorted(labels, key=float)
    try:
        return sorted(labels)
    except TypeError:  # mixed types: order by their text, stably
        return sorted(labels, key=str)


def _category_values(categories: pd.Index) -> np.ndarray:
    """Numeric values of the categories, for weights and Krippendorff's metrics.

    Numeric labels keep their values; any other labels get their declared
    order ``1..m`` (SPEC §1, weights).
    """
    if categories.dtype.kind in "iuf":
        return categories.to_numpy(dtype=np.float64)
    values = pd.to_numeric(pd.Series(categories, dtype=object), errors="coerce")
    if not values.isna().any() and all(
        not isinstance(v, (str, bool)) for v in categories
    ):
        return values.to_numpy(dtype=np.float64)
    return np.arange(1, len(categories) + 1, dtype=np.float64)


def _check_flag(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`normalize_labels` must be True or False; got {value!r}.")
    return bool(value)


def _as_index(labels: Sequence[Any] | None, n: int, name: str) -> pd.Index:
    if labels is None:
        return pd.RangeIndex(n, name=name)
    idx = pd.Index(labels, name=name)
    if len(idx) != n:
        raise ShapeError(f"`{name}` has {len(idx)} labels but the data has {n}.")
    return idx


_MAX_COUNT = int(np.iinfo(np.int32).max)


def _exact_counts(arr: np.ndarray, arrf: np.ndarray) -> np.ndarray:
    """``arr`` as exact int32 counts, or a ValueError: never a silent wrap-around.

    Counts are stored as int32; a cell or an item total above 2**31 − 1 is
    refused rather than wrapped (a count of 2**31 used to become negative).
    """
    if arr.dtype.kind in "iu":
        big = int(arr.max()) if arr.size else 0
        totals = arr.astype(np.int64).sum(axis=1) if big <= _MAX_COUNT else None
    else:
        big = float(arrf.max()) if arrf.size else 0.0
        totals = arrf.sum(axis=1) if big <= _MAX_COUNT else None
    if big > _MAX_COUNT:
        raise ValueError(
            f"`table` holds a count of {plain(big)}; counts up to {_MAX_COUNT} (2**31 - 1) per "
            "cell and per item are supported exactly. Split the items or rescale the table."
        )
    if totals.max() > _MAX_COUNT:
        raise ValueError(
            f"`table` has an item with {int(totals.max())} ratings; up to {_MAX_COUNT} "
            "(2**31 - 1) ratings per item are supported exactly."
        )
    return arr.astype(np.int32) if arr.dtype.kind in "iu" else arrf.astype(np.int32)


def _check_item_ids(items: pd.Index) -> None:
    """Wide data: item ids must be unique and present, as in long data."""
    if isinstance(items, pd.RangeIndex):
        return
    missing = np.asarray(pd.isna(items), dtype=bool)
    if missing.any():
        raise ValueError(
            f"`items` (the DataFrame index) has {int(missing.sum())} missing item id(s), the "
            f"first at row {int(np.argmax(missing))}; give every row an id or drop those rows."
        )
    if items.has_duplicates:
        dup = items[items.duplicated()]
        raise ValueError(
            f"`items` (the DataFrame index) has duplicated item ids, e.g. {plain(dup[0])!r} "
            f"({len(dup)} repeated row(s)). Each item must appear once in wide data; "
            "aggregate or rename the rows, or use `Ratings.from_long`."
        )


def _encode_integral(values: np.ndarray) -> tuple[np.ndarray, pd.Index] | None:
    """Fast path: integer (or integer-valued float) labels in a range under 10^6.

    Integer labels 0..61 take one speculative pass (range, codes, presence).
    Otherwise the range comes from a min/max reduction (numpy's fmin/fmax skip
    NaN) and one more pass writes ``v - min`` (NaN, a missing rating, -> -1)
    and marks the values present; only gaps among them cost a remap of the
    small codes. The same codes and categories as the general path; None when
    it does not apply (another dtype, inf, fractions, all missing, wide range).
    """
    flat = np.ascontiguousarray(values).reshape(-1)
    kind = flat.dtype.kind
    if kind not in "iuf" or flat.size == 0:
        return None
    if kind in "iu":
        small = _encoding_kernels.small_int_codes(flat)
        if small is not None:  # labels 0..61: one pass did everything
            raw, present = small
            first = int(np.argmax(present))
            if first:  # e.g. labels 1..m: shift the int8 codes, not the labels
                raw -= np.int8(first)
                present = present[first:]
            return _finish_codes(values, raw, present, first, integer=True)
        lo, hi = _encoding_kernels.int_range(flat)
        if hi - lo >= 1_000_000 or hi > 2**62:
            return None
    else:
        flo, fhi = float(np.fmin.reduce(flat)), float(np.fmax.reduce(flat))
        # All missing (NaN), inf or a fractional minimum: the general path says which.
        if not (np.isfinite(flo) and np.isfinite(fhi)) or flo != np.floor(flo) \
                or fhi - flo >= 1_000_000:
            return None
        lo, hi = int(flo), int(fhi)
    span = hi - lo + 1
    if span <= _encoding_kernels.SMALL_SPAN:
        small = _encoding_kernels.offset_small(flat, lo, span)  # checks integrality of floats
        if small is None:
            return None
        raw, present = small
    else:
        if kind == "f" and not _encoding_kernels.scan_integral(flat)[0]:
            return None
        raw, present = _encoding_kernels.offset_codes(flat, lo, span, _code_dtype(span)
                                             if span <= _MAX_CATEGORIES else np.int32)
    return _finish_codes(values, raw, present, lo, integer=kind in "iu")


def _finish_codes(values: np.ndarray, raw: np.ndarray, present: np.ndarray, vmin: int, *,
                  integer: bool) -> tuple[np.ndarray, pd.Index]:
    """Codes ``v - vmin`` → codes ``0..m-1`` of the values present, and the categories."""
    span = len(present)
    uniq = np.flatnonzero(present) + vmin
    m = len(uniq)
    if m > _MAX_CATEGORIES:
        raise ValueError(f"at most {_MAX_CATEGORIES} categories are supported; got {m}.")
    if m == span and raw.dtype == _code_dtype(m):
        codes = raw  # every value in the range occurs: v - min is the code
    else:
        table = np.full(span, -1, dtype=np.int64)
        table[uniq - vmin] = np.arange(m)
        codes = _encoding_kernels.remap_codes(raw, table, _code_dtype(m))
    cats = pd.Index(uniq if integer else uniq.astype(np.float64), name="category")
    return codes.reshape(values.shape), cats


def _lookalike_key(v: Any) -> tuple[str, Any]:
    text = unicodedata.normalize("NFC", str(v).strip())
    try:
        return ("number", float(text))
    except ValueError:
        return ("text", text)


def _warn_lookalikes(uniq: Sequence[Any]) -> None:
    """Warn when distinct labels print alike (1 and '1', ' 1' and '1', é and e + ◌́)."""
    groups: dict[tuple[str, Any], list[Any]] = {}
    for v in uniq:
        groups.setdefault(_lookalike_key(v), []).append(v)
    alike = [g for g in groups.values() if len(g) > 1]
    if alike:
        def show(g: list[Any]) -> str:
            texts = [repr(plain(v)) for v in g]
            looks = {unicodedata.normalize("NFC", t) for t in texts}
            if len(looks) < len(texts):  # they print the same: show the code points
                texts = [ascii(plain(v)) for v in g]
            return " vs ".join(texts)

        shown = "; ".join(show(g) for g in alike[:5])
        more = f" (and {len(alike) - 5} more groups)" if len(alike) > 5 else ""
        warnings.warn(
            f"labels that look alike are separate categories: {shown}{more}. They differ in "
            "type, surrounding spaces or Unicode form. Pass `normalize_labels=True` to strip "
            "spaces, apply Unicode NFC and read numeric strings as numbers.",
            LabelWarning, stacklevel=4)


def _factorize_ids(ids: pd.Series, wide: int = 1) -> tuple[np.ndarray, Any]:
    """``pd.factorize(ids)``; integer ids in a range at most ``wide`` × their number by
    a lookup table (faster, and without a hash table as large as the column)."""
    if isinstance(ids.dtype, np.dtype) and ids.dtype.kind in "iu":
        dense = _encoding_kernels.dense_factorize(ids.to_numpy(), wide)
        if dense is not None:
            return dense[0], pd.Index(dense[1])
    return pd.factorize(ids, sort=False)


def _has_lookalikes(labels: Sequence[Any]) -> bool:
    keys = [_lookalike_key(v) for v in labels]
    return len(set(keys)) < len(keys)


def _long_labels(labels: pd.Series, categories: Sequence[Any] | None,
                 normalize: bool) -> tuple[np.ndarray, pd.Index, bool]:
    """The label column of long data: 1-D codes (-1 missing), the categories, and
    whether their order was declared.

    Text labels (and a categorical of text) are coded from their distinct values
    (one ``pd.factorize``, or the categorical's own codes), never label by label;
    the codes and categories are those of :func:`_encode` on the whole column,
    which every other column still goes through.
    """
    if categories is None and isinstance(labels.dtype, pd.CategoricalDtype):
        categories = list(labels.cat.categories)
        declared_order = bool(labels.cat.ordered)
        if not normalize and all(isinstance(c, str) for c in categories):
            cats = _declared(categories)
            raw = labels.cat.codes.to_numpy()
            if raw.size == 0 or raw.max() < 0:
                raise ValueError("every rating is missing: there is nothing to measure.")
            if _has_lookalikes(categories):  # only then: which of them occur, in order
                _warn_lookalikes(list(cats[pd.unique(raw[raw >= 0])]))
            return raw.astype(_code_dtype(len(cats)), copy=False), cats, declared_order
    else:
        declared_order = categories is not None
    if not normalize and labels.dtype.kind not in "iufb":
        raw, uniques = pd.factorize(labels, sort=False)
        uniq = np.asarray(uniques, dtype=object)
        if uniq.size and all(isinstance(v, str) for v in uniq):
            _warn_lookalikes(uniq)
            if categories is None:
                cats = pd.Index(_sort_labels(uniq), name="category", dtype=object)
            else:
                cats = _declared(categories)
            where = cats.get_indexer(pd.Index(uniq, dtype=object))
            if np.any(where < 0):
                bad = plain(uniq[where < 0][0])
                raise ValueError(f"label {bad!r} is not among `categories` {list(cats)}; add "
                                 "it or fix the data.")
            table = np.append(where, -1).astype(_code_dtype(len(cats)))
            return table[raw], cats, declared_order
    lab = labels.to_numpy(dtype=object) if labels.dtype.kind not in "iufb" else labels.to_numpy()
    codes, cats = _encode(lab.reshape(-1, 1), categories, normalize=normalize)
    return np.ascontiguousarray(codes[:, 0]), cats, declared_order


def _parse_number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _normalize(values: np.ndarray) -> np.ndarray:
    """``normalize_labels=True``: strip, NFC, and numeric strings to numbers when every
    label is numeric. Works on the distinct labels, then maps back."""
    if values.dtype.kind in "US":
        values = values.astype(object)
    if values.dtype.kind != "O":
        return values
    missing = _is_missing_array(values)
    observed = values[~missing]
    uniq = pd.unique(observed)
    fixed = [unicodedata.normalize("NFC", v.strip()) if isinstance(v, str) else v for v in uniq]
    parsed = [v if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
              else _parse_number(v) if isinstance(v, str) else None for v in fixed]
    if all(p is not None for p in parsed):
        fixed = [plain(p) for p in parsed]
    table = pd.Index(uniq, dtype=object)
    mapped = np.asarray(fixed, dtype=object)[table.get_indexer(observed)]
    out = np.full(values.shape, None, dtype=object)
    out[~missing] = mapped
    return out


def _encode(values: np.ndarray, categories: Sequence[Any] | None, *,
            normalize: bool = False) -> tuple[np.ndarray, pd.Index]:
    """Code a 2-D label array to integers (missing -> -1) and return the categories."""
    if normalize:
        values = _normalize(values)
    if categories is None and values.dtype.kind in "iuf":
        fast = _encode_integral(values)
        if fast is not None:
            return fast
    if values.dtype.kind in "iub":
        return _encode_numeric(values.astype(np.float64), categories, integer_labels=True)
    if values.dtype.kind == "f":
        return _encode_numeric(values, categories)
    missing = _is_missing_array(values)
    observed = values[~missing]
    if observed.size == 0:
        raise ValueError("every rating is missing: there is nothing to measure.")
    # Numbers stored as objects (e.g. a mixed-dtype frame) code like numbers.
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
           for v in observed[: min(observed.size, 1000)]):
        try:
            numeric = np.where(missing, np.nan, values).astype(np.float64)
        except (TypeError, ValueError):
            numeric = None
        if numeric is not None:
            ints = all(isinstance(v, (int, np.integer)) for v in observed[: min(observed.size, 1000)])
            return _encode_numeric(numeric, categories, integer_labels=ints)
    uniq = pd.unique(observed)
    if not normalize:
        _warn_lookalikes(uniq)
    if categories is None:
        cats = pd.Index(_sort_labels(uniq), name="category", dtype=object)
    else:
        cats = _declared(categories)
    codes_flat = cats.get_indexer(observed)
    if np.any(codes_flat < 0):
        bad = plain(observed[codes_flat < 0][0])
        raise ValueError(
            f"label {bad!r} is not among `categories` {list(cats)}; add it or fix the data."
        )
    codes = np.full(values.shape, -1, dtype=_code_dtype(len(cats)))
    codes[~missing] = codes_flat
    return codes, cats


def _declared(categories: Sequence[Any]) -> pd.Index:
    cats = pd.Index(list(categories), name="category")
    if cats.has_duplicates:
        raise ValueError(f"`categories` has duplicates: {list(cats[cats.duplicated()])}.")
    if len(cats) > _MAX_CATEGORIES:
        raise ValueError(f"at most {_MAX_CATEGORIES} categories are supported; got {len(cats)}.")
    return cats


def _encode_numeric(values: np.ndarray, categories: Sequence[Any] | None,
                    integer_labels: bool = False):
    values = np.asarray(values, dtype=np.float64)
    if np.isinf(values).any():
        raise ValueError("labels contain inf; use NaN for a missing rating.")
    finite = ~np.isnan(values)
    if not finite.any():
        raise ValueError("every rating is missing: there is nothing to measure.")
    vmin, vmax = np.nanmin(values), np.nanmax(values)
    if categories is None:
        integral = vmax - vmin < 1_000_000 and bool(np.all(values[finite] == np.round(values[finite])))
        if integral:
            # Dense lookup: one pass, no sort of the whole matrix.
            offset = int(vmin)
            present = np.zeros(int(vmax) - offset + 1, dtype=bool)
            present[values[finite].astype(np.int64) - offset] = True
            uniq = np.flatnonzero(present) + offset
            cats = pd.Index(uniq if integer_labels else uniq.astype(np.float64),
                            name="category")
        else:
            cats = pd.Index(np.unique(values[finite]), name="category")
    else:
        cats = _declared(categories)
        try:
            cat_vals = np.asarray(cats, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"the labels are numeric but `categories` {list(cats)} are not."
            ) from None
        missing_vals = np.setdiff1d(np.unique(values[finite]), cat_vals)
        if missing_vals.size:
            raise ValueError(
                f"label {plain(missing_vals[0])!r} is not among `categories` {list(cats)}; "
                "add it or fix the data."
            )
    m = len(cats)
    if m > _MAX_CATEGORIES:
        raise ValueError(f"at most {_MAX_CATEGORIES} categories are supported; got {m}.")
    dtype = _code_dtype(m)
    cat_vals = np.asarray(cats, dtype=np.float64)
    if np.all(cat_vals == np.round(cat_vals)) and cat_vals.max() - cat_vals.min() < 1_000_000 \
            and np.all(values[finite] == np.round(values[finite])):
        offset = int(cat_vals.min())
        table = np.full(int(cat_vals.max()) - offset + 1, -1, dtype=np.int64)
        table[cat_vals.astype(np.int64) - offset] = np.arange(m)
        codes = _encoding_kernels.lookup_codes(values, offset, table, dtype)
    else:
        codes = np.full(values.shape, -1, dtype=dtype)
        codes[finite] = np.searchsorted(np.sort(cat_vals), values[finite])
        order = np.argsort(cat_vals)
        codes[finite] = order[codes[finite]]
    return codes, cats


# ------------------------------------------------------------------ long rows (from_long)
def _long_ids(frame: Any, item: Any, rater: Any, label: Any
              ) -> tuple[np.ndarray, Any, np.ndarray, Any]:
    """The item and annotator codes of every row of a long ``frame`` and the ids they
    stand for (in order of first appearance), once the frame and its columns are checked."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"`frame` must be a pandas DataFrame; got {type(frame).__name__}.")
    for role, col in (("item", item), ("rater", rater), ("label", label)):
        if col not in frame.columns:
            raise KeyError(
                f"`{role}={col!r}` is not a column of `frame`; columns are "
                f"{list(frame.columns)}. Pass `{role}=` with the right name."
            )
    if len(frame) == 0:
        raise ShapeError("`frame` has no rows.")
    # One factorize per id column: its -1 is a missing id; its uniques, in order of
    # first appearance, are the items and the annotators.
    item_codes, item_ids = _factorize_ids(frame[item])
    rater_codes, rater_ids = _factorize_ids(frame[rater])
    if item_codes.min() < 0 or rater_codes.min() < 0:
        raise ValueError("`frame` has missing item or annotator ids; drop those rows first.")
    return item_codes, item_ids, rater_codes, rater_ids


def _check_no_repeats(frame: pd.DataFrame, item: Any, rater: Any) -> None:
    """A one-line error naming the first (item, annotator) pair rated twice, if any."""
    dup = frame.duplicated(subset=[item, rater])
    if dup.any():
        first = [plain(v) for v in frame.loc[dup, [item, rater]].iloc[0].tolist()]
        raise ValueError(
            f"annotator {first[1]!r} rated item {first[0]!r} more than once "
            f"({int(dup.sum())} repeated (item, annotator) pairs). Pass "
            "`replicates='separate'` to keep each replicate as its own column, or "
            "drop the repeats."
        )


def _replicate_columns(ids: pd.DataFrame, item_codes: np.ndarray, n_items: int,
                       rater_codes: np.ndarray, rater_ids: Any, codes_flat: np.ndarray
                       ) -> tuple[np.ndarray, pd.MultiIndex, np.ndarray]:
    """Items × (annotator, replicate) codes: the r-th rating of (item, annotator) goes to
    column (annotator, r). Also the columns and each column's annotator."""
    rep = ids.groupby(list(ids.columns), sort=False).cumcount().to_numpy()
    per = np.zeros(len(rater_ids), dtype=np.int64)
    np.maximum.at(per, rater_codes, rep + 1)
    start = np.concatenate([[0], np.cumsum(per)[:-1]])
    col_codes = start[rater_codes] + rep
    cols = [(plain(rater_ids[g]), int(r_)) for g in range(len(rater_ids))
            for r_ in range(per[g])]
    annotator_of = np.repeat(np.arange(len(rater_ids)), per)
    rater_index = pd.MultiIndex.from_tuples(cols, names=["rater", "replicate"])
    codes = np.full((n_items, len(rater_index)), -1, dtype=codes_flat.dtype)
    codes[item_codes, col_codes] = codes_flat
    return codes, rater_index, annotator_of
