"""Similarity-based instance-dependent noise (NoisywikiHow, Wu et al. 2023; SPEC §9).

Each item's hardest confusion is its most similar candidate of another class
(cosine similarity of embeddings): in the paper, an event of a separate pool of
events that are not in the data set, of a sibling class (same parent category)
for the sub-category source. Within each noise source (a group of classes), the
items most similar to their candidate are the hard cases, a share ``rate`` of each
source, and each is paired with its candidate's input (the paper) or, with no
pool, takes its neighbour's class.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.validation import Option, Rng, check_params, check_rng, validate_params
from simulation.noising._protocols import NoisyLabels

__all__ = ["SIMILAR_METHODS", "nearest_allowed", "nearest_other_class", "perturb_similar"]

#: The constructions of :func:`perturb_similar`: NoisywikiHow's, and the one of earlier
#: versions (neighbours in the data set, one count split over the sources, swaps allowed).
SIMILAR_METHODS = ("published", "in-data")

#: Rows of the similarity matrix computed at once: the block holds BLOCK × n floats.
_BLOCK_CELLS = 2**25


def _labels_iv(labels: Any, name: str = "labels", minimum: int = 2) -> pd.Series:
    if isinstance(labels, pd.Series):
        s = labels.copy()
    else:
        arr = np.asarray(labels)
        if arr.ndim != 1:
            raise ValueError(f"`{name}` must be one label per item (1-D); got shape {arr.shape}.")
        s = pd.Series(arr)
    if s.index.has_duplicates:
        raise ValueError(f"`{name}` repeats item ids; ids must be unique.")
    if s.isna().any():
        raise ValueError(f"`{name}` has {int(s.isna().sum())} missing labels; every item needs "
                         "one.")
    if len(s) < minimum:
        raise ValueError(f"`{name}` needs at least {'two items' if minimum == 2 else 'one item'}.")
    if s.index.name is None:
        s.index.name = "item"
    return s.rename("label")


def _embeddings_iv(embeddings: Any, items: pd.Index, name: str = "embeddings") -> np.ndarray:
    if isinstance(embeddings, (str, Path)):
        from simulation.scores import load_scores

        path = Path(embeddings)
        ids = items.to_numpy() if path.suffix == ".npy" else None
        scores = load_scores(path, items=items, kind="logits", ids=ids)
        # on to the checks below (a file's all-zero rows were used without them)
        arr = np.asarray(scores.values[0], dtype=np.float64)
    elif isinstance(embeddings, pd.DataFrame):
        missing = items.difference(embeddings.index)
        if len(missing):
            raise ValueError(f"`{name}` lacks {len(missing)} of the labelled items, e.g. "
                             f"{list(missing[:3])}.")
        arr = embeddings.reindex(items).to_numpy(dtype=np.float64)
    else:
        arr = np.asarray(embeddings, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != len(items):
        raise ValueError(f"`{name}` must be items × dimensions with one row per label "
                         f"({len(items)}); got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        raise ValueError(f"`{name}` has NaN or infinite values in rows {bad[:5].tolist()}.")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        raise ValueError(f"`{name}` has all-zero rows (no direction for a cosine): rows "
                         f"{np.flatnonzero(norms == 0)[:5].tolist()}.")
    return arr


def nearest_other_class(embeddings: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """For each row, the most cosine-similar row of another class, and that similarity.

    Exact search, in blocks of rows so that memory stays ``O(block · n)``: the
    products are float32 (BLAS), the reported similarity is recomputed in
    float64 for the neighbour found. Ties go to the lowest row.
    """
    x = np.asarray(embeddings, dtype=np.float64)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    unit32 = np.ascontiguousarray(unit, dtype=np.float32)
    n = len(codes)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    # Rows of each class are one contiguous run of the sorted order.
    starts = np.searchsorted(sorted_codes, np.unique(sorted_codes))
    ends = np.append(starts[1:], n)
    cols = unit32[order].T.copy()  # d × n, columns in class order
    neighbour = np.empty(n, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(n, 1))
    for s, e in zip(starts, ends, strict=True):
        rows = order[s:e]
        for lo in range(0, len(rows), block):
            r = rows[lo:lo + block]
            sim = unit32[r] @ cols
            sim[:, s:e] = -np.inf  # the item's own class (and itself)
            best = np.argmax(sim, axis=1)
            neighbour[r] = order[best]
    similarity = np.einsum("ij,ij->i", unit, unit[neighbour])
    return neighbour, similarity


def nearest_allowed(query: np.ndarray, query_codes: np.ndarray, pool: np.ndarray,
                    pool_codes: np.ndarray, allowed: np.ndarray,
                    exclude_self: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """For each query row, the most cosine-similar pool row whose class it may take.

    ``allowed[a, b]``: a query of class ``a`` may take a pool row of class ``b``.
    Returns the pool row (−1 where no pool row is allowed) and the similarity
    (NaN there). ``exclude_self``: the pool is the queries themselves (row ``i``
    is never its own neighbour). Exact, in blocks of query rows (memory
    ``O(block · n_pool)``): float32 products, the similarity of the neighbour
    found recomputed in float64. Ties go to the lowest pool row.
    """
    q = np.asarray(query, dtype=np.float64)
    p = np.asarray(pool, dtype=np.float64)
    q_unit = q / np.linalg.norm(q, axis=1, keepdims=True)
    p_unit = p / np.linalg.norm(p, axis=1, keepdims=True)
    cols = np.ascontiguousarray(p_unit.T, dtype=np.float32)
    q32 = np.ascontiguousarray(q_unit, dtype=np.float32)
    n, n_pool = len(query_codes), len(pool_codes)
    neighbour = np.full(n, -1, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(n_pool, 1))
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        sim = q32[lo:hi] @ cols
        ok = allowed[query_codes[lo:hi]][:, pool_codes]
        if exclude_self:
            ok[np.arange(hi - lo), np.arange(lo, hi)] = False
        sim[~ok] = -np.inf
        best = np.argmax(sim, axis=1)
        found = ok[np.arange(hi - lo), best]
        neighbour[lo:hi] = np.where(found, best, -1)
    has = neighbour >= 0
    similarity = np.full(n, np.nan)
    similarity[has] = np.einsum("ij,ij->i", q_unit[has], p_unit[neighbour[has]])
    return neighbour, similarity


def _split(count: int, sizes: np.ndarray) -> np.ndarray:
    """``count`` split over sources in proportion to their sizes, by largest remainders."""
    raw = count * sizes / sizes.sum()
    parts = np.floor(raw).astype(np.int64)
    rest = count - int(parts.sum())
    if rest:
        parts[np.argsort(-(raw - parts), kind="stable")[:rest]] += 1
    return parts


def _pool_iv(pool_labels: Any, pool_embeddings: Any, items: pd.Index, dim: int
             ) -> tuple[pd.Series, np.ndarray]:
    """The neighbour pool's labels and vectors, without the data set's own items."""
    if (pool_labels is None) != (pool_embeddings is None):
        raise ValueError("`pool_labels` and `pool_embeddings` go together: the pool's classes "
                         "and its vectors (give both, or neither).")
    plabels = _labels_iv(pool_labels, "pool_labels", minimum=1)
    pemb = _embeddings_iv(pool_embeddings, plabels.index, "pool_embeddings")
    if pemb.shape[1] != dim:
        raise ValueError(f"`pool_embeddings` has {pemb.shape[1]} dimensions and `embeddings` "
                         f"{dim}: both must come from the same encoder.")
    if isinstance(pool_labels, pd.Series):
        keep = ~plabels.index.isin(items)  # D_h − D: the data set's items are not candidates
        plabels, pemb = plabels[keep], pemb[keep]
        if not len(plabels):
            raise ValueError("every item of the pool is an item of `labels`: the pool holds "
                             "the candidates outside the data set.")
    return plabels, pemb


def _allowed(classes: pd.Index, parents: Any) -> np.ndarray:
    """``allowed[a, b]``: an item of class ``a`` may take a candidate of class ``b``
    (another class; of the same parent when ``a`` has one)."""
    k = len(classes)
    allowed = ~np.eye(k, dtype=bool)
    if parents is None:
        return allowed
    if not isinstance(parents, Mapping):
        raise TypeError("`parents` must be a mapping {class: parent class}.")
    parent = np.array([parents.get(c) for c in classes], dtype=object)
    for a in range(k):
        if parent[a] is not None:
            allowed[a] &= np.array([p == parent[a] for p in parent], dtype=bool)
    return allowed


@validate_params(rng=Rng(), method=Option(SIMILAR_METHODS))
def perturb_similar(labels: Any, embeddings: Any, *, rate: float, sources: Any = None,
                    pool_labels: Any = None, pool_embeddings: Any = None,
                    parents: Any = None, method: str = "published",
                    rng: Any = None) -> NoisyLabels:
    """Similarity-based instance-dependent noise (NoisywikiHow's construction).

    Each item's hardest confusion is its most similar candidate of another class
    (cosine similarity of ``embeddings``), its score ``s_x``. Within each noise
    source, the share ``rate`` of the items with the highest score are the hard
    cases, and each is corrupted with its candidate.

    ``method="published"`` (default) follows Wu et al. (2023, §3.3):

    - **a separate pool of candidates** (``pool_labels``, ``pool_embeddings``): the
      candidates are the pool's items that are not items of ``labels``
      (``D_n = D_h − D``); a hard case keeps its label and its input is replaced by
      its candidate's — an input of another class, which need not be one of the
      data set's classes. The labels do not change; ``changed`` marks the
      replaced inputs, ``neighbour`` the pool item whose input replaces each one
      and ``neighbour_class`` its class. No candidate is itself corrupted, so no two
      items swap.
    - **the same parent class where given** (``parents``, the paper's sub-category
      source SC: "all other sub-categories except y under the same category"): the
      candidates of an item whose class has a parent are of the other classes with
      that parent; classes without a parent (BCC, TC) take any other class.
    - **per-source counts exact**: each source changes ``round(rate · size)`` of its
      own items (halves up): "the top t of the samples in each source".
    - **without a pool**, the candidates are the data set's other items (the paper
      has no such case), the hard case takes its neighbour's class, and no swaps: a
      changed item's neighbour is never changed itself (the items are taken in
      decreasing score across sources; one whose neighbour is changed, or that is
      the neighbour of a changed item, is passed over). Should a source run out of
      items that keep this rule, the rest of its count is taken from those passed
      over, in order, with a warning.

    ``method="in-data"`` is the construction of goldnoise before this option:
    neighbours among the data set's items of any other class (no pool; ``parents``
    refused), ``round(rate · n)`` changes in all split over the sources by largest
    remainders (a small source can get none, and a source's count can differ from
    its own ``round(rate · size)`` by one), and an item may take the class of a
    neighbour that changes too (mutual nearest neighbours of two classes swap
    labels: about half the changes of a typical data set at rate 0.1).

    Parameters
    ----------
    labels : pandas.Series or array_like, shape (n,)
        The clean labels, indexed by item id (a Series) or in item order.
    embeddings : array_like (n, d), pandas.DataFrame indexed by item id, or path
        One vector per item: an array in the order of ``labels``, a DataFrame
        aligned by id, or a file read by id through :func:`load_scores`
        (``.npz`` with ``ids`` and the vectors as ``logits``; ``.npy`` rows in
        the order of ``labels``; ``.parquet``/``.csv`` with an ``id`` column and
        one column per dimension).
    rate : float
        Share of each source's items to change, in [0, 1]; NoisywikiHow uses 0.1,
        0.2, 0.4, 0.6.
    sources : mapping {class: source}, optional
        Noise sources: groups of classes whose items are ranked together.
        Every class of ``labels`` must be mapped. Default: one source.
    pool_labels, pool_embeddings : optional
        The pool of candidates (the paper's ``D_h``), as ``labels`` and
        ``embeddings`` (same encoder). Items of the pool whose id is an item of
        ``labels`` (both Series) are not candidates. Published method only.
    parents : mapping {class: parent class}, optional
        Parent classes (categories of sub-categories), of the data set's and the
        pool's classes; an item of a class with a parent takes candidates of the
        other classes with the same parent only. Published method only.
    method : {"published", "in-data"}, default "published"
        The construction (above).
    rng : None, int or numpy.random.Generator
        Breaks ties between equally similar items (seeded).

    Returns
    -------
    NoisyLabels
        ``protocol`` is ``"perturb_similar"`` for the changed items, and the
        provenance of every item: ``neighbour`` (its candidate's id: a pool item
        or an item of ``labels``; None where it has none), ``similarity`` (its
        score, NaN without a candidate), ``noise_source``, and for the published
        method ``neighbour_class`` (the candidate's class).

    Raises
    ------
    ValueError
        For fewer than two classes, a class without a source, embeddings that do
        not match the labels (shape, ids, NaN, zero rows), a pool of another
        dimension, or a rate outside [0, 1].

    Notes
    -----
    The search is exact: cosine similarities of every pair, in blocks of rows
    (memory ``O(block · n)``, never ``n²``: at 1e5 × 768 the call's peak is about
    2.2× the embeddings, 1.2 GB). Within a source, equal scores are ordered at
    random by the seed. A source with ``rate · size < 0.5`` gets no change.

    References
    ----------
    .. [1] Wu, T., Ding, X., Zhang, H., Gao, J., Tang, M., Du, L., Qin, B. & Liu, T.
       (2023). NoisywikiHow: A benchmark for learning with real-world noisy labels
       in natural language processing. Findings of ACL 2023.
       https://doi.org/10.18653/v1/2023.findings-acl.299

    Examples
    --------
    Without a pool, the most similar items take their neighbour's class, and no two
    swap:

    >>> import numpy as np
    >>> emb = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [0.8, 0.6]])
    >>> noisy = perturb_similar([0, 0, 1, 1, 1], emb, rate=0.4, rng=0)
    >>> noisy
    NoisyLabels(2 of 5 items changed: perturb_similar 2)
    >>> noisy.to_frame().loc[noisy.changed, ["label", "clean", "neighbour", "similarity"]]
          label  clean neighbour  similarity
    item
    0         1      0         4    0.800000
    1         1      0         4    0.861366

    Items 1 and 4 are each other's nearest neighbour of another class: item 4 stays
    clean as item 1's neighbour, and the next most similar item, 0, changes instead.
    ``method="in-data"`` changes 1 and 4, swapping their labels.

    >>> perturb_similar([0, 0, 1, 1, 1], emb, rate=0.4, method="in-data", rng=0).labels.tolist()
    [0, 1, 1, 1, 0]

    With a pool, the hard cases keep their labels and take the input of a pool item
    of another class (here a class the data set does not have):

    >>> import pandas as pd
    >>> pool = pd.Series(["a", "b", "z"], index=["p1", "p2", "p3"])
    >>> pool_emb = np.array([[0.9, 0.2], [0.2, 0.9], [0.6, 0.6]])
    >>> data = pd.Series(["a", "a", "b", "b"], index=["x1", "x2", "x3", "x4"])
    >>> noisy = perturb_similar(data, emb[:4], rate=0.5, pool_labels=pool,
    ...                         pool_embeddings=pool_emb, rng=0)
    >>> noisy.to_frame()[["label", "changed", "neighbour", "neighbour_class"]]
         label  changed neighbour neighbour_class
    item
    x1       a    False        p3               z
    x2       a     True        p3               z
    x3       b    False        p3               z
    x4       b     True        p3               z
    """
    check_params(perturb_similar, locals())
    clean = _labels_iv(labels)
    items = clean.index
    emb = _embeddings_iv(embeddings, items)
    classes = pd.Index(pd.unique(clean.to_numpy()))
    if len(classes) < 2:
        raise ValueError("`labels` hold one class: there is no other class to confuse it with.")
    codes = classes.get_indexer(clean.to_numpy()).astype(np.int64)
    n = len(clean)
    rate = _rate_iv(rate)
    source_of = _sources_iv(sources, classes, clean)
    gen = check_rng(rng)
    idx = pd.Index(items, name=items.name or "item")
    if method == "in-data":
        if pool_labels is not None or pool_embeddings is not None or parents is not None:
            raise ValueError("method='in-data' finds neighbours among the data set's own "
                             "items of any class: `pool_labels`, `pool_embeddings` and "
                             "`parents` belong to method='published'.")
        return _in_data(clean, emb, classes, codes, rate, source_of, gen, idx)
    names = pd.unique(source_of)
    source_code = pd.Index(names).get_indexer(source_of)
    sizes = np.bincount(source_code, minlength=len(names))
    left = np.floor(rate * sizes + 0.5).astype(np.int64)  # per source, halves up
    tiebreak = gen.random(n)
    if pool_labels is None and pool_embeddings is None:
        changed, neighbour, similarity = _within_data(emb, codes, classes, parents, source_code,
                                                      left, tiebreak)
        new, ids, cand_class, cand_codes = codes.copy(), items.to_numpy(), classes, codes
        new[changed] = codes[neighbour[changed]]
    else:
        changed, neighbour, similarity, ids, cand_class, cand_codes = _from_pool(
            emb, codes, parents, pool_labels, pool_embeddings, classes, items, source_code,
            left, tiebreak)
        new = codes
    short = {str(names[s]): int(left[s]) for s in range(len(names)) if left[s] > 0}
    if short:
        warnings.warn(f"perturb_similar: too few items with a candidate to change "
                      f"round(rate · size) in every source; short by {short} (no candidate "
                      "of an allowed class: see `parents`).", UserWarning, stacklevel=2)
    has = neighbour >= 0
    nb_ids = np.full(n, None, dtype=object)
    nb_ids[has] = ids[neighbour[has]]
    nb_class = np.full(n, None, dtype=object)
    nb_class[has] = np.asarray(cand_class, dtype=object)[cand_codes[neighbour[has]]]
    protocol = np.where(changed, "perturb_similar", None).astype(object)
    return NoisyLabels(
        pd.Series(classes[new], index=idx, name="label"), changed, protocol,
        np.full(n, None, dtype=object), pd.Series(classes[codes], index=idx, name="clean"),
        neighbour=nb_ids, similarity=similarity, noise_source=source_of,
        neighbour_class=nb_class)


def _rate_iv(rate: Any) -> float:
    """``rate`` as a float in [0, 1], the share of items to change."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)):
        raise TypeError(f"`rate` must be a number in [0, 1]; got {rate!r}.")
    if not (math.isfinite(float(rate)) and 0 <= float(rate) <= 1):
        raise ValueError(f"`rate` must be in [0, 1] (the share of items to change); got "
                         f"{rate!r}.")
    return float(rate)


