"""Set a model's label-error ranking beside the annotation model (SPEC §3, "Cross-check")."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.labels import match_labels
from _goldnoise_lib.messages import few
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Alpha, check_params, validate_params
from agreement import Ratings, as_ratings
from noise_models import (
    ErrorBracketResult,
    LatentClassFit,
    LatentClassModel,
    agreed_error_bracket,
)
from simulation.detection import DetectionResult, Ranking, detection_metrics, detection_replicates
from simulation.scores import ModelScores, item_loss

__all__ = ["CrosscheckResult", "crosscheck"]


@dataclass(frozen=True, repr=False, eq=False)
class CrosscheckResult(Result):
    """A model's label-error ranking set beside the annotation model.

    Attributes
    ----------
    n_items, n_agreed, n_disagreed : int
        Items; unanimous items with two or more ratings; items whose
        annotators disagree.
    auroc_disagreement, ap_disagreement : float
        AUROC and average precision of the model's loss for "the annotators
        disagree on this item".
    auroc_posterior, ap_posterior : float
        The same for the annotation model's posterior that the label is
        wrong, as a soft truth (each item an error with weight ``P(wrong)``
        and a correct label with weight ``1 − P(wrong)``).
    spearman : float
        Spearman correlation of the model's loss and that posterior.
    flagged_agreed_share : float
        Share of the agreed items the model flags.
    n_flagged_agreed : int
    bracket : ErrorBracketResult
        The agreed-error bracket: the optimistic share and γ, to set the
        flagged share beside.
    frame : pandas.DataFrame
        Per item: ``loss``, ``posterior_wrong``, ``combined``, ``disagreed``,
        ``agreed``, ``model_flags``.
    combined : Ranking
        Items by the combined probability that the label is wrong (the
        annotation posterior updated with the model's probabilities).
    detection : pandas.DataFrame or None
        With a truth: AP, AUROC, P/R/F1 at k of the model, the annotation
        posterior and the combination, side by side.
    model_name, annotation_model : str
    alpha : float
        The paper's confidence α of γ.
    verdict : str
        Whether the two accounts are consistent, in plain words.

    ``to_frame()``: one row per quantity: ``value`` and what it means.
    """

    n_items: int
    n_agreed: int
    n_disagreed: int
    auroc_disagreement: float
    ap_disagreement: float
    auroc_posterior: float
    ap_posterior: float
    spearman: float
    flagged_agreed_share: float
    n_flagged_agreed: int
    bracket: ErrorBracketResult
    frame: pd.DataFrame
    combined: Ranking
    detection: pd.DataFrame | None
    model_name: str
    annotation_model: str
    alpha: float
    verdict: str

    _rows: ClassVar[dict[str, str]] = {
        "n_items": "items", "n_agreed": "unanimous items (two or more ratings)",
        "n_disagreed": "items the annotators disagree on",
        "auroc_disagreement": "AUROC of the model's loss for annotator disagreement",
        "ap_disagreement": "average precision of the loss for disagreement",
        "auroc_posterior": "AUROC of the loss for the annotation posterior of a wrong label",
        "ap_posterior": "average precision of the loss for that posterior",
        "spearman": "Spearman correlation of loss and posterior",
        "flagged_agreed_share": "share of agreed items the model flags",
        "n_flagged_agreed": "agreed items the model flags",
        "optimistic": "annotation model's expected wrong share of agreed labels",
        "gamma": "γ: most agreed items that may be hard (confidence α)"}
    _keys = (*list(_rows)[:-2], "optimistic=bracket.optimistic", "gamma=bracket.pessimistic",
             "alpha", "model=model_name", "annotation_model", "verdict")
    _columns: ClassVar[dict[str, str]] = {"value": "to_dict.{}", "meaning": "_rows.{}"}
    _index = "quantity"
    _summary = ("Cross-check of {model_name} against {annotation_model} (α = {alpha:g})",
                ("to_frame", "  {meaning}: {value:.4g}"),
                ("detection!=None", "  detection against the truth:"),
                "    {detection:.3table}", "", "{verdict}")

    def __repr__(self) -> str:
        return (f"CrosscheckResult({self.model_name} vs {self.annotation_model}: AUROC "
                f"{self.auroc_posterior:.3f} for P(label wrong), {self.auroc_disagreement:.3f} "
                f"for disagreement; flags {self.flagged_agreed_share:.2%} of agreed items, "
                f"bracket {self.bracket.optimistic:.2%}–{self.bracket.pessimistic:.2%})")


def _align_scores(scores: ModelScores, r: Ratings) -> ModelScores:
    if scores.n_models != 1:
        raise ValueError(
            f"`scores` holds {scores.n_models} models: pass `scores.select(name)` or "
            "`ensemble(scores)`."
        )
    missing = r.items.difference(scores.items)
    if len(missing):
        raise ValueError(f"`scores` lacks {len(missing)} of the rated items: "
                         f"{few(missing.to_numpy())}.")
    if scores.items.equals(r.items):
        return scores
    pos = scores.items.get_indexer(r.items)
    return ModelScores(np.ascontiguousarray(scores.values[:, pos]), scores.model_names,
                       scores.kind, scores.classes, pd.Index(r.items, name="item"))


def _soft_metrics(score: np.ndarray, p_wrong: np.ndarray) -> tuple[float, float]:
    # Each item twice, with the same score: an error of weight p and a correct
    # label of weight 1 − p (the expected counts under the soft truth).
    n = len(score)
    s = np.concatenate([score, score])
    y = np.concatenate([np.ones(n, bool), np.zeros(n, bool)])
    w = np.concatenate([p_wrong, 1.0 - p_wrong])
    rep = detection_replicates(s, y, w)
    return float(rep.auroc[0]), float(rep.average_precision[0])


def _verdict(res: dict[str, Any], bracket: ErrorBracketResult) -> str:
    auc = res["auroc_posterior"]
    if not math.isfinite(auc):
        agree = "The annotation model sees no uncertain label, so the rankings cannot be compared."
    elif auc >= 0.7:
        agree = (f"The model's loss and the annotation model point to the same items "
                 f"(AUROC {auc:.2f}).")
    elif auc >= 0.55:
        agree = (f"The model's loss and the annotation model agree only weakly on which "
                 f"labels are doubtful (AUROC {auc:.2f}).")
    else:
        agree = (f"The model's loss does not find the items the annotators doubt "
                 f"(AUROC {auc:.2f}): the two accounts disagree.")
    share = res["flagged_agreed_share"]
    if share <= bracket.optimistic:
        flag = (f"Among the agreed items the model flags {share:.2%}, no more than the "
                f"{bracket.optimistic:.2%} the annotation model expects wrong: consistent.")
    elif share <= bracket.pessimistic:
        flag = (f"Among the agreed items the model flags {share:.2%}, inside the bracket "
                f"{bracket.optimistic:.2%} to γ = {bracket.pessimistic:.2%}: consistent.")
    else:
        flag = (f"Among the agreed items the model flags {share:.2%}, more than γ = "
                f"{bracket.pessimistic:.2%} allows: either the model errs on them or the "
                "annotators share errors the agreement cannot show. Verify a random sample "
                "of the flagged agreed items.")
    return agree + " " + flag


@validate_params(alpha=Alpha())
def crosscheck(scores: Any, labels: Any, ratings: Any, *, fit: LatentClassFit | None = None,
               alpha: float = 0.95, truth: Any = None) -> CrosscheckResult:
    """Set a model's ranking of suspicious labels beside the annotation model.

    Parameters
    ----------
    scores : ModelScores or Ranking
        One model's scores (``scores.select(name)``, ``ensemble(scores)``),
        or a ranking of the items.
    labels : pandas.Series or array_like
        The given labels (a Series aligned by item id; an array follows
        ``ratings.items``).
    ratings : Ratings or array_like or pandas.DataFrame
        The annotations the labels came from (annotator identity needed).
    fit : LatentClassFit, optional
        The annotation model fitted to ``ratings``. Default: the spam model
        (MACE's annotators), as in :func:`noise_models.agreed_error_bracket`.
    alpha : float, default 0.95
        The paper's confidence α of γ.
    truth : pandas.Series or array_like of bool, optional
        Known label errors; then the detection metrics of the model, the
        annotation posterior and the combination are set side by side.

    Returns
    -------
    CrosscheckResult

    Raises
    ------
    ValueError
        If ``scores`` lacks rated items, holds several models, or the
        ratings cannot be fitted.

    Notes
    -----
    ``P(label wrong)`` is ``1 − P(easy and class = label | annotations)``
    under the fit (a hard item has no true label). The model *flags* an item
    when its most probable class is not the label (losses only: when
    ``p(label) < 1/2``; a confident-learning ranking: its flagged set). The
    combined probability multiplies the annotation posterior of each class
    by the model's ``p_c / φ_c`` (model and annotators independent given the
    class), leaving the hard mass as it is; without class probabilities it
    is the mean of the two rank percentiles.

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import simulate_annotations, ModelScores
    >>> sim = simulate_annotations(400, 5, model="M2", error_rates=0.25, hard_share=0.0,
    ...                            rng=0)
    >>> labels = sim.ratings.categories[sim.ratings.counts.argmax(axis=1)]  # majority vote
    >>> rng = np.random.default_rng(1)  # a model that knows the truth, with noise
    >>> p = np.full((400, 2), 0.2); p[np.arange(400), sim.true_class] = 0.8
    >>> p = p + rng.uniform(0, 0.1, p.shape); p /= p.sum(axis=1, keepdims=True)
    >>> s = ModelScores.from_arrays(p, kind="probs", items=sim.ratings.items,
    ...                             classes=sim.ratings.categories)
    >>> res = crosscheck(s, labels, sim.ratings, truth=labels != sim.true_class)
    >>> res.n_agreed, res.n_flagged_agreed
    (100, 1)
    >>> res.detection[["average_precision", "auroc"]].round(3)
                          average_precision  auroc
    ranking
    model loss                        1.000  1.000
    annotation posterior              0.209  0.785
    combined                          0.920  0.973
    """
    check_params(crosscheck, locals())
    r = as_ratings(ratings)
    r.require_raters("`crosscheck`")
    fit = _checked_fit(fit, r)
    lab = _label_codes(labels, r)
    n = r.n_items
    loss, model_flags, probs, model_name = _model_view(scores, r, lab)
    counts = r.counts
    n_rated = counts.sum(axis=1)
    agreed = r.agreed
    disagreed = (n_rated >= 2) & ~agreed
    right = fit.class_posterior[np.arange(n), lab]
    p_wrong = np.clip(1.0 - right, 0.0, 1.0)
    combined = _combined(fit, probs, lab, loss, p_wrong)
    res, n_agreed, n_flag = _agreement_metrics(loss, p_wrong, disagreed, agreed, model_flags)
    bracket = agreed_error_bracket(r, alpha=alpha, model=fit.model)
    frame = pd.DataFrame({"label": r.categories[lab], "loss": loss, "posterior_wrong": p_wrong,
                          "combined": combined, "disagreed": disagreed, "agreed": agreed,
                          "model_flags": model_flags}, index=pd.Index(r.items, name="item"))
    comb_rank = Ranking.from_scores(pd.Series(combined, index=frame.index), method="combined",
                                    model=f"{model_name} + {fit.model.name}")
    detection = None if truth is None else _detection_table(truth, r, loss, p_wrong, combined)
    verdict = _verdict(res, bracket)
    return CrosscheckResult(
        n_items=n, n_agreed=n_agreed, n_disagreed=int(disagreed.sum()),
        auroc_disagreement=float(res["auroc_disagreement"]),
        ap_disagreement=float(res["ap_disagreement"]),
        auroc_posterior=res["auroc_posterior"], ap_posterior=res["ap_posterior"],
        spearman=res["spearman"], flagged_agreed_share=res["flagged_agreed_share"],
        n_flagged_agreed=n_flag, bracket=bracket, frame=frame, combined=comb_rank,
        detection=detection, model_name=model_name, annotation_model=fit.model.name,
        alpha=bracket.alpha, verdict=verdict,
    )


def _checked_fit(fit: Any, r: Ratings) -> LatentClassFit:
    """The annotation model's fit: ``fit`` if it is one of ``r`` (default: the spam model
    fitted here)."""
    if fit is None:
        fit = LatentClassModel("spam", rng=0).fit(r)
    elif not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit or None; got {type(fit).__name__}.")
    elif fit.ratings.n_items != r.n_items or not fit.ratings.items.equals(r.items):
        raise ValueError("`fit` was fitted to other ratings (its items differ).")
    return fit


def _label_codes(labels: Any, r: Ratings) -> np.ndarray:
    """The given labels as category codes of the ratings, one per rated item."""
    if isinstance(labels, pd.Series):
        missing = r.items.difference(labels.index)
        if len(missing):
            raise ValueError(f"`labels` lacks {len(missing)} rated items: "
                             f"{few(missing.to_numpy())}.")
        lab_values = labels.reindex(r.items).to_numpy()
    else:
        lab_values = np.asarray(labels)
        if lab_values.ndim != 1 or len(lab_values) != r.n_items:
            raise ValueError(f"`labels` must have one label per rated item ({r.n_items}).")
    lab = r.categories.get_indexer(lab_values)
    if (lab < 0).any():
        raise ValueError(f"`labels` has values that are not categories of the ratings: "
                         f"{few(pd.unique(lab_values[lab < 0]))}.")
    return lab


def _model_view(scores: Any, r: Ratings, lab: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str]:
    """What the model says of each item: its loss on the given labels, whether it flags
    the item, its class probabilities in the ratings' category order (None for a ranking
    or losses) and its name."""
    n = r.n_items
    if isinstance(scores, (np.ndarray, list, tuple)) and np.ndim(scores) in (2, 3):
        # cleanlab's habit: pred_probs items × classes, in the ratings' item and category order
        arr = np.asarray(scores, dtype=np.float64)
        if arr.shape[-2:] != (n, r.n_categories):
            raise ValueError(f"`scores` as an array must be items × classes ({n} × "
                             f"{r.n_categories}, the ratings' order) or models × items × "
                             f"classes; got shape {arr.shape}.")
        scores = ModelScores.from_arrays(arr, kind="probs", items=r.items,
                                         classes=list(r.categories))
    probs = None
    model_flags: np.ndarray
    if isinstance(scores, Ranking):
        key = scores.score_key()
        missing = r.items.difference(key.index)
        if len(missing):
            raise ValueError(f"`scores` lacks {len(missing)} rated items: "
                             f"{few(missing.to_numpy())}.")
        if scores.flagged is None:
            raise ValueError("a Ranking without a flagged set says nothing about which items "
                             "the model flags: pass ModelScores or a confident-learning "
                             "Ranking.")
        loss = key.reindex(r.items).to_numpy()
        model_flags = r.items.isin(scores.flagged)
        model_name = f"{scores.model} ({scores.method})"
    elif isinstance(scores, ModelScores):
        s = _align_scores(scores, r)
        cats = pd.Index(r.categories)
        loss = item_loss(s, pd.Series(cats[lab], index=r.items))[0]
        if s.kind == "loss":
            model_flags = loss > math.log(2.0)
        else:
            probs = s.probabilities()[0]
            codes = s.label_codes(pd.Series(cats[lab], index=r.items))
            model_flags = probs.argmax(axis=1) != codes
            # columns of the model in the category order of the ratings
            col = match_labels(np.asarray(cats, dtype=object), s.classes)
            probs = probs[:, col] if (col >= 0).all() else None
        model_name = s.model_names[0]
    else:
        raise TypeError(f"`scores` must be ModelScores or a Ranking (or an items × classes "
                        f"array of probabilities); got {type(scores).__name__}.")
    return loss, model_flags, probs, model_name


def _combined(fit: LatentClassFit, probs: np.ndarray | None, lab: np.ndarray,
              loss: np.ndarray, p_wrong: np.ndarray) -> np.ndarray:
    """Each item's combined P(label wrong): the annotation posterior times the model's
    likelihood ratio ``p_c / φ_c``; without probabilities, the mean of the two ranks."""
    n = len(lab)
    if probs is not None:
        phi = np.maximum(fit.phi, 1e-12)
        easy = fit.class_posterior * (probs / phi)
        hard = (1.0 - fit.class_posterior.sum(axis=1)).clip(0.0)
        combined = 1.0 - easy[np.arange(n), lab] / (easy.sum(axis=1) + hard)
    else:
        combined = (pd.Series(loss).rank(pct=True).to_numpy()
                    + pd.Series(p_wrong).rank(pct=True).to_numpy()) / 2
    return combined


def _agreement_metrics(loss: np.ndarray, p_wrong: np.ndarray, disagreed: np.ndarray,
                       agreed: np.ndarray, model_flags: np.ndarray
                       ) -> tuple[dict[str, Any], int, int]:
    """How the model's loss ranks the disagreed items and the annotation posterior's
    P(wrong), their rank correlation, and the share of agreed items the model flags."""
    res: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        dm = detection_metrics(loss, disagreed)
    res["auroc_disagreement"], res["ap_disagreement"] = dm.auroc, dm.average_precision
    res["auroc_posterior"], res["ap_posterior"] = _soft_metrics(loss, p_wrong)
    from scipy.stats import spearmanr  # at first use: scipy.stats is slow to import

    rho = spearmanr(loss, p_wrong).statistic if np.ptp(p_wrong) > 0 and np.ptp(loss) > 0 \
        else math.nan
    res["spearman"] = float(rho)
    n_agreed = int(agreed.sum())
    n_flag = int((model_flags & agreed).sum())
    res["flagged_agreed_share"] = n_flag / n_agreed if n_agreed else math.nan
    return res, n_agreed, n_flag


def _detection_table(truth: Any, r: Ratings, loss: np.ndarray, p_wrong: np.ndarray,
                     combined: np.ndarray) -> pd.DataFrame:
    """Detection metrics of the three rankings against the true errors ``truth``."""
    t = truth.reindex(r.items).to_numpy() if isinstance(truth, pd.Series) else truth
    rows = {}
    for name, sc in (("model loss", loss), ("annotation posterior", p_wrong),
                     ("combined", combined)):
        d: DetectionResult = detection_metrics(sc, t)
        rows[name] = {m: getattr(d, m) for m in ("average_precision", "auroc",
                                                  "precision_at_k", "recall_at_k",
                                                  "f1_at_k")}
    detection = pd.DataFrame(rows).T
    detection.index.name = "ranking"
    return detection
