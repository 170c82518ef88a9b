"""Label entropy: how concentrated the labels are over the classes (SPEC §2.8).

The entropy of the expected class shares (CILN: Islam, Kristiadi & Milani 2026,
arXiv:2606.14965, Fig. 4) and the mean entropy of the per-instance distributions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from noise_models.instance._soft_labels import SoftLabels, soft_iv

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = ["LabelEntropyResult", "label_entropy"]


@dataclass(frozen=True, repr=False, eq=False)
class LabelEntropyResult(Result):
    """Entropy of the label distribution of a data set.

    Attributes
    ----------
    entropy : float
        H(s) = −Σ_c s_c log s_c of the class shares s_c = (1/N) Σ_i p̄_i(c)
        (the paper's label entropy of a class-frequency profile).
    max_entropy : float
        log K, the entropy of balanced classes.
    normalized : float
        entropy / max_entropy, in [0, 1].
    instance_mean : float
        Mean over instances of H(p̄_i): the average uncertainty of a soft
        label (0 when every row is one-hot).
    class_shares : pandas.Series
        s_c.
    values : pandas.Series
        H(p̄_i) per instance.
    base : float
        Base of the logarithm (e = nats).

    ``to_frame()``: one row per class: ``share``, ``entropy_term``.
    """

    entropy: float
    max_entropy: float
    normalized: float
    instance_mean: float
    class_shares: pd.Series
    values: pd.Series
    base: float

    def to_frame(self) -> pd.DataFrame:
        """Per-class table: ``share`` and its entropy term ``−s log s``."""
        s = self.class_shares.to_numpy()
        terms = special.entr(s) / math.log(self.base)
        return pd.DataFrame({"share": s, "entropy_term": terms}, index=self.class_shares.index)

    _headline = "entropy"
    _keys = ("entropy", "max_entropy", "normalized", "instance_mean", "base")

    def __repr__(self) -> str:
        unit = "nats" if self.base == math.e else ("bits" if self.base == 2 else
                                                   f"base {self.base:g}")
        return (f"LabelEntropyResult({self.entropy:.4f} {unit} of max {self.max_entropy:.4f} "
                f"({100 * self.normalized:.1f}%); mean per-instance {self.instance_mean:.4f})")


def label_entropy(soft: SoftLabels, *, base: float | None = None) -> LabelEntropyResult:
    """Label entropy: how concentrated the labels are over the classes.

    Parameters
    ----------
    soft : SoftLabels
        Label distributions.
    base : float, optional
        Base of the logarithm; default e (nats, as ``scipy.stats.entropy``).

    Returns
    -------
    LabelEntropyResult
        Entropy of the class shares (the headline), its maximum log K, and
        the mean per-instance entropy.

    Raises
    ------
    TypeError, ValueError
        If ``soft`` is not a SoftLabels, or ``base`` is not a number > 0 and ≠ 1.

    Notes
    -----
    CILN (Fig. 4) reports the entropy of the class-frequency profile: lower
    entropy means labels concentrated on few classes (attractors). With soft
    labels the frequency of class c is its expected share s_c =
    (1/N) Σ_i p̄_i(c); H(s) = −Σ_c s_c log s_c with 0 log 0 = 0.

    Examples
    --------
    >>> from noise_models import SoftLabels, label_entropy
    >>> soft = SoftLabels([[1.0, 0.0], [0.0, 1.0]], [0, 1])
    >>> res = label_entropy(soft, base=2)
    >>> res.entropy, res.instance_mean
    (1.0, 0.0)
    """
    soft = soft_iv(soft)
    if base is None:
        base = math.e
    if isinstance(base, (bool, str, bytes)) or not isinstance(base, (int, float, np.number)):
        raise TypeError(f"`base` must be a number > 0 and != 1; got {base!r}.")
    base = float(base)
    if not (math.isfinite(base) and base > 0 and base != 1):
        raise ValueError(f"`base` must be a finite number > 0 and != 1; got {base!r}.")
    log_base = math.log(base)
    shares = soft.probs.mean(axis=0)
    entropy = float(special.entr(shares).sum()) / log_base
    max_entropy = math.log(soft.n_classes) / log_base
    values = _kernels.entropy_rows(soft.probs) / log_base
    return LabelEntropyResult(
        entropy=entropy,
        max_entropy=max_entropy,
        normalized=entropy / max_entropy,
        instance_mean=float(values.mean()),
        class_shares=pd.Series(shares, index=soft.classes, name="share"),
        values=pd.Series(values, index=soft.instances, name="entropy"),
        base=base,
    )