def _sources_iv(sources: Any, classes: pd.Index, clean: pd.Series) -> np.ndarray:
    """Each item's noise source, from the mapping ``sources`` of its class (default:
    one source, ``"all"``)."""
    if sources is None:
        return np.full(len(clean), "all", dtype=object)
    if not isinstance(sources, Mapping):
        raise TypeError("`sources` must be a mapping {class: source name}.")
    unmapped = [c for c in classes if c not in sources]
    if unmapped:
        raise ValueError(f"`sources` does not map the classes {unmapped[:5]}; map every "
                         "class to a source.")
    return np.array([sources[c] for c in clean.to_numpy()], dtype=object)


def _within_data(emb: np.ndarray, codes: np.ndarray, classes: pd.Index, parents: Any,
                 source_code: np.ndarray, left: np.ndarray, tiebreak: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The items changed to their nearest neighbour's class among the data's own items
    (most similar first, ``left[s]`` of source ``s``, counted down), each neighbour and
    its similarity: a changed item's neighbour stays clean while the rate allows."""
    n = len(codes)
    changed = np.zeros(n, dtype=bool)
    allowed = _allowed(classes, parents)
    neighbour, similarity = nearest_allowed(emb, codes, emb, codes, allowed,
                                            exclude_self=True)
    has = neighbour >= 0
    order = np.lexsort((tiebreak, -np.where(has, similarity, -np.inf)))
    order = order[has[order]]
    is_neighbour = np.zeros(n, dtype=bool)
    passed: list[int] = []
    for i in order:
        s = source_code[i]
        if left[s] == 0:
            continue
        j = neighbour[i]
        if changed[j] or is_neighbour[i]:
            passed.append(i)
            continue
        changed[i] = True
        is_neighbour[j] = True
        left[s] -= 1
    relaxed = 0
    for i in passed:
        s = source_code[i]
        if left[s] > 0 and not changed[i]:
            changed[i] = True
            left[s] -= 1
            relaxed += 1
    if relaxed:
        warnings.warn(f"perturb_similar: {relaxed} of the changes take the class of a "
                      "neighbour that changes too (too few items at this rate keep "
                      "every changed item's neighbour clean); a separate pool "
                      "(`pool_labels`, `pool_embeddings`) avoids it.", UserWarning,
                      stacklevel=3)
    return changed, neighbour, similarity


def _from_pool(emb: np.ndarray, codes: np.ndarray, parents: Any, pool_labels: Any,
               pool_embeddings: Any, classes: pd.Index, items: pd.Index,
               source_code: np.ndarray, left: np.ndarray, tiebreak: np.ndarray) -> tuple:
    """The items given a pool item's input (most similar first, ``left[s]`` of source
    ``s``, counted down), each one's pool neighbour and similarity, the pool's ids, its
    classes (the data's first) and their codes."""
    changed = np.zeros(len(codes), dtype=bool)
    plabels, pemb = _pool_iv(pool_labels, pool_embeddings, items, emb.shape[1])
    cand_class = classes.append(pd.Index(pd.unique(plabels.to_numpy()))
                                .difference(classes, sort=False))
    cand_codes = cand_class.get_indexer(plabels.to_numpy()).astype(np.int64)
    allowed = _allowed(cand_class, parents)
    neighbour, similarity = nearest_allowed(emb, codes, pemb, cand_codes, allowed)
    has = neighbour >= 0
    for s in range(len(left)):
        member = np.flatnonzero((source_code == s) & has)
        rank = np.lexsort((tiebreak[member], -similarity[member]))
        changed[member[rank[:left[s]]]] = True
        left[s] -= min(left[s], member.size)
    return changed, neighbour, similarity, plabels.index.to_numpy(), cand_class, cand_codes


def _in_data(clean: pd.Series, emb: np.ndarray, classes: pd.Index, codes: np.ndarray,
             rate: float, source_of: np.ndarray, gen: np.random.Generator,
             idx: pd.Index) -> NoisyLabels:
    """``method="in-data"``: the construction of earlier versions, unchanged."""
    items = clean.index
    n = len(clean)
    count = math.floor(rate * n + 0.5)
    neighbour, similarity = nearest_other_class(emb, codes)
    names = pd.unique(source_of)
    member = [np.flatnonzero(source_of == s) for s in names]
    parts = _split(count, np.array([len(m) for m in member], dtype=np.float64))
    new = codes.copy()
    changed = np.zeros(n, dtype=bool)
    tiebreak = gen.random(n)
    for idx_s, c in zip(member, parts, strict=True):
        if c == 0:
            continue
        # most similar first; ties in random order
        rank = np.lexsort((tiebreak[idx_s], -similarity[idx_s]))
        chosen = idx_s[rank[:c]]
        new[chosen] = codes[neighbour[chosen]]
        changed[chosen] = True
    protocol = np.where(changed, "perturb_similar", None).astype(object)
    return NoisyLabels(
        pd.Series(classes[new], index=idx, name="label"), changed, protocol,
        np.full(n, None, dtype=object), pd.Series(classes[codes], index=idx, name="clean"),
        neighbour=items.to_numpy()[neighbour], similarity=similarity, noise_source=source_of)
