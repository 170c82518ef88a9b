"""Ensembles of model scores and the per-item loss of the given label (SPEC §3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from _goldnoise_lib.validation import Option, check_params, validate_params
from simulation.scores._model_scores import ModelScores

__all__ = ["ensemble", "item_loss", "label_codes"]

_HOW = ("probs", "logits")


def _check_scores(scores: Any, name: str = "scores") -> ModelScores:
    if not isinstance(scores, ModelScores):
        raise TypeError(
            f"`{name}` must be ModelScores (from `load_scores` or "
            f"`ModelScores.from_arrays`); got {type(scores).__name__}."
        )
    return scores


def label_codes(labels: Any, scores: ModelScores) -> np.ndarray:
    """Column codes of the given labels, in the order of ``scores.items``
    (:meth:`ModelScores.label_codes`)."""
    return scores.label_codes(labels)


@validate_params(how=Option(_HOW))
def ensemble(scores: ModelScores, how: str = "probs") -> ModelScores:
    """Average several models' scores into one (the paper's FME).

    Parameters
    ----------
    scores : ModelScores
        Probabilities or logits of one or more models.
    how : {"probs", "logits"}, default "probs"
        Average the probabilities, or average the logits and take their
        softmax (Chong et al. 2022, appendix A.3).

    Returns
    -------
    ModelScores
        One model named ``"ensemble(probs)"`` or ``"ensemble(logits)"``, of
        kind ``"probs"`` (``how="probs"``) or ``"logits"``.

    Raises
    ------
    ValueError
        For per-item losses (no distribution to average) or a bad ``how``.

    Notes
    -----
    ``how="logits"`` also works from probabilities: ``log p = z − lse(z)``
    differs from the logits ``z`` by a per-item constant, which softmax
    ignores, so the mean of the log-probabilities gives the same ensemble as
    the mean of the logits.

    References
    ----------
    Chong, D., Hong, J. & Manning, C. D. (2022). Detecting label errors by
    using pre-trained language models. *EMNLP*, 9074–9091.
    doi:10.18653/v1/2022.emnlp-main.618

    Examples
    --------
    >>> s = ModelScores.from_arrays([[[0.9, 0.1]], [[0.5, 0.5]]], kind="probs")
    >>> ensemble(s).values
    array([[[0.7, 0.3]]])
    >>> ensemble(s, how="logits").probabilities().round(3)
    array([[[0.75, 0.25]]])
    """
    check_params(ensemble, locals())
    s = _check_scores(scores)
    if how not in _HOW:
        raise ValueError(f"`how` must be one of {list(_HOW)}; got {how!r}.")
    if s.kind == "loss":
        raise ValueError("these scores are per-item losses: an ensemble averages "
                         "probabilities or logits. Load those instead.")
    if how == "probs":
        values = s.probabilities().mean(axis=0, keepdims=True)
        kind = "probs"
    else:
        if s.kind == "logits":
            values = s.values.mean(axis=0, keepdims=True)
        else:
            with np.errstate(divide="ignore"):
                logp = np.log(s.values)
            if np.isneginf(logp).any():
                # A zero probability has logit −inf; clip at the smallest normal
                # float so that the average stays finite.
                logp = np.log(np.maximum(s.values, np.finfo(np.float64).tiny))
            values = logp.mean(axis=0, keepdims=True)
        kind = "logits"
    return ModelScores(np.ascontiguousarray(values), (f"ensemble({how})",), kind, s.classes,
                       s.items)


def item_loss(scores: ModelScores, labels: Any) -> np.ndarray:
    """Cross-entropy of the given label, per model and item: ``−log p(label)``.

    Parameters
    ----------
    scores : ModelScores
        Probabilities, logits or per-item losses.
    labels : pandas.Series or array_like
        The given label of each item, in the class names of ``scores``. A
        Series indexed by item id is aligned by id; an array must follow
        ``scores.items``.

    Returns
    -------
    ndarray of float64, shape (n_models, n_items)
        For logits ``lse(z) − z[label]`` (a stable log-softmax); for
        probabilities ``−log p[label]``, with a zero probability counted as
        the smallest normal float (loss ≈ 708.4). Stored losses are returned
        as they are (``labels`` is then not used).

    Examples
    --------
    >>> import numpy as np
    >>> s = ModelScores.from_arrays([[0.9, 0.1], [0.2, 0.8]], kind="probs",
    ...                             classes=["neg", "pos"])
    >>> item_loss(s, ["neg", "neg"]).round(4)
    array([[0.1054, 1.6094]])
    >>> z = ModelScores.from_arrays([[1000.0, 0.0]], kind="logits")
    >>> item_loss(z, [1])
    array([[1000.]])
    """
    s = _check_scores(scores)
    if s.kind == "loss":
        return s.values.copy()
    codes = label_codes(labels, s)
    rows = np.arange(s.n_items)
    if s.kind == "logits":
        from scipy.special import logsumexp  # at first use: keeps import goldnoise light

        return logsumexp(s.values, axis=-1) - s.values[:, rows, codes]
    p = s.values[:, rows, codes]
    return -np.log(np.maximum(p, np.finfo(np.float64).tiny))
