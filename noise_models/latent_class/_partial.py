"""The latent-class EM over chunks of items: one map-reduce per iteration (SPEC §2.4, §3).

An EM iteration is an E-step — expected counts ``cnt[j, x, s]``, state totals
``tot[s]`` and the log-likelihood, each a sum over items — and an M-step that
reads only those sums. So over chunks of items (each holding every rating of
its items):

* :func:`em_partial` — the E-step sums of one chunk, for every start still
  running (all starts advance together: one pass over the data per
  iteration, whatever the number of starts);
* :func:`em_combine` — add the sums of two chunks;
* :func:`em_finalize` — the M-step (and the convergence test) from the sums
  of all chunks: the next :class:`EMState`.

:func:`fit_chunked` drives them over a chunked ratings object (the
:class:`agreement.ChunkedRatings` protocol, e.g. ``goldnoise.dask``): a first
pass for the annotators' label counts and the histogram of distinct rows of
labels; then, when the rows are few (the condition under which the in-memory
engine merges identical rows: at most half as many distinct rows as items, and
at most 2^21), the in-memory EM on those rows with their counts as weights —
bit-identical to the in-memory fit; otherwise (e.g. crowd data with many
annotators, where nearly every row is distinct) one map-reduce per iteration
over the persisted chunks; and a last pass for the per-item posteriors. The starts,
the objective, the convergence test and the choice of the best start are
those of :meth:`LatentClassModel.fit` in memory (:mod:`noise_models.latent_class._em`),
so the fit is the same up to the order of floating-point sums.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import check_rng
from agreement import Ratings
from noise_models.latent_class import _em as E

# Numba kernels, imported at first use (importing the package compiles and loads nothing).
K = lazy_module("noise_models.latent_class._kernels")
KR = lazy_module("noise_models.latent_class._kernels_rows")

__all__ = ["EMState", "EStepSums", "em_combine", "em_finalize", "em_partial", "fit_chunked"]


class EStepSums(NamedTuple):
    """E-step sums over items, one slice per running start."""

    cnt: np.ndarray  # (S, k, m, n_states) expected counts
    tot: np.ndarray  # (S, n_states) expected state totals
    ll: np.ndarray  # (S,) log-likelihood


@dataclass
class _Start:
    params: Any  # _em._Params
    init: bool  # next E-step is the majority-vote start's
    trace: list = field(default_factory=list)
    n_iter: int = 0
    converged: bool = False
    done: bool = False


@dataclass
class EMState:
    """Where every start of a chunked EM stands (see :func:`fit_chunked`)."""

    model: Any  # LatentClassModel
    k: int
    m: int
    n_eff: float
    starts: list

    @property
    def em_model(self) -> int:
        return E._em_codes(self.model)[0]

    @property
    def hard(self) -> int:
        return E._em_codes(self.model)[1]

    @property
    def n_states(self) -> int:
        return K.n_states_of(self.hard, self.m)

    @property
    def running(self) -> list[int]:
        return [s for s, st in enumerate(self.starts) if not st.done]

    def requests(self) -> list[tuple]:
        """What each running start's next E-step needs: tables, or the start's init."""
        h_dis = 1.0 if self.em_model == K.PERFECT else 0.5
        out = []
        for s in self.running:
            st = self.starts[s]
            if st.init:
                out.append(("init", (E._START_HARD_AGREED, h_dis), self.n_states))
            else:
                out.append(("tables", K.tables(self.em_model, self.hard, *st.params.args()),
                            self.n_states))
        return out


def start_state(model: Any, raters: Any, categories: Any, *, n_eff: float,
                label_counts: np.ndarray | None) -> EMState:
    """The starts of :meth:`LatentClassModel.fit` (majority vote, then random ones).

    ``label_counts`` (annotators × categories) is needed for ``hard="marginal"``.
    """
    k, m = len(raters), len(categories)
    em_model, hard = E._em_codes(model)
    cap = (m - 1) / m
    q_fixed = None
    if hard == K.HARD_MARGINAL:
        tot = label_counts.sum(axis=1, keepdims=True)
        q_fixed = np.where(tot > 0, label_counts / np.where(tot > 0, tot, 1.0), 1.0 / m)
    elif hard == K.HARD_UNIFORM:
        q_fixed = np.full((k, m), 1.0 / m)
    rng = check_rng(model.rng)
    starts = [_Start(E._base_params(k, m, q_fixed), init=True)]
    starts += [_Start(E._random_params(rng, em_model, hard, k, m, cap, q_fixed), init=False)
               for _ in range(1, model.n_starts)]
    return EMState(model, k, m, float(n_eff), starts)


def em_partial(chunk: Ratings, requests: list[tuple]) -> EStepSums:
    """E-step sums of one chunk for each request of :meth:`EMState.requests`.

    Examples
    --------
    Two chunks' E-step sums add up to the E-step over all items:

    >>> import numpy as np
    >>> from agreement import Ratings
    >>> from noise_models import LatentClassModel, em_combine, em_partial
    >>> from noise_models.latent_class._partial import start_state
    >>> r = Ratings.from_wide([[1, 1, 2], [1, 1, 1], [2, 2, 2], [2, 1, 2]])
    >>> state = start_state(LatentClassModel("confusion", n_starts=1), r.raters, r.categories,
    ...                     n_eff=4, label_counts=None)
    >>> req = state.requests()
    >>> s = em_combine(em_partial(r.take([0, 1]), req), em_partial(r.take([2, 3]), req))
    >>> bool(np.allclose(s.cnt, em_partial(r, req).cnt)), round(float(s.tot.sum()), 9)
    (True, 4.0)
    """
    codes = chunk.require_raters("the latent-class EM")
    k, m = codes.shape[1], chunk.n_categories
    cnts, tots, lls = [], [], []
    for kind, arg, n_states in requests:
        if kind == "init":
            logtab, logw = np.zeros((k, m, n_states)), np.zeros(n_states)
            cnt, tot, ll = K.estep_counts(codes, logtab, logw, init=arg)
        else:
            cnt, tot, ll = K.estep_counts(codes, *arg)
        cnts.append(cnt.copy())
        tots.append(tot.copy())
        lls.append(ll)
    return EStepSums(np.stack(cnts), np.stack(tots), np.asarray(lls, dtype=np.float64))


def em_combine(a: EStepSums, b: EStepSums) -> EStepSums:
    """The E-step sums of two disjoint chunks of items (see :func:`em_partial`).

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import EStepSums, em_combine
    >>> a = EStepSums(np.ones((1, 2, 2, 2)), np.ones((1, 2)), np.array([-3.0]))
    >>> em_combine(a, a).ll
    array([-6.])
    """
    return EStepSums(a.cnt + b.cnt, a.tot + b.tot, a.ll + b.ll)


def em_finalize(state: EMState, sums: EStepSums) -> EMState:
    """The M-step of every running start from the E-step sums of all chunks (in place).

    Examples
    --------
    One EM iteration over two chunks, by hand (:func:`fit_chunked` loops this):

    >>> from agreement import Ratings
    >>> from noise_models import LatentClassModel, em_combine, em_finalize, em_partial
    >>> from noise_models.latent_class._partial import start_state
    >>> r = Ratings.from_wide([[1, 1, 2], [1, 1, 1], [2, 2, 2], [2, 1, 2]])
    >>> state = start_state(LatentClassModel("confusion", n_starts=1), r.raters, r.categories,
    ...                     n_eff=4, label_counts=None)
    >>> for _ in range(3):
    ...     req = state.requests()
    ...     state = em_finalize(state, em_combine(em_partial(r.take([0, 1]), req),
    ...                                           em_partial(r.take([2, 3]), req)))
    >>> len(state.starts[0].trace)  # the majority-vote start, then two iterations
    2
    """
    model = state.model
    a, cap = model.prior_strength, (state.m - 1) / state.m
    for i, s in enumerate(state.running):
        st = state.starts[s]
        p = st.params
        cnt, tot = np.ascontiguousarray(sums.cnt[i]), np.ascontiguousarray(sums.tot[i])
        if st.init:  # the majority-vote start: one M-step from the vote shares
            K._mstep(state.em_model, state.hard, a, cap, cnt, tot, state.n_eff, p.args())
            st.init = False
            continue
        t = len(st.trace)
        st.trace.append(float(sums.ll[i]) + float(
            K._log_prior(state.em_model, state.hard, a, p.args(), np.ones(state.k))))
        if t > 0 and st.trace[t] - st.trace[t - 1] <= model.tol * abs(st.trace[t]):
            st.n_iter, st.converged, st.done = t, True, True
        elif t == model.max_iter:
            st.n_iter, st.converged, st.done = t, False, True
        else:
            K._mstep(state.em_model, state.hard, a, cap, cnt, tot, state.n_eff, p.args())
    return state


# Most distinct rows of labels carried by the first pass (16 bytes each).
MAX_MERGED_ROWS = 1 << 21


def _row_histogram(codes: np.ndarray, m: int):
    """Distinct rows of a chunk as sorted 63-bit keys with their counts, or None."""
    keys = _patterns.row_keys(codes, m)
    if keys is None:
        return None
    keys, counts = np.unique(keys, return_counts=True)
    return (keys, counts.astype(np.float64)) if keys.size <= MAX_MERGED_ROWS else None


def _merge_histograms(a, b):
    if a is None or b is None:
        return None
    keys, inv = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    if keys.size > MAX_MERGED_ROWS:
        return None
    return keys, np.bincount(inv.ravel(), weights=np.concatenate([a[1], b[1]]))


def _pre_partial(chunk: Ratings):
    codes = chunk.require_raters("the latent-class EM")
    rated = (codes >= 0).sum(axis=1)
    return (KR.label_counts(codes, chunk.n_categories).astype(np.float64),
            int(np.count_nonzero(rated)), int(np.count_nonzero(rated >= 2)), chunk.n_items,
            _row_histogram(codes, chunk.n_categories))


def _pre_combine(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3],
            _merge_histograms(a[4], b[4]))


def _add(a, b):
    return a + b


def fit_chunked(model: Any, ratings: Any) -> Any:
    """:meth:`LatentClassModel.fit` over a chunked ratings object (``fit`` calls this).

    ``hard="difficulty"`` needs its two stages in memory: over chunks the spam model is
    fitted without it, with a warning that says so."""
    if model.hard == "difficulty":
        import copy
        import warnings

        from _goldnoise_lib.errors import EstimationWarning

        warnings.warn(
            "the item-difficulty model (hard='difficulty') is fitted in memory only; over "
            "chunks the spam model without it was fitted (no P(hard); P(label right) as "
            "MACE's). Read the ratings into memory for the default model.",
            EstimationWarning, stacklevel=3)
        model = copy.copy(model)
        model.hard = None
    schema = ratings.schema
    k, m = schema.n_raters, schema.n_categories
    if m < 2:
        raise ValueError(
            f"`ratings` use a single category ({schema.categories[0]!r}); a latent-class model "
            "needs at least two. Declare the others with `categories=` if they exist.")
    if k < 2:
        raise ValueError(
            "`ratings` have one annotator; a latent-class model needs at least two "
            "annotators rating the same items (with one, each item's label is just theirs).")
    own, n_eff, n_multi, n_rows, hist = ratings.map_reduce(_pre_partial, _pre_combine)
    if n_multi == 0:
        raise ValueError(
            "no item of `ratings` has two or more ratings: nothing can be learnt about "
            "the annotators. A latent-class model needs items rated by several annotators.")
    em_model, hard = E._em_codes(model)
    state = start_state(model, schema.raters, schema.categories, n_eff=n_eff,
                        label_counts=own)
    merged = (model._merge_rows and hist is not None and n_rows >= 2
              and hist[0].size <= KR.MERGE_RATIO * n_rows)
    if merged:
        # Few distinct rows of labels (the in-memory engine's condition): the EM runs
        # on them, with their counts as weights, exactly as in memory.
        rows = _patterns.decode_rows(hist[0], k, m, schema.codes.dtype)
        q_fixed = state.starts[0].params.q if hard in (K.HARD_MARGINAL,
                                                       K.HARD_UNIFORM) else None
        run = E._run_starts(model, rows, hist[1], m, q_fixed, n_eff,
                            rows.size >= K.PARALLEL_THRESHOLD)._replace(labels=None)
    else:
        while state.running:  # one map-reduce per iteration, every running start at once
            requests = state.requests()
            sums = ratings.map_reduce(lambda c, req=requests: em_partial(c, req), em_combine)
            em_finalize(state, sums)
        finals = np.array([st.trace[-1] for st in state.starts])
        st = state.starts[int(np.argmax(finals))]  # the first of equal objectives
        run = E._Starts(st.params, np.asarray(st.trace), st.n_iter, st.converged, finals)
    logtab, logw = K.tables(em_model, hard, *run.params.args())

    def posterior_partial(chunk: Ratings) -> list:
        codes = chunk.codes
        out = K.posteriors(codes, logtab, logw)
        mv = np.argmax(chunk.counts, axis=1)
        return [(chunk, *out, mv)]

    parts = ratings.map_reduce(posterior_partial, _add)
    r = Ratings(np.concatenate([p[0].codes for p in parts]), schema.categories,
                items=parts[0][0].items.append([p[0].items for p in parts[1:]]),
                raters=schema.raters, ordered=schema.ordered,
                category_values=schema.category_values)
    class_post = np.concatenate([p[1] for p in parts])
    hard_post = np.concatenate([p[2] for p in parts])
    labels = np.concatenate([p[3] for p in parts])
    label_post = np.concatenate([p[4] for p in parts])
    if merged:  # as in memory: the merged rows' log-likelihood terms, weighted
        log_likelihood = float(np.dot(hist[1], K.posteriors(rows, logtab, logw)[4]))
    else:
        log_likelihood = float(sum(float(np.sum(p[5])) for p in parts))
    mv = np.concatenate([p[6] for p in parts])
    rated = r.ratings_per_item
    return E._finish(model, r, run, E._Posteriors(class_post, hard_post, labels, label_post),
                     log_likelihood, mv, rated)

