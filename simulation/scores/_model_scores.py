"""The :class:`ModelScores` container: per-item outputs of models, aligned to items by id."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from _goldnoise_lib.labels import match_labels
from _goldnoise_lib.messages import few
from _goldnoise_lib.results import Result
from agreement import Ratings

__all__ = ["KINDS", "PROB_TOLERANCE", "ModelScores", "ScorePrecisionWarning"]

KINDS = ("probs", "logits", "loss")
# Rows of probabilities must sum to 1 within this absolute tolerance (float32
# softmax outputs of 1000 classes sum to 1 within ~1e-5; float16 ones within ~1e-3).
PROB_TOLERANCE = 1e-3


class ScorePrecisionWarning(GoldnoiseWarning):
    """Scores were stored in a low-precision type (float16): ties and rounding ahead."""


def items_index(items: Any) -> pd.Index:
    """The item ids to align to: a Ratings' items or any sequence of unique ids."""
    if isinstance(items, Ratings):
        idx = items.items
    elif isinstance(items, (pd.Series, pd.DataFrame)):
        raise TypeError(
            "`items` must be the item ids (a sequence, Index or Ratings); got a "
            f"{type(items).__name__}. Pass `frame.index` or `series.to_numpy()`."
        )
    else:
        if items is None or isinstance(items, (str, bytes)):
            raise TypeError(f"`items` must be a sequence of item ids or a Ratings; got {items!r}.")
        idx = pd.Index(np.asarray(items) if not isinstance(items, pd.Index) else items)
    if len(idx) == 0:
        raise ValueError("`items` is empty.")
    if not _unique(idx):
        dup = idx[idx.duplicated()].unique()
        raise ValueError(f"`items` repeats the ids {few(dup)}; item ids must be unique.")
    return pd.Index(idx, name="item")


def _unique(idx: pd.Index) -> bool:
    """Whether the ids are unique; integer ids in a compact range by counting (no hashing)."""
    if idx.dtype.kind in "iu" and len(idx) > 1:
        v = idx.to_numpy()
        lo, hi = int(v.min()), int(v.max())
        if hi - lo + 1 <= 4 * len(v) + 1024:
            return bool(np.bincount((v - lo).astype(np.intp), minlength=1).max() <= 1)
    return bool(idx.is_unique)


def check_values(values: np.ndarray, kind: str, *, where: str, row_ids: Any = None) -> np.ndarray:
    """Finite values, probabilities in [0, 1] summing to 1: else a ValueError naming rows."""
    ids = (lambda r: np.asarray(row_ids)[r]) if row_ids is not None else (lambda r: r)
    what = "ids" if row_ids is not None else "rows"
    if values.dtype == np.float16:
        warnings.warn(
            f"{where} stores float16 scores (about 3 significant digits): many items will "
            "tie and probabilities may miss a sum of 1 by up to 1e-3. Store float32 or "
            "float64 if you can.", ScorePrecisionWarning, stacklevel=3,
        )
    v = values.astype(np.float64, copy=False)
    if v.size == 0:
        return v
    flat = v.reshape(v.shape[0], -1) if v.ndim > 1 else v.reshape(-1, 1)
    # fast path: a row sum is finite when every entry is (else find the rows)
    row_sums = flat.sum(axis=1)
    if np.isfinite(row_sums).all():
        bad = np.zeros(0, dtype=bool)
    else:
        bad = ~np.isfinite(flat).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"{where} has NaN or infinite scores at {what} {few(ids(rows), len(rows))}. "
            "Scores must be finite; fix or drop those items upstream."
        )
    if kind == "probs":
        if v.ndim < 2 or v.shape[-1] < 2:
            raise ValueError(f"{where}: probabilities need one column per class (two or more).")
        out = ((flat < 0) | (flat > 1)).any(axis=1) if (flat.min() < 0 or flat.max() > 1) \
            else np.zeros(0, dtype=bool)
        if out.any():
            rows = np.flatnonzero(out)
            raise ValueError(
                f"{where} has probabilities outside [0, 1] at {what} "
                f"{few(ids(rows), len(rows))}. Are these logits? Pass `kind='logits'`."
            )
        sums = row_sums.reshape(v.shape[0], -1) if v.ndim == 2 else \
            v.sum(axis=-1).reshape(v.shape[0], -1)
        off = (np.abs(sums - 1.0) > PROB_TOLERANCE).any(axis=1)
        if off.any():
            rows = np.flatnonzero(off)
            worst = float(np.abs(sums - 1.0).max())
            raise ValueError(
                f"{where} has probabilities not summing to 1 (tolerance {PROB_TOLERANCE:g}; "
                f"worst off by {worst:.3g}) at {what} {few(ids(rows), len(rows))}. Are these "
                "logits (pass `kind='logits'`) or is a class column missing?"
            )
    elif kind == "logits" and (v.ndim < 2 or v.shape[-1] < 2):
        raise ValueError(f"{where}: logits need one column per class (two or more).")
    return v


