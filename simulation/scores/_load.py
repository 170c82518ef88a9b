"""Read per-item model outputs from files and align them to items by id (SPEC §3).

Distributed inference pads and repeats rows, and tools that align
predictions to labels by row position carry on silently when a file is one
row short. Here every row carries its item id; the rows are put in the order
of ``items``, and a missing, extra or repeated id is an error that names them.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.validation import Option, check_params, validate_params
from simulation.scores._model_scores import (
    KINDS,
    PROB_TOLERANCE,
    ModelScores,
    check_values,
    few,
    items_index,
)

__all__ = ["load_scores"]

_TABULAR = (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".parquet")
_FORMATS = (".npz", ".npy", ".jsonl", ".jsonl.gz", *_TABULAR)


def _composite_key(parts: Sequence[Any]) -> str:
    """One text key for the parts of a composite id (``id_column=("document", "token")``).

    The parts are compared as text (a file's ``"3"`` is the item's ``3``); the key is
    the repr of that tuple of texts: one to one, and readable in error messages.
    """
    return repr(tuple(str(p) for p in parts))


def _id_names(id_column: str | tuple[str, ...]) -> tuple[str, ...]:
    return (id_column,) if isinstance(id_column, str) else tuple(id_column)


def _suffix(path: Path) -> str:
    name = path.name.lower()
    for suf in sorted(_FORMATS, key=len, reverse=True):
        if name.endswith(suf):
            return suf
    raise ValueError(
        f"`paths`: {path} has an unknown format; goldnoise reads {', '.join(_FORMATS)}."
    )


def _stem(path: Path, suffix: str) -> str:
    return path.name[: len(path.name) - len(suffix)]


class _Table:
    """What one file holds: row ids, optional model per row, values, class names, kind."""

    def __init__(self, ids: np.ndarray, values: np.ndarray, kind: str,
                 classes: list[Any] | None, models: np.ndarray | None = None) -> None:
        self.ids, self.values, self.kind = ids, values, kind
        self.classes, self.models = classes, models
        self.colmajor: np.ndarray | None = None  # classes × rows, when read by columns


def _np_load(path: Path) -> Any:
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise ValueError(
                f"{path} holds pickled data; goldnoise never unpickles (allow_pickle stays "
                "off: a pickle can run code). Save plain numeric arrays with np.save/np.savez "
                "(ids as integers or fixed-width strings)."
            ) from None
        raise


def _np_array(store: Any, key: str, path: Path) -> np.ndarray:
    try:
        arr = store[key]
    except ValueError as exc:
        if "pickle" in str(exc) or "Object arrays" in str(exc):
            raise ValueError(
                f"{path}: array {key!r} is an object array (pickled); goldnoise never "
                "unpickles (allow_pickle stays off). Store ids as integers or fixed-width "
                "strings (`np.asarray(ids, dtype=str)`)."
            ) from None
        raise
    if arr.dtype == object:  # pragma: no cover - np.load refuses these already
        raise ValueError(f"{path}: array {key!r} is an object array.")
    return arr


def _read_npz(path: Path, kind: str | None, model_column: str | None) -> _Table:
    with _np_load(path) as store:
        keys = list(store.files)
        present = [k for k in KINDS if k in keys]
        if kind is None:
            if len(present) != 1:
                raise ValueError(
                    f"{path} holds arrays {keys}; it needs exactly one of {list(KINDS)} "
                    "beside `ids` (or pass `kind=`)."
                )
            kind = present[0]
        elif kind not in keys:
            raise ValueError(f"{path} has no array {kind!r}; it holds {keys}.")
        if "ids" not in keys:
            raise ValueError(
                f"{path} has no `ids` array: every row needs its item id (np.savez(path, "
                f"ids=ids, {kind}=values)). Rows are never matched by position."
            )
        ids = _np_array(store, "ids", path)
        values = _np_array(store, kind, path)
        classes = _np_array(store, "classes", path).tolist() if "classes" in keys else None
        models = None
        if model_column is not None:
            if model_column not in keys:
                raise ValueError(f"{path} has no array {model_column!r} (`model_column`).")
            models = _np_array(store, model_column, path)
    return _Table(ids, values, kind, classes, models)


def _read_npy(path: Path, kind: str | None, ids: Any) -> _Table:
    if ids is None:
        raise ValueError(
            f"{path} is a .npy file, which holds no item ids: pass `ids=` (the id of each "
            "row) or save an .npz with an `ids` array. Rows are never matched by position."
        )
    arr = _np_load(path)
    if arr.dtype == object:  # pragma: no cover - np.load refuses these already
        raise ValueError(f"{path} holds an object array.")
    if kind is None:
        kind = "loss" if arr.ndim == 1 else "probs"
    return _Table(np.asarray(ids), arr, kind, None)


def _read_jsonl(path: Path, kind: str | None, id_column: str | tuple[str, ...],
                model_column: str | None) -> _Table:
    keys = _id_names(id_column)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    ids: list[Any] = []
    rows: list[Any] = []
    models: list[Any] = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {line_no}: not valid JSON ({exc.msg}).") from None
            if kind is None:
                found = [k for k in KINDS if k in rec]
                if len(found) != 1:
                    raise ValueError(
                        f"{path}, line {line_no}: a record needs exactly one of "
                        f"{list(KINDS)} (or pass `kind=`); it has keys {sorted(rec)}."
                    )
                kind = found[0]
            if any(k not in rec for k in keys) or kind not in rec:
                raise ValueError(
                    f"{path}, line {line_no}: the record lacks {id_column!r} or {kind!r}; it "
                    f"has keys {sorted(rec)}."
                )
            ids.append(rec[keys[0]] if len(keys) == 1 else
                       _composite_key([rec[k] for k in keys]))
            rows.append(rec[kind])
            if model_column is not None:
                if model_column not in rec:
                    raise ValueError(f"{path}, line {line_no}: no {model_column!r} key.")
                models.append(rec[model_column])
    if kind is None:
        raise ValueError(f"{path} has no records.")
    if kind == "loss":
        if any(isinstance(r, (list, dict)) for r in rows):
            raise ValueError(f"{path}: `loss` must be one number per record.")
        values = np.asarray(rows, dtype=np.float64)
    else:
        widths = np.fromiter((len(r) if isinstance(r, list) else -1 for r in rows), np.int64,
                             len(rows))
        width = int(np.bincount(widths[widths >= 0]).argmax()) if (widths >= 0).any() else -1
        bad = np.flatnonzero(widths != width)
        if bad.size:
            raise ValueError(
                f"{path}: records of the wrong width (most have {width} {kind}) at ids "
                f"{few(np.asarray(ids, dtype=object)[bad], bad.size)}."
            )
        values = np.asarray(rows, dtype=np.float64)
    id_arr = np.asarray(ids)
    return _Table(id_arr, values, kind, None,
                  np.asarray(models) if model_column is not None else None)


def _read_tabular(path: Path, suffix: str, kind: str | None, id_column: str | tuple[str, ...],
                  model_column: str | None, classes: Sequence[Any] | None) -> _Table:
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        names, n_rows = list(table.column_names), table.num_rows

        def column(name: str) -> np.ndarray:
            return table.column(name).to_numpy()

        def dtype_of(name: str) -> np.dtype:
            try:
                return np.dtype(table.schema.field(name).type.to_pandas_dtype())
            except (TypeError, NotImplementedError):  # dictionary, nested, ...: not numbers
                return np.dtype(object)

        def fill(name: str, dest: np.ndarray) -> None:  # chunk by chunk: no concatenated copy
            start = 0
            for chunk in table.column(name).chunks:
                dest[start:start + len(chunk)] = chunk.to_numpy(zero_copy_only=False)
                start += len(chunk)
    else:
        frame = pd.read_csv(path, sep="\t" if suffix.startswith(".tsv") else ",",
                            dtype={**{k: str for k in _id_names(id_column)},
                                   **({model_column: str} if model_column
                                                      else {})})
        names, n_rows = [str(c) for c in frame.columns], len(frame)
        frame.columns = names

        def column(name: str) -> np.ndarray:
            return frame[name].to_numpy()

        def dtype_of(name: str) -> np.dtype:
            return frame[name].dtype

        def fill(name: str, dest: np.ndarray) -> None:
            dest[:] = frame[name].to_numpy()
    keys = _id_names(id_column)
    if any(k not in names for k in keys):
        raise ValueError(
            f"{path} has no id column {id_column!r} (`id_column`); its columns are "
            f"{names[:10]}. Rows are never matched by position."
        )
    if model_column is not None and model_column not in names:
        raise ValueError(f"{path} has no model column {model_column!r}; columns {names[:10]}.")
    rest = [c for c in names if c not in (*keys, model_column)]
    if classes is not None:
        wanted = [str(c) for c in classes]
        missing = [c for c in wanted if c not in rest]
        if missing:
            raise ValueError(f"{path} lacks the class columns {missing} named by `classes`.")
        rest = wanted
    if kind is None:
        kind = "loss" if rest == ["loss"] else "probs"
    if kind == "loss":
        if "loss" not in rest:
            raise ValueError(f"{path} has no `loss` column; columns {names[:10]}.")
        rest = ["loss"]
    dtypes = [dtype_of(c) for c in rest]
    for c, dt in zip(rest, dtypes, strict=True):
        if dt.kind not in "iuf":
            raise ValueError(
                f"{path}: column {c!r} is not numeric (dtype {dt}); with one column "
                "per class every column besides the id and model columns must hold numbers "
                "(or name the class columns with `classes=`)."
            )
    dtype = np.result_type(*dtypes)
    # columns side by side (classes × rows): the loader gathers them into item order
    colmajor = np.empty((len(rest), n_rows),
                        dtype=dtype if dtype.kind == "f" else np.float64)
    for j, c in enumerate(rest):
        fill(c, colmajor[j])
    models = column(model_column) if model_column is not None else None
    if len(keys) == 1:
        ids = column(keys[0])
    else:
        ids = np.array([_composite_key(t) for t in zip(*(column(k) for k in keys),
                                                        strict=True)], dtype=object)
    if kind == "loss":
        return _Table(ids, colmajor[0], kind, None, models)
    table = _Table(ids, colmajor.T, kind, rest, models)
    table.colmajor = colmajor
    return table


def _paths(paths: Any) -> list[tuple[str | None, Path]]:
    if isinstance(paths, (str, os.PathLike)):
        return [(None, Path(paths))]
    if isinstance(paths, Mapping):
        return [(str(k), Path(v)) for k, v in paths.items()]
    if isinstance(paths, Sequence) and paths:
        out = []
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError(f"`paths` must hold file paths; got {p!r}.")
            out.append((None, Path(p)))
        return out
    raise TypeError(f"`paths` must be a path, a list of paths or a {{name: path}} dict; "
                    f"got {paths!r}.")


def _match_id_types(file_ids: np.ndarray, items: pd.Index) -> np.ndarray:
    # Text formats store ids as text: compare as text when the items are text.
    if items.dtype == object and file_ids.dtype.kind in "iu":
        return file_ids.astype(str)
    if items.dtype.kind in "iu" and file_ids.dtype.kind in "OUS":
        try:
            return file_ids.astype(np.int64)
        except (TypeError, ValueError):
            return file_ids
    return file_ids


def _positions_int(file_ids: np.ndarray, items: pd.Index):
    """Item position of each file id (-1 if absent) and rows per item, by a lookup table.

    For integer ids spanning at most a few times as many values as there are
    items: O(n), no hashing. ``None`` when the ids do not fit.
    """
    from simulation.scores import _kernels

    if items.dtype.kind not in "iu" or file_ids.dtype.kind not in "iu" or not len(file_ids):
        return None
    it = items.to_numpy().astype(np.int64, copy=False)
    lo, hi = int(it.min()), int(it.max())
    if hi - lo + 1 > 4 * len(it) + 1024:
        return None
    pos = np.empty(len(file_ids), dtype=np.int64)
    seen = np.empty(len(it), dtype=np.int32)
    _kernels.int_positions(it, file_ids.astype(np.int64, copy=False), lo, hi - lo + 1, pos,
                           seen)
    return pos, seen


def _align(file_ids: np.ndarray, values: np.ndarray, items: pd.Index, where: str) -> np.ndarray:
    """Rows of ``values`` in the order of ``items``; every id exactly once."""
    file_ids = _match_id_types(np.asarray(file_ids), items)
    if file_ids.ndim != 1 or len(file_ids) != values.shape[0]:
        raise ValueError(
            f"{where} has {len(file_ids)} ids for {values.shape[0]} rows of scores."
        )
    position = _positions(file_ids, items, where)
    if position is None:
        return values
    inverse = np.empty(len(items), dtype=np.int64)
    inverse[position] = np.arange(len(position))
    return np.take(values, inverse, axis=0)  # a gather: faster than a scatter of rows


def _positions(file_ids: np.ndarray, items: pd.Index, where: str) -> np.ndarray | None:
    """Item position of each file row (None: already in item order); every id exactly once."""
    file_ids = _match_id_types(np.asarray(file_ids), items)
    if len(file_ids) == len(items) and np.array_equal(file_ids, items.to_numpy()):
        return None
    found = _positions_int(file_ids, items)
    if found is not None:
        indexer, seen = found
    else:
        indexer = items.get_indexer(pd.Index(file_ids)) if pd.Index(file_ids).is_unique \
            else None
        if indexer is not None:
            seen = np.bincount(indexer[indexer >= 0], minlength=len(items))
    if indexer is None or seen.max() > 1:
        fidx = pd.Index(file_ids)
        dup = fidx[fidx.duplicated()].unique()
        raise ValueError(
            f"{where} repeats the ids {few(dup)} ({len(dup)} ids appear more than once; "
            "distributed inference pads and repeats rows). Drop the repeats first."
        )
    if indexer.min() < 0:
        extra = indexer < 0
        bad = file_ids[extra]
        raise ValueError(
            f"{where} has {int(extra.sum())} ids that are not among `items`: {few(bad)}."
        )
    if len(file_ids) < len(items):
        missing = items[seen == 0]
        raise ValueError(
            f"{where} lacks {len(missing)} of the items: {few(missing.to_numpy())}."
        )
    return indexer


def _gather_checked(colmajor: np.ndarray, file_ids: np.ndarray, items: pd.Index, kind: str,
                    where: str) -> np.ndarray:
    """Rows in item order, checked as :func:`check_values` does, in one Numba pass."""
    from simulation.scores import _kernels

    position = _positions(file_ids, items, where)
    n, m = len(items), colmajor.shape[0]
    if colmajor.dtype == np.float16:
        check_values(colmajor[:, :0].T, kind, where=where)  # the precision warning
    cm = colmajor if colmajor.dtype == np.float64 else colmajor.astype(np.float64)
    out = np.empty((n, m))
    finite, in_unit, worst = _kernels.place_check(
        cm, np.full(1, -1) if position is None else position, out)
    if m < 2 or not (finite and (kind != "probs" or (in_unit and worst <= PROB_TOLERANCE))):
        check_values(out, kind, where=where, row_ids=items.to_numpy())  # names the rows
    return out


def _load_scores_iv(paths: Any, items: Any, id_column: Any, kind: Any, model_column: Any,
                    classes: Any):
    entries = _paths(paths)
    if not isinstance(id_column, str) and not (
            isinstance(id_column, (tuple, list)) and id_column
            and all(isinstance(k, str) for k in id_column)):
        raise TypeError(f"`id_column` must be a string or a tuple of strings (a composite "
                        f"id); got {id_column!r}.")
    if isinstance(id_column, str) or len(id_column) == 1:
        idx = shown = items_index(items)
    else:
        width = len(id_column)
        if items is None or isinstance(items, (str, bytes, pd.Series, pd.DataFrame)):
            raise TypeError(f"`items` must be a sequence of item ids (tuples with the composite "
                            f"id {tuple(id_column)!r}); got {type(items).__name__}.")
        values = list(items)
        if not all(isinstance(v, tuple) and len(v) == width for v in values):
            raise ValueError(f"with the composite id {tuple(id_column)!r} every item id must be "
                             f"a tuple of {width} parts, e.g. (document, token); got "
                             f"{few(pd.Index(values, tupleize_cols=False))}.")
        for _, p in entries:
            if _suffix(p) in (".npz", ".npy"):
                raise ValueError(f"{p}: a composite id {tuple(id_column)!r} is read from "
                                 "tables (.csv, .tsv, .parquet) and JSON lines only.")
        idx = items_index(pd.Index([_composite_key(v) for v in values], dtype=object))
        shown = pd.MultiIndex.from_tuples(values, names=list(id_column))
    if kind is not None and kind not in KINDS:
        raise ValueError(f"`kind` must be one of {list(KINDS)} or None; got {kind!r}.")
    if model_column is not None and not isinstance(model_column, str):
        raise TypeError(f"`model_column` must be a string or None; got {model_column!r}.")
    if classes is not None and (isinstance(classes, (str, bytes)) or len(classes) < 2):
        raise ValueError(f"`classes` must name two or more classes; got {classes!r}.")
    for _, p in entries:
        if not p.is_file():
            raise FileNotFoundError(f"`paths`: no such file {p}.")
    return entries, idx, shown


def _not_utf8(path: Path) -> str:
    """The one-line refusal of a text score file that is not UTF-8: its line and byte."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        return (f"{path}, line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the "
                "file as UTF-8 (e.g. iconv -f latin1 -t utf-8).")
    return f"{path}: not UTF-8 text; save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)."


