"""Voter pools (CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965; SPEC §9): soft
labels drawn from several models."""

from __future__ import annotations

from typing import Any

import numpy as np

from _goldnoise_lib.validation import (
    Option,
    Rng,
    check_integer,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import SoftLabels

__all__ = ["VOTE_RULES", "voter_labels"]

#: How a drawn voter votes: its prediction (most probable class, CILN's rule), or a class
#: drawn from its distribution.
VOTE_RULES = ("argmax", "sample")

#: Votes an item at most (each item's votes are drawn at once: 8 bytes a vote and more).
MAX_VOTES = 10_000_000
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
    try:
        values = np.asarray(scores, dtype=np.float64)
    except ValueError:
        raise ValueError("`scores` must be a ModelScores or an array of shape (n_models, "
                         "n_items, n_classes); its rows differ in length (a ragged list): "
                         "give every item every class's probability.") from None
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


@validate_params(rng=Rng(), vote=Option(VOTE_RULES))
def voter_labels(scores: Any, *, n_votes: int, labels: Any = None, vote: str = "argmax",
                 rng: Any = None) -> SoftLabels:
    """Soft labels from a pool of voters: each model's predicted distribution votes.

    For each item, ``n_votes`` votes are drawn: a voter (model) uniformly from the
    pool, and that voter's vote for the item:

    - ``vote="argmax"`` (default): its prediction, the most probable class of its
      distribution (the lowest class on a tie). This is CILN's rule for a hard
      label (§III-A: "select one voter uniformly at random and use its prediction
      as the observed label", the protocol of PL-IDN); each vote is such a label.
      The expected vote shares are the shares of the pool's voters that predict
      each class, ``(1/M) Σ_m [argmax p_i^(m) = c]``.
    - ``vote="sample"``: a class drawn from the voter's distribution. The
      expected vote shares are then the mean of the voters' distributions, CILN's
      soft label p̄_i (eq. (1); exactly: :meth:`noise_models.SoftLabels.from_voters`).
      The two differ unless the voters are one-hot: a pool of models that all give
      the true class 0.6 has no noise under CILN's rule and δ ≈ 0.4 under sampling.

    The soft label is the share of votes per class. δ, nth, TV and the attractor
    class (:func:`noise_models.noise_rate`, ...) then apply unchanged.

    Parameters
    ----------
    scores : ModelScores or array_like, shape (n_models, n_items, n_classes)
        The voters: probabilities or logits of several models
        (:func:`load_scores` of several files), or an array of probabilities.
    n_votes : int
        Votes drawn per item (≥ 1, at most ``MAX_VOTES`` = 10,000,000).
    labels : array_like or pandas.Series, optional
        The items' true labels, kept as the soft labels' reference labels (so
        that δ and nth measure the pool's noise against the truth). Default: the
        item's first vote — with ``vote="argmax"``, CILN's hard label (a voter
        drawn uniformly, its prediction).
    vote : {"argmax", "sample"}, default "argmax"
        How a drawn voter votes (above).
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
    .. [1] Islam, S., Kristiadi, A. & Milani, M. (2026). Benchmarking
       instance-dependent label noise with controlled corruptions (CILN).
       arXiv:2606.14965, §II-B, §III-A.

    Examples
    --------
    >>> import numpy as np
    >>> pool = np.array([[[1.0, 0.0], [0.2, 0.8]],      # voter 1, two items
    ...                  [[1.0, 0.0], [0.6, 0.4]]])     # voter 2
    >>> voter_labels(pool, n_votes=1000, labels=[0, 1], rng=0).probs.round(1)
    array([[1. , 0. ],
           [0.5, 0.5]])
    >>> soft = voter_labels(pool, n_votes=1000, labels=[0, 1], vote="sample", rng=0)
    >>> soft.probs.round(1)
    array([[1. , 0. ],
           [0.4, 0.6]])

    With ``"argmax"`` voter 1 votes 1 for the second item and voter 2 votes 0 (half
    the votes each); with ``"sample"`` the votes follow the mean (0.4, 0.6).
    """
    check_params(voter_labels, locals())
    values, classes, items = _voters_iv(scores)
    n_votes = check_integer(n_votes, "n_votes", 1)
    gen = check_rng(rng)
    n_models, n, k = values.shape
    if n_votes > MAX_VOTES:  # one item's votes are drawn at once
        raise ValueError(f"`n_votes` is {n_votes:,}; at most {MAX_VOTES:,} votes an item "
                         "(an item's votes are drawn at once; the vote shares are within "
                         f"{1 / np.sqrt(MAX_VOTES):.0e} of the voters' mean there).")
    counts, first = _draw_votes(values, n_votes, vote, gen)
    probs = counts / n_votes
    ref = first if labels is None else labels
    if labels is None and classes is not None:
        ref = np.asarray(classes, dtype=object)[first]
    return SoftLabels.from_array(probs, ref, classes=classes, instances=items, copy=False)


def _draw_votes(values: np.ndarray, n_votes: int, vote: str,
                gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each item's vote counts ``(n, k)`` and first vote ``(n,)``: ``n_votes`` voters drawn
    among the models ``values`` (models × items × classes), each voting its top class
    (``"argmax"``) or a class drawn from its probabilities; in blocks of items."""
    n_models, n, k = values.shape
    if vote == "argmax":
        top = values.argmax(axis=2)  # the first (lowest) class on a tie
    else:
        cum = np.cumsum(values, axis=2)
        cum[..., -1] = 1.0
    counts = np.zeros((n, k), dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(n_votes * k, 1))
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        voter = gen.integers(0, n_models, size=(hi - lo, n_votes))
        rows = np.arange(lo, hi)[:, None]
        if vote == "argmax":
            votes = top[voter, rows]
        else:
            u = gen.random((hi - lo, n_votes))
            votes = (u[..., None] >= cum[voter, rows]).sum(axis=2)  # inverse CDF
            votes = np.minimum(votes, k - 1)
        first[lo:hi] = votes[:, 0]
        np.add.at(counts, (np.repeat(np.arange(hi - lo), n_votes) + lo, votes.ravel()), 1)
    return counts, first
