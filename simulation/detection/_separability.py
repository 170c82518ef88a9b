"""How well a model's loss separates noisy from clean items (NoisywikiHow Fig. 3; SPEC §9)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.resampling import BootstrapResult, bootstrap_refit
from _goldnoise_lib.results import ConfidenceInterval, Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Resamples,
    Rng,
    check_confidence_level,
    check_integer,
    check_params,
    validate_params,
)
from simulation.detection._metrics import detection_replicates

__all__ = ["SeparabilityResult", "loss_separability", "overlap_coefficient"]

#: Replicates × items cells of resample counts held at once.
_BLOCK_CELLS = 2**23


def _scale(loss: np.ndarray) -> np.ndarray:
    """The axis of the histograms: log(1 + loss) for losses (≥ 0), else the values."""
    return np.log1p(loss) if loss.min() >= 0 else loss


def _edges(loss: np.ndarray, bins: int) -> np.ndarray:
    lo, hi = float(loss.min()), float(loss.max())
    if hi <= lo:
        hi = lo + 1.0
    return np.linspace(lo, hi, bins + 1)


def _bin_of(loss: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(edges, loss, side="right") - 1, 0, len(edges) - 2)


def overlap_coefficient(a: Any, b: Any, *, bins: int = 30) -> float:
    """Weitzman's overlap of two samples: ``Σ_b min(p_a(b), p_b(b))`` on a common grid.

    The densities are histograms on ``bins`` equal-width bins spanning both
    samples (of ``log(1 + x)`` when every value is ≥ 0, as losses are: capped
    cross-entropies of zero probabilities would otherwise stretch the grid);
    1 for identical samples, 0 when no bin holds values of both.

    Examples
    --------
    >>> overlap_coefficient([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    1.0
    >>> overlap_coefficient([0.0, 0.1], [5.0, 5.1])
    0.0
    """
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if a.size == 0 or b.size == 0:
        raise ValueError("both samples need at least one value.")
    if np.concatenate([a, b]).min() >= 0:
        a, b = np.log1p(a), np.log1p(b)
    edges = _edges(np.concatenate([a, b]), check_integer(bins, "bins", 1))
    pa = np.bincount(_bin_of(a, edges), minlength=bins) / a.size
    pb = np.bincount(_bin_of(b, edges), minlength=bins) / b.size
    return float(np.minimum(pa, pb).sum())


@dataclasses.dataclass(frozen=True)
class SeparabilityResult(Result):
    """Separation of noisy from clean items by their loss.

    Attributes
    ----------
    auroc : float
        Probability that a noisy item's loss exceeds a clean one's (ties ½).
    overlap : float
        Weitzman's overlap of the two loss histograms (1: inseparable).
    auroc_interval, overlap_interval : ConfidenceInterval
        Intervals of the stratified item bootstrap (percentile for the AUROC,
        basic for the overlap).
    n_noisy, n_clean : int
    bins : int
        Bins of the common histogram grid.
    loss : pandas.Series
        Per-item loss (mean over models), indexed by item id.
    is_noisy : pandas.Series
    bootstrap : BootstrapResult
        The replicates of both statistics (paired).

    ``float(result)`` is ``auroc``; ``to_frame()`` has one row per statistic.
    """

    _headline: ClassVar[str] = "auroc"

    auroc: float
    overlap: float
    auroc_interval: ConfidenceInterval
    overlap_interval: ConfidenceInterval
    n_noisy: int
    n_clean: int
    bins: int
    loss: pd.Series = dataclasses.field(repr=False, compare=False)
    is_noisy: pd.Series = dataclasses.field(repr=False, compare=False)
    bootstrap: BootstrapResult = dataclasses.field(repr=False, compare=False)

    @validate_params(confidence_level=ConfidenceLevel())
    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Percentile interval of the AUROC at ``confidence_level`` from the same replicates."""
        check_params(SeparabilityResult.confidence_interval, locals())
        level = check_confidence_level(confidence_level)
        dist = self.bootstrap.bootstrap_distribution[:, 0]
        dist = dist[np.isfinite(dist)]
        a = (1 - level) / 2
        lo, hi = np.quantile(dist, [a, 1 - a])
        return ConfidenceInterval(float(lo), float(hi))

    _keys = ("auroc", "auroc_low=auroc_interval.low", "auroc_high=auroc_interval.high", "overlap",
             "overlap_low=overlap_interval.low", "overlap_high=overlap_interval.high", "n_noisy",
             "n_clean", "bins", "n_resamples=bootstrap.bootstrap_distribution.shape.0")
    _rows = ("auroc", "overlap")
    _columns: ClassVar[dict[str, str]] = {
        "statistic": "@", "estimate": "{}", "low": "{}_interval.low", "high": "{}_interval.high"}
    _summary = ("loss separates {n_noisy} noisy from {n_clean} clean items: AUROC {auroc:.3f} "
                "[{auroc_interval.low:.3f}, {auroc_interval.high:.3f}], overlap {overlap:.3f} "
                "[{overlap_interval.low:.3f}, {overlap_interval.high:.3f}] "
                "({bootstrap.confidence_level:.0%} bootstrap intervals)",)

    def __repr__(self) -> str:
        return (f"SeparabilityResult(auroc={self.auroc:.4f}, overlap={self.overlap:.4f}, "
                f"n_noisy={self.n_noisy}, n_clean={self.n_clean})")

    def plot(self, ax: Any = None) -> Any:
        """The two loss histograms on the common grid."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 4))
        raw, noisy = self.loss.to_numpy(), self.is_noisy.to_numpy()
        loss = _scale(raw)
        edges = _edges(loss, self.bins)
        ax.hist(loss[~noisy], bins=edges, density=True, alpha=0.55, label="clean")
        ax.hist(loss[noisy], bins=edges, density=True, alpha=0.55, label="noisy")
        ax.set_xlabel("log(1 + loss of the given label)" if raw.min() >= 0 else
                      "loss of the given label")
        ax.set_ylabel("density")
        ax.set_title(f"AUROC {self.auroc:.3f}, overlap {self.overlap:.3f}")
        ax.legend()
        return ax


def _loss_iv(scores: Any, labels: Any) -> tuple[np.ndarray, pd.Index | None]:
    from simulation.scores import ModelScores, item_loss

    if isinstance(scores, ModelScores):
        return item_loss(scores, labels).mean(axis=0), scores.items
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 1:
        return arr, None  # per-item losses
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError("`scores` must be a ModelScores, per-item losses (n,), or "
                         f"probabilities (n, classes) or (models, n, classes); got shape "
                         f"{arr.shape}.")
    s = ModelScores.from_arrays(arr if arr.shape[0] > 1 else arr[0], kind="probs")
    return item_loss(s, labels).mean(axis=0), None


def _noisy_iv(is_noisy: Any, loss: np.ndarray) -> np.ndarray:
    """``is_noisy`` as booleans, one per finite loss, marking some but not all items."""
    noisy = np.asarray(is_noisy)
    if noisy.dtype != bool:
        if not np.isin(noisy, (0, 1)).all():
            raise ValueError("`is_noisy` must be booleans (or 0/1), one per item.")
        noisy = noisy.astype(bool)
    if noisy.shape != loss.shape:
        raise ValueError(f"`is_noisy` has {noisy.size} entries for {loss.size} items.")
    if not np.isfinite(loss).all():
        raise ValueError("the losses hold NaN or infinite values.")
    n_noisy, n = int(noisy.sum()), loss.size
    if n_noisy == 0 or n_noisy == n:
        raise ValueError(f"`is_noisy` marks {n_noisy} of {n} items: separability needs both "
                         "noisy and clean items.")
    return noisy


@validate_params(n_resamples=Resamples(1), confidence_level=ConfidenceLevel(), rng=Rng())
def loss_separability(scores: Any, labels: Any, is_noisy: Any, *, bins: int = 30,
                      n_resamples: int = 1999, confidence_level: float = 0.95,
                      rng: Any = None) -> SeparabilityResult:
    """How well the loss of the given labels separates noisy items from clean ones.

    Synthetic noise separates (its errors are unlike the data); human-like
    noise does not (NoisywikiHow, Wu et al. 2023, Fig. 3). Two numbers: the
    AUROC of the per-item loss for noisy against clean items, and the overlap
    coefficient of the two loss distributions (Weitzman's overlap Σ min of the
    two histograms on a common grid of ``bins`` equal-width bins of
    ``log(1 + loss)`` spanning all items; the logarithm keeps the capped
    losses of zero probabilities from stretching the grid). Both get percentile intervals from the item bootstrap stratified
    by ``is_noisy`` (the bootstrap engine's stratified multinomial counts; the
    two statistics are paired on the same replicates).

    Parameters
    ----------
    scores : ModelScores, or array_like
        Model outputs on the items (probabilities or logits of one or more
        models; the loss is averaged over models), an items × classes array of
        probabilities, or per-item losses (1-D).
    labels : array_like or pandas.Series
        The given (possibly noisy) labels, as for :func:`item_loss`.
    is_noisy : array_like of bool, shape (n,)
        Which items carry an injected error (e.g. ``NoisyLabels.changed``).
    bins : int, default 30
    n_resamples : int, default 1999
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SeparabilityResult

    Raises
    ------
    ValueError
        When there are no noisy or no clean items, or shapes disagree.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> noisy = np.arange(400) < 100
    >>> loss = np.where(noisy, rng.normal(3, 1, 400), rng.normal(0, 1, 400))
    >>> res = loss_separability(loss, None, noisy, n_resamples=200, rng=0)
    >>> round(res.auroc, 2), res.overlap < 0.3
    (0.99, True)
    """
    check_params(loss_separability, locals())
    loss, items = _loss_iv(scores, labels)
    noisy = _noisy_iv(is_noisy, loss)
    n_noisy, n = int(noisy.sum()), loss.size
    bins = check_integer(bins, "bins", 1)
    n_resamples = check_integer(n_resamples, "n_resamples", 1)
    level = check_confidence_level(confidence_level)
    axis = _scale(loss)
    b = _bin_of(axis, _edges(axis, bins))
    onehot = np.zeros((n, bins))
    onehot[np.arange(n), b] = 1.0

    def overlap(w: np.ndarray) -> np.ndarray:
        hn = (w * noisy) @ onehot
        hc = (w * ~noisy) @ onehot
        with np.errstate(invalid="ignore", divide="ignore"):
            pn = hn / hn.sum(axis=1, keepdims=True)
            pc = hc / hc.sum(axis=1, keepdims=True)
        return np.minimum(pn, pc).sum(axis=1)

    ones = np.ones((1, n))
    point = np.array([detection_replicates(loss, noisy, ones)["auroc"].iloc[0],
                      overlap(ones)[0]])

    def replicate(counts: np.ndarray) -> np.ndarray:
        w = counts.astype(np.float64)
        return np.column_stack([detection_replicates(loss, noisy, w)["auroc"].to_numpy(),
                                overlap(w)])

    boot = bootstrap_refit(replicate, n, names=("auroc", "overlap"), estimate=point,
                           n_resamples=n_resamples, rng=rng, method="percentile",
                           confidence_level=level, strata=noisy,
                           bounds=np.tile([0.0, 1.0], (2, 1)), block=max(1, _BLOCK_CELLS // n))
    # The overlap's plug-in estimate sits below its resamples' spread (a sum of minima of
    # noisy histograms is biased down): its interval is the basic one, which reflects that.
    basic = boot.with_method("basic")
    ci = ConfidenceInterval(np.array([boot.interval.low[0],
                                      basic.interval.low[1]]),
                            np.array([boot.interval.high[0],
                                      basic.interval.high[1]]))
    idx = items if items is not None else pd.RangeIndex(n, name="item")
    return SeparabilityResult(
        auroc=float(point[0]), overlap=float(point[1]),
        auroc_interval=ConfidenceInterval(float(ci.low[0]), float(ci.high[0])),
        overlap_interval=ConfidenceInterval(float(ci.low[1]), float(ci.high[1])),
        n_noisy=n_noisy, n_clean=n - n_noisy, bins=bins,
        loss=pd.Series(loss, index=idx, name="loss"),
        is_noisy=pd.Series(noisy, index=idx, name="is_noisy"), bootstrap=boot)
