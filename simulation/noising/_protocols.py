"""Realistic noisy labels from multi-annotator data, with the provenance of every change.

The protocols of Chong, Hong & Manning (2022, §4.2) — artificial
perturbation, dissenting label, dissenting worker — and class-conditional
flips and crowd-majority errors, each changing exactly ``round(rate · n)``
items of a reference labelling, seeded, and mixtures of them (SPEC §3).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.messages import few
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Probability,
    Rng,
    check_params,
    check_probability,
    check_rng,
    validate_params,
)
from agreement import Ratings, as_ratings

__all__ = [
    "PROTOCOLS",
    "NoisyLabels",
    "crowd_majority",
    "dissenting_label",
    "dissenting_worker",
    "mix_protocols",
    "perturb_class_conditional",
    "perturb_uniform",
]


@dataclass(frozen=True, repr=False, eq=False)
class NoisyLabels(Result):
    """Labels with injected errors, and where each came from.

    Attributes
    ----------
    labels : pandas.Series
        The noisy labels, indexed by item id (category names of the ratings).
    changed : ndarray of bool, shape (n,)
        Whether the item's label was changed (the injected errors).
    protocol : ndarray of object, shape (n,)
        The protocol that changed the item, ``None`` where unchanged.
    source_annotator : ndarray of object, shape (n,)
        The annotator whose label was used (dissenting protocols), else ``None``.
    clean : pandas.Series
        The reference labels the errors were injected into.
    neighbour, similarity, noise_source : ndarray, shape (n,), optional
        :func:`perturb_similar` only: each item's candidate, its most similar
        item of another class (its id: a pool item or an item of the data set),
        their cosine similarity, and the item's noise source.
    neighbour_class : ndarray, shape (n,), optional
        :func:`perturb_similar` (published method) only: the candidate's class.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
    >>> noisy = dissenting_label(x, [0, 1, 0, 1], rate=0.5, rng=0)
    >>> noisy
    NoisyLabels(2 of 4 items changed: dissenting_label 2)
    >>> noisy.to_frame()
          label  clean  changed          protocol source_annotator
    item
    0         0      0    False              None             None
    1         1      1    False              None             None
    2         1      0     True  dissenting_label                1
    3         0      1     True  dissenting_label                1

    ``to_frame()``: one row per item: ``label``, ``clean``, ``changed``, ``protocol``, ``source_annotator``.
    """

    labels: pd.Series
    changed: np.ndarray
    protocol: np.ndarray
    source_annotator: np.ndarray
    clean: pd.Series
    neighbour: np.ndarray | None = None
    similarity: np.ndarray | None = None
    noise_source: np.ndarray | None = None
    neighbour_class: np.ndarray | None = None

    @property
    def is_error(self) -> pd.Series:
        """``changed`` as a Series indexed by item id (the truth for detection)."""
        return pd.Series(self.changed, index=self.labels.index, name="is_error")

    @property
    def n_changed(self) -> int:
        return int(self.changed.sum())

    def protocol_counts(self) -> dict[str, int]:
        """Changed items per protocol."""
        vals, counts = np.unique(self.protocol[self.changed].astype(str), return_counts=True)
        return {str(v): int(c) for v, c in zip(vals, counts, strict=True)}

    def to_frame(self) -> pd.DataFrame:
        """One row per item: ``label``, ``clean``, ``changed``, ``protocol``, ``source_annotator``
        (and ``neighbour``, ``similarity``, ``noise_source``, ``neighbour_class`` from
        :func:`perturb_similar`)."""
        frame = pd.DataFrame({
            "label": self.labels.to_numpy(), "clean": self.clean.to_numpy(),
            "changed": self.changed,
            "protocol": pd.Series(self.protocol, dtype=object, index=self.labels.index),
            "source_annotator": pd.Series(self.source_annotator, dtype=object,
                                          index=self.labels.index),
        }, index=self.labels.index)
        if self.neighbour is not None:
            frame = frame.drop(columns="source_annotator")
            frame["neighbour"] = self.neighbour
            frame["similarity"] = self.similarity
            frame["noise_source"] = self.noise_source
        if self.neighbour_class is not None:
            frame["neighbour_class"] = self.neighbour_class
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Counts."""
        return {"n_items": len(self.changed), "n_changed": self.n_changed,
                **{f"n_{k}": v for k, v in self.protocol_counts().items()}}

    def __repr__(self) -> str:
        parts = ", ".join(f"{k} {v}" for k, v in self.protocol_counts().items())
        return (f"NoisyLabels({self.n_changed} of {len(self.changed)} items changed"
                f"{': ' + parts if parts else ''})")


