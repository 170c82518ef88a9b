"""Similarity-based instance-dependent noise (NoisywikiHow, Wu et al. 2023; SPEC §9).

Each item's hardest confusion is its most similar item of another class (cosine
similarity of embeddings). Within each noise source (a group of classes), the
items most similar to another class are the hard cases, and they take that
neighbour's class.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.validation import Rng, check_params, check_rng, validate_params
from simulation.noising._protocols import NoisyLabels

__all__ = ["nearest_other_class", "perturb_similar"]

#: Rows of the similarity matrix computed at once: the block holds BLOCK × n floats.
_BLOCK_CELLS = 2**25


def _labels_iv(labels: Any) -> pd.Series:
    if isinstance(labels, pd.Series):
        s = labels.copy()
    else:
        arr = np.asarray(labels)
        if arr.ndim != 1:
            raise ValueError(f"`labels` must be one label per item (1-D); got shape {arr.shape}.")
        s = pd.Series(arr)
    if s.index.has_duplicates:
        raise ValueError("`labels` repeats item ids; ids must be unique.")
    if s.isna().any():
        raise ValueError(f"`labels` has {int(s.isna().sum())} missing labels; every item needs "
                         "one.")
    if len(s) < 2:
        raise ValueError("`labels` needs at least two items.")
    if s.index.name is None:
        s.index.name = "item"
    return s.rename("label")


def _embeddings_iv(embeddings: Any, items: pd.Index) -> np.ndarray:
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
            raise ValueError(f"`embeddings` lacks {len(missing)} of the labelled items, e.g. "
                             f"{list(missing[:3])}.")
        arr = embeddings.reindex(items).to_numpy(dtype=np.float64)
    else:
        arr = np.asarray(embeddings, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != len(items):
        raise ValueError(f"`embeddings` must be items × dimensions with one row per label "
                         f"({len(items)}); got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        raise ValueError(f"`embeddings` has NaN or infinite values in rows {bad[:5].tolist()}.")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        raise ValueError("`embeddings` has all-zero rows (no direction for a cosine): rows "
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


def _split(count: int, sizes: np.ndarray) -> np.ndarray:
    """``count`` split over sources in proportion to their sizes, by largest remainders."""
    raw = count * sizes / sizes.sum()
    parts = np.floor(raw).astype(np.int64)
    rest = count - int(parts.sum())
    if rest:
        parts[np.argsort(-(raw - parts), kind="stable")[:rest]] += 1
    return parts


@validate_params(rng=Rng())
def perturb_similar(labels: Any, embeddings: Any, *, rate: float, sources: Any = None,
                    rng: Any = None) -> NoisyLabels:
    """Similarity-based instance-dependent noise (NoisywikiHow's construction).

    Each item's candidate error is its most similar item of another class
    (cosine similarity of ``embeddings``). Within each noise source the
    ``rate`` share of items whose candidate is most similar are the hard cases,
    and each takes its neighbour's class.

    The paper keeps an item's label and swaps its input for the neighbour's
    (Wu et al. 2023, §3.2); with labels only, the label changes to the
    neighbour's class — the same pairing of an input with the wrong class.

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
        Share of items to change, in [0, 1]; NoisywikiHow uses 0.1, 0.2, 0.4, 0.6.
    sources : mapping {class: source}, optional
        Noise sources: groups of classes whose items are ranked together.
        Every class must be mapped. Default: one source.
    rng : None, int or numpy.random.Generator
        Breaks ties between equally similar items (seeded).

    Returns
    -------
    NoisyLabels
        ``protocol`` is ``"perturb_similar"`` for the changed items, and the
        provenance of every change: ``neighbour`` (the neighbour's item id),
        ``similarity`` (its cosine similarity) and ``noise_source`` (each item's
        source; kept for every item, changed or not).

    Raises
    ------
    ValueError
        For fewer than two classes, a class without a source, embeddings that do
        not match the labels (shape, ids, NaN, zero rows), or a rate outside [0, 1].

    Notes
    -----
    ``round(rate · n)`` items change in all (halves up), split over the sources
    in proportion to their sizes by largest remainders, as :func:`mix_protocols`
    splits its count; within a source the items are ranked by the similarity
    to their neighbour (ties broken at random by the seed). The search is
    exact: cosine similarities of every pair, in blocks of rows (memory
    ``O(block · n)``, never ``n²``: at 1e5 × 768 the call's peak is about 2.2× the
    embeddings, 1.2 GB).

    References
    ----------
    .. [1] Wu, T., Ding, X., Zhang, H., Gao, J., Tang, M., Du, L., Qin, B. & Liu, T.
       (2023). NoisywikiHow: A benchmark for learning with real-world noisy labels
       in natural language processing. Findings of ACL 2023.
       https://doi.org/10.18653/v1/2023.findings-acl.299

    Examples
    --------
    >>> import numpy as np
    >>> emb = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [0.8, 0.6]])
    >>> noisy = perturb_similar([0, 0, 1, 1, 1], emb, rate=0.4, rng=0)
    >>> noisy
    NoisyLabels(2 of 5 items changed: perturb_similar 2)
    >>> noisy.to_frame().loc[noisy.changed, ["label", "clean", "neighbour", "similarity"]]
          label  clean  neighbour  similarity
    item
    1         1      0          4    0.861366
    4         0      1          1    0.861366
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
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)):
        raise TypeError(f"`rate` must be a number in [0, 1]; got {rate!r}.")
    if not (math.isfinite(float(rate)) and 0 <= float(rate) <= 1):
        raise ValueError(f"`rate` must be in [0, 1] (the share of items to change); got "
                         f"{rate!r}.")
    count = math.floor(float(rate) * n + 0.5)
    if sources is None:
        source_of = np.full(n, "all", dtype=object)
    else:
        if not isinstance(sources, Mapping):
            raise TypeError("`sources` must be a mapping {class: source name}.")
        unmapped = [c for c in classes if c not in sources]
        if unmapped:
            raise ValueError(f"`sources` does not map the classes {unmapped[:5]}; map every "
                             "class to a source.")
        source_of = np.array([sources[c] for c in clean.to_numpy()], dtype=object)
    gen = check_rng(rng)
    neighbour, similarity = nearest_other_class(emb, codes)
    names = pd.unique(source_of)
    member = [np.flatnonzero(source_of == s) for s in names]
    parts = _split(count, np.array([len(m) for m in member], dtype=np.float64))
    new = codes.copy()
    changed = np.zeros(n, dtype=bool)
    tiebreak = gen.random(n)
    for idx, c in zip(member, parts, strict=True):
        if c == 0:
            continue
        # most similar first; ties in random order
        rank = np.lexsort((tiebreak[idx], -similarity[idx]))
        chosen = idx[rank[:c]]
        new[chosen] = codes[neighbour[chosen]]
        changed[chosen] = True
    protocol = np.where(changed, "perturb_similar", None).astype(object)
    idx = pd.Index(items, name=items.name or "item")
    return NoisyLabels(
        pd.Series(classes[new], index=idx, name="label"), changed, protocol,
        np.full(n, None, dtype=object), pd.Series(classes[codes], index=idx, name="clean"),
        neighbour=items.to_numpy()[neighbour], similarity=similarity, noise_source=source_of)
