"""Instance dependence of label noise, read from soft labels (SPEC §2.8).

The statistics of the CILN paper (Islam, Kristiadi & Milani 2026, *Benchmarking
Instance-Dependent Label Noise with Controlled Corruptions*, arXiv:2606.14965,
§II-B, §IV-A2, Table III): the noise rate
δ, Noise Transition Heterogeneity (nth), the total-variation distance to a
reference set of distributions (e.g. human soft labels), the attractor class
with its gain and purity, label entropy, and hard labels drawn by the
one-voter-per-instance protocol. All take a :class:`SoftLabels`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreement import DegenerateDataWarning, Ratings, ShapeError
from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Rng, check_params, check_rng, validate_params
from noise_models.instance._soft_labels import (
    DEFAULT_ATOL,
    SoftLabels,
    _probs_iv,
    check_distributions,
    voters_iv,
)

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
special = lazy_module("scipy.special")
_kernels = lazy_module("noise_models.instance._kernels")

__all__ = [
    "AttractorResult",
    "LabelEntropyResult",
    "NoiseRateResult",
    "TVDistanceResult",
    "TransitionHeterogeneityResult",
    "attractor_class",
    "instance_dependence_report",
    "label_entropy",
    "noise_rate",
    "noise_transition_heterogeneity",
    "sample_hard_labels",
    "tv_distance",
]


def _soft_iv(soft: Any, name: str = "soft") -> SoftLabels:
    if not isinstance(soft, SoftLabels):
        raise TypeError(
            f"`{name}` must be a SoftLabels; got {type(soft).__name__}. Build one with "
            "`SoftLabels(probs, labels)`, `SoftLabels.from_voters` or `SoftLabels.from_ratings`."
        )
    return soft


def _fmt_classes(index: pd.Index) -> list[Any]:
    return list(index) if len(index) <= 8 else [*list(index[:8]), "..."]


# =============================================================================== noise rate
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

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as a plain dict."""
        return {"noise_rate": self.rate, "n_instances": self.n_instances}

    def to_frame(self) -> pd.DataFrame:
        """Per-class table: ``count`` and ``noise_rate``."""
        return pd.DataFrame({"count": self.class_counts, "noise_rate": self.class_rates})

    _headline = "rate"


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
    soft = _soft_iv(soft)
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


