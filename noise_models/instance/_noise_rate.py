"""The noise rate δ of soft labels: the mean over instances of 1 − p̄_i(y_i) (SPEC §2.8).

δ is the expected share of wrong labels when one voter is drawn per instance
(CILN: Islam, Kristiadi & Milani 2026, arXiv:2606.14965, §II-B and Table I).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from noise_models.instance._soft_labels import SoftLabels, soft_iv

__all__ = ["NoiseRateResult", "noise_rate"]


@dataclass(frozen=True, repr=False, eq=False)
class NoiseRateResult(Result):
    """The noise rate δ of a set of soft labels.

    Attributes
    ----------
    rate : float
        δ = (1/N) Σ_i (1 − p̄_i(y_i)): the expected share of wrong labels when
        one voter is drawn per instance.
    class_rates : pandas.Series
        1 − p̄_k(k) per reference class k (the mean over I_k); NaN for a class
        without instances.
    class_counts : pandas.Series
        N_k, instances per reference class.
    n_instances : int
        N.

    ``to_frame()``: one row per reference class: ``count``, ``noise_rate``.
    """

    rate: float
    class_rates: pd.Series
    class_counts: pd.Series
    n_instances: int

    _headline = "rate"
    _keys = ("noise_rate=rate", "n_instances")
    _columns: ClassVar[dict[str, str]] = {"count": "class_counts", "noise_rate": "class_rates"}

    def __repr__(self) -> str:
        return (f"NoiseRateResult(δ = {self.rate:.4f} = {100 * self.rate:.1f}%; "
                f"{self.n_instances} instances, {len(self.class_counts)} classes)")


def noise_rate(soft: SoftLabels) -> NoiseRateResult:
    """Noise rate δ: the mean over instances of 1 − p̄_i(y_i).

    Parameters
    ----------
    soft : SoftLabels
        Label distributions p̄_i and reference labels y_i.

    Returns
    -------
    NoiseRateResult
        ``rate`` and the per-class rates.

    Raises
    ------
    TypeError
        If ``soft`` is not a :class:`SoftLabels`.

    Notes
    -----
    δ is "the average disagreement between voter predictions and
    ground-truth labels" (CILN, Table I): with p̄_i the mean of the voters'
    distributions (eq. (1)), 1 − p̄_i(y_i) is the probability that a voter
    drawn uniformly labels instance i wrongly, and δ the expected noise rate
    of hard labels drawn by that protocol.

    References
    ----------
    .. [1] S. Islam, A. Kristiadi and M. Milani (2026), "Benchmarking
       Instance-Dependent Label Noise with Controlled Corruptions",
       arXiv:2606.14965, §II-B and Table I.

    Examples
    --------
    >>> from noise_models import SoftLabels, noise_rate
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> noise_rate(soft).rate
    0.25
    """
    soft = soft_iv(soft)
    n = soft.n_instances
    p_true = soft.probs[np.arange(n), soft.labels]
    rate = float(np.mean(1.0 - p_true))
    counts = np.bincount(soft.labels, minlength=soft.n_classes)
    sums = np.bincount(soft.labels, weights=p_true, minlength=soft.n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        class_rates = np.where(counts > 0, 1.0 - sums / np.maximum(counts, 1), np.nan)
    return NoiseRateResult(
        rate=rate,
        class_rates=pd.Series(class_rates, index=soft.classes, name="noise_rate"),
        class_counts=pd.Series(counts, index=soft.classes, name="count"),
        n_instances=n,
    )
