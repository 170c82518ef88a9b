"""The latent-class EM in memory: the starts, the EM driver, the fit (SPEC §2.4).

:meth:`LatentClassModel.fit <noise_models.LatentClassModel.fit>`
(:mod:`noise_models.latent_class._model`) runs :func:`_fit` on ratings in
memory; :mod:`noise_models.latent_class._partial` runs the same starts and
builds the fit with :func:`_finish` over chunks. ``model`` is the
:class:`~noise_models.LatentClassModel` being fitted throughout.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.errors import ConvergenceWarning, UnstableStartsWarning, plain
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.progress import progress
from _goldnoise_lib.validation import check_rng
from agreement import Ratings
from noise_models.latent_class._fit import (
    UNSTABLE_SHARE,
    UNSTABLE_WITHIN,
    LatentClassFit,
    _readonly,
)

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_optimize = lazy_module("scipy.optimize")
K = lazy_module("noise_models.latent_class._kernels")
KR = lazy_module("noise_models.latent_class._kernels_rows")
T = lazy_module("noise_models.latent_class._tempering")

__all__ = ["HELD_OUT_FOLDS", "HELD_OUT_MAX_ITEMS", "fit_tables", "heldout_folds"]

# LatentClassModel's options, by the names of the EM kernels' codes.
_ANNOTATORS = {"perfect": "PERFECT", "one-coin": "ONE_COIN", "confusion": "CONFUSION",
               "spam": "SPAM"}
_HARD = {"free": "HARD_FREE", "marginal": "HARD_MARGINAL", "uniform": "HARD_UNIFORM",
         "difficulty": "HARD_DIFFICULTY", None: "HARD_NONE"}
# Share of items first put in the hard state by the majority-vote start.
_START_HARD_AGREED = 0.1
# A class "collapsed" when majority vote gives it at least this share of the
# items (and at least _COLLAPSE_MIN_ITEMS items) but the fit labels fewer than
# _COLLAPSE_RATIO times as many items with it.
_COLLAPSE_SHARE = 0.01
_COLLAPSE_MIN_ITEMS = 5
_COLLAPSE_RATIO = 0.05


@dataclass
class _Params:
    phi: np.ndarray
    pi: np.ndarray
    eps: np.ndarray
    conf: np.ndarray
    theta: np.ndarray
    xi: np.ndarray
    q: np.ndarray
    #: hard="difficulty": the spam model's parameters (stage 1), which give the labels
    easy: _Params | None = None

    def copy(self) -> _Params:
        return _Params(*(a.copy() for a in (self.phi, self.pi, self.eps, self.conf,
                                            self.theta, self.xi, self.q)),
                       easy=None if self.easy is None else self.easy.copy())

    def args(self) -> tuple[np.ndarray, ...]:
        return (self.phi, self.pi, self.eps, self.conf, self.theta, self.xi, self.q)


class _Starts(NamedTuple):
    """What EM from every start leaves (:func:`_run_starts`): the kept start's parameters,
    objective trace, iterations and convergence; every start's final objective, share of
    labels given differently from the kept start's, and labels (of the rows, or after
    :func:`_fit` of the items; None where not kept)."""

    params: _Params
    trace: np.ndarray
    n_iter: int
    converged: bool
    finals: np.ndarray
    disagreement: np.ndarray | None = None
    labels: np.ndarray | None = None


class _Posteriors(NamedTuple):
    """The per-item posteriors of the kept parameters (the first four of
    ``K.posteriors``), in the items' order."""

    class_post: np.ndarray
    hard_post: np.ndarray
    labels: np.ndarray
    label_post: np.ndarray


def _base_params(k: int, m: int, q_fixed: np.ndarray | None) -> _Params:
    q = np.full((k, m), 1.0 / m) if q_fixed is None else q_fixed.copy()
    # pi[0] = π; pi[1:] = the weights ω of hard="difficulty"'s item-accuracy levels
    n_lev = K.N_LEVELS
    return _Params(
        phi=np.full(m, 1.0 / m), pi=np.r_[0.2, np.full(n_lev, 1.0 / n_lev)],
        eps=np.full(k, 0.2),
        conf=np.tile(np.eye(m) * 0.6 + 0.4 / m, (k, 1, 1)), theta=np.full(k, 0.5),
        xi=np.full((k, m), 1.0 / m), q=q,
    )


def _random_params(rng: np.random.Generator, model: int, hard: int, k: int, m: int,
                   cap: float, q_fixed: np.ndarray | None) -> _Params:
    p = _base_params(k, m, q_fixed)
    p.phi[:] = rng.dirichlet(np.full(m, 2.0))
    p.pi[0] = rng.uniform(0.02, 0.5)
    if hard == K.HARD_DIFFICULTY:
        p.pi[1:] = rng.dirichlet(np.full(K.N_LEVELS, 2.0))
    if model == K.ONE_COIN:
        p.eps[:] = rng.uniform(0.0, 0.8, size=k) * cap
    elif model == K.CONFUSION:
        w = rng.uniform(0.3, 0.95, size=(k, 1, 1))
        p.conf[:] = w * np.eye(m) + (1.0 - w) * rng.dirichlet(np.ones(m), size=(k, m))
    elif model == K.SPAM:
        p.theta[:] = rng.uniform(0.2, 0.95, size=k)
        p.xi[:] = rng.dirichlet(np.ones(m), size=k)
    if hard == K.HARD_FREE:
        p.q[:] = rng.dirichlet(np.ones(m), size=k)
    return p


