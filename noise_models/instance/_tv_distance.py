"""Total-variation distance of soft labels to reference distributions (SPEC §2.8).

TV_i = ½ Σ_c |p_ic − h_ic| per instance, e.g. against human soft labels such
as CIFAR-10H (CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965, §IV-B2).
Labelled inputs are matched by name, arrays by position.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from agreement import DegenerateDataWarning, Ratings, ShapeError
from noise_models.instance._soft_labels import (
    DEFAULT_ATOL,
    SoftLabels,
    _probs_iv,
    align_by_name,
)

# Imported at first use: Numba would double the time of `import goldnoise`.
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["TVDistanceResult", "tv_distance"]


@dataclass(frozen=True, repr=False, eq=False)
class TVDistanceResult(Result):
    """Total-variation distance between two sets of label distributions.

    Attributes
    ----------
    mean : float
        Mean over instances of ``TV_i = ½ Σ_c |p_ic − h_ic|``.
    std : float
        Standard deviation of the TV_i (``ddof=1``): their spread over
        instances. NaN (with a warning) for a single instance.
    sem : float
        Standard error of the mean, ``std / sqrt(n)``.
    values : pandas.Series
        TV_i per instance, indexed by instance id.
    n_instances : int
        Number of instances compared.

    ``to_frame()``: one row per instance, one column ``tv``.
    """

    mean: float
    std: float
    sem: float
    values: pd.Series
    n_instances: int

    _headline = "mean"
    _keys = ("tv_mean=mean", "tv_std=std", "tv_sem=sem", "n_instances")
    _columns: ClassVar[dict[str, str]] = {"tv": "values"}

    def __repr__(self) -> str:
        return (f"TVDistanceResult(mean {self.mean:.4f}, std {self.std:.4f}, "
                f"sem {self.sem:.4f}; {self.n_instances} instances)")


def _distributions_iv(x: Any, name: str) -> tuple[np.ndarray, pd.Index | None, pd.Index | None]:
    """(probs, classes, instances) of a SoftLabels, DataFrame or array; names None for arrays."""
    if isinstance(x, SoftLabels):
        return x.probs, x.classes, x.instances
    if isinstance(x, Ratings):
        raise TypeError(
            f"`{name}` is a Ratings; convert it with `SoftLabels.from_ratings({name})`."
        )
    labeled = isinstance(x, pd.DataFrame)
    try:
        arr, classes, instances = _probs_iv(x, None, None, DEFAULT_ATOL, False)
    except ValueError as exc:  # name the argument, not `probs`
        raise ValueError(str(exc).replace("`probs`", f"`{name}`")) from None
    except TypeError as exc:
        raise TypeError(str(exc).replace("`probs`", f"`{name}`")) from None
    if not labeled:
        return arr, None, None
    return arr, classes, instances


def tv_distance(soft: Any, reference: Any) -> TVDistanceResult:
    """Total-variation distance of each instance's distribution to a reference one.

    Parameters
    ----------
    soft : SoftLabels, pandas.DataFrame or array_like, shape (n_instances, n_classes)
        Label distributions p_i (e.g. a benchmark's soft labels).
    reference : SoftLabels, pandas.DataFrame or array_like, same shape
        Reference distributions h_i (e.g. human soft labels such as CIFAR-10H).
        When both sides carry names (SoftLabels or DataFrames), instances and
        classes are matched by name and reordered; otherwise by position.
        Rows of arrays and DataFrames are validated as distributions (row
        sums within 1e-6).

    Returns
    -------
    TVDistanceResult
        ``mean``, ``std`` (spread over instances), ``sem`` and the per-instance
        ``values``.

    Raises
    ------
    TypeError
        If an input is not numeric (or is a Ratings).
    ShapeError
        If the shapes differ.
    ValueError
        If a row is not a distribution, or the names do not match.

    Notes
    -----
    ``TV_i = ½ Σ_c |p_ic − h_ic|`` ∈ [0, 1] (SPEC §2.8; CILN §IV-B2 compares
    benchmarks with CIFAR-10H this way). The paper prints "mean ± x" without
    saying what x is; its size (±0.002 over 10,000 images) fits the standard
    error of the mean, reported here as ``sem``, while ``std`` is the
    per-instance spread.

    Examples
    --------
    >>> from noise_models import tv_distance
    >>> res = tv_distance([[0.5, 0.5], [1.0, 0.0]], [[0.7, 0.3], [1.0, 0.0]])
    >>> res.values.tolist()
    [0.2, 0.0]
    >>> round(res.mean, 12)
    0.1
    """
    p, p_classes, p_inst = _distributions_iv(soft, "soft")
    q, q_classes, q_inst = _distributions_iv(reference, "reference")
    if p.shape != q.shape:
        raise ShapeError(
            f"`soft` has shape {p.shape} but `reference` has shape {q.shape}; they must "
            "hold the same instances and classes."
        )
    if p_classes is not None and q_classes is not None:
        cols = align_by_name(p_classes, q_classes, "classes", "reference")
        rows = align_by_name(p_inst, q_inst, "instances", "reference")
        if cols is not None:
            q = q[:, cols]
        if rows is not None:
            q = q[rows]
    instances = p_inst if p_inst is not None else (
        q_inst if q_inst is not None else pd.RangeIndex(p.shape[0], name="instance")
    )
    values = _kernels.tv_rows(p, q)
    n = len(values)
    mean = float(values.mean())
    if n > 1:
        std = float(values.std(ddof=1))
        sem = std / math.sqrt(n)
    else:
        warnings.warn("one instance: the spread of TV distances is undefined (NaN).",
                      DegenerateDataWarning, stacklevel=2)
        std = sem = math.nan
    return TVDistanceResult(mean=mean, std=std, sem=sem,
                            values=pd.Series(values, index=instances, name="tv"),
                            n_instances=n)