class _State:
    """Codes of the reference and the noisy labels while protocols are applied."""

    def __init__(self, ratings: Ratings, ref: np.ndarray) -> None:
        self.r = ratings
        self.ref = ref
        self.new = ref.copy()
        self.changed = np.zeros(len(ref), dtype=bool)
        self.protocol = np.full(len(ref), None, dtype=object)
        self.source = np.full(len(ref), None, dtype=object)

    def apply(self, items: np.ndarray, labels: np.ndarray, name: str,
              sources: np.ndarray | None = None) -> None:
        self.new[items] = labels
        self.changed[items] = True
        self.protocol[items] = name
        if sources is not None:
            self.source[items] = np.asarray(self.r.raters, dtype=object)[sources]

    def result(self) -> NoisyLabels:
        cats = self.r.categories
        idx = pd.Index(self.r.items, name="item")
        return NoisyLabels(
            pd.Series(cats[self.new], index=idx, name="label"), self.changed,
            self.protocol, self.source, pd.Series(cats[self.ref], index=idx, name="clean"),
        )


_RATE = "a number in [0, 1] (the share of items to change)"


def _count(rate: Any, n: int) -> int:
    r = check_probability(rate, "rate", what=_RATE)
    return math.floor(r * n + 0.5)  # round(rate · n), halves up


def _reference_codes(r: Ratings, reference: Any) -> np.ndarray:
    if isinstance(reference, pd.Series):
        if not reference.index.is_unique:
            raise ValueError("`reference` repeats item ids.")
        missing = r.items.difference(reference.index)
        if len(missing):
            raise ValueError(f"`reference` lacks {len(missing)} of the rated items: "
                             f"{few(missing.to_numpy())}.")
        values = reference.reindex(r.items).to_numpy()
    else:
        values = np.asarray(reference)
        if values.ndim != 1 or len(values) != r.n_items:
            raise ValueError(
                f"`reference` must have one label per item ({r.n_items}); got shape "
                f"{values.shape}. Pass a Series indexed by item id to align by id."
            )
    codes = r.categories.get_indexer(values)
    bad = codes < 0
    if bad.any():
        raise ValueError(
            f"`reference` has labels that are not categories of the ratings "
            f"{list(r.categories)[:10]}: {few(pd.unique(values[bad]))}."
        )
    return codes.astype(np.int64)


def _setup(ratings: Any, reference: Any, rate: Any, rng: Any) -> tuple[_State, int, Any]:
    r = as_ratings(ratings)
    if r.n_categories < 2:
        raise ValueError("the ratings have one category: there is no other label to change to.")
    ref = _reference_codes(r, reference)
    return _State(r, ref), _count(rate, r.n_items), check_rng(rng)


def _too_few(name: str, wanted: int, possible: int, why: str) -> ValueError:
    return ValueError(
        f"`{name}` cannot change {wanted} items: only {possible} can be changed ({why}). "
        f"Lower `rate` to at most {possible} items or use another protocol."
    )


# ----------------------------------------------------------------- protocols
def _uniform(st: _State, count: int, gen: np.random.Generator, free: np.ndarray) -> None:
    pool = np.flatnonzero(free)
    if count > pool.size:
        raise _too_few("perturb_uniform", count, int(pool.size), "items not yet changed")
    items = np.sort(gen.choice(pool, size=count, replace=False))
    m = st.r.n_categories
    shift = gen.integers(1, m, size=count)  # any other class, uniformly
    st.apply(items, (st.ref[items] + shift) % m, "perturb_uniform")


def _class_conditional(st: _State, count: int, gen: np.random.Generator, free: np.ndarray,
                       transition: Any) -> None:
    m = st.r.n_categories
    t = _transition(transition, m)
    off = t.copy()
    np.fill_diagonal(off, 0.0)
    flip = off.sum(axis=1)  # P(label changes | class)
    weight = flip[st.ref] * free
    pool = np.flatnonzero(weight > 0)
    if count == 0:
        return
    if count > pool.size:
        raise _too_few("perturb_class_conditional", count, int(pool.size),
                       "items not yet changed whose class has a non-zero flip probability")
    p = weight[pool] / weight[pool].sum()
    items = np.sort(gen.choice(pool, size=count, replace=False, p=p))
    rows = off[st.ref[items]]
    rows /= rows.sum(axis=1, keepdims=True)
    u = gen.random(count)[:, None]
    new = np.minimum((rows.cumsum(axis=1) < u).sum(axis=1), m - 1)
    st.apply(items, new, "perturb_class_conditional")