def _tie(params: _Params, groups: np.ndarray) -> None:
    """Give every column of an annotator the parameters of its first column."""
    first = np.unique(groups, return_index=True)[1][groups]
    for name in ("eps", "conf", "theta", "xi", "q"):
        a = getattr(params, name)
        a[:] = a[first]


def _validate_data(model: Any, r: Ratings, codes: np.ndarray) -> np.ndarray:
    k = codes.shape[1]
    m = r.n_categories
    if m < 2:
        raise ValueError(
            f"`ratings` use a single category ({plain(r.categories[0])!r}); a latent-class model "
            "needs at least two. Declare the others with `categories=` if they exist."
        )
    if k < 2:
        raise ValueError(
            "`ratings` have one annotator; a latent-class model needs at least two "
            "annotators rating the same items (with one, each item's label is just theirs)."
        )
    rated = (codes >= 0).sum(axis=1)
    if not np.any(rated >= 2):
        raise ValueError(
            "no item of `ratings` has two or more ratings: nothing can be learnt about "
            "the annotators. A latent-class model needs items rated by several annotators."
        )
    return rated


def _gold_codes(r: Ratings, gold: Any) -> np.ndarray:
    """Gold labels as category codes in the ratings' item order (-1: no gold)."""
    from _goldnoise_lib.labels import labels_by_item

    pos, codes = labels_by_item(gold, r.items, r.categories, "gold", allow_empty=True)
    out = np.full(r.n_items, -1, dtype=np.int64)
    out[pos] = codes
    return out


