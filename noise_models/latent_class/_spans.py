"""Candidate spans as items: γ of the agreed spans and the spans most likely wrong (SPEC §7).

The annotators' spans are merged into candidates (``agreement.spans.candidate_ratings``:
the labels plus "no entity", missing where an annotator did not annotate the document);
the candidates are items like any other, so the easy/hard bound γ and a latent-class fit
read them as they read one label per item.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import pandas as pd

from _goldnoise_lib.results import Result
from noise_models.easy_hard import noise_bound
from noise_models.latent_class._fit import LatentClassFit
from noise_models.latent_class._model import LatentClassModel

__all__ = ["SpanNoiseResult", "span_noise"]


@dataclasses.dataclass(frozen=True)
class SpanNoiseResult(Result):
    """The noise of span annotations, read through their candidate spans.

    Attributes
    ----------
    n_candidates : int
        Candidate spans (items).
    n_agreed : int
        Candidates every annotator of their document labelled alike.
    categories : tuple
        The labels, "no entity" among them.
    gamma : float or None
        γ of the agreed candidates at confidence ``alpha`` (None when undefined:
        ``gamma_note`` says why).
    hidden_hard : int or None
        At most this many agreed candidates are coin-flips (with confidence ``alpha``).
    alpha : float
        Confidence of γ.
    p : float or None
        Chance that a hard candidate comes out agreed.
    gamma_note : str or None
        Why γ is undefined, if it is.
    model : str
        The latent-class model fitted to the candidates ("" when no fit was possible).
    expected_wrong : float or None
        Expected number of wrong ratings (spans and "no entity") under the fit; the
        headline value.
    n_ratings : int
        Ratings of the candidates.
    likely_wrong : pandas.DataFrame
        Every rating with the fit's probability that it is wrong, most likely first
        (``SpanRatings.likely_wrong``); empty without a fit.
    fit : LatentClassFit or None
        The fit (not in ``to_dict``).
    match : str
        How the annotators' spans were merged into candidates (``"exact"`` or
        ``"overlap"``).

    ``to_frame()``: ``likely_wrong``.
    """

    n_candidates: int
    n_agreed: int
    categories: tuple
    gamma: float | None
    hidden_hard: int | None
    alpha: float
    p: float | None
    gamma_note: str | None
    model: str
    expected_wrong: float | None
    n_ratings: int
    likely_wrong: pd.DataFrame = dataclasses.field(repr=False, compare=False)
    fit: LatentClassFit | None = dataclasses.field(repr=False, compare=False, default=None)
    match: str = "exact"

    _headline: ClassVar[str] = "expected_wrong"
    _table = "likely_wrong"
    _summary = ("{n_candidates} candidate spans ({match} match), {n_agreed} agreed by every "
                "annotator of their document",
                "gamma: {gamma_note}",
                "gamma {gamma:.4f}: at most {hidden_hard} of the {n_agreed} agreed spans are "
                "coin-flips, with confidence {alpha:g} (chance agreement on a hard candidate "
                "p = {p:.4f})",
                "latent-class fit ({model}): {expected_wrong:.1f} of {n_ratings} ratings (spans "
                "and \"no entity\") expected wrong")


def span_noise(spans: Any, *, match: str = "exact", threshold: float = 0.5,
               model: LatentClassModel | None = None) -> SpanNoiseResult:
    """γ of the agreed candidate spans and the spans most likely wrong.

    Parameters
    ----------
    spans : agreement.spans.Spans
        The annotations.
    match, threshold
        How spans are merged into candidates (``candidate_ratings``).
    model : LatentClassModel, optional
        Fitted to the candidates (default: ``LatentClassModel("one-coin", rng=0)``).

    Returns
    -------
    SpanNoiseResult

    Examples
    --------
    >>> import pandas as pd
    >>> from agreement.spans import Spans
    >>> from noise_models import span_noise
    >>> rows = [(d, s, s + 2, "PER", a) for d in ("d1", "d2") for s in (0, 10, 20)
    ...         for a in ("ann", "bob", "cat")] + [("d1", 30, 32, "ORG", "ann")]
    >>> spans = Spans(pd.DataFrame(rows, columns=["document", "start", "end", "label",
    ...                                           "annotator"]))
    >>> res = span_noise(spans)
    >>> res.n_candidates, res.n_agreed
    (7, 6)
    """
    from agreement.spans import candidate_ratings

    cand = candidate_ratings(spans, match=match, threshold=threshold)
    r = cand.ratings
    n_agreed = int(r.agreed.sum())
    gamma = hidden = p = note = None
    alpha = 0.95
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no disagreement: said in gamma_note
            bound = noise_bound(r)
    except ValueError as exc:
        note = " ".join(str(exc).split())
    else:
        gamma, hidden, alpha, p = (float(bound.gamma), int(bound.hidden_hard),
                                   float(bound.alpha), float(bound.p))
    fit = None
    name = ""
    expected = None
    wrong = pd.DataFrame()
    if r.n_categories >= 2:
        chosen = model if model is not None else LatentClassModel("one-coin", rng=0)
        if not isinstance(chosen, LatentClassModel):
            raise TypeError(f"`model` must be a LatentClassModel; got {type(chosen).__name__}.")
        fit = chosen.fit(r)
        name = chosen.name
        wrong = cand.likely_wrong(fit)
        expected = float(wrong["p_wrong"].sum())
    return SpanNoiseResult(
        n_candidates=int(cand.n_candidates), n_agreed=n_agreed,
        categories=tuple(r.categories.tolist()), gamma=gamma, hidden_hard=hidden,
        alpha=alpha, p=p, gamma_note=note, model=name, expected_wrong=expected,
        n_ratings=int(r.n_ratings), likely_wrong=wrong, fit=fit, match=match)