@validate_params(kind=Option(KINDS, optional=True))
def load_scores(paths: Any, *, items: Any, id_column: str = "id", kind: str | None = None,
                model_column: str | None = None, classes: Sequence[Any] | None = None,
                ids: Any = None) -> ModelScores:
    """Load per-item model outputs from files, aligned to ``items`` by id.

    Parameters
    ----------
    paths : path, list of paths, or dict {model name: path}
        One file per model (named by its file stem, or by the dict key), or
        one file with a model column (``model_column``). Formats, by suffix:

        - ``.npz``: an ``ids`` array beside one of ``probs`` (items × classes),
          ``logits`` (items × classes) or ``loss`` (items); optionally
          ``classes`` (names) and a model array named by ``model_column``.
        - ``.npy``: the values only, with ``ids=`` giving each row's id.
        - ``.csv``, ``.tsv`` (gzip accepted: ``.csv.gz``), ``.parquet``: an id
          column and one column per class, named by class (or a ``loss``
          column).
        - ``.jsonl`` (gzip accepted): one record per line,
          ``{"id": ..., "probs": [...]}`` (or ``logits``, or ``loss``: a number).
    items : sequence or Ratings
        The item ids to align to; the result follows this order.
    id_column : str or tuple of str, default "id"
        Name of the id column (tabular files) or key (JSON lines); a tuple names
        the columns of a composite id, e.g. ``("document", "token")`` for the
        tokens of a probe set, whose ``items`` are then tuples of as many parts
        (compared as text, part by part).
    kind : {"probs", "logits", "loss"}, optional
        What the files hold. Default: the array or key present (``.npz``,
        ``.jsonl``); a lone ``loss`` column, else ``probs`` (tabular files:
        pass ``kind="logits"`` for logits); ``loss`` for a 1-D ``.npy``, else
        ``probs``.
    model_column : str, optional
        Column (array, key) naming the model of each row, for files holding
        several models; the models keep their order of first appearance.
    classes : sequence, optional
        Class names: in tabular files they select and order the class columns;
        otherwise they name the columns ``0..m-1`` (default ``0..m-1``, or the
        ``classes`` array of an ``.npz``).
    ids : array_like, optional
        Row ids for ``.npy`` files (the same for every ``.npy`` given).

    Returns
    -------
    ModelScores
        ``values`` of shape ``(n_models, n_items, n_classes)`` (probs, logits)
        or ``(n_models, n_items)`` (loss), in the order of ``items``.

    Raises
    ------
    ValueError
        Naming a few offending ids or rows: an id of ``items`` missing from a
        file, an id not among ``items``, an id repeated; NaN or infinite
        values; probabilities outside [0, 1] or whose rows do not sum to 1
        within 1e-3; rows of the wrong width or files with different classes;
        an object array or pickle inside ``.npy``/``.npz`` (pickles are never
        loaded: ``allow_pickle`` stays off); a ``.npy`` without ``ids=``.
    FileNotFoundError
        If a file does not exist.

    Warns
    -----
    ScorePrecisionWarning
        For float16 values (accepted, converted to float64).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(d / "bert.npz", ids=np.array([12, 10, 11]),
    ...          probs=np.array([[0.2, 0.8], [0.9, 0.1], [0.5, 0.5]]))
    >>> s = load_scores(d / "bert.npz", items=[10, 11, 12])
    >>> s
    ModelScores(probs: 1 model ['bert'], 3 items, 2 classes [0, 1])
    >>> s.values[0]
    array([[0.9, 0.1],
           [0.5, 0.5],
           [0.2, 0.8]])
    """
    check_params(load_scores, locals())
    entries, idx, shown = _load_scores_iv(paths, items, id_column, kind, model_column, classes)
    models: list[tuple[str, np.ndarray]] = []  # (name, scores aligned to the items)
    kinds: set[str] = set()
    class_names: list[Any] | None = None
    for name, path in entries:
        suffix = _suffix(path)
        table = _read_file(path, suffix, kind, ids, id_column, model_column, classes)
        kinds.add(table.kind)
        if len(kinds) > 1:
            raise ValueError(f"the files hold different kinds of scores: {sorted(kinds)}.")
        class_names = _checked_classes(table, path, classes, class_names)
        models += _model_blocks(table, name if name is not None else _stem(path, suffix),
                                path, idx)
    names = _numbered([model_name for model_name, _ in models])
    (the_kind,) = kinds
    stacked = _stacked([block for _, block in models])
    cls_idx = None if the_kind == "loss" else pd.Index(class_names, name="class")
    return ModelScores(stacked, tuple(names), the_kind, cls_idx, shown)


