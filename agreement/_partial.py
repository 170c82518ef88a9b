"""Every agreement statistic as partial → combine → finalize (SPEC §3, "Larger than memory").

A coefficient is a function of column sums over items of per-item
statistics, and its analytic variance is a quadratic form in the same
per-item rows. So a chunk of items (every rating of each of its items) is
summarised by

* ``first  = Σ_i f_i`` — the column sums the estimate needs, and
* ``second = Σ_i f_i f_iᵀ`` — the second moments its linearised variance
  ``Σ_i (f_i · β − c)² = βᵀ second β − 2 c β · first + c² n`` needs, ``β``
  and ``c`` being known only once all chunks are summed;

chunks combine by addition, and the finalize step is the in-memory one. The
three functions are plain and engine-agnostic: Dask maps :func:`partial_sums`
over partitions and reduces with :func:`combine_sums`; Spark or Ray can do the
same. Given a chunked ratings object (:class:`~agreement.ChunkedRatings`), the
public functions run them through :func:`coefficient_over_chunks`,
:func:`alpha_over_chunks` and :func:`table_over_chunks` (:mod:`agreement._api`
chooses between these and the in-memory computation).

Per-item vectors ``f_i``:

* the eight coefficients of :mod:`agreement._coefficients`: the item's row of
  :func:`~agreement.item_statistics` (count, rater or pair layout);
* Krippendorff's α (pairable units only): ``(1, r_u, q_u, a_u)`` at the
  nominal, interval and ratio levels (``q_u`` the unit's disagreement under
  the fixed metric, ``a_u`` its category counts); at the ordinal level,
  whose metric depends on the global marginals, ``(1, r_u, a_u, C_u)`` with
  ``C_u = (a_u a_uᵀ − diag a_u)/(r_u − 1)`` the unit's coincidences, so that
  ``q_u = Σ_ck δ²_ck C_u,ck`` is linear in ``f_u`` once the mid-ranks are
  known.

Items with few possible rating patterns are first counted per pattern (one
histogram pass, exact integers), as in memory; the moments are then weighted
sums over the distinct patterns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib import patterns as _patterns
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import check_option
from agreement import _coefficients as _co
from agreement import _krippendorff as _kr
from agreement._encoding import _encode, _factorize_ids
from agreement._item_stats import SPECS, count_rows_from_counts
from agreement._light import light, stats_from_sums
from agreement._null import cohen_from_table, contingency
from agreement._ratings import Ratings
from agreement._result import AgreementResult, with_clip_note
from agreement._weights import Weights, weight_matrix

# Numba kernels, imported at first use (importing the package compiles and loads nothing).
_kernels = lazy_module("agreement._kernels")
_encoding_kernels = lazy_module("agreement._kernels_encoding")

__all__ = [
    "STATISTICS",
    "PartialSums",
    "combine_sums",
    "finalize_sums",
    "partial_sums",
    "ratings_chunk",
    "ratings_schema",
]

STATISTICS = (*SPECS, "krippendorff_alpha")
# Largest per-item vector whose second moments a partial carries (2 MB of float64).
MAX_COLUMNS = 512
# Largest number of categories of an ordinal α partial (its f_u has m² coincidences).
MAX_ORDINAL_CATEGORIES = 20


@dataclass(frozen=True, repr=False, eq=False)
class PartialSums:
    """The sums of one statistic over a chunk of items; add them with :func:`combine_sums`.

    Attributes
    ----------
    statistic : str
        The coefficient's function name, e.g. ``"fleiss_kappa"`` or
        ``"krippendorff_alpha"``.
    option : str or None
        The weights' name (``None``, ``"linear"``, ``"quadratic"``,
        ``"custom"``) of a coefficient, or the level of α.
    schema : Ratings
        The categories and annotators shared by every chunk (no items).
    weights : ndarray of float64, shape (m, m)
        The agreement weights (the identity for α).
    n_rows : int
        Items of the chunks, rated or not.
    max_ratings, min_ratings : int
        Most ratings on one item (Scott's π needs at most two) and fewest on a
        rated item (the null SE of Fleiss' κ needs them equal).
    first : ndarray of float64, shape (p,)
        ``Σ_i f_i`` over the items.
    second : ndarray of float64, shape (p, p)
        ``Σ_i f_i f_iᵀ``.
    """

    statistic: str
    option: str | None
    schema: Ratings
    weights: np.ndarray
    notes: tuple[str, ...]
    n_rows: int
    max_ratings: int
    first: np.ndarray
    second: np.ndarray
    min_ratings: int = 0  # fewest ratings on a rated item (0: none rated)
    table: np.ndarray | None = None  # Cohen's κ, two annotator columns: m × m contingency

    def __repr__(self) -> str:
        return (f"PartialSums({self.statistic}, {self.option!r}: {self.n_rows} items, "
                f"{self.first.size} columns)")


# ------------------------------------------------------------------ the schema
def ratings_schema(labels: Any, raters: Any, *, categories: Sequence[Any] | None = None
                   ) -> Ratings:
    """The categories and annotators shared by the chunks of one data set.

    Parameters
    ----------
    labels : array_like or pandas.Series
        The distinct labels of the whole data set (or all of them), missing
        values allowed. Their dtype decides the categories exactly as
        :meth:`Ratings.from_long` on the whole data would (numeric labels
        are ordered, others sorted).
    raters : array_like
        The distinct annotator ids.
    categories : sequence, optional
        Declared categories, as in :meth:`Ratings.from_long`.

    Returns
    -------
    Ratings
        With no items; pass it to :func:`ratings_chunk`.

    Examples
    --------
    >>> from agreement import ratings_schema
    >>> ratings_schema(["b", "a", "b"], ["x", "y"])
    Ratings(0 items, 2 raters, 2 categories ['a', 'b'], 0 ratings, 0 missing)
    """
    lab = pd.Series(labels).drop_duplicates()
    rater_ids = pd.Index(pd.unique(pd.Series(raters)), name="rater")
    if len(rater_ids) == 0:
        raise ValueError("`raters` is empty: a data set needs at least one annotator.")
    kind = lab.dtype.kind
    values = lab.to_numpy() if kind in "iufb" else lab.to_numpy(dtype=object)
    declared = categories is not None
    if categories is None and isinstance(lab.dtype, pd.CategoricalDtype):
        categories, declared = list(lab.cat.categories), bool(lab.cat.ordered)
    _, cats = _encode(values.reshape(-1, 1), categories)
    ordered = declared or cats.dtype.kind in "iuf"
    codes = np.empty((0, len(rater_ids)), dtype=np.int8 if len(cats) < 127 else np.int16)
    return Ratings(codes, cats, items=pd.Index([], name="item"), raters=rater_ids,
                   ordered=ordered)


def ratings_chunk(frame: pd.DataFrame, schema: Ratings, *, item: Hashable = "item",
                  rater: Hashable = "rater", label: Hashable = "label") -> Ratings:
    """Code a long DataFrame (one row per rating) with a shared schema.

    Parameters
    ----------
    frame : pandas.DataFrame
        Every rating of the items it holds.
    schema : Ratings
        From :func:`ratings_schema`: every chunk gets the same category codes
        and annotator columns, so their partial sums add up.
    item, rater, label : hashable
        Column names.

    Returns
    -------
    Ratings
        Items in order of first appearance; rows with a missing label count
        as an item without that rating (as :meth:`Ratings.from_long`).

    Raises
    ------
    ValueError
        If a label or annotator is not in the schema, or an annotator rated
        an item twice.

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement import ratings_chunk, ratings_schema
    >>> schema = ratings_schema(["a", "b"], ["x", "y"])
    >>> frame = pd.DataFrame({"item": [7, 7, 8], "rater": ["y", "x", "y"],
    ...                       "label": ["b", "b", "a"]})
    >>> ratings_chunk(frame, schema).codes.tolist()
    [[1, 1], [-1, 0]]
    """
    k = schema.n_raters
    dtype = schema.codes.dtype
    # a chunk holds a share of the ids' range: a table up to 4 × its rows is still small
    item_codes, item_ids = _factorize_ids(frame[item], wide=4)
    rater_codes = _positions(schema.raters, frame[rater])
    if np.any(rater_codes < 0):
        bad = frame[rater].to_numpy()[rater_codes < 0][0]
        raise ValueError(f"annotator {bad!r} is not in the schema's annotators.")
    labels = frame[label]
    present = labels.notna().to_numpy()
    label_codes = _positions(schema.categories, labels)
    if np.any((label_codes < 0) & present):
        bad = labels.to_numpy()[(label_codes < 0) & present][0]
        raise ValueError(f"label {bad!r} is not among the schema's categories.")
    if not present.all():  # a row without a label is no rating (nor a repeat)
        item_codes, rater_codes, label_codes = (item_codes[present], rater_codes[present],
                                                label_codes[present])
    codes = _encoding_kernels.scatter_long(item_codes, rater_codes, label_codes.astype(dtype),
                                           len(item_ids), k)
    if codes is None:
        raise ValueError("an annotator rated the same item more than once in this chunk.")
    return Ratings(codes, schema.categories, items=pd.Index(item_ids, name="item"),
                   raters=schema.raters, ordered=schema.ordered,
                   category_values=schema.category_values)


def _positions(index: pd.Index, values: pd.Series) -> np.ndarray:
    """``index.get_indexer(values)``; integer ids in a small range by one table lookup."""
    raw = values.to_numpy()
    keys = index.to_numpy()
    if raw.dtype.kind in "iu" and keys.dtype.kind in "iu" and len(keys) and raw.size:
        lo = min(int(keys.min()), int(raw.min()))
        hi = max(int(keys.max()), int(raw.max()))
        if hi - lo < 1 << 20:
            table = np.full(hi - lo + 1, -1, dtype=np.intp)
            table[keys.astype(np.int64) - lo] = np.arange(len(keys))
            return table[raw.astype(np.int64) - lo]
    return index.get_indexer(values)


# ------------------------------------------------------------------- partials
def _check_statistic(statistic: Any) -> str:
    if callable(statistic):
        statistic = getattr(statistic, "__name__", statistic)
    return check_option(statistic, "statistic", STATISTICS)


def _moments(rows: np.ndarray, mult: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if mult is None:
        return rows.sum(axis=0), rows.T @ rows
    return mult @ rows, rows.T @ (mult[:, None] * rows)


# The last count table's patterns: the statistics of one pass read the same chunk in turn.
_LAST_PATTERNS: tuple = (None, None)


def _count_patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct rows of a count table and how many items have each (exact integers),
    or None when they are not few (more than half the items, or keys beyond 62 bits)."""
    global _LAST_PATTERNS
    last = _LAST_PATTERNS  # one read: another thread may replace it
    if last[0] is counts and not counts.flags.writeable:
        return last[1]
    found = _find_count_patterns(counts)
    _LAST_PATTERNS = (counts, found)
    return found


def _find_count_patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    n, m = counts.shape
    if n < 64:
        return None
    base = int(counts.max(initial=0)) + 1
    if m * math.log2(base) > 62:
        return None
    weights = base ** np.arange(m, dtype=np.int64)
    keys = counts.astype(np.int64) @ weights
    codes, uniq = pd.factorize(keys, sort=False)
    if len(uniq) > n // 2:
        return None
    rows = (np.asarray(uniq)[:, None] // weights[None, :]) % base
    return rows, np.bincount(codes, minlength=len(uniq)).astype(np.float64)


def _coefficient_rows(family: str, r: Ratings, wts: Weights):
    """Per-item (or per-pattern, with multiplicities) rows of a chunk."""
    if family == "count" and not r.has_raters:
        few = _count_patterns(r.counts)
        if few is not None:  # few distinct count vectors: their rows, weighted
            return count_rows_from_counts(few[0], wts.matrix, wts.weighted), few[1]
        return count_rows_from_counts(r.counts, wts.matrix, wts.weighted), None
    visit = _co._plan(family, r, wts)
    if visit.rows is not None:
        return visit.rows, visit.mult
    return _kernels.item_rows(family, r.codes, wts.matrix, wts.weighted), None


def _alpha_rows(r: Ratings, level: str):
    """``f_u`` of the pairable units (see the module docstring), with multiplicities."""
    m = r.n_categories
    hist = None
    if r.has_raters and r.n_items:
        hist = _patterns.count_histogram(r.codes, m)
    if hist is None and not r.has_raters:
        few = _count_patterns(r.counts)
        hist = None if few is None else (None, *few)
    if hist is not None:
        _, a, mult = hist
    else:
        a, mult = r.counts, np.ones(r.n_items)
    a = np.asarray(a, dtype=np.float64)
    rr = a.sum(axis=1)
    keep = rr >= 2
    a, rr, mult = a[keep], rr[keep], np.asarray(mult, dtype=np.float64)[keep]
    one = np.ones((a.shape[0], 1))
    if level == "ordinal":
        coin = (a[:, :, None] * a[:, None, :]) / (rr - 1.0)[:, None, None]
        idx = np.arange(m)
        coin[:, idx, idx] -= a / (rr - 1.0)[:, None]
        return np.hstack([one, rr[:, None], a, coin.reshape(a.shape[0], m * m)]), mult
    delta = _kr._metric_matrix(level, r.category_values)
    # q_u = Σ_ck a_uc (a_uk − [c = k]) δ²_ck / (r_u − 1); δ²_cc = 0
    q = np.einsum("pc,pc->p", a @ delta, a) / (rr - 1.0)
    return np.hstack([one, rr[:, None], q[:, None], a]), mult


def partial_sums(chunk: Ratings, statistic: Any, *, weights: Any = None,
                 level: str = "nominal") -> PartialSums:
    """The partial step: sums of a statistic over one chunk of items.

    Parameters
    ----------
    chunk : Ratings
        Every rating of the chunk's items, coded with the data set's shared
        categories (and annotators, for Cohen's, Conger's and Light's κ):
        build chunks with :func:`ratings_chunk`, or take rows of one
        Ratings (``Ratings.take``). An item split between two chunks counts
        as two items.
    statistic : str or function
        One of :data:`STATISTICS`: the eight coefficient names
        (``"fleiss_kappa"``, …) or ``"krippendorff_alpha"``.
    weights : None, {"linear", "quadratic"} or array_like, optional
        Agreement weights of a coefficient (not α).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Krippendorff's level (α only).

    Returns
    -------
    PartialSums

    Raises
    ------
    ValueError
        For an unknown statistic, invalid weights or level, a count table
        given to a coefficient that needs annotators, or a per-item vector too
        long to carry its second moments (more than 512 columns: the rater
        and pair layouts with many annotators; ordinal α with more than 20
        categories).

    Examples
    --------
    Two chunks of the same ratings give the in-memory result:

    >>> from agreement import (Ratings, combine_sums, finalize_sums, fleiss_kappa,
    ...                        partial_sums)
    >>> r = Ratings.from_wide([[1, 1, 2], [1, 1, 1], [2, 2, 2], [1, 2, 2]])
    >>> a = partial_sums(r.take([0, 1]), "fleiss_kappa")
    >>> b = partial_sums(r.take([2, 3]), "fleiss_kappa")
    >>> res = finalize_sums(combine_sums(a, b))
    >>> round(res.value, 12) == round(fleiss_kappa(r).value, 12)
    True
    >>> round(res.standard_error, 12) == round(fleiss_kappa(r).standard_error, 12)
    True
    """
    statistic = _check_statistic(statistic)
    if not isinstance(chunk, Ratings):
        raise TypeError(f"`chunk` must be a Ratings; got {type(chunk).__name__}.")
    schema = Ratings(np.empty((0, chunk.n_raters), dtype=np.int8), chunk.categories,
                     items=pd.Index([], name="item"), raters=chunk.raters,
                     ordered=chunk.ordered, category_values=chunk.category_values)
    per_item = chunk.ratings_per_item
    max_r = int(per_item.max()) if per_item.size else 0
    rated = per_item[per_item > 0]
    min_r = int(rated.min()) if rated.size else 0
    if statistic == "krippendorff_alpha":
        lvl = _kr._check_level(level)
        if lvl != "nominal" and not chunk.ordered:
            raise ValueError(f"`level={lvl!r}` needs ordered categories.")
        _kr._check_values(chunk.category_values, lvl)
        if lvl == "ordinal" and chunk.n_categories > MAX_ORDINAL_CATEGORIES:
            raise ValueError(
                f"the ordinal α partial carries m² coincidences per unit; at most "
                f"{MAX_ORDINAL_CATEGORIES} categories (got {chunk.n_categories}). Use the "
                "interval level, or in-memory data.")
        rows, mult = _alpha_rows(chunk, lvl)
        first, second = _moments(rows, mult)
        w = np.eye(chunk.n_categories)
        return PartialSums(statistic, lvl, schema, w, (), chunk.n_items, max_r, first, second,
                           min_r)
    spec = SPECS[statistic]
    if spec.family != "count":
        chunk.require_raters(f"`{statistic}`")
    wts = weight_matrix(weights, chunk)
    if not wts.symmetric:
        raise ValueError("a non-symmetric `weights` matrix (Cohen 1968) needs the two "
                         "annotators' full contingency table: use in-memory ratings.")
    ncol = _kernels.n_item_columns(spec.family, chunk.n_raters, chunk.n_categories)
    if ncol > MAX_COLUMNS:
        raise ValueError(
            f"`{statistic}` has {ncol} per-item columns for {chunk.n_raters} annotators and "
            f"{chunk.n_categories} categories; a partial carries their second moments only "
            f"up to {MAX_COLUMNS} columns. Use a coefficient of the count family "
            "(fleiss_kappa, gwet_ac1, ...) for many annotators.")
    rows, mult = _coefficient_rows(spec.family, chunk, wts)
    first, second = _moments(np.asarray(rows, dtype=np.float64), mult)
    table = None
    if statistic == "cohen_kappa" and chunk.n_raters == 2:
        table = contingency(chunk.codes, chunk.n_categories)
    return PartialSums(statistic, wts.name, schema, wts.matrix, wts.notes, chunk.n_items,
                       max_r, first, second, min_r, table)


def combine_sums(a: PartialSums, b: PartialSums) -> PartialSums:
    """The combine step: the sums of two disjoint chunks of items (associative).

    Raises
    ------
    ValueError
        If the two partials are of different statistics, options, categories
        or annotators.

    Examples
    --------
    >>> from agreement import Ratings, combine_sums, partial_sums
    >>> r = Ratings.from_wide([[1, 1], [1, 2], [2, 2]])
    >>> s = combine_sums(partial_sums(r.take([0]), "scott_pi"),
    ...                  partial_sums(r.take([1, 2]), "scott_pi"))
    >>> s
    PartialSums(scott_pi, None: 3 items, 6 columns)
    >>> s.first.tolist() == partial_sums(r, "scott_pi").first.tolist()
    True
    """
    if not (isinstance(a, PartialSums) and isinstance(b, PartialSums)):
        raise TypeError("`combine_sums` adds two PartialSums.")
    same = (a.statistic == b.statistic and a.option == b.option
            and a.schema.categories.equals(b.schema.categories)
            and a.schema.raters.equals(b.schema.raters)
            and np.array_equal(a.weights, b.weights))
    if not same:
        raise ValueError(
            "the partial sums do not match: they must be of the same statistic and options, "
            "over chunks coded with the same categories and annotators (`ratings_chunk` "
            "with one schema).")
    mins = [x.min_ratings for x in (a, b) if x.min_ratings > 0]
    table = None if a.table is None or b.table is None else a.table + b.table
    return PartialSums(a.statistic, a.option, a.schema, a.weights, a.notes,
                       a.n_rows + b.n_rows, max(a.max_ratings, b.max_ratings),
                       a.first + b.first, a.second + b.second, min(mins, default=0), table)


def _quadratic(second: np.ndarray, first: np.ndarray, beta: np.ndarray,
               center: float) -> float:
    # Σ_i (f_i·β − c)² over rated items = βᵀ S β − 2 c β·s + c² n (unrated rows are 0)
    n = first[0]
    return float(beta @ second @ beta - 2.0 * center * (beta @ first) + center * center * n)


def _scott_check(sums: PartialSums):
    def check() -> None:
        if sums.max_ratings > 2:
            raise ValueError(
                f"`scott_pi` is defined for at most two ratings per item; an item has "
                f"{sums.max_ratings}. Use `fleiss_kappa`, Fleiss' generalisation of Scott's "
                "pi to more ratings.")
    return check


def _finalize_alpha(sums: PartialSums, stacklevel: int) -> AgreementResult:
    level, m = sums.option, sums.schema.n_categories
    values = sums.schema.category_values
    s, second = sums.first, sums.second
    n_units = s[0]
    if n_units == 0:
        raise ValueError(
            "no unit has two or more ratings, so Krippendorff's α has no pairable values. "
            "α needs at least one item rated by two annotators.")
    if level == "ordinal":
        n_c = s[2:2 + m]
        coin = s[2 + m:].reshape(m, m)
        delta = _kr._metric_matrix(level, _kr._metric_values(level, values, n_c))
        d_o = float((coin * delta).sum())
    else:
        n_c, d_o, delta = s[3:3 + m], float(s[2]), None
    parts, _, g = _kr._finalize(n_c, d_o, level, values)
    alpha_sums = _kr.AlphaSums(n_c, d_o, float(n_units))

    def standard_error() -> float:
        rbar, pa, pe, alpha_p, wpi, scale = _kr._gwet_constants(parts, alpha_sums, g)
        # α*_u − α' is affine in f_u (Gwet 2014; see _krippendorff._gwet_constants):
        # p_a,u = r_u (1 − p_a)/r̄ − q_u/(scale r̄) + p_a, p_e,u = a_u·(Wπ)/r̄ − p_e r_u/r̄ + p_e.
        den = rbar * (1.0 - pe)
        b_0 = (pa - pe) / (1.0 - pe) - alpha_p
        b_r = ((1.0 - pa) + 2.0 * (1.0 - alpha_p) * pe) / den
        b_q = -1.0 / (scale * den)
        b_a = -2.0 * (1.0 - alpha_p) * wpi / den
        if level == "ordinal":
            beta = np.concatenate([[b_0, b_r], b_a, b_q * delta.ravel()])
        else:
            beta = np.concatenate([[b_0, b_r, b_q], b_a])
        ss = max(float(beta @ second @ beta), 0.0)
        return math.sqrt(ss / (n_units * (n_units - 1.0)))

    return _kr.alpha_result(parts, alpha_sums, standard_error, level=level,
                            n_rows=sums.n_rows, n_raters=sums.schema.n_raters,
                            n_categories=m, stacklevel=stacklevel)


def finalize_sums(sums: PartialSums, *, n_population: float | None = None,
                  _stacklevel: int = 2) -> AgreementResult:
    """The finalize step: the statistic's AgreementResult from the sums of all chunks.

    Parameters
    ----------
    sums : PartialSums
        :func:`combine_sums` of the partials of every chunk.
    n_population : float, optional
        Finite-population correction of a coefficient's variance (not α).

    Returns
    -------
    AgreementResult
        The in-memory result of the statistic on the union of the chunks:
        value, parts, counts, notes, analytic standard error.

    Raises
    ------
    ValueError
        As the statistic's function on the same data (no pairable item, Cohen's
        κ without exactly two annotators, Scott's π with an item of three
        ratings, ...).

    Warns
    -----
    DegenerateDataWarning
        As the statistic's function.

    Examples
    --------
    Krippendorff's α over three chunks of his example C equals α in memory:

    >>> import numpy as np
    >>> from agreement import (Ratings, combine_sums, finalize_sums, krippendorff_alpha,
    ...                        partial_sums)
    >>> nan = np.nan
    >>> r = Ratings.from_wide(np.array([
    ...     [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...     [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]).T)
    >>> parts = [partial_sums(r.take(idx), "krippendorff_alpha", level="ordinal")
    ...          for idx in ([0, 5, 9], [1, 2, 3, 4], [6, 7, 8, 10, 11])]
    >>> res = finalize_sums(combine_sums(combine_sums(parts[0], parts[1]), parts[2]))
    >>> mem = krippendorff_alpha(r, level="ordinal")
    >>> round(res.value, 3), abs(res.value - mem.value) < 1e-12
    (0.815, True)
    >>> abs(res.standard_error - mem.standard_error) < 1e-12
    True
    """
    if not isinstance(sums, PartialSums):
        raise TypeError(f"`sums` must be a PartialSums; got {type(sums).__name__}.")
    if sums.statistic == "krippendorff_alpha":
        return _finalize_alpha(sums, _stacklevel + 2)
    name = sums.statistic
    wts = Weights(sums.weights, sums.option,
                  not np.array_equal(sums.weights, np.eye(sums.weights.shape[0])), sums.notes)
    n_pop = _co._check_population(n_population)
    k, m = sums.schema.n_raters, sums.schema.n_categories

    def ss(beta: np.ndarray, center: float) -> float:
        return _quadratic(sums.second, sums.first, beta, center)

    if name == "light_kappa":
        stub = _Rows(np.empty((0, k), dtype=np.int8), m, sums.n_rows)
        return with_clip_note(light(stub, wts, n_pop, stats_from_sums(sums.first, k, m, ss)))
    queries = _co.DataQueries(
        ss=ss, check_scott=_scott_check(sums),
        cohen_null=lambda: (math.nan if sums.table is None
                            else cohen_from_table(sums.table, wts.matrix)[4]),
        fleiss_null=lambda: _fleiss_null(sums))
    return with_clip_note(_co.result_from_sums(
        name, sums.first, wts, n_pop, n_raters=k, n_categories=m, n_rows=sums.n_rows,
        queries=queries, stacklevel=_stacklevel + 1))


class _Rows:
    """What Light's κ reads of the ratings besides the sums (chunked data)."""

    def __init__(self, codes: np.ndarray, n_categories: int, n_items: int) -> None:
        self._codes, self.n_categories, self.n_items = codes, n_categories, n_items

    def require_raters(self, what: str) -> np.ndarray:
        return self._codes


def _fleiss_null(sums: PartialSums) -> float:
    """Fleiss, Nee & Landis (1979) SE of Fleiss' κ under H0 from the count-family sums
    (as :func:`agreement._null.fleiss_null_se`): NaN unless every rated item has the
    same number n ≥ 2 of ratings; then ``p_c = Σ_i a_ic / (N n) = Σ_i p_ic / N``."""
    n, n_items = sums.max_ratings, float(sums.first[0])
    if n_items < 1 or sums.min_ratings != n or n < 2:
        return math.nan
    m = sums.schema.n_categories
    p = sums.first[4:4 + m] / n_items
    pq = p * (1.0 - p)
    spq = float(pq.sum())
    if spq <= 0:
        return math.nan
    var0 = (2.0 / (n_items * n * (n - 1.0)) * (spq ** 2 - float((pq * (1.0 - 2.0 * p)).sum()))
            / spq ** 2)
    return math.sqrt(max(var0, 0.0))


# ----------------------------------------- the public functions over chunks
def _counts_suffice(name: str) -> bool:
    """Whether a statistic reads only each item's category counts (α at every level and
    the count family: percent agreement, Fleiss, Scott, Brennan–Prediger, Gwet)."""
    return name == "krippendorff_alpha" or SPECS[name].family == "count"


def _map_reduce_many(ratings: Any, jobs: list[tuple[str, dict]]) -> list[PartialSums]:
    """One pass over the chunks computing the partials of several statistics: over the
    engine's count chunks (``map_reduce_counts``, when it has them) if every statistic
    reads only the category counts, else over its chunks of ratings."""
    def partial(chunk: Ratings) -> tuple:
        return tuple(partial_sums(chunk, name, **opts) for name, opts in jobs)

    def combine(a: tuple, b: tuple) -> tuple:
        return tuple(combine_sums(x, y) for x, y in zip(a, b, strict=True))

    run = ratings.map_reduce
    if all(_counts_suffice(name) for name, _ in jobs):
        run = getattr(ratings, "map_reduce_counts", run)
    return list(run(partial, combine))


def coefficient_over_chunks(name: str, ratings: Any, *, weights: Any = None,
                            n_population: Any = None) -> AgreementResult:
    """The coefficient ``name`` of a chunked ratings object (its public function calls this)."""
    spec = SPECS[name]
    if spec.family != "count":
        ratings.schema.require_raters(f"`{name}`")
    weight_matrix(weights, ratings.schema)  # fail before any chunk is read
    n_pop = _co._check_population(n_population)
    (sums,) = _map_reduce_many(ratings, [(name, {"weights": weights})])
    return finalize_sums(sums, n_population=n_pop, _stacklevel=4)


def alpha_over_chunks(ratings: Any, *, level: str | None = None,
                      weights: Any = None) -> AgreementResult:
    """Krippendorff's α of a chunked ratings object (its public function calls this).

    The metric comes from ``level``; Gwet's ``weights`` need the ratings in memory.
    """
    if weights is not None:
        raise ValueError("`weights` with chunked ratings: Krippendorff's α over chunks "
                         "takes its metric from `level`; use in-memory ratings for a "
                         "weight matrix.")
    level = "nominal" if level is None else level
    _kr._krippendorff_alpha_iv(ratings.schema, level)
    (sums,) = _map_reduce_many(ratings, [("krippendorff_alpha", {"level": level})])
    return finalize_sums(sums, _stacklevel=4)


def table_over_chunks(ratings: Any, *, weights: Any = None,
                      names: Any = None) -> dict[str, PartialSums]:
    """The sums of every row of :func:`~agreement.agreement_table`, in two passes.

    Keyed by the coefficient's name, and ``"krippendorff_alpha:<level>"`` for α;
    a coefficient whose per-item vector is too long to carry is left out, and so
    is one not in ``names`` (default: all).
    """
    schema = ratings.schema
    weight_matrix(weights, schema)
    jobs: list[tuple[str, dict]] = []
    for name in SPECS:
        if names is not None and name not in names:
            continue
        ncol = _kernels.n_item_columns(SPECS[name].family, schema.n_raters,
                                       schema.n_categories)
        if ncol <= MAX_COLUMNS:
            jobs.append((name, {"weights": weights}))
    levels = ["nominal"] + (["ordinal", "interval"] if schema.ordered else [])
    if names is not None and "krippendorff_alpha" not in names:
        levels = []
    for lvl in levels:
        if lvl != "ordinal" or schema.n_categories <= MAX_ORDINAL_CATEGORIES:
            jobs.append(("krippendorff_alpha", {"level": lvl}))
    # two passes: the count-table statistics over the count chunks, the others (the
    # annotators' identity) over the chunks of ratings
    on_counts = [j for j in jobs if _counts_suffice(j[0])]
    on_ratings = [j for j in jobs if not _counts_suffice(j[0])]
    sums = [*(_map_reduce_many(ratings, on_counts) if on_counts else []),
            *(_map_reduce_many(ratings, on_ratings) if on_ratings else [])]
    jobs = on_counts + on_ratings
    out: dict[str, PartialSums] = {}
    for (name, opts), s in zip(jobs, sums, strict=True):
        key = name if name != "krippendorff_alpha" else f"{name}:{opts['level']}"
        out[key] = s
    return out
