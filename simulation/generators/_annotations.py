"""Labels from the easy/hard models, with the hidden truth kept (SPEC §3).

:func:`simulate_annotations` draws annotations under the paper's model M1
(easy items unanimous, hard items coin flips) or under M2 (annotators may
also err on easy items), with class shares, per-annotator biases on hard
items, error rates or confusion matrices, several hardness levels and
missing ratings, and returns the labels together with what generated them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Integer,
    Option,
    Probability,
    Rng,
    check_integer,
    check_number,
    check_params,
    check_probability,
    check_rng,
    validate_params,
)
from agreement import Ratings

__all__ = ["SimulatedAnnotations", "simulate_annotations"]

_MODELS = ("M1", "M2")


@dataclass(frozen=True, repr=False, eq=False)
class SimulatedAnnotations(Result):
    """Simulated labels and the hidden truth that generated them.

    Attributes
    ----------
    ratings : Ratings
        The labels (items × annotators, missing where not rated).
    true_class : ndarray of int, shape (n,)
        Code of each item's class (drawn from ``phi`` for every item; on a
        pure coin-flip hard item, ``hardness == 1``, it does not influence
        the labels: under the paper's model a hard item has no true label).
    is_hard : ndarray of bool, shape (n,)
        Whether the item is hard.
    hardness : ndarray of float, shape (n,)
        0 for easy items; for a hard item, the probability that each of its
        ratings is a draw from the annotator's hard distribution (else it is
        given as on an easy item).
    model : {"M1", "M2"}
    pi : float
        The hard share used.
    phi : ndarray, shape (m,)
        Class shares used.
    q : ndarray, shape (k, m)
        Each annotator's label distribution on hard items.
    confusion : ndarray, shape (k, m, m)
        ``confusion[j, c, x]``: probability that annotator ``j`` labels an
        easy item of class ``c`` as ``x`` (the identity under M1).

    ``to_frame()``: one row per item: ``true_label``, ``is_hard``, ``hardness``, ``n_ratings``.
    """
    #: ``to_dict()``: sizes, parameters and realised counts.
    _keys = ("model", "n_items=ratings.n_items", "n_raters=ratings.n_raters",
             "n_categories=ratings.n_categories", "pi", "phi", "n_hard",
             "n_ratings=ratings.n_ratings")
    _columns: ClassVar[dict[str, str]] = {
        "true_label": "true_labels", "is_hard": "is_hard", "hardness": "hardness",
        "n_ratings": "ratings.ratings_per_item"}
    _index = "ratings.items"

    ratings: Ratings
    true_class: np.ndarray
    is_hard: np.ndarray
    hardness: np.ndarray
    model: str
    pi: float
    phi: np.ndarray
    q: np.ndarray
    confusion: np.ndarray

    @property
    def n_hard(self) -> int:
        """Items drawn hard."""
        return int(self.is_hard.sum())

    @property
    def true_labels(self) -> pd.Series:
        """Each item's class in the category names, indexed by the item ids."""
        return pd.Series(self.ratings.categories[self.true_class], index=self.ratings.items,
                         name="true_label")

    def __repr__(self) -> str:
        r = self.ratings
        return (f"SimulatedAnnotations({self.model}: {r.n_items} items, {r.n_raters} "
                f"annotators, {r.n_categories} categories, pi={self.pi}, "
                f"{int(self.is_hard.sum())} hard items, {r.n_ratings} ratings)")


