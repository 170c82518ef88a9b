"""Rankings of items by how likely their label is wrong (SPEC §3, "Rankings")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Option, check_params, validate_params
from simulation.detection._confident import confident_learning
from simulation.scores import ModelScores, item_loss

# Numba kernels, imported at first use.
_K = lazy_module("simulation.detection._kernels")

#: From this many items the scores are sorted by the radix kernel (the same order).
_RADIX_FROM = 50_000


def _descending(values: np.ndarray) -> np.ndarray:
    """``np.argsort(-values, kind="stable")`` of finite float64 scores."""
    if len(values) >= _RADIX_FROM:
        return _K.argsort_descending(values)
    return np.argsort(-values, kind="stable")

__all__ = ["METHODS", "Ranking", "label_error_ranking"]

METHODS = ("loss", "self_confidence", "normalized_margin", "confident_learning")


@dataclass(frozen=True, repr=False, eq=False)
class Ranking(Result):
    """Items ordered from the most to the least suspicious label.

    Attributes
    ----------
    items : pandas.Index
        Item ids, most suspicious first (ties in input order).
    scores : ndarray of float64
        Suspicion score of each item in that order, higher = more suspicious:
        the loss (``"loss"``), ``1 − p(label)`` (``"self_confidence"``),
        ``1 − (p(label) − max other p + 1)/2`` (``"normalized_margin"``); for
        ``"confident_learning"`` the loss, with the flagged items first.
    method : str
    flagged : pandas.Index or None
        Confident learning: the items it flags (the head of the ranking).
    model : str
        The model (or ensemble) the scores came from.
    item_order : pandas.Index
        The item ids in their input order.

    Examples
    --------
    >>> import pandas as pd
    >>> r = Ranking.from_scores(pd.Series([0.2, 1.5, 0.7], index=["a", "b", "c"]))
    >>> list(r.items)
    ['b', 'c', 'a']

    ``to_frame()``: one row per item in rank order: ``rank``, ``item``, ``score`` (and ``flagged``).
    """

    items: pd.Index
    scores: np.ndarray
    method: str
    flagged: pd.Index | None
    model: str
    item_order: pd.Index

    @classmethod
    def from_scores(cls, scores: pd.Series, *, method: str = "custom",
                    flagged: Any = None, model: str = "") -> Ranking:
        """A ranking from suspicion scores indexed by item id (higher = more suspicious).

        Examples
        --------
        >>> import pandas as pd
        >>> Ranking.from_scores(pd.Series([3.0, 1.0]), flagged=[1]).items.tolist()
        [1, 0]
        """
        if not isinstance(scores, pd.Series):
            raise TypeError("`scores` must be a Series of scores indexed by item id.")
        if not scores.index.is_unique:
            raise ValueError("`scores` repeats item ids.")
        values = scores.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            raise ValueError("`scores` has NaN or infinite values.")
        items = pd.Index(scores.index, name="item")
        is_flagged = None
        if flagged is not None:
            flag_idx = pd.Index(flagged)
            is_flagged = items.isin(flag_idx)
            if is_flagged.sum() != len(flag_idx):
                raise ValueError("`flagged` names items that are not scored.")
        return cls._ranked(values, items, is_flagged, method, model)

    @classmethod
    def _ranked(cls, values: np.ndarray, items: pd.Index, is_flagged: np.ndarray | None,
                method: str, model: str) -> Ranking:
        """The ranking of checked finite scores of unique items: by score, highest first,
        ties in input order; the flagged items (a mask) lifted above the others."""
        order = _descending(values)
        flag_idx = None
        if is_flagged is not None:
            # the stable sort by (flagged, score): each part keeps the score order
            head = is_flagged[order]
            order = np.concatenate([order[head], order[~head]])
            flag_idx = items[order[:int(head.sum())]]
        return cls(items[order], values[order], method, flag_idx, model, items)

    @property
    def n_flagged(self) -> int:
        """Number of flagged items (0 unless confident learning)."""
        return 0 if self.flagged is None else len(self.flagged)

    def score_key(self) -> pd.Series:
        """Scores in input item order that sort exactly as the ranking does (ties kept).

        For confident learning the flagged items are lifted above all others.
        """
        pos = self.item_order.get_indexer(self.items)
        values = np.empty(len(pos))
        values[pos] = self.scores
        if self.flagged is not None:
            values = _flag_key(values, self.item_order.isin(self.flagged))
        return pd.Series(values, index=self.item_order, name="score")

    def top(self, k: int) -> pd.Index:
        """The ``k`` most suspicious items."""
        return self.items[:k]

    def to_frame(self) -> pd.DataFrame:
        """One row per item in rank order: ``rank``, ``item``, ``score`` (and ``flagged``)."""
        cols: dict[str, Any] = {"rank": np.arange(1, len(self.items) + 1), "item": self.items,
                                "score": self.scores}
        if self.flagged is not None:
            cols["flagged"] = np.arange(len(self.items)) < len(self.flagged)
        return pd.DataFrame(cols)

    _keys = ("method", "model", "n_items=items.size", "n_flagged=flagged.size")

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in self.items[:3].tolist())
        flag = f", {self.n_flagged} flagged" if self.flagged is not None else ""
        return (f"Ranking({self.method} of {self.model or 'scores'}: {len(self.items)} items"
                f"{flag}; most suspicious first: {head}{', ...' if len(self.items) > 3 else ''})")


def _flag_key(values: np.ndarray, is_flagged: np.ndarray) -> np.ndarray:
    # Exact lexicographic key (flagged, score): dense ranks of the scores,
    # the flagged ones shifted above every unflagged one.
    _, dense = np.unique(values, return_inverse=True)
    return dense.astype(np.float64) + np.where(is_flagged, float(len(values) + 1), 0.0)


def as_model_scores(scores: Any, name: str = "scores") -> Any:
    """A plain array as ModelScores: items × classes (one model, cleanlab's ``pred_probs``)
    or models × items × classes, probabilities, items in order."""
    if isinstance(scores, ModelScores) or isinstance(scores, (str, bytes)):
        return scores
    if isinstance(scores, (np.ndarray, list, tuple)):
        arr = np.asarray(scores)
        if arr.ndim in (2, 3) and arr.dtype.kind in "iuf":
            return ModelScores.from_arrays(arr.astype(np.float64), kind="probs")
        raise ValueError(f"`{name}` as an array must be items × classes (one model) or "
                         f"models × items × classes probabilities; got shape {arr.shape}.")
    return scores


def _label_error_ranking_iv(scores: Any, method: Any) -> ModelScores:
    scores = as_model_scores(scores)
    if not isinstance(scores, ModelScores):
        raise TypeError(
            "`scores` must be ModelScores (from `load_scores` or `ModelScores.from_arrays`); "
            f"got {type(scores).__name__}."
        )
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"`method` must be one of {list(METHODS)}; got {method!r}.")
    if scores.n_models != 1:
        raise ValueError(
            f"`scores` holds {scores.n_models} models {list(scores.model_names)}: rank with one. "
            "Pass `scores.select(name)` for one model's loss (FML) or `ensemble(scores)` for "
            "the ensemble's (FME)."
        )
    if scores.kind == "loss" and method != "loss":
        raise ValueError(
            f"`method={method!r}` needs probabilities or logits; these scores are per-item "
            "losses (only `method='loss'` works on them)."
        )
    return scores


@validate_params(method=Option(METHODS))
def label_error_ranking(scores: ModelScores, labels: Any, *,
                        method: str = "loss") -> Ranking:
    """Rank items by how likely their given label is wrong.

    Parameters
    ----------
    scores : ModelScores
        One model's probabilities, logits or losses (``scores.select(name)``
        for FML, ``ensemble(scores)`` for FME).
    labels : pandas.Series or array_like
        The given labels, in the class names of ``scores``; a Series indexed
        by item id is aligned by id.
    method : {"loss", "self_confidence", "normalized_margin", "confident_learning"}
        ``"loss"``: cross-entropy of the given label (the paper's FML/FME).
        ``"self_confidence"``: ``1 − p(label)``. ``"normalized_margin"``:
        ``1 − (p(label) − max_{c≠label} p_c + 1)/2``. ``"confident_learning"``:
        the items confident learning flags (prune by noise rate), then the
        rest, each part by loss (FML+CL, FME+CL).

    Returns
    -------
    Ranking

    Raises
    ------
    ValueError
        For several models, a method that needs probabilities on losses, or
        labels not among the classes.

    Notes
    -----
    Confident learning (Northcutt, Jiang & Chuang 2021) is computed here:
    per-class thresholds ``t_j`` (mean ``p_j`` over items labelled ``j``);
    the confident joint of (given, confident true) labels; its calibration
    to the label counts; per given class ``k`` and class ``j ≠ k``, the
    ``C[k, j]`` items with the largest margin ``p_j − p_k`` are flagged;
    items whose given label is the argmax are never flagged. Its flags equal
    cleanlab's ``find_label_issues(filter_by="prune_by_noise_rate")``.

    References
    ----------
    Northcutt, C. G., Jiang, L. & Chuang, I. L. (2021). Confident learning:
    estimating uncertainty in dataset labels. *JAIR* 70, 1373–1411.
    doi:10.1613/jair.1.12125

    Examples
    --------
    >>> from simulation.scores import ModelScores
    >>> s = ModelScores.from_arrays([[0.9, 0.1], [0.3, 0.7], [0.6, 0.4]], kind="probs",
    ...                             items=["a", "b", "c"], classes=["neg", "pos"])
    >>> r = label_error_ranking(s, ["neg", "neg", "neg"])
    >>> r.items.tolist(), r.scores.round(3).tolist()
    (['b', 'c', 'a'], [1.204, 0.511, 0.105])
    """
    check_params(label_error_ranking, locals())
    s = _label_error_ranking_iv(scores, method)
    loss = item_loss(s, labels)[0]
    flagged = None
    if method == "loss":
        score = loss
    else:
        probs = s.probabilities()[0]
        codes = s.label_codes(labels)
        p_label = probs[np.arange(s.n_items), codes]
        if method == "self_confidence":
            score = 1.0 - p_label
        elif method == "normalized_margin":
            others = probs.copy()
            others[np.arange(s.n_items), codes] = -np.inf
            score = 1.0 - (p_label - others.max(axis=1) + 1.0) / 2.0
        else:
            flagged = confident_learning(codes, probs)
            score = loss
    score = np.asarray(score, dtype=np.float64)
    if not np.isfinite(score).all():
        raise ValueError("`scores` has NaN or infinite values.")
    return Ranking._ranked(score, pd.Index(s.items, name="item"), flagged, method,
                           s.model_names[0])
