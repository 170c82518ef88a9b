"""Held-out ratings and the temperature of a fit's posteriors (SPEC §5).

A latent-class fit multiplies the annotators' emissions as if they erred
independently, so its posterior over an item's state is too sharp when they do
not. The check used here asks the fit to predict ratings it is not shown: for
an item ``i`` with two or more ratings, each rating ``x_ij`` (annotator ``j``) is
held out in turn, the state posterior is computed from the other ratings, and the
held-out rating is predicted by

    P(x_ij = y | rest) = Σ_s P_T(s | rest_i) · P_j(y | s),

    P_T(s | rest_i) ∝ exp{ (log w_s + Σ_{j' ≠ j} log P_j'(x_ij' | s)) / T },

with emission tables ``P_j(y | s)`` and state weights ``w_s``. ``T = 1`` is the
fit itself; ``T > 1`` flattens the posterior (temperature scaling of the log
posterior, Guo et al. 2017). ``T`` is chosen in [1, 50] to maximise the mean log
probability of the held-out ratings.

The tables that predict a rating never saw it: the items are split into
``HELD_OUT_FOLDS`` seeded folds, and the ratings of each fold's items are
predicted with the parameters refitted on the other folds (EM started from the
full fit's parameters; :func:`noise_models.latent_class._em.heldout_folds`).
With the parameters of the full fit instead, each held-out rating would have
shaped its own annotator's table, and the check would ask for too little
flattening (on the crowd sets with gold, rte: ``T = 1.00`` in sample against
3.3 cross-fitted, the latter halving the ECE against gold). The temperature is
applied to the full fit's posteriors, which are at least as sharp as the
cross-fitted ones (their parameters saw the item's own ratings): hence never
``T < 1``. Tempering the whole log posterior keeps its argmax, so the fitted
labels (and accuracy) do not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from _goldnoise_lib.lazy import lazy_module

K = lazy_module("noise_models.latent_class._kernels")
KR = lazy_module("noise_models.latent_class._kernels_rows")

__all__ = ["Fold", "HeldOut", "choose_temperature", "difficulty_posteriors", "distinct_rows",
           "heldout_sample", "log_tables", "predictive", "state_log_posterior",
           "tempered_posteriors"]

#: The search range of the temperature (Brent's method on log T). Never below 1: the
#: temperature tempers the full fit, whose posteriors are at least as sharp as the
#: cross-fitted ones it was chosen on, so the check can say "flatter" but not "sharper".
T_RANGE = (1.0, 50.0)


def log_tables(em_model: int, hard: int, phi, pi, eps, conf, theta, xi, q
               ) -> tuple[np.ndarray, np.ndarray]:
    """``logtab[j, y, s] = log P_j(y | s)`` and ``logw[s] = log w_s`` of the parameters."""
    return K.tables(em_model, hard, phi, pi, eps, conf, theta, xi, q)


def state_log_posterior(codes: np.ndarray, logtab: np.ndarray, logw: np.ndarray
                        ) -> np.ndarray:
    """``log w_s + Σ_j log P_j(x_ij | s)`` for every item and state (unnormalised)."""
    n, k = codes.shape
    out = np.broadcast_to(logw, (n, logw.shape[0])).copy()
    for j in range(k):
        x = codes[:, j]
        ok = x >= 0
        out[ok] += logtab[j, x[ok], :]
    return out


class HeldOut:
    """Held-out ratings: row ``items``, ``annotator``, ``label``, and ``weight`` (the number
    of items sharing the row when identical rows are merged, else 1)."""

    def __init__(self, items: np.ndarray, annotator: np.ndarray, label: np.ndarray,
                 weight: np.ndarray | None = None) -> None:
        self.items, self.annotator, self.label = items, annotator, label
        self.weight = np.ones(len(items)) if weight is None else weight

    def __len__(self) -> int:
        return len(self.items)

    @property
    def total(self) -> float:
        """Held-out ratings counted with their weights."""
        return float(self.weight.sum())


def distinct_rows(codes: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray | None,
                                                      np.ndarray | None]:
    """``(rows, weights, inverse)``: identical rows merged when that pays (as the EM does)."""
    merged = KR.merge_rows(codes, m)
    if merged is None:
        return codes, None, None
    return merged


def heldout_sample(codes: np.ndarray, rng: np.random.Generator,
                   max_items: int | None = None, weights: np.ndarray | None = None
                   ) -> HeldOut:
    """Every rating of every row with two or more ratings, each held out in turn (a
    seeded sample of ``max_items`` rows when there are more). ``weights``: items per row."""
    rated = codes >= 0
    eligible = np.flatnonzero(rated.sum(axis=1) >= 2)
    if max_items is not None and eligible.size > max_items:
        eligible = np.sort(rng.choice(eligible, size=max_items, replace=False))
    item_pos, j = np.nonzero(rated[eligible])
    items = eligible[item_pos]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[items]
    return HeldOut(items, j.astype(np.int64), codes[items, j].astype(np.int64), w)


def _tempered(log_post: np.ndarray, temperature: float) -> np.ndarray:
    """Rows of ``exp(log_post / T)`` normalised (NaN where a row has no possible state)."""
    scaled = log_post / temperature
    norm = logsumexp(scaled, axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        return np.exp(scaled - norm)


class Fold(NamedTuple):
    """The held-out ratings of one fold: ``rows`` (the fold's distinct rows of labels),
    ``post_log`` (:func:`state_log_posterior` of ``rows`` under ``logtab`` and ``logw``),
    ``logtab`` and ``logw`` (the emission tables and state log weights refitted without
    the fold) and ``held`` (indices into ``rows``)."""

    rows: np.ndarray
    post_log: np.ndarray
    logtab: np.ndarray
    logw: np.ndarray
    held: HeldOut

    @classmethod
    def of(cls, rows: np.ndarray, logtab: np.ndarray, logw: np.ndarray,
           held: HeldOut) -> Fold:
        """The fold of ``rows`` under the tables, its log posterior computed here."""
        return cls(rows, state_log_posterior(rows, logtab, logw), logtab, logw, held)


def _rest(fold: Fold) -> np.ndarray:
    """Each held-out rating's item log posterior from the item's other ratings.

    The held-out rating's log emission is subtracted from the item's log posterior.
    Where that emission is 0 (a state the rating rules out, as perfect annotators'
    easy states are ruled out by every rating that disagrees) the subtraction is
    undefined (-inf - -inf); for those items the log posterior is kept as its finite
    part and the number of zero factors in it, and the rating is taken out of both.
    """
    h, logtab = fold.held, fold.logtab
    own = logtab[h.annotator, h.label, :]
    with np.errstate(invalid="ignore"):
        rest = fold.post_log[h.items] - own
    ruled = np.flatnonzero(np.isneginf(own).any(axis=1))
    if ruled.size:
        zero = np.isneginf(logtab)
        finite = np.where(zero, 0.0, logtab)
        items, pos = np.unique(h.items[ruled], return_inverse=True)
        rows = fold.rows[items]
        part = np.where(np.isneginf(fold.logw), 0.0, fold.logw)
        part = np.broadcast_to(part, (items.size, part.shape[0])).copy()
        zeros = np.broadcast_to(np.isneginf(fold.logw), part.shape).astype(np.int64)
        for j in range(rows.shape[1]):
            x = rows[:, j]
            ok = x >= 0
            part[ok] += finite[j, x[ok], :]
            zeros[ok] += zero[j, x[ok], :]
        a, y = h.annotator[ruled], h.label[ruled]
        left = zeros[pos] - zero[a, y, :]
        rest[ruled] = np.where(left > 0, -np.inf, part[pos] - finite[a, y, :])
    return rest


def predictive(fold: Fold, temperature: float = 1.0) -> np.ndarray:
    """``P(x_ij = y | rest)`` for every held-out rating of the fold (rows) and label
    ``y`` (columns)."""
    post = np.nan_to_num(_tempered(_rest(fold), temperature), nan=0.0)
    emis = np.exp(fold.logtab[fold.held.annotator])  # (n_held, m, S)
    return np.einsum("is,iys->iy", post, emis)


def _scorer(folds: Sequence[Fold]):
    """``T -> mean held-out log score``: what does not depend on ``T`` computed once
    (each held-out rating's log posterior from the rest, and its own emission row)."""
    parts = []
    for f in folds:
        h = f.held
        own = np.exp(f.logtab[h.annotator, h.label, :])  # P_j(x_ij | s)
        parts.append((_rest(f), own, h.weight))
    total = sum(f.held.total for f in folds)

    def score(temperature: float) -> float:
        out = 0.0
        for rest, own, w in parts:
            post = np.nan_to_num(_tempered(rest, temperature), nan=0.0)
            p = np.einsum("is,is->i", post, own)
            out += float(np.dot(w, np.log(np.maximum(p, 1e-300))))
        return out / total

    return score


def choose_temperature(folds: Sequence[Fold]) -> float:
    """The temperature that maximises the mean held-out log score over the folds
    (Brent on log T)."""
    from scipy.optimize import minimize_scalar

    if sum(len(f.held) for f in folds) == 0:
        return 1.0
    score = _scorer(folds)
    lo, hi = np.log(T_RANGE[0]), np.log(T_RANGE[1])
    res = minimize_scalar(lambda lt: -score(float(np.exp(lt))),
                          bounds=(lo, hi), method="bounded", options={"xatol": 1e-3})
    t = float(np.exp(res.x))
    # never worse than the untempered fit on the same held-out ratings
    if score(1.0) >= score(t):
        return 1.0
    return t


def tempered_posteriors(post_log: np.ndarray, m: int, labels: np.ndarray,
                        temperature: float, means: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``(class_post, hard_post, label_post)`` of the log posterior tempered by ``T``.

    The labels are kept (tempering does not move the argmax over the states).
    Items without any possible state keep NaN, as in the plain fit. ``means``: for
    ``hard="difficulty"`` (several hard states), the posterior means of the items' own
    label distributions (:func:`~noise_models.latent_class._kernels.hard_label_means`),
    which the class posterior mixes with the easy one.
    """
    post = _tempered(post_log, temperature)
    if post.shape[1] > m + 1:
        return difficulty_posteriors(post, m, labels, means)
    class_post = post[:, :m]
    hard_post = post[:, m] if post.shape[1] > m else None
    label_post = class_post[np.arange(len(labels)), labels]
    return class_post, hard_post, label_post


def difficulty_posteriors(post: np.ndarray, m: int, labels: np.ndarray, means: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(class_post, hard_post, label_post)`` of ``hard="difficulty"`` from its state
    posterior ``post`` (rows sum to 1): ``P(c | x) = P(easy | x) P(c | x, easy) +
    P(hard | x) v_c`` with ``v = means`` the posterior mean of the item's own label
    distribution (:func:`~noise_models.latent_class._kernels.hard_label_means`), as the
    posterior kernel."""
    easy = post[:, :m]
    ez = easy.sum(axis=1, keepdims=True)
    hard = 1.0 - ez[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(ez > 0, easy / np.where(ez > 0, ez, 1.0), means)
    class_post = within * (1.0 - hard[:, None]) + hard[:, None] * means
    return class_post, hard, class_post[np.arange(len(labels)), labels]
