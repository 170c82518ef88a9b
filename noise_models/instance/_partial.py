"""Instance dependence of noise over chunks of instances: δ, nth and TV (SPEC §2.8, §3).

Each statistic is a function of per-class sums over instances, so chunks of
a :class:`SoftLabels` (e.g. ``soft.take(rows)``, or one file each) reduce:

* :func:`soft_partial` — per reference class ``k``: the count ``N_k``, the
  mean row ``p̄_k``, ``M2_k = Σ_{i∈I_k} ‖p̄_i − p̄_k‖²`` (one Numba pass, the
  in-memory kernel) and ``Σ_{i∈I_k} p̄_i(y_i)``; with a reference set, the
  per-instance TV distances and their count, mean and ``M2``;
* :func:`soft_combine` — the pairwise update of Chan, Golub & LeVeque (1979)
  for the class means and ``M2`` (never ``Σ‖p‖² − N‖p̄‖²``, which cancels
  when nth is small), sums for the rest;
* :func:`soft_finalize` — :class:`NoiseRateResult`,
  :class:`TransitionHeterogeneityResult` and (with a reference)
  :class:`TVDistanceResult`, as :func:`noise_rate`,
  :func:`noise_transition_heterogeneity` and :func:`tv_distance` return them.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from agreement import DegenerateDataWarning
from noise_models.instance._noise_rate import NoiseRateResult
from noise_models.instance._nth import TransitionHeterogeneityResult
from noise_models.instance._soft_labels import SoftLabels, fmt_classes, soft_iv
from noise_models.instance._tv_distance import TVDistanceResult, tv_distance

# Numba kernels, imported at first use (importing the package compiles and loads nothing).
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["SoftLabelSums", "soft_combine", "soft_finalize", "soft_partial"]


class SoftLabelSums(NamedTuple):
    """Per-class sums of soft labels over a chunk of instances (see the module docstring)."""

    classes: pd.Index
    count: np.ndarray  # (K,) int64
    mean: np.ndarray  # (K, K) class mean rows (0 for empty classes)
    m2: np.ndarray  # (K,)
    true_mass: np.ndarray  # (K,) Σ p̄_i(y_i)
    tv: tuple | None  # (n, mean, M2, [Series of TV_i]) or None


def _moments(values: np.ndarray) -> tuple[int, float, float]:
    n = values.size
    if n == 0:
        return 0, 0.0, 0.0
    mean = float(values.mean())
    return n, mean, float(((values - mean) ** 2).sum())


def soft_partial(soft: SoftLabels, reference: Any = None) -> SoftLabelSums:
    """The partial step over one chunk of instances (optionally with their reference rows).

    Examples
    --------
    >>> from noise_models import SoftLabels, noise_transition_heterogeneity
    >>> from noise_models import soft_combine, soft_finalize, soft_partial
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> s = soft_combine(soft_partial(soft.take([0, 2])), soft_partial(soft.take([1, 3])))
    >>> rate, nth, _ = soft_finalize(s)
    >>> round(nth.nth, 12), rate.rate
    (0.02, 0.25)
    """
    soft = soft_iv(soft)
    n, k = soft.probs.shape
    cnt, mean, m2 = _kernels.class_moments(soft.probs, soft.labels, k)
    mean = np.where(cnt[:, None] > 0, mean, 0.0)
    p_true = soft.probs[np.arange(n), soft.labels]
    true_mass = np.bincount(soft.labels, weights=p_true, minlength=k)
    tv = None
    if reference is not None:
        res = _tv_values(soft, reference)
        tv = (*_moments(res.to_numpy()), [res])
    return SoftLabelSums(soft.classes, cnt.astype(np.int64), mean, m2, true_mass, tv)


def _tv_values(soft: SoftLabels, reference: Any) -> pd.Series:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # one instance per chunk is fine
        return tv_distance(soft, reference).values


def soft_combine(a: SoftLabelSums, b: SoftLabelSums) -> SoftLabelSums:
    """The sums of two disjoint chunks of instances (Chan et al. 1979 for means and M2).

    Examples
    --------
    >>> from noise_models import SoftLabels, soft_combine, soft_partial
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> s = soft_combine(soft_partial(soft.take([0])), soft_partial(soft.take([1, 2, 3])))
    >>> s.count.tolist(), s.mean.round(2).tolist()
    ([2, 2], [[0.7, 0.3], [0.2, 0.8]])
    """
    if not a.classes.equals(b.classes) or (a.tv is None) != (b.tv is None):
        raise ValueError("the partial sums do not match: same classes (and a reference for "
                         "both or neither) are needed.")
    cnt, mean, m2 = _kernels._merge_blocks(np.stack([a.count, b.count]),
                                               np.stack([a.mean, b.mean]),
                                               np.stack([a.m2, b.m2]))
    tv = None
    if a.tv is not None:
        na, ma, sa, va = a.tv
        nb, mb, sb, vb = b.tv
        n = na + nb
        if n == 0:
            tv = (0, 0.0, 0.0, va + vb)
        else:
            d = mb - ma
            tv = (n, ma + d * nb / n, sa + sb + d * d * na * nb / n, va + vb)
    return SoftLabelSums(a.classes, cnt, mean, m2, a.true_mass + b.true_mass, tv)


def soft_finalize(sums: SoftLabelSums) -> tuple[Any, Any, Any]:
    """``(NoiseRateResult, TransitionHeterogeneityResult, TVDistanceResult or None)``.

    Examples
    --------
    >>> from noise_models import SoftLabels, soft_combine, soft_finalize, soft_partial
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> ref = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.5, 0.5]]
    >>> s = soft_combine(soft_partial(soft.take([0, 1]), ref[:2]),
    ...                  soft_partial(soft.take([2, 3]), ref[2:]))
    >>> rate, nth, tv = soft_finalize(s)
    >>> rate.rate, round(nth.nth, 12), round(tv.mean, 12)
    (0.25, 0.02, 0.15)
    """
    cnt, classes = sums.count, sums.classes
    n = int(cnt.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        class_rates = np.where(cnt > 0, 1.0 - sums.true_mass / np.maximum(cnt, 1), np.nan)
    rate = NoiseRateResult(
        rate=float(1.0 - sums.true_mass.sum() / n),
        class_rates=pd.Series(class_rates, index=classes, name="noise_rate"),
        class_counts=pd.Series(cnt, index=classes, name="count"), n_instances=n)
    empty = cnt == 0
    notes: list[str] = []
    if empty.any():
        notes.append(f"classes without instances (NaN rows of `transition`): "
                     f"{fmt_classes(classes[empty])}")
    mean = np.where(empty[:, None], np.nan, sums.mean)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(empty, np.nan, sums.m2 / np.maximum(cnt, 1))
    nth = TransitionHeterogeneityResult(
        nth=float(sums.m2.sum() / n),
        transition=pd.DataFrame(mean, index=classes.rename("label"),
                                columns=classes.rename("class")),
        class_counts=pd.Series(cnt, index=classes, name="count"),
        class_nth=pd.Series(sums.m2 / n, index=classes, name="nth"),
        class_spread=pd.Series(spread, index=classes, name="spread"),
        n_instances=n, notes=tuple(notes))
    tv = None
    if sums.tv is not None:
        nt, mt, st, parts = sums.tv
        if nt > 1:
            std = math.sqrt(st / (nt - 1))
            sem = std / math.sqrt(nt)
        else:
            warnings.warn("one instance: the spread of TV distances is undefined (NaN).",
                          DegenerateDataWarning, stacklevel=2)
            std = sem = math.nan
        tv = TVDistanceResult(mean=float(mt), std=std, sem=sem,
                                values=pd.concat(parts).rename("tv"), n_instances=int(nt))
    return rate, nth, tv
