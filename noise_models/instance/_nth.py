"""Noise Transition Heterogeneity (nth): how far instances stray from their class's row (SPEC §2.8).

nth is zero for class-conditional noise and grows with instance dependence
(CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965, §IV-A2). The class
moments come from one Numba pass with the pairwise update of Chan, Golub &
LeVeque (1979); :mod:`noise_models.instance._partial` merges the same moments
over chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from noise_models.instance._soft_labels import SoftLabels, fmt_classes, soft_iv

# Imported at first use: Numba would double the time of `import goldnoise`.
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["TransitionHeterogeneityResult", "noise_transition_heterogeneity"]


@dataclass(frozen=True, repr=False, eq=False)
class TransitionHeterogeneityResult(Result):
    """Noise Transition Heterogeneity (nth) and the class-mean transition rows.

    Attributes
    ----------
    nth : float
        (1/N) Σ_k Σ_{i∈I_k} ‖p̄_i − p̄_k‖²₂. Zero for class-conditional noise.
    transition : pandas.DataFrame
        K × K; row k is p̄_k, the mean distribution of the instances whose
        reference label is k — the estimated transition matrix T[k, j] =
        P(ỹ = j | y = k). A class without instances has a row of NaN (listed
        in :attr:`notes`).
    class_counts : pandas.Series
        ``N_k = |I_k|``.
    class_nth : pandas.Series
        Each class's share of nth, (1/N) Σ_{i∈I_k} ‖p̄_i − p̄_k‖²; they sum to nth.
    class_spread : pandas.Series
        Within-class mean squared deviation (1/N_k) Σ_{i∈I_k} ‖p̄_i − p̄_k‖²;
        NaN for a class without instances.
    n_instances : int
        N.
    notes : tuple of str
        Anything to know (classes without instances).

    ``to_frame()``: one row per reference class: ``count``, ``nth``, ``spread``.
    """

    nth: float
    transition: pd.DataFrame
    class_counts: pd.Series
    class_nth: pd.Series
    class_spread: pd.Series
    n_instances: int
    notes: tuple[str, ...] = field(default=())

    _keys = ("nth", "n_instances", "n_classes=class_counts.size", "notes")
    _headline = "nth"
    _columns: ClassVar[dict[str, str]] = {
        "count": "class_counts", "nth": "class_nth", "spread": "class_spread"}

    def __repr__(self) -> str:
        extra = f"; {'; '.join(self.notes)}" if self.notes else ""
        return (f"TransitionHeterogeneityResult(nth = {self.nth:.6g}; {self.n_instances} "
                f"instances, {len(self.class_counts)} classes{extra})")


def noise_transition_heterogeneity(soft: SoftLabels) -> TransitionHeterogeneityResult:
    """Noise Transition Heterogeneity: how far instances stray from their class's transition row.

    Parameters
    ----------
    soft : SoftLabels
        Label distributions p̄_i and reference (true) labels y_i.

    Returns
    -------
    TransitionHeterogeneityResult
        ``nth``, the class-mean rows (``transition``) and per-class parts.

    Raises
    ------
    TypeError
        If ``soft`` is not a :class:`SoftLabels`.

    Notes
    -----
    With ``I_k = {i : y_i = k}``, ``N_k = |I_k|`` and p̄_k = (1/N_k) Σ_{i∈I_k} p̄_i the
    average transition distribution of class k (CILN §IV-A2),

    .. math:: \\mathrm{nth} = \\frac{1}{N} \\sum_{k=1}^{K} \\sum_{i \\in I_k}
              \\lVert \\bar p_i - \\bar p_k \\rVert_2^2 .

    Under class-conditional noise every instance of class k has the row
    T[k] of one transition matrix, so nth = 0; larger values mean stronger
    instance dependence. The value is bounded by 2 (each squared distance
    between two distributions is at most 2).

    Computation: one parallel Numba pass over ``probs``. Fixed chunks
    (about 128 KiB) are reduced exactly in two sweeps from cache (class sums,
    then squared deviations from the chunk's class means), and chunks are
    merged in a fixed order with the pairwise update of Chan, Golub & LeVeque
    (1979). This never forms Σ‖p_i‖² − N_k‖p̄_k‖², which cancels
    catastrophically when nth is small, and the result is bit-identical for
    any number of threads.

    References
    ----------
    .. [1] S. Islam, A. Kristiadi and M. Milani (2026), "Benchmarking
       Instance-Dependent Label Noise with Controlled Corruptions",
       arXiv:2606.14965, §IV-A2 (definition of nth).
    .. [2] T. F. Chan, G. H. Golub and R. J. LeVeque (1979), "Updating formulae
       and a pairwise algorithm for computing sample variances", COMPSTAT,
       doi:10.1007/978-3-642-51461-6_3.

    Examples
    --------
    >>> from noise_models import SoftLabels, noise_transition_heterogeneity
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> res = noise_transition_heterogeneity(soft)
    >>> round(res.nth, 12)
    0.02
    >>> res.transition
    class    0    1
    label
    0      0.7  0.3
    1      0.2  0.8
    """
    soft = soft_iv(soft)
    n, k = soft.probs.shape
    cnt, mean, m2 = _kernels.class_moments(soft.probs, soft.labels, k)
    nth = float(m2.sum() / n)
    notes: list[str] = []
    empty = cnt == 0
    if empty.any():
        notes.append(f"classes without instances (NaN rows of `transition`): "
                     f"{fmt_classes(soft.classes[empty])}")
    transition = pd.DataFrame(mean, index=soft.classes.rename("label"),
                              columns=soft.classes.rename("class"))
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(empty, np.nan, m2 / np.maximum(cnt, 1))
    return TransitionHeterogeneityResult(
        nth=nth,
        transition=transition,
        class_counts=pd.Series(cnt, index=soft.classes, name="count"),
        class_nth=pd.Series(m2 / n, index=soft.classes, name="nth"),
        class_spread=pd.Series(spread, index=soft.classes, name="spread"),
        n_instances=n,
        notes=tuple(notes),
    )
