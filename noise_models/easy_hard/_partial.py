"""The inputs of the noise bound γ over chunks of items (SPEC §2.1–2.3, §3).

γ from labels needs the items with two or more ratings (``n``), the items
disagreed on (``d``), each annotator's label shares ``q`` on the disagreed
items, and then each item's chance agreement ``p_i`` under ``q``. Over chunks
of items (each holding every rating of its items):

* :func:`chance_partial` — ``n``, ``d`` and the annotator × category label
  counts on the disagreed (and on all) items of one chunk;
* :func:`chance_combine` — add two chunks' sums;
* :func:`chance_finalize` — ``q`` from the sums of all chunks, with the
  in-memory conventions (no disagreed item: all items' labels, with a
  warning; an annotator without a disagreed item: the pooled ``q``);
* :func:`chance_items` — a chunk's ``p_i`` (and which items are eligible and
  disagreed) under that ``q``: the per-item inputs of the exact bound with
  missing ratings.

:func:`chance_over_chunks` runs them over a chunked ratings object (two
passes): the chance agreement from which :func:`noise_bound` finishes exactly
as on ratings in memory.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from agreement import EstimationWarning, Ratings
from noise_models.easy_hard._chance import ChanceAgreementResult

# Numba kernels, imported at first use (importing the package compiles and loads nothing).
_kernels = lazy_module("noise_models.easy_hard._kernels")

__all__ = ["ChanceSums", "chance_combine", "chance_finalize", "chance_items", "chance_over_chunks",
           "chance_partial"]


class ChanceSums(NamedTuple):
    """Sums over items of the inputs of the chance agreement (see the module docstring)."""

    n_rows: int  # items, rated or not
    n_items: int  # items with two or more ratings
    n_disagreed: int  # of those, items the annotators disagreed on
    disagreed_counts: np.ndarray  # (k, m) labels of each annotator on the disagreed items
    eligible_counts: np.ndarray  # (k, m) labels of each annotator on the eligible items


def _flags(chunk: Ratings) -> tuple[np.ndarray, np.ndarray]:
    counts = chunk.counts
    r = counts.sum(axis=1, dtype=np.int64)
    eligible = r >= 2
    return eligible, eligible & (counts.max(axis=1) < r)


def _label_counts(codes: np.ndarray, rows: np.ndarray, m: int) -> np.ndarray:
    k = codes.shape[1]
    sub = codes[rows]
    rated = sub >= 0
    jj = np.broadcast_to(np.arange(k), sub.shape)[rated]
    cnt = np.bincount(jj * m + sub[rated].astype(np.int64), minlength=k * m)
    return cnt.reshape(k, m).astype(np.float64)


def chance_partial(chunk: Ratings) -> ChanceSums:
    """The partial step of γ's inputs over one chunk of items.

    Examples
    --------
    >>> import numpy as np
    >>> from agreement import Ratings
    >>> from noise_models import chance_combine, chance_finalize, chance_items, chance_partial
    >>> r = Ratings.from_wide([["a", "a"], ["a", "b"], ["b", "a"], ["a", "b"], ["b", "b"],
    ...                        ["b", "b"]])
    >>> s = chance_combine(chance_partial(r.take([0, 1, 2])), chance_partial(r.take([3, 4, 5])))
    >>> s.n_items, s.n_disagreed
    (6, 3)
    >>> q, notes = chance_finalize(s, r.raters, r.categories)
    >>> q.round(4).tolist()
    [[0.6667, 0.3333], [0.3333, 0.6667]]
    >>> round(float(chance_items(r, q)[0][0][1]), 4)  # p_i = 4/9 on every item
    0.4444
    """
    codes = chunk.require_raters("the chunked chance agreement")
    eligible, disagreed = _flags(chunk)
    m = chunk.n_categories
    return ChanceSums(chunk.n_items, int(eligible.sum()), int(disagreed.sum()),
                      _label_counts(codes, disagreed, m), _label_counts(codes, eligible, m))


def chance_combine(a: ChanceSums, b: ChanceSums) -> ChanceSums:
    """The sums of two disjoint chunks of items (see :func:`chance_partial`).

    Examples
    --------
    >>> from agreement import Ratings
    >>> from noise_models import chance_combine, chance_partial
    >>> r = Ratings.from_wide([[1, 1], [1, 2], [2, 2]])
    >>> chance_combine(chance_partial(r.take([0])), chance_partial(r.take([1, 2]))).n_disagreed
    1
    """
    return ChanceSums(a.n_rows + b.n_rows, a.n_items + b.n_items, a.n_disagreed + b.n_disagreed,
                      a.disagreed_counts + b.disagreed_counts,
                      a.eligible_counts + b.eligible_counts)


def chance_finalize(sums: ChanceSums, raters: pd.Index, categories: pd.Index, *,
                    stacklevel: int = 2) -> tuple[np.ndarray, list[str]]:
    """``q`` (annotators × categories) and the notes, as in memory (per-annotator ``q``).

    Examples
    --------
    See :func:`chance_partial`.

    >>> from agreement import Ratings
    >>> from noise_models import chance_finalize, chance_partial
    >>> r = Ratings.from_wide([[1, 2], [2, 2]])
    >>> chance_finalize(chance_partial(r), r.raters, r.categories)[0].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if sums.n_items == 0:
        raise ValueError("no item has two or more ratings, so no item can show agreement or "
                         "disagreement; the easy/hard model needs at least two ratings per item.")
    notes = []
    if sums.n_items < sums.n_rows:
        notes.append(f"{sums.n_rows - sums.n_items} item(s) with fewer than two ratings left out "
                     "(they cannot disagree)")
    cnt = sums.disagreed_counts
    if sums.n_disagreed == 0:
        cnt = sums.eligible_counts
        warnings.warn(
            "no disagreed items: q (the annotators' label distribution on hard items) cannot "
            "be estimated from them, so each annotator's label shares over all items are used. "
            "Pass `p` or `category_shares` if you know better.",
            EstimationWarning, stacklevel=stacklevel + 1,
        )
        notes.append("no disagreed items: q estimated from all items' labels")
    per = cnt.sum(axis=1)
    pooled_q = cnt.sum(axis=0) / cnt.sum()
    missing = per == 0
    qv = np.where(missing[:, None], pooled_q[None, :], cnt / np.where(missing, 1.0, per)[:, None])
    if missing.any():
        names = list(raters[missing][:5])
        notes.append(f"{int(missing.sum())} annotator(s) rated no disagreed item (e.g. "
                     f"{names}); they were given the pooled q")
    return qv, notes