def _transition(transition: Any, m: int) -> np.ndarray:
    if transition is None:
        raise TypeError("`perturb_class_conditional` needs `transition=` (classes × classes).")
    try:
        t = np.array(transition, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`transition` must be a {m} × {m} matrix of probabilities.") from None
    if t.shape != (m, m):
        raise ValueError(f"`transition` must be {m} × {m} (classes of the ratings); got {t.shape}.")
    if not np.isfinite(t).all() or (t < 0).any() or (np.abs(t.sum(axis=1) - 1) > 1e-9).any():
        raise ValueError("`transition` rows must be probabilities summing to 1: "
                         "row c is P(noisy label | true class c).")
    return t


def _dissents(st: _State) -> tuple[np.ndarray, np.ndarray]:
    codes = st.r.require_raters("a dissenting protocol")
    return codes, (codes >= 0) & (codes != st.ref[:, None])


def _dissenting_label(st: _State, count: int, gen: np.random.Generator, free: np.ndarray) -> None:
    codes, dis = _dissents(st)
    pool = np.flatnonzero(dis.any(axis=1) & free)
    if count > pool.size:
        raise _too_few("dissenting_label", count, int(pool.size),
                       "items not yet changed on which some annotator disagrees with the "
                       "reference")
    items = np.sort(gen.choice(pool, size=count, replace=False))
    sources = np.empty(count, dtype=np.int64)
    for t, i in enumerate(items):
        js = np.flatnonzero(dis[i])  # each dissenting rating equally likely
        sources[t] = js[gen.integers(js.size)]
    st.apply(items, codes[items, sources], "dissenting_label", sources)


def _dissenting_worker(st: _State, count: int, gen: np.random.Generator,
                       free: np.ndarray) -> None:
    codes, dis = _dissents(st)
    dis = dis & free[:, None]
    possible = int(dis.any(axis=1).sum())
    if count > possible:
        raise _too_few("dissenting_worker", count, possible,
                       "items not yet changed on which some annotator disagrees with the "
                       "reference")
    todo = count
    taken = ~free.copy()
    order = gen.permutation(st.r.n_raters)  # annotators in random order, each used once
    for j in order:
        if todo == 0:
            break
        items = np.flatnonzero(dis[:, j] & ~taken)
        if items.size == 0:
            continue
        if items.size > todo:  # the last annotator's dissents, subsampled
            items = np.sort(gen.choice(items, size=todo, replace=False))
        st.apply(items, codes[items, j], "dissenting_worker", np.full(items.size, j))
        taken[items] = True
        todo -= items.size


def _crowd_majority(st: _State, count: int, gen: np.random.Generator, free: np.ndarray,
                    threshold: Any) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or \
            not 0 < float(threshold) <= 1:
        raise ValueError(f"`threshold` must be in (0, 1]; got {threshold!r}.")
    counts = st.r.counts.astype(np.float64)
    n_rated = counts.sum(axis=1)
    share = np.divide(counts, n_rated[:, None], out=np.zeros_like(counts),
                      where=n_rated[:, None] > 0)
    share[np.arange(len(st.ref)), st.ref] = 0.0
    ok = share >= float(threshold) - 1e-12
    ok &= counts > 0
    pool = np.flatnonzero(ok.any(axis=1) & free)
    if count > pool.size:
        raise _too_few("crowd_majority", count, int(pool.size),
                       f"items not yet changed on which a wrong label has at least "
                       f"{float(threshold):.0%} of the ratings")
    items = np.sort(gen.choice(pool, size=count, replace=False))
    new = np.empty(count, dtype=np.int64)
    for t, i in enumerate(items):
        best = np.flatnonzero(share[i] == share[i].max())  # the most chosen wrong label
        new[t] = best[gen.integers(best.size)]
    st.apply(items, new, "crowd_majority")


PROTOCOLS = ("perturb_uniform", "perturb_class_conditional", "dissenting_label",
             "dissenting_worker", "crowd_majority")


def _run(name: str, st: _State, count: int, gen: np.random.Generator, free: np.ndarray,
         options: Mapping[str, Any]) -> None:
    if count == 0 and name != "perturb_class_conditional":
        return
    if name == "perturb_uniform":
        _uniform(st, count, gen, free)
    elif name == "perturb_class_conditional":
        _class_conditional(st, count, gen, free, options.get("transition"))
    elif name == "dissenting_label":
        _dissenting_label(st, count, gen, free)
    elif name == "dissenting_worker":
        _dissenting_worker(st, count, gen, free)
    else:
        _crowd_majority(st, count, gen, free, options.get("threshold", 0.5))


def _single(name: str, ratings: Any, reference: Any, rate: Any, rng: Any,
            **options: Any) -> NoisyLabels:
    st, count, gen = _setup(ratings, reference, rate, rng)
    _run(name, st, count, gen, np.ones(len(st.ref), dtype=bool), options)
    return st.result()


# --------------------------------------------------------------- public API
_PARAMS = """
    Parameters
    ----------
    ratings : Ratings or array_like or pandas.DataFrame
        Items × annotators labels (anything :func:`agreement.as_ratings` accepts).
    reference : pandas.Series or array_like, shape (n,)
        The labels to inject errors into (the aggregated or expert labels), in
        the category names of ``ratings``; a Series is aligned by item id.
    rate : float in [0, 1]
        Share of items to change: exactly ``round(rate · n)`` (halves up) change.
    rng : None, int, numpy.random.Generator, optional
        Seed; the same seed gives the same labels.
"""


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def perturb_uniform(ratings: Any, reference: Any, *, rate: float,
                    rng: Any = None) -> NoisyLabels:
    """Artificial perturbation: random items get a uniformly random other class.
    {params}
    Returns
    -------
    NoisyLabels

    Raises
    ------
    ValueError
        For a ``rate`` outside [0, 1] or reference labels that are not categories.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 1], [1, 1], [2, 2], [0, 0]] * 25)
    >>> noisy = perturb_uniform(x, x[:, 1], rate=0.1, rng=0)
    >>> noisy.n_changed, bool((noisy.labels != noisy.clean).sum() == 10)
    (10, True)
    """
    check_params(perturb_uniform, locals())
    return _single("perturb_uniform", ratings, reference, rate, rng)


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def perturb_class_conditional(ratings: Any, reference: Any, *, rate: float, rng: Any = None,
                              transition: Any = None) -> NoisyLabels:
    """Class-conditional flips: items picked by their class's flip rate, flipped by ``transition``.
    {params}
    transition : array_like, shape (m, m)
        ``transition[c, x] = P(noisy label x | class c)``. An item of class
        ``c`` is picked with weight ``1 − transition[c, c]`` (without
        replacement) and its new label drawn from row ``c`` off the diagonal.

    Returns
    -------
    NoisyLabels

    Raises
    ------
    ValueError
        If fewer items than asked have a class with a non-zero flip
        probability (the message says how many can change).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0], [1, 1]] * 50)
    >>> t = [[0.8, 0.2], [0.0, 1.0]]  # only class 0 flips
    >>> noisy = perturb_class_conditional(x, x[:, 0], rate=0.2, rng=0, transition=t)
    >>> noisy.clean[noisy.changed].unique().tolist()
    [0]
    """
    check_params(perturb_class_conditional, locals())
    return _single("perturb_class_conditional", ratings, reference, rate, rng,
                   transition=transition)


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def dissenting_label(ratings: Any, reference: Any, *, rate: float,
                     rng: Any = None) -> NoisyLabels:
    """Dissenting label: items some annotator disputes get one of the dissenting labels.
    {params}
    Returns
    -------
    NoisyLabels
        ``source_annotator`` names the annotator whose label was used.

    Raises
    ------
    ValueError
        If fewer items than asked have a dissenting rating (the message says
        how many).

    Notes
    -----
    Chong, Hong & Manning (2022, §4.2): the items are drawn uniformly among
    those with at least one label different from the reference; each gets
    the label of one of its dissenting ratings, drawn uniformly (a label
    given by two dissenters is twice as likely).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
    >>> dissenting_label(x, [0, 1, 0, 1], rate=0.5, rng=0).labels.tolist()
    [0, 1, 1, 0]
    """
    check_params(dissenting_label, locals())
    return _single("dissenting_label", ratings, reference, rate, rng)


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def dissenting_worker(ratings: Any, reference: Any, *, rate: float,
                      rng: Any = None) -> NoisyLabels:
    """Dissenting worker: one annotator at a time lends all their dissents.
    {params}
    Returns
    -------
    NoisyLabels
        ``source_annotator`` names the annotator whose label was used.

    Raises
    ------
    ValueError
        If fewer items than asked have a dissenting rating.

    Notes
    -----
    Chong, Hong & Manning (2022, §4.2): an annotator is chosen at random and
    every item (not yet changed) where their label differs from the
    reference takes their label; this repeats with another annotator until
    the count is reached, the last annotator's dissents subsampled uniformly
    so that exactly ``round(rate · n)`` items change. The errors carry each
    annotator's idiosyncrasies.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]] * 10)
    >>> noisy = dissenting_worker(x, [0, 1, 0, 1] * 10, rate=0.25, rng=0)
    >>> noisy.n_changed, sorted(set(noisy.source_annotator[noisy.changed]))
    (10, [2])
    """
    check_params(dissenting_worker, locals())
    return _single("dissenting_worker", ratings, reference, rate, rng)


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def crowd_majority(ratings: Any, reference: Any, *, rate: float, rng: Any = None,
                   threshold: float = 0.5) -> NoisyLabels:
    """Crowd majority: items take a wrong label that many of their annotators chose.
    {params}
    threshold : float in (0, 1], default 0.5
        A wrong label qualifies when at least this share of the item's
        ratings chose it; the item takes its most chosen wrong label (ties at
        random).

    Returns
    -------
    NoisyLabels

    Raises
    ------
    ValueError
        If fewer items than asked have a qualifying wrong label.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 1, 1], [1, 1, 1], [0, 0, 1], [2, 2, 0]])
    >>> crowd_majority(x, [0, 1, 0, 0], rate=0.5, rng=0).labels.tolist()
    [1, 1, 0, 2]
    """
    check_params(crowd_majority, locals())
    return _single("crowd_majority", ratings, reference, rate, rng, threshold=threshold)


@validate_params(rate=Probability(what=_RATE), rng=Rng())
def mix_protocols(shares: Mapping[str, float], ratings: Any, reference: Any, *, rate: float,
                  rng: Any = None, **options: Any) -> NoisyLabels:
    """Several protocols at once, splitting the changed items as asked.

    Parameters
    ----------
    shares : dict of str to float
        Protocol name → share of the changed items, e.g. ``{"dissenting_worker":
        0.8, "dissenting_label": 0.2}`` (Chong et al.'s TweetNLP-5). Shares
        must be positive and sum to 1.
    ratings, reference, rate, rng
        As in the single protocols; ``round(rate · n)`` items change in all.
    **options
        ``transition=`` and ``threshold=`` for the protocols that take them.

    Returns
    -------
    NoisyLabels
        ``protocol`` says which protocol changed each item.

    Notes
    -----
    The count is split by largest remainders (so the parts add up exactly)
    and the protocols run in the order given, each on items not yet changed.

    Examples
    --------
    >>> from simulation import simulate_annotations
    >>> sim = simulate_annotations(1000, 5, model="M2", error_rates=0.2, rng=0)
    >>> ref = sim.true_labels
    >>> noisy = mix_protocols({"dissenting_worker": 0.8, "dissenting_label": 0.2},
    ...                       sim.ratings, ref, rate=0.05, rng=0)
    >>> noisy.protocol_counts()
    {'dissenting_label': 10, 'dissenting_worker': 40}
    """
    check_params(mix_protocols, locals())
    if not isinstance(shares, Mapping) or not shares:
        raise TypeError("`shares` must be a non-empty dict {protocol name: share}.")
    names = list(shares)
    unknown = [nm for nm in names if nm not in PROTOCOLS]
    if unknown:
        raise ValueError(f"unknown protocols {unknown}; choose from {list(PROTOCOLS)}.")
    w = np.array([shares[nm] for nm in names], dtype=np.float64)
    if not np.isfinite(w).all() or (w <= 0).any() or abs(w.sum() - 1) > 1e-9:
        raise ValueError(f"`shares` must be positive and sum to 1; got {dict(shares)}.")
    extra = set(options) - {"transition", "threshold"}
    if extra:
        raise TypeError(f"unexpected options {sorted(extra)}; only `transition` and "
                        "`threshold` are passed on.")
    st, count, gen = _setup(ratings, reference, rate, rng)
    raw = w * count
    parts = np.floor(raw).astype(np.int64)
    rest = count - int(parts.sum())
    if rest:
        parts[np.argsort(-(raw - parts), kind="stable")[:rest]] += 1
    for nm, c in zip(names, parts, strict=True):
        _run(nm, st, int(c), gen, ~st.changed, options)
    return st.result()


for _f in (perturb_uniform, perturb_class_conditional, dissenting_label, dissenting_worker,
           crowd_majority):
    _f.__doc__ = _f.__doc__.replace("{params}", _PARAMS)
