"""The attractor class: the class whose label share grows most under noise (SPEC §2.8).

Its gain in percentage points over the clean distribution, and its purity
(CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965, Table III).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from agreement import DegenerateDataWarning, ShapeError
from noise_models.instance._soft_labels import (
    DEFAULT_ATOL,
    SoftLabels,
    align_by_name,
    check_distributions,
    fmt_classes,
    soft_iv,
)

__all__ = ["AttractorResult", "attractor_class"]


@dataclass(frozen=True, repr=False, eq=False)
class AttractorResult(Result):
    """The attractor class: the class whose label share grows most under noise.

    Attributes
    ----------
    attractor : hashable
        Class name with the largest gain (lowest class code on an exact tie).
    gain_pp : float
        Its gain in percentage points, 100 · (noisy share − clean share).
    purity : float
        Share of the labels assigned to the attractor whose reference label
        is the attractor: Σ_{i∈I_a} p̄_i(a) / Σ_i p̄_i(a).
    assigned : float
        Expected number of instances labelled with the attractor, Σ_i p̄_i(a).
    gains_pp : pandas.Series
        Gain of every class in percentage points.
    noisy_shares, clean_shares : pandas.Series
        Label share of every class under the soft labels, (1/N) Σ_i p̄_i, and
        in the clean distribution.
    n_instances : int
        N.
    notes : tuple of str
        What the clean distribution was; ties.

    ``to_frame()``: one row per class: ``clean_share``, ``noisy_share``, ``gain_pp``.
    """
    _keys = ("attractor", "gain_pp", "purity", "assigned", "n_instances", "notes")
    _columns: ClassVar[dict[str, str]] = {
        "clean_share": "clean_shares", "noisy_share": "noisy_shares", "gain_pp": "gains_pp"}

    attractor: Any
    gain_pp: float
    purity: float
    assigned: float
    gains_pp: pd.Series
    noisy_shares: pd.Series
    clean_shares: pd.Series
    n_instances: int
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (f"AttractorResult({self.attractor!r} (+{self.gain_pp:.1f} pp), purity "
                f"{100 * self.purity:.1f}%; {self.n_instances} instances)")


def _clean_shares_iv(clean: Any, soft: SoftLabels) -> tuple[np.ndarray, str]:
    k = soft.n_classes
    if clean is None:
        shares = np.bincount(soft.labels, minlength=k) / soft.n_instances
        return shares, "clean distribution: shares of the reference labels"
    if isinstance(clean, SoftLabels):
        cols = align_by_name(soft.classes, clean.classes, "classes", "clean")
        shares = clean.probs.mean(axis=0)
        if cols is not None:
            shares = shares[cols]
        return shares, "clean distribution: mean of the `clean` soft labels"
    if isinstance(clean, pd.Series):
        pos = align_by_name(soft.classes, clean.index, "classes", "clean")
        values = clean.to_numpy()
        if pos is not None:
            values = values[pos]
    elif isinstance(clean, (np.ndarray, list, tuple)):
        values = np.asarray(clean)
    else:
        raise TypeError(
            "`clean` must be None, a SoftLabels, or a class distribution (a Series indexed "
            f"by class or a 1-D array of length K); got {type(clean).__name__}."
        )
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("`clean` must hold numbers (class shares).") from None
    if values.shape != (k,):
        raise ShapeError(
            f"`clean` must be a distribution over the {k} classes (shape ({k},)); "
            f"got shape {values.shape}."
        )
    check_distributions(values.reshape(1, -1), DEFAULT_ATOL, "clean",
                        pd.RangeIndex(1))
    return values, "clean distribution: given class shares"


def attractor_class(soft: SoftLabels, clean: Any = None) -> AttractorResult:
    """The attractor class: largest increase in label share over the clean distribution.

    Parameters
    ----------
    soft : SoftLabels
        Noisy label distributions p̄_i with the true labels y_i.
    clean : None, SoftLabels, pandas.Series or array_like of shape (K,), optional
        The clean class distribution. Default (as in the paper): the shares
        of the true labels y_i. A SoftLabels (e.g. the voters' distributions
        on the uncorrupted inputs) contributes its mean distribution; a
        Series (indexed by class) or array gives the shares directly.

    Returns
    -------
    AttractorResult
        ``attractor``, ``gain_pp``, ``purity`` and per-class shares.

    Raises
    ------
    TypeError
        If ``soft`` is not a SoftLabels or ``clean`` of an unknown kind.
    ShapeError, ValueError
        If ``clean`` is not a distribution over the same classes.

    Notes
    -----
    CILN, Table III: "the attractor class is the class receiving the largest
    increase in label frequency relative to the clean distribution; [...]
    Purity is the fraction of examples assigned to the attractor class that
    truly belong to that class." Here the label frequency of class c under
    noise is its expected share when one voter is drawn per instance,
    s_c = (1/N) Σ_i p̄_i(c), so

    * gain_c = 100 · (s_c − s_c^clean) percentage points, attractor
      a = argmax_c gain_c (gains sum to zero, so the largest is ≥ 0);
    * purity = Σ_{i: y_i=a} p̄_i(a) / Σ_i p̄_i(a), the expected fraction of
      the instances labelled a whose true label is a.

    With one-hot rows (hard labels, e.g. from :func:`sample_hard_labels`)
    these are exactly the paper's frequencies and purity.

    Examples
    --------
    >>> from noise_models import SoftLabels, attractor_class
    >>> soft = SoftLabels([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.5]], [0, 1, 2],
    ...                   classes=["ant", "bee", "cat"])
    >>> res = attractor_class(soft)
    >>> res.attractor, round(res.gain_pp, 6), res.purity
    ('bee', 33.333333, 0.5)
    """
    soft = soft_iv(soft)
    clean_shares, how = _clean_shares_iv(clean, soft)
    n = soft.n_instances
    noisy = soft.probs.mean(axis=0)
    gains = 100.0 * (noisy - clean_shares)
    a = int(np.argmax(gains))
    notes = [how]
    tied = np.flatnonzero(gains == gains[a])
    if tied.size > 1:
        notes.append(f"tied largest gain: {fmt_classes(soft.classes[tied])}; "
                     "the lowest class is reported")
    total = float(soft.probs[:, a].sum())
    if total > 0:
        purity = float(soft.probs[soft.labels == a, a].sum()) / total
    else:
        warnings.warn("no label mass on the attractor class: its purity is undefined (NaN).",
                      DegenerateDataWarning, stacklevel=2)
        purity = math.nan
    return AttractorResult(
        attractor=soft.classes[a],
        gain_pp=float(gains[a]),
        purity=purity,
        assigned=total,
        gains_pp=pd.Series(gains, index=soft.classes, name="gain_pp"),
        noisy_shares=pd.Series(noisy, index=soft.classes, name="noisy_share"),
        clean_shares=pd.Series(clean_shares, index=soft.classes, name="clean_share"),
        n_instances=n,
        notes=tuple(notes),
    )