@dataclass(frozen=True, repr=False, eq=False)
class ModelScores(Result):
    """Per-item outputs of one or more models, aligned to items by id.

    Build one with :func:`load_scores` (from files) or :meth:`from_arrays`.

    Attributes
    ----------
    values : ndarray of float64
        ``(n_models, n_items, n_classes)`` for ``probs`` and ``logits``,
        ``(n_models, n_items)`` for ``loss``; read-only.
    model_names : tuple of str
        One name per model (file stems, or the values of the model column).
    kind : {"probs", "logits", "loss"}
    classes : pandas.Index or None
        The class names in column order (``None`` for ``loss``).
    items : pandas.Index
        The item ids, in the order of the second axis of :attr:`values`.

    Examples
    --------
    >>> import numpy as np
    >>> s = ModelScores.from_arrays([[0.9, 0.1], [0.2, 0.8]], kind="probs",
    ...                             items=["a", "b"], classes=["neg", "pos"])
    >>> s
    ModelScores(probs: 1 model ['model'], 2 items, 2 classes ['neg', 'pos'])
    >>> s.values.shape
    (1, 2, 2)

    ``to_frame()``: one row per (model, item), one column per class (or ``loss``).
    """
    _keys = ("kind", "n_models", "n_items", "n_classes", "model_names")

    values: np.ndarray
    model_names: tuple[str, ...]
    kind: str
    classes: pd.Index | None
    items: pd.Index

    def __post_init__(self) -> None:
        self.values.setflags(write=False)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_arrays(cls, values: Any, *, kind: str, items: Any = None,
                    model_names: Sequence[str] | None = None,
                    classes: Sequence[Any] | None = None) -> ModelScores:
        """Wrap in-memory scores whose rows are already in the order of ``items``.

        Parameters
        ----------
        values : array_like
            ``(n_items, n_classes)`` or ``(n_models, n_items, n_classes)`` for
            ``probs``/``logits``; ``(n_items,)`` or ``(n_models, n_items)`` for ``loss``.
        kind : {"probs", "logits", "loss"}
        items : sequence or Ratings, optional
            Item ids of the rows (default ``0..n-1``).
        model_names : sequence of str, optional
            Default ``"model"`` for one model, ``"model0"``, ``"model1"``, … otherwise.
        classes : sequence, optional
            Class names of the columns (default ``0..m-1``).

        Returns
        -------
        ModelScores

        Raises
        ------
        ValueError
            For a bad ``kind``, a wrong shape, NaN/inf, or probabilities outside
            [0, 1] or not summing to 1 (tolerance 1e-3).

        Examples
        --------
        >>> ModelScores.from_arrays([0.1, 2.3, 0.5], kind="loss").values
        array([[0.1, 2.3, 0.5]])
        """
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {list(KINDS)}; got {kind!r}.")
        arr = np.asarray(values)
        if arr.dtype == object or arr.dtype.kind not in "iuf":
            raise TypeError(f"`values` must be a numeric array; got dtype {arr.dtype}.")
        want = 2 if kind == "loss" else 3
        if arr.ndim == want - 1:
            arr = arr[None]
        if arr.ndim != want:
            raise ValueError(
                f"`values` of kind {kind!r} must have {want - 1} or {want} dimensions "
                f"((n_models,) n_items{'' if kind == 'loss' else ', n_classes'}); got shape "
                f"{arr.shape}."
            )
        if kind == "loss":
            v = check_values(arr.T, kind, where="`values`").T
        else:
            v = check_values(arr.reshape(-1, arr.shape[2]), kind,
                             where="`values`").reshape(arr.shape)
        v = np.ascontiguousarray(v, dtype=np.float64)
        n_models, n = v.shape[:2]
        idx = items_index(range(n) if items is None else items)
        if len(idx) != n:
            raise ValueError(f"`items` has {len(idx)} ids but `values` has {n} items.")
        if model_names is None:
            names = ("model",) if n_models == 1 else tuple(f"model{i}" for i in range(n_models))
        else:
            names = tuple(str(x) for x in model_names)
            if len(names) != n_models:
                raise ValueError(f"`model_names` has {len(names)} names for {n_models} models.")
        cls_idx = None
        if kind != "loss":
            m = v.shape[2]
            cls_idx = pd.Index(range(m) if classes is None else list(classes), name="class")
            if len(cls_idx) != m:
                raise ValueError(f"`classes` has {len(cls_idx)} names for {m} columns.")
        return cls(v, names, kind, cls_idx, idx)

    # --------------------------------------------------------------- properties
    @property
    def n_models(self) -> int:
        return self.values.shape[0]

    @property
    def n_items(self) -> int:
        return self.values.shape[1]

    @property
    def n_classes(self) -> int | None:
        return None if self.classes is None else len(self.classes)

    def select(self, model: str | int) -> ModelScores:
        """One model's scores (by name or position): the input of an FML ranking.

        Examples
        --------
        >>> s = ModelScores.from_arrays([[0.1, 0.2], [0.3, 0.4]], kind="loss",
        ...                             model_names=["a", "b"])
        >>> s.select("b").values
        array([[0.3, 0.4]])
        """
        if isinstance(model, (int, np.integer)) and not isinstance(model, bool):
            if not -self.n_models <= model < self.n_models:
                raise ValueError(f"`model` {model} is out of range for {self.n_models} models.")
            pos = int(model) % self.n_models
        elif model in self.model_names:
            pos = self.model_names.index(model)
        else:
            raise ValueError(f"`model` {model!r} is not one of {list(self.model_names)}.")
        return ModelScores(self.values[pos:pos + 1].copy(), (self.model_names[pos],), self.kind,
                           self.classes, self.items)

    def probabilities(self) -> np.ndarray:
        """``(n_models, n_items, n_classes)`` probabilities (softmax of logits).

        Examples
        --------
        >>> s = ModelScores.from_arrays([[0.0, 0.0]], kind="logits")
        >>> s.probabilities()
        array([[[0.5, 0.5]]])
        """
        if self.kind == "probs":
            return self.values
        if self.kind == "loss":
            raise ValueError("these scores are per-item losses: they carry no class "
                             "probabilities. Load probabilities or logits.")
        z = self.values - self.values.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def label_codes(self, labels: Any) -> np.ndarray:
        """The class column of each item's label, in the order of :attr:`items`.

        A Series indexed by item ids is aligned by id; anything else is taken in
        the order of the items and must have one label per item.

        Examples
        --------
        >>> s = ModelScores.from_arrays([[[0.9, 0.1], [0.2, 0.8]]], kind="probs")
        >>> s.label_codes([1, 0]).tolist()
        [1, 0]
        """
        if self.classes is None:
            raise ValueError("these scores are per-item losses: they have no classes to match "
                             "labels to.")
        if isinstance(labels, pd.Series):
            if not labels.index.is_unique:
                dup = labels.index[labels.index.duplicated()].unique()
                raise ValueError(f"`labels` repeats the item ids {few(dup.to_numpy())}.")
            missing = self.items.difference(labels.index)
            if len(missing):
                raise ValueError(
                    f"`labels` lacks {len(missing)} of the scored items: {few(missing.to_numpy())}."
                )
            values = labels.reindex(self.items).to_numpy()
        else:
            values = np.asarray(labels)
            if values.ndim != 1:
                raise ValueError(f"`labels` must be one-dimensional; got shape {values.shape}.")
            if len(values) != self.n_items:
                raise ValueError(
                    f"`labels` has {len(values)} entries for {self.n_items} scored items; pass a "
                    "Series indexed by item id to align by id."
                )
        classes = self.classes
        # 2, 2.0 and "2" are one label (class names read from a file's header are text)
        codes = match_labels(values, classes)
        bad = codes < 0
        if bad.any():
            rows = np.flatnonzero(bad)
            raise ValueError(
                f"`labels` has values that are not among the classes {list(classes)[:10]}: "
                f"{few(pd.unique(values[rows]))} (items {few(self.items[rows].to_numpy())})."
            )
        return codes.astype(np.intp)

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame: one row per (model, item), one column per class (or ``loss``)."""
        if self.kind == "loss":
            data = self.values.reshape(-1, 1)
            cols: list[Any] = ["loss"]
        else:
            data = self.values.reshape(-1, self.values.shape[2])
            cols = list(self.classes)
        index = pd.MultiIndex.from_product([list(self.model_names), self.items],
                                           names=["model", "item"])
        return pd.DataFrame(data, index=index, columns=cols)

    def __repr__(self) -> str:
        names = list(self.model_names)
        shown = repr(names) if len(names) <= 5 else repr(names[:5])[:-1] + ", ...]"
        plural = "s" if self.n_models != 1 else ""
        cls_text = ""
        if self.classes is not None:
            cl = list(self.classes)
            cshown = repr(cl) if len(cl) <= 8 else repr(cl[:8])[:-1] + ", ...]"
            cls_text = f", {len(cl)} classes {cshown}"
        return (f"ModelScores({self.kind}: {self.n_models} model{plural} {shown}, "
                f"{self.n_items} items{cls_text})")