def _distribution(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be an array of probabilities; got {value!r}.") from None
    if arr.shape[-1:] != shape[-1:]:
        raise ValueError(
            f"`{name}` must have {shape[-1]} probabilities (one per category) in its last "
            f"axis; got shape {arr.shape}."
        )
    if arr.ndim > len(shape):
        raise ValueError(f"`{name}` must have at most shape {shape}; got {arr.shape}.")
    arr = np.broadcast_to(arr, shape).copy()
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or \
            not np.allclose(arr.sum(axis=-1), 1.0, rtol=0, atol=1e-9):
        raise ValueError(f"`{name}` must hold non-negative probabilities summing to 1.")
    return arr / arr.sum(axis=-1, keepdims=True)


def _draw(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws from one distribution with cumulative ``cum``."""
    return np.minimum(np.searchsorted(cum, u, side="right"), len(cum) - 1)


@validate_params(n_items=Integer(1), n_annotators=Integer(1), model=Option(_MODELS),
                 hard_share=Probability(), n_categories=Integer(2, optional=True), rng=Rng())
def simulate_annotations(
    n_items: int,
    n_annotators: int,
    *,
    model: str = "M1",
    hard_share: float = 0.2,
    class_shares: npt.ArrayLike | None = None,
    n_categories: int | None = None,
    hard_shares: npt.ArrayLike | None = None,
    error_rates: float | npt.ArrayLike | None = None,
    confusion: npt.ArrayLike | None = None,
    hardness: float | Sequence[float] = 1.0,
    missing: float = 0.0,
    raters_per_item: int | None = None,
    categories: Sequence[Any] | None = None,
    rng: Any = None,
    hard_concentration: float | None = None,
) -> SimulatedAnnotations:
    """Draw annotations under the easy/hard model M1 or M2, keeping the truth.

    Each item is hard with probability ``hard_share`` and has a class drawn
    from ``class_shares``. On an easy item every annotator labels through
    their easy emission: the true class under M1; under M2 a draw from their
    confusion row (one-coin ``error_rates`` or full ``confusion``). On a hard
    item each rating is, with probability ``hardness`` (the item's level), a
    draw from the annotator's own hard distribution ``q[j]``, and otherwise
    given as on an easy item. With ``hard_concentration`` a hard item is
    over-dispersed: it draws its own label distribution, shared by every
    annotator who rates it, and its flipped ratings come from that (the item
    is hard for everyone, so their errors are correlated).

    Parameters
    ----------
    n_items, n_annotators : int
        Items (≥ 1) and annotators (≥ 1).
    model : {"M1", "M2"}, default "M1"
        M1: annotators never err on easy items (the paper's model). M2:
        they err with ``error_rates`` / ``confusion``.
    hard_share : float, default 0.2
        ``π``, the probability that an item is hard, in [0, 1].
    class_shares : array_like, shape (m,), optional
        ``φ``, class shares of the items. Default uniform.
    n_categories : int, optional
        ``m``; default from ``class_shares`` or ``categories``, else 2.
    hard_shares : array_like, shape (m,) or (k, m), optional
        ``q``: label distribution on hard items, shared or per annotator
        (the annotators' biases). Default uniform.
    error_rates : float or array_like, shape (k,), optional
        M2 only: one-coin error rates ``ε_j`` (a wrong label is uniform over
        the other categories). Default 0.1 under M2 unless ``confusion``.
    confusion : array_like, shape (m, m) or (k, m, m), optional
        M2 only: ``confusion[j, c, x] = P(j labels x | easy item of class c)``.
    hardness : float or sequence of float, default 1.0
        Hardness level(s) in (0, 1]; with several, each hard item gets one
        uniformly at random. 1 is the paper's pure coin flip.
    missing : float, default 0.0
        Probability that a rating is missing, independently (missing at
        random), in [0, 1).
    raters_per_item : int, optional
        Instead of ``missing``: each item is rated by this many annotators
        drawn at random without replacement (as on crowd platforms).
    categories : sequence, optional
        Category names (default ``0..m-1``).
    rng : None, int or numpy.random.Generator
        Seed (``numpy.random.default_rng(rng)``).
    hard_concentration : float, optional
        ``s > 0``: each hard item draws its label distribution
        ``p_i ~ Dirichlet(s · q̄)`` (``q̄`` the annotators' mean hard distribution),
        and a flipped rating of the item is a draw from ``p_i`` rather than from
        ``q[j]`` (a Dirichlet-multinomial item term; small ``s``: over-dispersed
        vote splits, many hard items with a wrong majority). Default: no item term.

    Returns
    -------
    SimulatedAnnotations

    Raises
    ------
    TypeError, ValueError
        For an argument of the wrong type or out of range (named in the
        message), error rates under M1, or both ``missing`` and
        ``raters_per_item``.

    Examples
    --------
    >>> from simulation import simulate_annotations
    >>> sim = simulate_annotations(1000, 3, hard_share=0.3, rng=0)
    >>> sim
    SimulatedAnnotations(M1: 1000 items, 3 annotators, 2 categories, pi=0.3, 327 hard items, 3000 ratings)
    >>> import numpy as np
    >>> agreed = (sim.ratings.counts.max(axis=1) == 3)
    >>> bool(np.all(agreed[~sim.is_hard]))  # under M1 easy items are unanimous
    True
    """
    check_params(simulate_annotations, locals())
    n = check_integer(n_items, "n_items", 1)
    k = check_integer(n_annotators, "n_annotators", 1)
    if not isinstance(model, str) or model not in _MODELS:
        raise ValueError(f"`model` must be one of {_MODELS}; got {model!r}.")
    pi = check_probability(hard_share, "hard_share")
    m = _n_categories(n_categories, class_shares, categories)
    phi = np.full(m, 1.0 / m) if class_shares is None else \
        _distribution(class_shares, "class_shares", (m,))
    q = np.full((k, m), 1.0 / m) if hard_shares is None else \
        _distribution(hard_shares, "hard_shares", (k, m))
    conf = _confusion(model, error_rates, confusion, k, m)
    levels = np.atleast_1d(np.asarray(hardness, dtype=np.float64))
    if levels.ndim != 1 or levels.size == 0 or not np.all((levels > 0) & (levels <= 1)):
        raise ValueError(f"`hardness` must be a level or levels in (0, 1]; got {hardness!r}.")
    if hard_concentration is not None:
        conc = check_number(hard_concentration, "hard_concentration", positive=True)
    p_missing = check_probability(missing, "missing", open_high=True)
    if raters_per_item is not None:
        if p_missing > 0:
            raise ValueError("give `missing` or `raters_per_item`, not both.")
        per_item = check_integer(raters_per_item, "raters_per_item", 1)
        if per_item > k:
            raise ValueError(
                f"`raters_per_item` ({per_item}) exceeds `n_annotators` ({k})."
            )
    cats = _categories_index(categories, m)
    gen = check_rng(rng)
    true_class = _draw(np.cumsum(phi), gen.random(n))
    is_hard = gen.random(n) < pi
    level = np.where(is_hard, levels[gen.integers(levels.size, size=n)], 0.0)
    dtype = np.int8 if m <= np.iinfo(np.int8).max else np.int16
    codes = np.empty((n, k), dtype=dtype)
    item_cum = None
    if hard_concentration is not None:
        # each hard item's own label distribution, shared by its annotators
        own = gen.dirichlet(conc * q.mean(axis=0), size=n)
        item_cum = np.cumsum(own, axis=1)
    _draw_annotators(codes, gen, true_class, level, conf, q, item_cum)
    _hide(codes, gen, per_item if raters_per_item is not None else None, p_missing)
    ratings = Ratings(codes, cats, items=pd.RangeIndex(n, name="item"),
                      raters=pd.RangeIndex(k, name="rater"), ordered=cats.dtype.kind in "iuf")
    for a in (true_class, is_hard, level, phi, q, conf):
        a.setflags(write=False)
    return SimulatedAnnotations(ratings=ratings, true_class=true_class, is_hard=is_hard,
                                hardness=level, model=model, pi=pi, phi=phi, q=q,
                                confusion=conf)


def _n_categories(n_categories: Any, class_shares: Any, categories: Any) -> int:
    """The number of categories: given, or that of ``class_shares`` or ``categories``
    (default 2)."""
    if n_categories is not None:
        m = check_integer(n_categories, "n_categories", 2)
    elif class_shares is not None:
        m = int(np.size(class_shares))
    elif categories is not None:
        m = len(categories)
    else:
        m = 2
    if m < 2:
        raise ValueError(f"at least two categories are needed; got {m}.")
    return m


def _confusion(model: str, error_rates: Any, confusion: Any, k: int, m: int) -> np.ndarray:
    """Each annotator's confusion matrix on easy items ``(k, m, m)``: the identity under
    M1; under M2 ``confusion`` as given, or errors at ``error_rates`` (default 0.1) spread
    evenly over the other classes."""
    if model == "M1":
        if error_rates is not None or confusion is not None:
            raise ValueError(
                "`error_rates` and `confusion` apply to model='M2' (annotators who err on "
                "easy items); under M1 easy items are unanimous."
            )
        return np.broadcast_to(np.eye(m), (k, m, m)).copy()
    if confusion is not None:
        if error_rates is not None:
            raise ValueError("give `error_rates` or `confusion`, not both.")
        return _distribution(confusion, "confusion", (k, m, m))
    rates = 0.1 if error_rates is None else error_rates
    try:
        eps = np.array(rates, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`error_rates` must be numbers in [0, 1]; got {rates!r}.") from None
    if eps.ndim == 0:
        eps = np.full(k, float(eps))
    if eps.shape != (k,):
        raise ValueError(f"`error_rates` must be a number or have shape ({k},); got "
                         f"shape {eps.shape}.")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0) or np.any(eps > 1):
        raise ValueError(f"`error_rates` must be in [0, 1]; got {rates!r}.")
    return (eps[:, None, None] / (m - 1)) * (1.0 - np.eye(m)) + \
        (1.0 - eps)[:, None, None] * np.eye(m)


def _categories_index(categories: Any, m: int) -> pd.Index:
    """The categories' names (default ``0..m-1``), checked."""
    if categories is None:
        return pd.RangeIndex(m, name="category")
    cats = pd.Index(list(categories), name="category")
    if len(cats) != m or cats.has_duplicates:
        raise ValueError(f"`categories` must name {m} distinct categories; got {categories!r}.")
    return cats


def _draw_annotators(codes: np.ndarray, gen: np.random.Generator, true_class: np.ndarray,
                     level: np.ndarray, conf: np.ndarray, q: np.ndarray,
                     item_cum: np.ndarray | None) -> None:
    """Fill ``codes`` annotator by annotator: on a hard item (with probability its
    ``level``) a draw from the annotator's hard distribution ``q`` (or the item's own,
    ``item_cum``), else from the confusion row of the true class."""
    n, k = codes.shape
    m = conf.shape[1]
    by_class = [np.flatnonzero(true_class == c) for c in range(m)]
    for j in range(k):
        flip = gen.random(n) < level
        u = gen.random(n)
        x = np.empty(n, dtype=np.int64)
        for c in range(m):
            idx = by_class[c]
            x[idx] = _draw(np.cumsum(conf[j, c]), u[idx])
        if item_cum is None:
            x[flip] = _draw(np.cumsum(q[j]), u[flip])
        else:
            rows = np.flatnonzero(flip)
            x[rows] = np.minimum((u[rows, None] >= item_cum[rows]).sum(axis=1), m - 1)
        codes[:, j] = x


def _hide(codes: np.ndarray, gen: np.random.Generator, per_item: int | None,
          p_missing: float) -> None:
    """Mark ratings missing (-1): all but ``per_item`` random annotators of each item, or
    each rating with probability ``p_missing``."""
    n, k = codes.shape
    if per_item is not None:
        keep = np.argsort(gen.random((n, k)), axis=1)[:, :per_item]
        mask = np.ones((n, k), dtype=bool)
        np.put_along_axis(mask, keep, False, axis=1)
        codes[mask] = -1
    elif p_missing > 0:
        codes[gen.random((n, k)) < p_missing] = -1