def _stacked(blocks: list[np.ndarray]) -> np.ndarray:
    """The models' aligned scores as one C-ordered float64 array, models first."""
    stacked = np.stack(blocks) if len(blocks) > 1 else blocks[0][None]
    return np.ascontiguousarray(stacked, dtype=np.float64)


def _read_file(path: Any, suffix: str, kind: Any, ids: Any, id_column: Any,
               model_column: Any, classes: Any) -> Any:
    """One score file read by its suffix (.npz, .npy, .jsonl or a table)."""
    if ids is not None and suffix != ".npy":
        raise ValueError(f"`ids=` is for .npy files only; {path} carries its own ids.")
    if suffix == ".npz":
        return _read_npz(path, kind, model_column)
    if suffix == ".npy":
        if model_column is not None:
            raise ValueError(f"{path}: a .npy file has no model column.")
        return _read_npy(path, kind, ids)
    try:
        return (_read_jsonl(path, kind, id_column, model_column)
                if suffix.startswith(".jsonl") else
                _read_tabular(path, suffix, kind, id_column, model_column, classes))
    except UnicodeDecodeError:
        raise ValueError(_not_utf8(path)) from None


def _checked_classes(table: Any, path: Any, classes: Any, class_names: list[Any] | None
                     ) -> list[Any] | None:
    """The classes of the files read so far, once ``table``'s scores are checked: numbers,
    of the kind's shape, with as many (and the same) classes as the earlier files."""
    values = table.values
    if values.dtype == object or values.dtype.kind not in "iuf":
        raise ValueError(f"{path}: scores must be numbers; got dtype {values.dtype}.")
    want = 1 if table.kind == "loss" else 2
    if values.ndim != want:
        raise ValueError(
            f"{path}: {table.kind} must be {'one number per row' if want == 1 else 'a table of rows × classes'}; "
            f"got shape {values.shape}."
        )
    if table.kind != "loss":
        file_classes = table.classes if table.classes is not None else (
            list(classes) if classes is not None else list(range(values.shape[1])))
        if len(file_classes) != values.shape[1]:
            raise ValueError(f"{path}: {len(file_classes)} class names for "
                             f"{values.shape[1]} columns.")
        if class_names is None:
            class_names = file_classes
        elif [str(c) for c in file_classes] != [str(c) for c in class_names]:
            raise ValueError(
                f"{path} has rows of the wrong width or other classes: {file_classes} "
                f"where earlier files have {class_names}."
            )
    return class_names