def _known_counts(codes: np.ndarray, known: np.ndarray, m: int, n_states: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``cnt[j, x, c]`` and ``tot[c]`` of the gold items (their class observed)."""
    k = codes.shape[1]
    cnt = np.zeros((k, m, n_states))
    tot = np.zeros(n_states)
    rows = np.flatnonzero(known >= 0)
    sub = codes[rows]
    c = known[rows]
    for j in range(k):
        ok = sub[:, j] >= 0
        np.add.at(cnt, (j, sub[ok, j].astype(np.int64), c[ok]), 1.0)
    np.add.at(tot, c, 1.0)
    return cnt, tot


def _posterior_shares(fit: LatentClassFit, class_post: np.ndarray) -> np.ndarray:
    """``phi`` of a fit whose posteriors change: for ``hard="difficulty"`` the mean of the
    new posteriors over the rated items (see :func:`_finish`), else unchanged."""
    if fit.class_weights is None:
        return fit.phi
    rated = np.asarray(fit.ratings.counts).sum(axis=1) > 0
    return _readonly(class_post[rated].mean(axis=0)) if rated.any() else fit.phi


def _clamp_known(fit: LatentClassFit, known: np.ndarray) -> LatentClassFit:
    """Gold items' posteriors: their class with probability 1, easy."""
    rows = np.flatnonzero(known >= 0)
    class_post = np.array(fit.class_posterior)
    class_post[rows] = 0.0
    class_post[rows, known[rows]] = 1.0
    labels = np.array(fit.label_codes)
    labels[rows] = known[rows]
    label_post = np.array(fit.label_posterior)
    label_post[rows] = 1.0
    hard = None
    if fit.posterior_hard is not None:
        hard = np.array(fit.posterior_hard)
        hard[rows] = 0.0
    return dataclasses.replace(
        fit, phi=_posterior_shares(fit, class_post),
        class_posterior=_readonly(class_post), label_codes=_readonly(labels),
        label_posterior=_readonly(label_post),
        posterior_hard=None if hard is None else _readonly(hard),
        gold_codes=_readonly(np.array(known)))


def _fit(model: Any, r: Ratings, codes: np.ndarray,
         known: np.ndarray | None = None) -> LatentClassFit:
    rated = _validate_data(model, r, codes)
    k = codes.shape[1]
    m = r.n_categories
    em_model, hard = _em_codes(model)
    n_eff = int(np.count_nonzero(rated))
    q_fixed = None
    # Replicate columns of one annotator (Ratings.from_long(replicates="separate"))
    # share one set of parameters, as in Dawid & Skene (1979).
    groups = np.asarray(r.annotator_of, dtype=np.int64)
    if hard == K.HARD_MARGINAL:
        own = KR.label_counts(codes, m)
        if r.has_replicates:
            pooled = np.zeros((int(groups.max()) + 1, m))
            np.add.at(pooled, groups, own)
            own = pooled[groups]
        tot = own.sum(axis=1, keepdims=True)
        q_fixed = np.where(tot > 0, own / np.where(tot > 0, tot, 1.0), 1.0 / m)
    elif hard == K.HARD_UNIFORM:
        q_fixed = np.full((k, m), 1.0 / m)

    # Gold items enter as observed classes: constant counts beside the E-step's.
    known_sums = None
    em_codes = codes
    if known is not None and (known >= 0).any():
        n_states = K.n_states_of(hard, m)
        known_sums = _known_counts(codes, known, m, n_states)
        em_codes = np.ascontiguousarray(codes[known < 0])
    # Identical rows share their posterior: the engine visits each once.
    merged = KR.merge_rows(em_codes, m) if model._merge_rows and len(em_codes) else None
    if merged is not None:
        em_rows, em_weights, _ = merged
    else:
        em_rows, em_weights = em_codes, None
    parallel = em_rows.size >= K.PARALLEL_THRESHOLD
    run = _run_starts(model, em_rows, em_weights, m, q_fixed, n_eff, parallel, groups=groups,
                      tie=r.has_replicates, known=known_sums)
    params = run.params
    # every start's labels in the items' order (gold items: their gold class in every start)
    start_labels = run.labels[:, merged[2]] if merged is not None else run.labels
    if known_sums is not None:
        full = np.empty((model.n_starts, r.n_items), dtype=start_labels.dtype)
        full[:, known < 0] = start_labels
        full[:, known >= 0] = known[known >= 0]
        start_labels = full
    if known_sums is None:
        rows, weights, inverse = (merged if merged is not None else (codes, None, None))
    else:
        full = KR.merge_rows(codes, m) if model._merge_rows else None
        rows, weights, inverse = full if full is not None else (codes, None, None)

    logtab, logw = K.tables(em_model, hard, *params.args())
    class_post, hard_post, labels, label_post, ll = K.posteriors(rows, logtab, logw,
                                                                 parallel=parallel)
    labels, label_post = _easy_labels(rows, params, class_post, labels, label_post, parallel)
    if inverse is not None:
        log_likelihood = float(np.dot(weights, ll))
        class_post, labels, label_post = class_post[inverse], labels[inverse], label_post[inverse]
        if hard_post.size:
            hard_post = hard_post[inverse]
    else:
        log_likelihood = float(np.sum(ll))
    mv = np.argmax(r.counts, axis=1)
    if known_sums is not None:
        # the objective's terms for gold items: their complete-data log-likelihood
        rows_k = np.flatnonzero(known >= 0)
        joint = T.state_log_posterior(codes[rows_k], logtab, logw)[np.arange(rows_k.size),
                                                                    known[rows_k]]
        ll_all = K.posteriors(codes[rows_k], logtab, logw)[4]
        log_likelihood += float(np.sum(joint) - np.sum(ll_all))
    return _finish(model, r, run._replace(labels=start_labels),
                   _Posteriors(class_post, hard_post, labels, label_post), log_likelihood, mv,
                   rated, anchored=known_sums is not None)


def _em_codes(model: Any) -> tuple[int, int]:
    """The EM kernels' codes of the model's annotator model and hard component."""
    return getattr(K, _ANNOTATORS[model.annotators]), getattr(K, _HARD[model.hard])


def _run_starts(model: Any, rows: np.ndarray, weights: np.ndarray | None, m: int,
                q_fixed: np.ndarray | None, n_eff: int, parallel: bool,
                groups: np.ndarray | None = None, tie: bool = False,
                known: Any = None) -> _Starts:
    """EM from every start over ``rows`` (items × annotators, with multiplicities
    ``weights``); the best start's result.

    The shares of labels each start gives differently from the kept one are weighted by
    ``weights``; for Dawid–Skene after matching the classes, which a start may permute:
    the labels returned are the matched ones. Start 0 is the majority-vote start,
    whatever ``n_starts``.
    """
    em_model, hard = _em_codes(model)
    k = rows.shape[1]
    if hard == K.HARD_DIFFICULTY:
        return _run_difficulty(model, rows, weights, m, n_eff, parallel, groups, tie, known)
    cap = (m - 1) / m
    h_dis = 1.0 if em_model == K.PERFECT else 0.5
    rng = check_rng(model.rng)
    best: tuple[float, _Params, np.ndarray, int, bool] | None = None
    finals = np.empty(model.n_starts)
    start_labels = []
    for s in progress(range(model.n_starts), desc=f"{model.name}: EM starts"):
        if s == 0:
            params = _base_params(k, m, q_fixed)
        else:
            params = _random_params(rng, em_model, hard, k, m, cap, q_fixed)
            if tie:
                _tie(params, groups)
        trace, n_iter, conv = K.run_em(
            rows, em_model, hard, model.prior_strength, cap, model.max_iter, model.tol,
            n_eff, s == 0, _START_HARD_AGREED, h_dis, *params.args(), weights=weights,
            parallel=parallel, groups=groups, known=known,
        )
        finals[s] = trace[-1]
        logtab, logw = K.tables(em_model, hard, *params.args())
        start_labels.append(K.posteriors(rows, logtab, logw, parallel=parallel)[2]
                            .astype(np.int16))
        if best is None or trace[-1] > best[0]:
            best = (float(trace[-1]), params, trace, n_iter, conv)
    _, params, trace, n_iter, conv = best
    kept = int(np.argmax(finals))
    w = np.ones(len(rows)) if weights is None else np.asarray(weights, dtype=np.float64)
    disagree = np.zeros(model.n_starts)
    dtype = np.int16 if m <= np.iinfo(np.int16).max else np.int64
    matched = np.empty((model.n_starts, len(rows)), dtype=dtype)
    for s, lab in enumerate(start_labels):
        if s != kept and em_model == K.CONFUSION:
            lab = _match_to(lab, start_labels[kept], m)[lab]
        matched[s] = lab
        if s != kept and w.sum() > 0:
            disagree[s] = float(np.dot(w, lab != start_labels[kept]) / w.sum())
    return _Starts(params, trace, n_iter, conv, finals, disagree, matched)


#: Stage 2 of hard="difficulty" (how sure the labels are, and which items are hard) may
#: take more iterations than stage 1: its objective is flat along the item-difficulty
#: weights, where EM crawls (over 1,000 iterations on 80 items at tol 1e-7). Stopping it
#: early instead moves the hard share (0.31 -> 0.26 for a true 0.30 at tol 1e-6).
_STAGE2_ITER = 5


def _run_difficulty(model: Any, rows: np.ndarray, weights: np.ndarray | None, m: int,
                    n_eff: int, parallel: bool, groups: np.ndarray | None, tie: bool,
                    known: Any) -> _Starts:
    """``hard="difficulty"`` in two stages: the spam model (MACE) from every start, whose
    labels the fit reports; then, from its parameters, EM of the whole model (annotators,
    class shares, hard share and the item-difficulty weights), whose posteriors say how
    sure each label is and how likely each item is hard. The labels stay the spam
    model's: fitted jointly, the hard states take the annotators' place on the most
    divided data and the labels lose accuracy (web 0.815 → 0.802, dog 0.827 → 0.822)."""
    import copy

    spam = copy.copy(model)
    spam.hard = None
    known1 = None if known is None else (np.ascontiguousarray(known[0][:, :, :m]),
                                         np.ascontiguousarray(known[1][:m]))
    easy, _, n1, conv1, finals, disagree, labels = _run_starts(
        spam, rows, weights, m, None, n_eff, parallel, groups=groups, tie=tie, known=known1)
    params = easy.copy()
    params.easy = easy
    trace, n2, conv2 = K.run_em(
        rows, K.SPAM, K.HARD_DIFFICULTY, model.prior_strength, (m - 1) / m,
        _STAGE2_ITER * model.max_iter, model.tol, n_eff, False, _START_HARD_AGREED, 0.5,
        *params.args(), weights=weights,
        parallel=parallel, groups=groups, known=known)
    return _Starts(params, trace, n1 + n2, conv1 and conv2, finals, disagree, labels)


def _run_warm(model: Any, start: _Params, rows: np.ndarray, weights: np.ndarray, m: int,
              q_fixed: np.ndarray | None, n_eff: int, parallel: bool, groups: np.ndarray):
    """One EM run from a fit's parameters (a bootstrap refit's warm start): for
    ``hard="difficulty"`` its stage 2 alone (the refit's parameters are stage 2's; stage 1,
    MACE, only gives the labels and stage 2's start, which the fit's parameters replace).
    Starting every refit at the full sample's estimate keeps the refits in its mode (no
    class permutation, no jump to another local maximum) and spares stage 2 most of its
    iterations along the flat item-difficulty weights. Returns ``(params, n_iter, conv)``."""
    em_model, hard = _em_codes(model)
    params = start.copy()
    if q_fixed is not None:
        params.q[:] = q_fixed
    max_iter = model.max_iter * (_STAGE2_ITER if hard == K.HARD_DIFFICULTY else 1)
    _, n_iter, conv = K.run_em(
        rows, em_model, hard, model.prior_strength, (m - 1) / m, max_iter, model.tol, n_eff,
        False, _START_HARD_AGREED, 1.0 if em_model == K.PERFECT else 0.5, *params.args(),
        weights=weights, parallel=parallel, groups=groups)
    return params, n_iter, conv


def _easy_labels(rows: np.ndarray, params: _Params, class_post: np.ndarray,
                 labels: np.ndarray, label_post: np.ndarray, parallel: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The labels of the stage-1 spam model (``hard="difficulty"``) and P(label right)
    under the whole model; unchanged for the other models."""
    if params.easy is None:
        return labels, label_post
    logtab, logw = K.tables(K.SPAM, K.HARD_NONE, *params.easy.args())
    labels = K.posteriors(rows, logtab, logw, parallel=parallel)[2]
    return labels, class_post[np.arange(len(labels)), labels]


def _finish(model: Any, r: Ratings, run: _Starts, post: _Posteriors, log_likelihood: float,
            mv: np.ndarray, rated: np.ndarray, anchored: bool = False) -> LatentClassFit:
    """Name the classes, warn, and build the fit (shared by the in-memory and chunked fits).

    ``run.labels`` are every start's labels of the items (or None), ``mv`` the majority
    vote and ``rated`` the ratings of each item; ``anchored``: gold items fixed the classes.
    """
    m = r.n_categories
    em_model, hard = _em_codes(model)
    params, trace, n_iter, conv, finals, disagreement, start_labels = run
    class_post, hard_post, labels, label_post = post
    # Every start's objective, labels and disagreement with the kept labels are kept on the
    # fit (start_objectives, start_labels, start_disagreement); see unstable_starts.
    if start_labels is None:
        start_labels = np.empty((0, r.n_items), dtype=np.int16)
    if em_model == K.CONFUSION and not anchored:
        # Dawid–Skene is symmetric in the classes: name them after majority vote.
        perm = _match_to(labels[rated > 0], mv[rated > 0], m)
        if not np.array_equal(perm, np.arange(m)):
            inv = np.argsort(perm)
            params.phi[:] = params.phi[inv]
            params.conf[:] = params.conf[:, inv, :]
            class_post = class_post[:, inv]
            labels = perm[labels]
            start_labels = perm[start_labels].astype(start_labels.dtype)
    _warn_if_degenerate(model, conv, n_iter, labels[rated > 0], mv[rated > 0], m, r)
    if disagreement is not None:
        _warn_if_unstable(model, finals, disagreement)

    has_hard = hard != K.HARD_NONE
    phi, weights = params.phi, None
    if hard == K.HARD_DIFFICULTY and np.any(rated > 0):
        # the labels are stage 1's, the posteriors the whole model's, whose class weights
        # count the hard items' classes too (Dawid & Skene 1979's example: 0.592 for class
        # 1 against 0.40 of the labels): the shares reported are those of the posteriors
        phi, weights = class_post[rated > 0].mean(axis=0), params.phi
    return LatentClassFit(
        model=model, ratings=r,
        phi=_readonly(phi),
        pi=float(params.pi[0]) if has_hard else None,
        q=_readonly(params.q) if has_hard else None,
        error_rate=_readonly(params.eps) if em_model == K.ONE_COIN else None,
        confusion=_readonly(params.conf) if em_model == K.CONFUSION else None,
        competence=_readonly(params.theta) if em_model == K.SPAM else None,
        spam_distribution=_readonly(params.xi) if em_model == K.SPAM else None,
        class_posterior=_readonly(class_post),
        posterior_hard=_readonly(hard_post) if has_hard else None,
        label_codes=_readonly(labels),
        label_posterior=_readonly(label_post),
        loglik=_readonly(trace),
        log_likelihood=log_likelihood,
        n_iter=n_iter, converged=conv, start_objectives=_readonly(finals),
        start_labels=_readonly(np.ascontiguousarray(start_labels)),
        start_disagreement=_readonly(np.zeros(len(finals)) if disagreement is None
                                     else np.asarray(disagreement, dtype=np.float64)),
        level_weights=(_readonly(params.pi[1:].copy()) if hard == K.HARD_DIFFICULTY
                       else None),
        class_weights=None if weights is None else _readonly(weights),
    )


def _match_to(labels: npt.NDArray[np.integer], reference: npt.NDArray[np.integer],
              m: int) -> np.ndarray:
    """Permutation ``perm[fitted class] = new class`` best matching ``reference``."""
    table = np.zeros((m, m))
    np.add.at(table, (labels, reference), 1.0)
    rows, cols = _optimize.linear_sum_assignment(-table)
    perm = np.empty(m, dtype=np.int64)
    perm[rows] = cols
    # Keep the fitted order where matching does not strictly improve agreement.
    if table[rows, cols].sum() <= np.trace(table):
        return np.arange(m)
    return perm


def _warn_if_degenerate(model: Any, converged: bool, n_iter: int,
                        labels: np.ndarray, mv: np.ndarray, m: int, r: Ratings) -> None:
    if not converged:
        warnings.warn(
            f"{model.name}: EM did not converge in {n_iter} iterations (tol={model.tol}); "
            "raise `max_iter` or loosen `tol`. The fit returned is the best found.",
            ConvergenceWarning, stacklevel=5,
        )
    n_mv = np.bincount(mv, minlength=m)
    n_fit = np.bincount(labels, minlength=m)
    floor = max(_COLLAPSE_MIN_ITEMS, _COLLAPSE_SHARE * len(mv))
    gone = (n_mv >= floor) & (n_fit < _COLLAPSE_RATIO * n_mv)
    if np.any(gone):
        names = r.categories[gone].tolist()
        warnings.warn(
            f"{model.name}: class(es) {names} collapsed — majority vote gives them "
            f"{n_mv[gone].tolist()} items, the fit labels {n_fit[gone].tolist()}. The "
            "best-likelihood fit may be degenerate; try a more constrained model "
            "(e.g. annotators='spam' or 'one-coin') or a larger `prior_strength`.",
            ConvergenceWarning, stacklevel=5,
        )


def _warn_if_unstable(model: Any, finals: np.ndarray, disagreement: np.ndarray) -> None:
    """Warn when starts near the best objective label items differently (SPEC §5, Starts)."""
    gap = finals.max() - finals
    near = (gap <= UNSTABLE_WITHIN) & (np.asarray(disagreement) > UNSTABLE_SHARE)
    if not np.any(near):
        return
    warnings.warn(
        f"{model.name}: {int(near.sum())} of {len(finals)} EM starts end within "
        f"{UNSTABLE_WITHIN:g} log-likelihood unit of the best objective (gap "
        f"{gap[near].min():.2f}) yet label up to {np.max(disagreement[near]):.1%} of the "
        "items differently: the optimum reported depends on the starts (the seed). The fit "
        "returned is the best start's. Compare the starts with `fit.unstable_starts()` "
        "(their labels are in `fit.start_labels`), raise `n_starts` (`--starts` on the "
        "command line), or pin the optimum down with known labels (`gold=`).",
        UnstableStartsWarning, stacklevel=5,
    )


#: Held-out items used to choose the temperature (a seeded sample beyond this).
HELD_OUT_MAX_ITEMS = 200_000
#: Folds of items: each fold's ratings are predicted by parameters refitted on the others.
HELD_OUT_FOLDS = 5


def _params_of(fit: LatentClassFit) -> _Params:
    """The fit's parameters as the engine's arrays (also the start of warm-started
    refits)."""
    k, m = fit.ratings.n_raters, fit.ratings.n_categories
    p = _base_params(k, m, None)
    p.phi[:] = fit.phi if fit.class_weights is None else fit.class_weights
    if fit.pi is not None:
        p.pi[0] = fit.pi
    if fit.level_weights is not None:
        p.pi[1:] = fit.level_weights
    if fit.q is not None:
        p.q[:] = fit.q
    if fit.error_rate is not None:
        p.eps[:] = fit.error_rate
    if fit.confusion is not None:
        p.conf[:] = fit.confusion
    if fit.competence is not None:
        p.theta[:] = fit.competence
        p.xi[:] = fit.spam_distribution
    return p


def fit_tables(fit: LatentClassFit) -> tuple[np.ndarray, np.ndarray]:
    """The fit's emission table ``logtab[j, y, s]`` and state log weights ``logw[s]``."""
    em_model, hard = _em_codes(fit.model)
    return T.log_tables(em_model, hard, *_params_of(fit).args())


def heldout_folds(fit: LatentClassFit, codes: np.ndarray, rng: np.random.Generator,
                  max_items: int | None = HELD_OUT_MAX_ITEMS, known: np.ndarray | None = None,
                  n_folds: int = HELD_OUT_FOLDS, merged: tuple | None = None) -> list:
    """Held-out ratings predicted by parameters that never saw them (``_tempering.Fold`` s).

    The items are dealt into ``n_folds`` seeded folds of equal size. For each fold
    the model's parameters are refitted on the other folds' items by EM started
    from the full fit's parameters (one start: the classes keep their names), and
    every rating of the fold's items that have two or more ratings is held out in
    turn and predicted from the item's other ratings with those parameters. At most
    ``max_items`` items are held out (a seeded sample); the refits use every item
    of the other folds. Items with a known class (``known >= 0``) are not held
    out, and enter the refits as known, as in the fit. ``merged``: the
    :func:`~noise_models.latent_class._tempering.distinct_rows` of ``codes``, when
    the caller has them (without known items).
    """
    r = fit.ratings
    model = fit.model
    n, m = codes.shape[0], r.n_categories
    em_model, hard = _em_codes(model)
    unknown = np.ones(n, dtype=bool) if known is None else known < 0
    eligible = np.flatnonzero(((codes >= 0).sum(axis=1) >= 2) & unknown)
    if max_items is not None and eligible.size > max_items:
        eligible = np.sort(rng.choice(eligible, size=max_items, replace=False))
    n_folds = min(n_folds, n)
    fold_of = rng.permutation(n) % n_folds
    base = _params_of(fit)
    groups = np.asarray(r.annotator_of, dtype=np.int64)
    cap = (m - 1) / m
    h_dis = 1.0 if em_model == K.PERFECT else 0.5
    n_states = K.n_states_of(hard, m)
    # The items' distinct rows of labels, merged once (known items apart): a fold's
    # training and held-out rows are these rows weighted by their items in the fold.
    pos = np.flatnonzero(unknown)
    if merged is None or known is not None:
        merged = T.distinct_rows(codes[pos], m)
    distinct, _, inverse = merged
    if inverse is None:  # nothing merged: every row its own
        inverse = np.arange(len(distinct))
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[pos] = inverse
    per_row = (distinct >= 0).sum(axis=1)
    folds = []
    for f in range(n_folds):
        test = eligible[fold_of[eligible] == f]
        if n_folds < 2 or test.size == 0:
            continue
        in_train = fold_of != f
        w_train = np.bincount(row_of[in_train & unknown], minlength=len(distinct))
        keep = np.flatnonzero(w_train)
        em_rows, em_weights = distinct[keep], w_train[keep].astype(np.float64)
        n_eff = int(np.dot(w_train, per_row))
        known_sums = None
        if known is not None and (in_train & ~unknown).any():
            kn = np.flatnonzero(in_train & ~unknown)
            known_sums = _known_counts(codes[kn], known[kn], m, n_states)
            n_eff += int(np.count_nonzero(codes[kn] >= 0))
        params = base.copy()
        if len(em_rows):
            K.run_em(em_rows, em_model, hard, model.prior_strength, cap, model.max_iter,
                     model.tol, n_eff, False, _START_HARD_AGREED, h_dis, *params.args(),
                     weights=em_weights, parallel=em_rows.size >= K.PARALLEL_THRESHOLD,
                     groups=groups, known=known_sums)
        logtab, logw = T.log_tables(em_model, hard, *params.args())
        w_test = np.bincount(row_of[test], minlength=len(distinct))
        keep = np.flatnonzero(w_test)
        rows = distinct[keep]
        held = T.heldout_sample(rows, rng, None, w_test[keep].astype(np.float64))
        folds.append(T.Fold.of(rows, logtab, logw, held))
    return folds


def _calibrate_held_out(fit: LatentClassFit, codes: np.ndarray,
                        known: np.ndarray | None = None) -> LatentClassFit:
    """The fit with its posteriors tempered by the held-out temperature (``_tempering``),
    chosen on cross-fitted held-out ratings (:func:`heldout_folds`)."""
    merged = T.distinct_rows(codes, fit.ratings.n_categories)
    folds = heldout_folds(fit, codes, check_rng(fit.model.rng), HELD_OUT_MAX_ITEMS, known,
                          merged=merged)
    t = T.choose_temperature(folds)
    logtab, logw = fit_tables(fit)
    rows, _, inverse = merged
    post_log = T.state_log_posterior(rows, logtab, logw)
    means = K.hard_label_means(rows, logtab) if logw.shape[0] > logtab.shape[1] + 1 else None
    if inverse is not None:
        post_log = post_log[inverse]
        means = None if means is None else means[inverse]
    class_post, hard_post, label_post = T.tempered_posteriors(
        post_log, fit.ratings.n_categories, np.asarray(fit.label_codes), t, means=means)
    return dataclasses.replace(
        fit, phi=_posterior_shares(fit, class_post), class_posterior=_readonly(class_post),
        posterior_hard=None if hard_post is None else _readonly(hard_post),
        label_posterior=_readonly(label_post), temperature=t)


class _PatternRefits:
    """Refits of one model on resamples of ``r``'s items, by EM over weighted rating patterns.

    A resample that repeats item ``i`` ``c_i`` times is fitted by the engine after
    merging identical rows (:func:`~noise_models.latent_class._kernels_rows.merge_rows`): the distinct rows present, sorted by
    their row key, each weighted by its number. Those rows are the distinct rows of
    ``r`` (found once here) with a positive sum of their items' counts, in the same
    key order, and the weights are the same integers (sums of whole numbers are
    exact in float64), so the EM sees identical input and returns bit-identical
    parameters -- without building, validating and merging the resampled rows, or
    computing per-item posteriors nobody reads. Where the row refit would not merge
    (rows too many or too long for a key) or would refuse the data, :meth:`params`
    returns None and the caller refits the rows.
    """

    def __init__(self, model: Any, r: Ratings, start: Any = None) -> None:
        self.model, self.r = model, r
        # a fit of the same model: every refit's EM starts from its parameters (warm start)
        self.start = None if start is None else _params_of(start)
        codes = np.ascontiguousarray(r.require_raters("`annotator_intervals`"))
        self.m = r.n_categories
        self.k = codes.shape[1]
        self.em_model, self.hard = _em_codes(model)
        self.groups = np.asarray(r.annotator_of, dtype=np.int64)
        self.codes = codes
        keys = (_patterns.row_keys(codes, int(self.m))
                if model._merge_rows and codes.shape[0] >= 2 else None)
        self.ok = keys is not None
        if not self.ok:
            return
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        self.rows = np.ascontiguousarray(codes[first])
        self.inverse = inverse.ravel()
        n_rated = (self.rows >= 0).sum(axis=1)
        self.any_rated = n_rated > 0
        self.two_rated = n_rated >= 2
        counts = np.zeros((len(self.rows), self.m))
        for j in range(self.k):
            ok = self.rows[:, j] >= 0
            np.add.at(counts, (np.flatnonzero(ok), self.rows[ok, j]), 1.0)
        self.mv = np.argmax(counts, axis=1)  # r.counts' majority vote of each row

    def params(self, item_counts: np.ndarray, rng: Any) -> dict[str, Any] | None:
        """The refit's parameters on the resample with these item counts (None: refit rows)."""
        got = self._prepare(item_counts)
        if got is None:
            return None
        rows, weights, any_rated, mv, q_fixed, n_eff = got
        m, em_model, hard = self.m, self.em_model, self.hard
        parallel = rows.size >= K.PARALLEL_THRESHOLD
        self.model.rng = rng
        if self.start is None:
            params, _, n_iter, conv, finals, disagree, _ = _run_starts(
                self.model, rows, weights, m, q_fixed, n_eff, parallel,
                groups=self.groups, tie=self.r.has_replicates, known=None)
        else:
            params, n_iter, conv = _run_warm(self.model, self.start, rows, weights, m,
                                             q_fixed, n_eff, parallel, self.groups)
            finals, disagree = np.zeros(1), np.zeros(1)
        logtab, logw = K.tables(em_model, hard, *params.args())
        labels = K.posteriors(rows, logtab, logw, parallel=parallel)[2]
        return self._out(params, n_iter, conv, finals, disagree, labels, weights, any_rated, mv)

    def block(self, item_counts: Any, seeds: Any) -> list[dict[str, Any]]:
        """The parameters of the refits on the resamples of a block of item counts (one
        resample a row), one dict each (:meth:`LatentClassModel.refit_resamples`).

        Warm-started refits (``start``) whose rows merge or are weighted run side by side
        on threads (:meth:`_warm_block`): each refit is the engine's serial EM from the
        start, the same arithmetic as :meth:`params` gives it, so the parameters are the
        same bits whatever the block or the thread count. The others go through
        :meth:`params`, and the resamples it cannot merge through the fit of their rows.
        """
        item_counts = [np.asarray(c, dtype=np.int64) for c in item_counts]
        seeds = list(seeds)
        out: list[dict[str, Any] | None] = [None] * len(item_counts)
        for counts in item_counts:
            if counts.shape != (self.r.n_items,) or (counts < 0).any():
                raise ValueError(f"each item count vector needs {self.r.n_items} counts >= 0; "
                                 f"got shape {counts.shape}.")
        if self.start is not None:
            self._warm_block(item_counts, seeds, out)
        for b, counts in enumerate(item_counts):
            # a warm block left out only the resamples whose rows do not merge: params
            # would prepare them again to say so
            if out[b] is None and self.start is None:
                out[b] = self.params(counts, seeds[b])
            if out[b] is None:
                out[b] = self._rows_refit(counts, seeds[b])
        return out  # type: ignore[return-value]

    def _rows_refit(self, item_counts: np.ndarray, seed: Any) -> dict[str, Any]:
        """The parameters of fitting the resampled rows themselves."""
        model = self.model
        model.rng = seed
        taken = self.r.take(np.repeat(np.arange(self.r.n_items), item_counts))
        fit = _fit(model, taken, taken.require_raters("`refit_resamples`"))
        return {"phi": np.array(fit.phi if fit.class_weights is None else fit.class_weights),
                "pi": fit.pi,
                **{name: None if getattr(fit, name) is None else np.array(getattr(fit, name))
                   for name in ("q", "error_rate", "confusion", "competence",
                                "spam_distribution", "level_weights")},
                "converged": bool(fit.converged)}

    def _warm_block(self, item_counts: list, seeds: list,
                    out: list[dict[str, Any] | None]) -> None:
        """The warm-started refits of the block (see :meth:`block`), side by side on
        threads; ``out[b]`` stays None for a resample :meth:`params` would not refit either.

        Each refit is what :meth:`params` runs (the engine's serial EM from the start;
        the rows' labels from the kernel of :mod:`_kernels_refits`, the same labels as the
        posterior pass, without its other work), its warnings raised here, in order. The
        EM releases the GIL, so the refits of small data (serial E-steps) run on as many
        threads as Numba's; a refit whose E-step is parallel runs alone.
        """
        import numba

        from noise_models.latent_class import _kernels_refits as KF

        prepared = [(b, self._prepare(c)) for b, c in enumerate(item_counts)]
        prepared = [(b, got) for b, got in prepared if got is not None]
        m, em_model, hard = self.m, self.em_model, self.hard

        def refit(got: tuple) -> tuple:
            rows, weights, _, _, q_fixed, n_eff = got
            params, n_iter, conv = _run_warm(self.model, self.start, rows, weights, m,
                                             q_fixed, n_eff, rows.size >= K.PARALLEL_THRESHOLD,
                                             self.groups)
            labels = KF.easy_labels(rows, *K.tables(em_model, hard, *params.args()))
            return params, n_iter, conv, labels

        small = [got for _, got in prepared if got[0].size < K.PARALLEL_THRESHOLD]
        threads = min(numba.get_num_threads(), len(small))
        done: dict[int, tuple] = {}
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                done = dict(zip(map(id, small), pool.map(refit, small), strict=True))
        zeros = np.zeros(1)
        for b, got in prepared:
            params, n_iter, conv, labels = done[id(got)] if id(got) in done else refit(got)
            self.model.rng = seeds[b]
            out[b] = self._out(params, n_iter, conv, zeros, zeros, labels, got[1], got[2],
                               got[3])

    def _prepare(self, item_counts: np.ndarray) -> tuple | None:
        """The EM's input of a refit (rows, weights, rated, majority votes, the fixed hard
        distribution, the effective count), or None where the rows are refitted."""
        got = self._merged(item_counts)
        if got is None and self.start is not None:
            got = self._weighted(item_counts)
        if got is None:
            return None
        rows, weights, any_rated, mv = got
        m, k, hard = self.m, self.k, self.hard
        q_fixed = None
        if hard == K.HARD_MARGINAL:
            own = np.zeros((k, m))
            for j in range(k):
                ok = rows[:, j] >= 0
                np.add.at(own[j], rows[ok, j], weights[ok])
            if self.r.has_replicates:
                pooled = np.zeros((int(self.groups.max()) + 1, m))
                np.add.at(pooled, self.groups, own)
                own = pooled[self.groups]
            tot = own.sum(axis=1, keepdims=True)
            q_fixed = np.where(tot > 0, own / np.where(tot > 0, tot, 1.0), 1.0 / m)
        elif hard == K.HARD_UNIFORM:
            q_fixed = np.full((k, m), 1.0 / m)
        n_eff = round(float(weights[any_rated].sum()))
        return rows, weights, any_rated, mv, q_fixed, n_eff

    def _out(self, params: _Params, n_iter: int, conv: bool, finals: np.ndarray,
             disagree: np.ndarray, labels: np.ndarray, weights: np.ndarray,
             any_rated: np.ndarray, mv: np.ndarray) -> dict[str, Any]:
        """A refit's parameters as a dict, its classes matched and its warnings raised."""
        m, em_model, hard = self.m, self.em_model, self.hard
        # the row refit's per-item labels and majority votes, as a multiset (order-free use)
        reps = weights.astype(np.int64)
        item_labels = np.repeat(labels[any_rated], reps[any_rated])
        item_mv = np.repeat(mv[any_rated], reps[any_rated])
        if em_model == K.CONFUSION:
            perm = _match_to(item_labels, item_mv, m)
            if not np.array_equal(perm, np.arange(m)):
                inv = np.argsort(perm)
                params.phi[:] = params.phi[inv]
                params.conf[:] = params.conf[:, inv, :]
                item_labels = perm[item_labels]
        _warn_if_degenerate(self.model, conv, n_iter, item_labels, item_mv, m, self.r)
        _warn_if_unstable(self.model, finals, disagree)
        has_hard = hard != K.HARD_NONE
        return {"phi": params.phi.copy(),
                "pi": float(params.pi[0]) if has_hard else None,
                "q": params.q.copy() if has_hard else None,
                "error_rate": params.eps.copy() if em_model == K.ONE_COIN else None,
                "confusion": params.conf.copy() if em_model == K.CONFUSION else None,
                "competence": params.theta.copy() if em_model == K.SPAM else None,
                "spam_distribution": params.xi.copy() if em_model == K.SPAM else None,
                "level_weights": (params.pi[1:].copy() if hard == K.HARD_DIFFICULTY
                                  else None),
                "converged": bool(conv)}

    def _merged(self, item_counts: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The resample as the distinct rows present and their weights (rows, weights,
        rated, majority votes), as the fit of the resampled rows merges them; None where
        that fit would not merge them."""
        if not self.ok:
            return None
        n = int(item_counts.sum())
        w_all = np.bincount(self.inverse, weights=item_counts, minlength=len(self.rows))
        present = w_all > 0
        if present.sum() > KR.MERGE_RATIO * n or not np.any(self.two_rated & present):
            return None
        return (np.ascontiguousarray(self.rows[present]), w_all[present],
                self.any_rated[present], self.mv[present])

    def _weighted(self, item_counts: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The resample as the items drawn, each weighted by its count (a warm start's EM
        over rows that do not merge: the weighted EM is the EM of the repeated rows)."""
        keep = item_counts > 0
        rows = np.ascontiguousarray(self.codes[keep])
        n_rated = (rows >= 0).sum(axis=1)
        if not np.any(n_rated >= 2):
            return None
        counts = np.zeros((len(rows), self.m))
        for j in range(self.k):
            ok = rows[:, j] >= 0
            np.add.at(counts, (np.flatnonzero(ok), rows[ok, j]), 1.0)
        return (rows, item_counts[keep].astype(np.float64), n_rated > 0,
                np.argmax(counts, axis=1))