# =============================================================================== nth
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
        N_k = |I_k|.
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

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as a plain dict."""
        return {"nth": self.nth, "n_instances": self.n_instances,
                "n_classes": len(self.class_counts), "notes": "; ".join(self.notes)}

    def to_frame(self) -> pd.DataFrame:
        """Per-class table: ``count``, ``nth`` (the class's share) and ``spread``."""
        return pd.DataFrame({"count": self.class_counts, "nth": self.class_nth,
                             "spread": self.class_spread})

    _headline = "nth"


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
    With I_k = {i : y_i = k}, N_k = |I_k| and p̄_k = (1/N_k) Σ_{i∈I_k} p̄_i the
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
    soft = _soft_iv(soft)
    n, k = soft.probs.shape
    cnt, mean, m2 = _kernels.class_moments(soft.probs, soft.labels, k)
    nth = float(m2.sum() / n)
    notes: list[str] = []
    empty = cnt == 0
    if empty.any():
        notes.append(f"classes without instances (NaN rows of `transition`): "
                     f"{_fmt_classes(soft.classes[empty])}")
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


# =============================================================================== TV distance
@dataclass(frozen=True, repr=False, eq=False)
class TVDistanceResult(Result):
    """Total-variation distance between two sets of label distributions.

    Attributes
    ----------
    mean : float
        Mean over instances of TV_i = ½ Σ_c |p_ic − h_ic|.
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

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as a plain dict."""
        return {"tv_mean": self.mean, "tv_std": self.std, "tv_sem": self.sem,
                "n_instances": self.n_instances}

    def to_frame(self) -> pd.DataFrame:
        """Per-instance table with one column ``tv``."""
        return self.values.rename("tv").to_frame()

    _headline = "mean"


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


def _align(target: pd.Index, other: pd.Index, what: str, name: str) -> np.ndarray | None:
    """Positions in ``other`` of each entry of ``target``; None when already aligned."""
    if other.equals(target):
        return None
    if len(other) == len(target) and not other.has_duplicates and other.isin(target).all():
        return other.get_indexer(target)
    raise ValueError(
        f"the {what} of `{name}` {_fmt_classes(other)} do not match those of `soft` "
        f"{_fmt_classes(target)}; labelled inputs are aligned by name, never by position. "
        f"Pass `{name}` as a plain array (`.to_numpy()`) to align by position."
    )


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
    TV_i = ½ Σ_c |p_ic − h_ic| ∈ [0, 1] (SPEC §2.8; CILN §IV-B2 compares
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
        cols = _align(p_classes, q_classes, "classes", "reference")
        rows = _align(p_inst, q_inst, "instances", "reference")
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


# =============================================================================== attractor
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

    attractor: Any
    gain_pp: float
    purity: float
    assigned: float
    gains_pp: pd.Series
    noisy_shares: pd.Series
    clean_shares: pd.Series
    n_instances: int
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as a plain dict."""
        return {"attractor": self.attractor, "gain_pp": self.gain_pp, "purity": self.purity,
                "assigned": self.assigned, "n_instances": self.n_instances,
                "notes": "; ".join(self.notes)}

    def to_frame(self) -> pd.DataFrame:
        """Per-class table: ``clean_share``, ``noisy_share`` and ``gain_pp``."""
        return pd.DataFrame({"clean_share": self.clean_shares, "noisy_share": self.noisy_shares,
                             "gain_pp": self.gains_pp})


    def __repr__(self) -> str:
        return (f"AttractorResult({self.attractor!r} (+{self.gain_pp:.1f} pp), purity "
                f"{100 * self.purity:.1f}%; {self.n_instances} instances)")


def _clean_shares_iv(clean: Any, soft: SoftLabels) -> tuple[np.ndarray, str]:
    k = soft.n_classes
    if clean is None:
        shares = np.bincount(soft.labels, minlength=k) / soft.n_instances
        return shares, "clean distribution: shares of the reference labels"
    if isinstance(clean, SoftLabels):
        cols = _align(soft.classes, clean.classes, "classes", "clean")
        shares = clean.probs.mean(axis=0)
        if cols is not None:
            shares = shares[cols]
        return shares, "clean distribution: mean of the `clean` soft labels"
    if isinstance(clean, pd.Series):
        pos = _align(soft.classes, clean.index, "classes", "clean")
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
    soft = _soft_iv(soft)
    clean_shares, how = _clean_shares_iv(clean, soft)
    n = soft.n_instances
    noisy = soft.probs.mean(axis=0)
    gains = 100.0 * (noisy - clean_shares)
    a = int(np.argmax(gains))
    notes = [how]
    tied = np.flatnonzero(gains == gains[a])
    if tied.size > 1:
        notes.append(f"tied largest gain: {_fmt_classes(soft.classes[tied])}; "
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


# =============================================================================== entropy
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

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as a plain dict."""
        return {"entropy": self.entropy, "max_entropy": self.max_entropy,
                "normalized": self.normalized, "instance_mean": self.instance_mean,
                "base": self.base}

    def to_frame(self) -> pd.DataFrame:
        """Per-class table: ``share`` and its entropy term ``−s log s``."""
        s = self.class_shares.to_numpy()
        terms = special.entr(s) / math.log(self.base)
        return pd.DataFrame({"share": s, "entropy_term": terms}, index=self.class_shares.index)

    _headline = "entropy"


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
    soft = _soft_iv(soft)
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


# =============================================================================== sampling
@validate_params(rng=Rng())
def sample_hard_labels(soft_or_voters: Any, rng: Any = None) -> pd.Series:
    """Hard labels by the one-voter-per-instance protocol.

    Parameters
    ----------
    soft_or_voters : array_like of shape (n_voters, n_instances, n_classes), sequence of DataFrames, agreement.Ratings or SoftLabels
        * Voters' distributions (as for :meth:`SoftLabels.from_voters`): for
          each instance one voter is drawn uniformly and its prediction — the
          most probable class of its distribution, lowest class on a tie — is
          the label. This is the CILN / PL-IDN protocol (CILN §III-A, §IV-A2).
        * A :class:`agreement.Ratings`: one of the item's ratings is drawn
          uniformly (items without a rating are refused).
        * A :class:`SoftLabels`: only the averaged p̄_i is known, so a label is
          drawn from p̄_i itself.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed or generator (``numpy.random.default_rng(rng)``). The same seed
        gives the same labels whatever the number of threads.

    Returns
    -------
    pandas.Series
        Categorical Series of class names (``.cat.codes`` gives the codes),
        indexed by instance id, named ``"label"``.

    Raises
    ------
    TypeError
        If ``rng`` or the input is of the wrong kind.
    ValueError
        If a Ratings item has no rating or a voter's row is not a distribution.

    Notes
    -----
    The three inputs differ. Drawing a voter and taking its most probable
    class gives class c with probability (1/M) Σ_m [argmax p_i^(m) = c],
    which is not p̄_i(c) unless the voters' outputs are one-hot. Drawing from
    p̄_i (SoftLabels input) gives p̄_i(c): the distribution of the label when
    one voter is drawn and *then* its label is drawn from its distribution.
    For annotators' hard labels (Ratings, or SoftLabels built from them by
    :meth:`SoftLabels.from_ratings`) the two coincide: drawing one of the
    r_i ratings uniformly gives class c with probability a[i, c] / r_i.

    Examples
    --------
    >>> import numpy as np
    >>> from noise_models import sample_hard_labels
    >>> voters = np.array([[[0.9, 0.1], [0.2, 0.8]],
    ...                    [[0.6, 0.4], [0.4, 0.6]]])   # 2 voters × 2 instances
    >>> sample_hard_labels(voters, rng=0).tolist()   # both voters agree on each
    [0, 1]
    """
    check_params(sample_hard_labels, locals())
    gen = check_rng(rng)
    if isinstance(soft_or_voters, SoftLabels):
        soft = soft_or_voters
        codes = _kernels.sample_rows(soft.probs, gen.random(soft.n_instances))
        classes, instances = soft.classes, soft.instances
    elif isinstance(soft_or_voters, Ratings):
        ratings = soft_or_voters
        counts = ratings.counts
        r = counts.sum(axis=1, dtype=np.int64)
        if (r == 0).any():
            first = list(ratings.items[r == 0][:3])
            raise ValueError(
                f"{int((r == 0).sum())} item(s) of the ratings have no rating to draw from "
                f"(e.g. {first}); drop them first (e.g. `SoftLabels.from_ratings(r, "
                "empty='drop')`)."
            )
        codes = _kernels.sample_rows(counts, gen.random(len(r)))
        classes, instances = ratings.categories.rename("class"), ratings.items
    elif isinstance(soft_or_voters, (np.ndarray, list, tuple, dict)):
        arr, classes, instances = voters_iv(soft_or_voters, None, None, DEFAULT_ATOL)
        n_voters, n, _ = arr.shape
        pick = gen.integers(n_voters, size=n)
        codes = np.argmax(arr[pick, np.arange(n)], axis=1)
    else:
        raise TypeError(
            "`soft_or_voters` must be voters' distributions (voters × instances × classes), "
            f"a Ratings or a SoftLabels; got {type(soft_or_voters).__name__}."
        )
    cat = pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=classes)
    return pd.Series(cat, index=instances, name="label")


# =============================================================================== report
def instance_dependence_report(
    soft: SoftLabels, *, reference: Any = None, clean: Any = None
) -> pd.DataFrame:
    """Every instance-dependence statistic of a set of soft labels, in one table.

    Parameters
    ----------
    soft : SoftLabels
        Label distributions with their true labels.
    reference : SoftLabels, DataFrame or array_like, optional
        Reference distributions (e.g. human soft labels); adds the TV rows.
    clean : optional
        Clean class distribution for the attractor class, as in
        :func:`attractor_class` (default: shares of the true labels).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``statistic``, with columns ``value`` and ``description``.
        Rows: n_instances, n_classes, noise_rate, nth, attractor,
        attractor_gain_pp, attractor_purity, label_entropy,
        label_entropy_max, instance_entropy_mean, and with a reference
        tv_mean, tv_std, tv_sem. To set several data sets side by side:
        ``pd.concat({name: report(s)["value"] for ...}, axis=1)``.

    Examples
    --------
    >>> from noise_models import SoftLabels, instance_dependence_report
    >>> soft = SoftLabels([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.3, 0.7]], [0, 0, 1, 1])
    >>> instance_dependence_report(soft).loc[["noise_rate", "nth"], "value"].round(6).tolist()
    [0.25, 0.02]
    """
    soft = _soft_iv(soft)
    delta = noise_rate(soft)
    het = noise_transition_heterogeneity(soft)
    att = attractor_class(soft, clean)
    ent = label_entropy(soft)
    rows: list[tuple[str, Any, str]] = [
        ("n_instances", soft.n_instances, "instances N"),
        ("n_classes", soft.n_classes, "classes K"),
        ("noise_rate", delta.rate, "δ = mean of 1 − p̄_i(y_i)"),
        ("nth", het.nth, "(1/N) Σ_k Σ_{i∈I_k} ‖p̄_i − p̄_k‖² (0 = class-conditional)"),
        ("attractor", att.attractor, "class with the largest gain in label share"),
        ("attractor_gain_pp", att.gain_pp, "its gain over the clean share, percentage points"),
        ("attractor_purity", att.purity, "share of its labels whose true label is it"),
        ("label_entropy", ent.entropy, "entropy of the class shares (nats)"),
        ("label_entropy_max", ent.max_entropy, "log K (nats)"),
        ("instance_entropy_mean", ent.instance_mean, "mean entropy of p̄_i (nats)"),
    ]
    if reference is not None:
        tv = tv_distance(soft, reference)
        rows += [
            ("tv_mean", tv.mean, "mean TV distance to the reference"),
            ("tv_std", tv.std, "standard deviation of the per-instance TV"),
            ("tv_sem", tv.sem, "standard error of the mean TV"),
        ]
    frame = pd.DataFrame(rows, columns=["statistic", "value", "description"])
    frame["value"] = frame["value"].astype(object)
    return frame.set_index("statistic")