def _model_blocks(table: Any, base: str, path: Any, idx: Any) -> list[tuple[str, np.ndarray]]:
    """Each model's scores in a file (one model, ``base``, unless it has a model column),
    checked and aligned to the items ``idx``."""
    values = table.values
    out = []
    if table.models is None:
        groups = [(base, np.arange(len(table.ids)))]
    else:
        codes, uniques = pd.factorize(pd.Series(table.models), sort=False)
        groups = [(str(u), np.flatnonzero(codes == g)) for g, u in enumerate(uniques)]
    for model_name, rows in groups:
        where = f"{path}" + (f" (model {model_name!r})" if table.models is not None else "")
        whole = len(rows) == len(table.ids)
        if whole and table.colmajor is not None:
            out.append((model_name,
                        _gather_checked(table.colmajor, table.ids, idx, table.kind, where)))
            continue
        v = values if whole else values[rows]
        fid = table.ids if whole else table.ids[rows]
        v = check_values(v, table.kind, where=where, row_ids=fid)
        out.append((model_name, _align(fid, v, idx, where)))
    return out


def _numbered(names: list[str]) -> list[str]:
    """Model names made unique: a name held by several models numbered ``name#1``, ..."""
    if len(set(names)) == len(names):
        return names
    seen: dict[str, int] = {}
    uniq = []
    for nm in names:
        seen[nm] = seen.get(nm, 0) + 1
        uniq.append(nm if names.count(nm) == 1 else f"{nm}#{seen[nm]}")
    return uniq
