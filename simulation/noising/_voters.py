"""Voter pools (CILN, Jiang et al.; SPEC §9): soft labels drawn from several models."""

from __future__ import annotations

from typing import Any

import numpy as np

from _goldnoise_lib.validation import Rng, check_integer, check_params, check_rng, validate_params
from noise_models import SoftLabels

__all__ = ["voter_labels"]

#: Item × vote × class cells drawn at once.
_BLOCK_CELLS = 2**24


def _voters_iv(scores: Any) -> tuple[np.ndarray, Any, Any]:
    from simulation.scores import ModelScores

    if isinstance(scores, ModelScores):
        if scores.kind == "loss":
            raise ValueError("`scores` holds losses; voters need each model's predicted "
                             "distribution (probs or logits).")
        values = np.asarray(scores.values, dtype=np.float64)
        if scores.kind == "logits":
            values = values - values.max(axis=2, keepdims=True)
            values = np.exp(values)
            values /= values.sum(axis=2, keepdims=True)
        return values, list(scores.classes), list(scores.items)
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim == 2:
        values = values[None]
    if values.ndim != 3:
        raise ValueError("`scores` must be a ModelScores or an array of shape (n_models, "
                         f"n_items, n_classes); got shape {values.shape}.")
    if not np.isfinite(values).all() or (values < 0).any():
        raise ValueError("`scores` must hold finite, non-negative probabilities.")
    sums = values.sum(axis=2)
    if np.abs(sums - 1).max() > 1e-3:
        m, i = np.unravel_index(np.argmax(np.abs(sums - 1)), sums.shape)
        raise ValueError(f"`scores` rows must sum to 1 (within 1e-3); model {m}, item {i} "
                         f"sums to {sums[m, i]:.6g}. Pass logits as a ModelScores of kind "
                         "'logits'.")
    return values / sums[..., None], None, None


@validate_params(rng=Rng())
def voter_labels(scores: Any, *, n_votes: int, labels: Any = None,
                 rng: Any = None) -> SoftLabels:
    """Soft labels from a pool of voters: each model's predicted distribution votes.

    For each item, ``n_votes`` votes are drawn: a voter (model) uniformly from the
    pool, then a class from that voter's distribution for the item. The soft
    label is the share of votes per class (CILN's p̄_i estimated from votes);
    its expectation is the mean of the voters' distributions
    (:meth:`noise_models.SoftLabels.from_voters`). δ, nth, TV and the attractor
    class (:func:`noise_models.noise_rate`, ...) then apply unchanged.

    Parameters
    ----------
    scores : ModelScores or array_like, shape (n_models, n_items, n_classes)
        The voters: probabilities or logits of several models
        (:func:`load_scores` of several files), or an array of probabilities.
    n_votes : int
        Votes drawn per item (≥ 1).
    labels : array_like or pandas.Series, optional
        The items' true labels, kept as the soft labels' reference labels (so
        that δ and nth measure the pool's noise against the truth). Default: one
        of each item's votes, drawn uniformly — the sampled hard label.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SoftLabels
        ``probs``: vote shares (items × classes); reference labels as above. A
        sampled hard label next to true ``labels`` is
        ``noise_models.sample_hard_labels(soft, rng=...)``, which draws one vote
        (the vote shares are p̄_i).

    Raises
    ------
    ValueError
        For losses instead of distributions, rows that are not distributions,
        or ``n_votes`` < 1.

    References
    ----------
    .. [1] Jiang, Z. et al. Class-conditional and instance-dependent label noise
       (CILN): voter pools and noise transition heterogeneity (SPEC §2.8, §9).

    Examples
    --------
    >>> import numpy as np
    >>> pool = np.array([[[1.0, 0.0], [0.2, 0.8]],      # voter 1, two items
    ...                  [[1.0, 0.0], [0.6, 0.4]]])     # voter 2
    >>> soft = voter_labels(pool, n_votes=1000, labels=[0, 1], rng=0)
    >>> soft.probs.round(1)
    array([[1. , 0. ],
           [0.4, 0.6]])
    """
    check_params(voter_labels, locals())
    values, classes, items = _voters_iv(scores)
    n_votes = check_integer(n_votes, "n_votes", 1)
    gen = check_rng(rng)
    n_models, n, k = values.shape
    cum = np.cumsum(values, axis=2)
    cum[..., -1] = 1.0
    counts = np.zeros((n, k), dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(n_votes * k, 1))
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        voter = gen.integers(0, n_models, size=(hi - lo, n_votes))
        u = gen.random((hi - lo, n_votes))
        rows = np.arange(lo, hi)[:, None]
        votes = (u[..., None] >= cum[voter, rows]).sum(axis=2)  # inverse CDF
        votes = np.minimum(votes, k - 1)
        first[lo:hi] = votes[:, 0]
        np.add.at(counts, (np.repeat(np.arange(hi - lo), n_votes) + lo, votes.ravel()), 1)
    probs = counts / n_votes
    ref = first if labels is None else labels
    if labels is None and classes is not None:
        ref = np.asarray(classes, dtype=object)[first]
    return SoftLabels.from_array(probs, ref, classes=classes, instances=items, copy=False)