def chance_items(chunk: Ratings, q: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """A chunk's ``(p_i, eligible, disagreed)`` under ``q`` (one-element list: lists add).

    Examples
    --------
    >>> import numpy as np
    >>> from agreement import Ratings
    >>> from noise_models import chance_items
    >>> r = Ratings.from_wide([[1, 2], [2, 2]])
    >>> p, eligible, disagreed = chance_items(r, np.array([[0.5, 0.5], [0.5, 0.5]]))[0]
    >>> p.tolist(), disagreed.tolist()
    ([0.5, 0.5], [True, False])
    """
    eligible, disagreed = _flags(chunk)
    p_items = np.minimum(_kernels.item_chance_agreement(chunk.codes, q), 1.0)
    p_items[~eligible] = np.nan
    return [(p_items, eligible, disagreed)]


def _add(a: list, b: list) -> list:
    return a + b


def chance_over_chunks(ratings: Any) -> ChanceAgreementResult:
    """The per-annotator chance agreement of a chunked ratings object (two passes).

    What :func:`~noise_models.noise_bound` needs of the ratings, as in memory:
    ``n``, ``d``, ``q`` and every item's ``p_i``.
    """
    schema = ratings.schema
    sums = ratings.map_reduce(chance_partial, chance_combine)
    qv, notes = chance_finalize(sums, schema.raters, schema.categories, stacklevel=3)
    parts = ratings.map_reduce(lambda c: chance_items(c, qv), _add)
    p_items = np.concatenate([p[0] for p in parts])
    eligible = np.concatenate([p[1] for p in parts])
    disagreed = np.concatenate([p[2] for p in parts])
    q = pd.DataFrame(qv, index=schema.raters, columns=schema.categories)
    return ChanceAgreementResult(
        p=float(np.mean(p_items[eligible])), p_items=p_items, q=q, n_items=sums.n_items,
        n_disagreed=sums.n_disagreed, disagreed=disagreed, eligible=eligible,
        n_raters=schema.n_raters, source="ratings", pooled=False, notes=tuple(notes),
    )
