"""``preference_audit``: how noisy are pairwise preferences, and are the judges biased? (SPEC §11)

The three-way label of a comparison (``A`` better, ``B`` better, ``tie``; ``A`` the
alphabetically first system of the pair) is an ordinary nominal label, so the
agreement coefficients of §1 and the latent-class fits of §2/§5 apply to it: the
humans' agreement, each annotator's (human or judge) accuracy against the latent
better answer with a bootstrap interval, and the noise of the humans' labels --
the posterior expected share of their labels that differ from the latent truth,
with an interval from the resampling core (the fit refitted on every resample of
comparisons). Position bias comes from :func:`position_bias`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.resampling import bootstrap_refit
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Resamples,
    Rng,
    check_params,
    validate_params,
)
from noise_models.preferences._data import Comparisons, as_comparisons
from noise_models.preferences._position import position_bias

__all__ = ["PreferenceAuditResult", "preference_audit", "preference_ratings"]

_COEFFICIENTS = ["percent_agreement", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1"]


@dataclasses.dataclass(frozen=True)
class PreferenceAuditResult(Result):
    """Agreement, noise and position bias of pairwise preference labels.

    Attributes
    ----------
    noise : float
        The posterior expected share of the humans' labels that differ from the latent
        better answer (``float(result)``).
    noise_low, noise_high : float
        Its bootstrap interval over comparisons (percentile).
    confidence_level : float
    agreement : pandas.DataFrame
        The humans' coefficients on the three-way label (``agreement_table`` rows:
        percent (pairwise) agreement, Fleiss' κ, Krippendorff's α, Gwet's AC1).
    annotators : pandas.DataFrame
        Each annotator of the latent-class fit -- humans and judges together -- with
        ``kind``, ``accuracy``, ``accuracy_low``, ``accuracy_high`` and the per-class
        accuracies (``annotator_intervals``).
    position_bias : pandas.DataFrame or None
        :func:`position_bias`'s table (None without judges).
    n_comparisons : int
    humans, judges : tuple of str
    model : str
        The latent-class model fitted.
    notes : tuple of str

    ``to_frame()`` is the annotators table.
    """

    _headline: ClassVar[str] = "noise"
    _table: ClassVar[str] = "annotators"
    _records = ("agreement", "annotators", "position_bias")
    _summary = (
        "Preference audit: {n_comparisons} comparisons, {humans!n} {humans!n:human|humans}, "
        "{judges!n} {judges!n:judge|judges}",
        "  noise of the humans' labels against the latent better answer: {noise:.3f} "
        "[{noise_low:.3f}, {noise_high:.3f}] ({model} fit)",
        ("agreement", "  {name}: {value:.3f} [{ci_low:.3f}, {ci_high:.3f}]"),
        ("annotators", "  {name} ({kind}): accuracy {accuracy:.3f} [{accuracy_low:.3f}, "
                       "{accuracy_high:.3f}]"),
        ("position_bias", "  position bias of {judge} ({design}): {estimate:+.3f} "
                          "[{low:+.3f}, {high:+.3f}]{flagged: -- flagged|}"),
        ("notes", "  * {}"),
    )

    noise: float
    noise_low: float
    noise_high: float
    confidence_level: float
    agreement: pd.DataFrame = dataclasses.field(repr=False)
    annotators: pd.DataFrame = dataclasses.field(repr=False)
    position_bias: pd.DataFrame | None = dataclasses.field(repr=False)
    n_comparisons: int
    humans: tuple[str, ...]
    judges: tuple[str, ...]
    model: str
    notes: tuple[str, ...] = ()


def preference_ratings(c: Comparisons, raters: list[str]) -> Any:
    """The comparisons × raters table of three-way labels (``A``, ``B``, ``tie``) as Ratings.

    A rater's first vote on a comparison is kept (a judge run in both orders: its
    ``ab`` vote).
    """
    from agreement import Ratings

    fr = c.frame[c.frame["rater"].isin(raters)]
    fr = fr.sort_values(["order"], kind="stable").drop_duplicates(["unit", "rater"])
    a_first = fr["i"] < fr["j"]
    o = fr["outcome"].to_numpy()
    lab = np.where(o == 0, "tie", np.where((o == 1) == a_first.to_numpy(), "A", "B"))
    long = pd.DataFrame({"item": fr["unit"].to_numpy(), "rater": fr["rater"].to_numpy(),
                         "label": lab})
    return Ratings.from_long(long, categories=["A", "B", "tie"])


def _noise(fit: Any, human_cols: np.ndarray) -> float:
    post = np.asarray(fit.class_posterior, dtype=np.float64)
    post = post / np.maximum(post.sum(axis=1, keepdims=True), 1e-300)
    codes = fit.ratings.codes[:, human_cols]
    rated = codes >= 0
    right = np.take_along_axis(post, np.maximum(codes, 0), axis=1)
    return float(((1.0 - right) * rated).sum() / rated.sum())


@validate_params(confidence_level=ConfidenceLevel(), n_resamples=Resamples(minimum=10), rng=Rng())
def preference_audit(comparisons: Any, *, judges: Any = None, model: str = "confusion",
                     n_resamples: int = 200, confidence_level: float = 0.95, rng: Any = None,
                     columns: dict | None = None) -> PreferenceAuditResult:
    """Agreement, noise against latent truth, judges inside the model, position bias.

    Parameters
    ----------
    comparisons : pandas.DataFrame or Comparisons
        Votes (see :func:`as_comparisons`).
    judges : str or sequence of str, optional
        The judges; default the raters marked as judges by ``rater_kind``.
    model : {"confusion", "one-coin", "spam"}, default "confusion"
        The annotators of the latent-class fit (:class:`LatentClassModel`).
    n_resamples : int, default 200
        Bootstrap resamples of comparisons (the noise and each annotator's accuracy).
    confidence_level : float, default 0.95
    rng : None, int or Generator
    columns : dict, optional
        Column names passed to :func:`as_comparisons`.

    Returns
    -------
    PreferenceAuditResult

    Raises
    ------
    ValueError
        Fewer than two human raters, or bad votes.

    Notes
    -----
    The latent-class fit takes every rater, judges included, as one annotator of the
    three-way label (Dawid & Skene 1979 with ``model="confusion"``); the noise is
    ``Σ_h Σ_i (1 − P(truth_i = label_hi))`` over the humans' labels divided by their
    number. Its interval refits the model on each resample of comparisons (the
    resampling core's multinomial counts, one start from the majority vote).

    References
    ----------
    Dawid & Skene (1979), Applied Statistics 28:20–28, doi:10.2307/2346806.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from noise_models.preferences import preference_audit
    >>> g = np.random.default_rng(0)
    >>> rows = []
    >>> for u in range(150):
    ...     better = "a" if g.random() < 0.6 else "b"
    ...     for h in ("h1", "h2", "h3"):
    ...         w = better if g.random() < 0.85 else ("tie" if g.random() < 0.5 else
    ...                                               {"a": "b", "b": "a"}[better])
    ...         rows.append((u, "x", "y", h, w, "human"))
    ...     rows.append((u, "x", "y", "judge", better if g.random() < 0.75 else "a", "llm"))
    >>> df = pd.DataFrame(rows, columns=["item", "a", "b", "rater", "winner", "rater_kind"])
    >>> res = preference_audit(df, model="one-coin", n_resamples=30, rng=1)
    >>> round(res.noise, 2), res.noise_low < res.noise < res.noise_high
    (0.13, True)
    """
    check_params(preference_audit, locals())
    from noise_models.latent_class import LatentClassModel, annotator_intervals

    c = as_comparisons(comparisons, judges=judges, **(columns or {}))
    humans = c.raters("human")
    js = c.raters("judge")
    if len(humans) < 2:
        raise ValueError(f"{len(humans)} human rater(s): agreement and the noise against latent "
                         "truth need two or more humans (mark judges in `judges` or "
                         "`rater_kind`).")
    notes: list[str] = []
    gen = np.random.default_rng(rng)
    from agreement import agreement_table

    hr = preference_ratings(c, humans)
    agree = agreement_table(hr, coefficients=_COEFFICIENTS,
                            confidence_level=float(confidence_level))
    agree = agree.loc[[n for n in agree.index if "ordinal" not in n and "interval" not in n],
                      ["value", "ci_low", "ci_high", "n_items"]]
    r = preference_ratings(c, humans + js)
    lcm = LatentClassModel(model, rng=gen)
    fit = lcm.fit(r)
    hcols = np.flatnonzero(np.isin(np.asarray(r.raters, dtype=str), humans))
    est = _noise(fit, hcols)
    boot = _noise_bootstrap(r, model, hcols, est, int(n_resamples), gen,
                            float(confidence_level))
    table = annotator_intervals(fit, n_resamples=int(n_resamples),
                                confidence_level=float(confidence_level), rng=gen)
    table.insert(0, "kind", ["judge" if str(x) in js else "human" for x in table.index])
    pb = position_bias(c, confidence_level=float(confidence_level)) if js else None
    return PreferenceAuditResult(
        noise=est, noise_low=float(boot.interval.low[0]), noise_high=float(boot.interval.high[0]),
        confidence_level=float(confidence_level), agreement=agree, annotators=table,
        position_bias=pb, n_comparisons=c.n_units, humans=tuple(humans), judges=tuple(js),
        model=model, notes=tuple(notes))


def _noise_bootstrap(r: Any, model: str, hcols: np.ndarray, est: float, n_resamples: int,
                     gen: np.random.Generator, confidence_level: float) -> Any:
    """The bootstrap of the humans' noise (columns ``hcols``): one latent-class refit (one
    start) on every resample of the comparisons."""
    from agreement import Ratings
    from noise_models.latent_class import LatentClassModel

    refit_model = LatentClassModel(model, n_starts=1, rng=0)

    def one(counts: np.ndarray) -> np.ndarray:
        out = np.empty((counts.shape[0], 1))
        for b, cnt in enumerate(counts):
            rows = np.repeat(np.arange(r.n_items), cnt)
            sub = Ratings(r.codes[rows], r.categories, items=pd.RangeIndex(rows.size),
                          raters=r.raters)
            out[b, 0] = _noise(refit_model.fit(sub), hcols)
        return out

    return bootstrap_refit(one, r.n_items, names=["noise"], estimate=[est],
                           n_resamples=n_resamples, rng=gen, confidence_level=confidence_level,
                           bounds=np.array([[0.0, 1.0]]))
