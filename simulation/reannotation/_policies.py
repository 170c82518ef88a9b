"""Which items get the next rating: the policies of SPEC §6.

Every policy scores the items (higher: asked first) and takes the ``size`` best,
ties in a seeded random order. The model-based scores are *shared among the ratings
the item already has*: divided by ``n_i + 1``, where ``n_i`` is item ``i``'s number of
ratings.

``uniform``
    fewest ratings first (score ``−n_i``);
``random``
    a seeded random order;
``uncertainty``
    lowest confidence in the published label first:
    ``(1 − P(label right)) / (n_i + 1)``;
``margin``
    closest call between the two most probable classes first:
    ``(1 − (π_(1) − π_(2))) / (n_i + 1)``, with ``π_(1) ≥ π_(2)`` the two largest
    class posteriors;
``expected-error-reduction``
    the expected drop in the probability that the item's label is wrong after one
    more rating by a typical annotator, divided by ``n_i + 1`` and by the item's
    cost. With ``π`` the item's class posterior and ``A[c, y]`` the typical
    annotator's emission (the annotators' emission matrices averaged with their
    numbers of ratings as weights),

        EER_i = (1 − max_c π_c) − Σ_y P(y) · (1 − max_c π_c A[c, y] / P(y)),
        P(y) = Σ_c π_c A[c, y];

``hard``
    the posterior that the item is hard (the easy/hard model's), over ``n_i + 1``.

The posterior ``π`` is, by default, the mean of MACE's spam model's and
Dawid–Skene's (``posterior="ensemble"``, see ``_ensemble``), or the fit's own
(``posterior="fit"``).

Why the division. Under a model with a hard component an item whose ratings keep
splitting is hard, and its label stays as unsure however many ratings it gets; plain
uncertainty or margin sampling then asks for it again and again, starving the rest
(the loop Lin, Mausam & Weld 2016 show for uncertainty sampling with relabelling).
Every score above lies in ``[0, 1]`` before the division, so an item with ``n_i``
ratings scores at most ``1 / (n_i + 1)``: an item with a positive score ``s`` is asked
before any item that already has more than ``1/s − 1`` ratings, and no item is chosen
without end. In replays on four public crowd sets, when the division was introduced
(with the fit's own posterior and uncalibrated refits, before the runs now in
``benchmarks/RESULTS.md``), it cost margin 0.7–3.0 points of the ratings it saves
against uniform.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import GoldnoiseWarning
from _goldnoise_lib.validation import (
    Count,
    Option,
    Rng,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import EasyHardModel, LatentClassFit, LatentClassModel
from simulation.reannotation._ensemble import (
    POSTERIORS,
    ensemble_posterior,
    fit_posterior,
    gold_mask,
)

__all__ = ["POLICIES", "expected_error_reduction", "next_batch"]

POLICIES = ("uniform", "random", "uncertainty", "margin", "expected-error-reduction", "hard")

_REASONS = {
    "uniform": "fewest ratings",
    "random": "drawn at random",
    "uncertainty": "least sure label, per rating it has",
    "margin": "closest call between two classes, per rating it has",
    "expected-error-reduction": "largest expected drop in P(label wrong) per rating",
    "hard": "most likely a hard item, per rating it has",
}


def _typical_emission(fit: LatentClassFit) -> np.ndarray:
    """``A[c, y]``: the annotators' emissions averaged with their rating counts as weights."""
    r = fit.ratings
    m = r.n_categories
    codes = r.codes
    w = (codes >= 0).sum(axis=0).astype(np.float64)
    w = w / w.sum()
    if fit.confusion is not None:
        per = np.asarray(fit.confusion)
    elif fit.competence is not None:
        theta = np.asarray(fit.competence)[:, None, None]
        xi = np.asarray(fit.spam_distribution)[:, None, :]
        per = theta * np.eye(m)[None] + (1.0 - theta) * xi
    elif fit.error_rate is not None:
        eps = np.asarray(fit.error_rate)[:, None, None]
        per = (1.0 - eps) * np.eye(m)[None] + eps / max(m - 1, 1) * (1.0 - np.eye(m)[None])
    else:  # perfect annotators on easy items
        per = np.broadcast_to(np.eye(m), (len(w), m, m))
    return np.einsum("j,jcy->cy", w, per)


def expected_error_reduction(posterior: np.ndarray, emission: np.ndarray) -> np.ndarray:
    """``(1 − max π) − E_y[1 − max π']`` for each row ``π`` of ``posterior`` (see the module).

    Examples
    --------
    >>> import numpy as np
    >>> from simulation.reannotation._policies import expected_error_reduction
    >>> a = np.array([[0.8, 0.2], [0.2, 0.8]])
    >>> expected_error_reduction(np.array([[0.5, 0.5], [0.99, 0.01]]), a).round(4).tolist()
    [0.3, 0.0]
    """
    post = np.asarray(posterior, dtype=np.float64)
    joint = post[:, :, None] * emission[None, :, :]  # (n, c, y)
    p_y = joint.sum(axis=1)                           # (n, y)
    after = joint.max(axis=1).sum(axis=1)             # Σ_y max_c π_c A[c, y]
    return np.maximum((1.0 - post.max(axis=1)) - (1.0 - after), 0.0) * (p_y.sum(axis=1) > 0)


def _order(score: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    return np.lexsort((gen.random(score.size), -score))


def _warn_size_above_items(size: int, ratings: Any) -> None:
    """Warn (as ``goldnoise next`` notes) when ``size`` asks for more items than there are."""
    from agreement import as_ratings

    n = as_ratings(ratings).n_items
    if size > n:
        warnings.warn(f"`size` = {size} asks for more items than there are ({n}): every "
                      "eligible item is in the batch", GoldnoiseWarning, stacklevel=3)


@validate_params(size=Count(1), policy=Option(POLICIES), posterior=Option(POSTERIORS),
                 rng=Rng())
def next_batch(ratings: Any, *, size: int, policy: str = "margin",
               model: LatentClassModel | None = None, fit: LatentClassFit | None = None,
               posterior: str = "ensemble", cost: Any = None, exclude: Any = None,
               rng: Any = None) -> pd.DataFrame:
    """The items to send for one more rating, with each one's score and reason.

    Parameters
    ----------
    ratings : Ratings or array-like
    size : int
        Items to choose (fewer when fewer are eligible).
    policy : {"uniform", "random", "uncertainty", "margin", "expected-error-reduction", "hard"}
        ``"uniform"``: fewest ratings first; ``"random"``: a seeded random order. The
        others score an item and divide the score by its ratings + 1 (so that an item
        whose ratings keep splitting is not asked for without end): ``"uncertainty"``,
        1 − P(label right); ``"margin"``, 1 − the gap between the two most probable
        classes; ``"expected-error-reduction"``, the expected drop in P(label wrong)
        after one more rating by a typical annotator (also divided by ``cost``);
        ``"hard"``, the posterior that the item is hard. The default, ``"margin"``,
        saved 31.1%, 37.2%, 19.9% and 49.0% of the ratings against uniform redundancy
        (median of 10 seeds) in replays on four public crowd sets, the most of the
        policies on three of them (uncertainty 37.8% on the other; expected-error-
        reduction 0.7–17.1%; ``benchmarks/RESULTS.md``). Replayed on nine public
        crowd sets with random, hard and cleanlab's ActiveLab beside it
        (``benchmarks/bench_policies.py``, two to five seeds per set, batches of 5–25%
        of the items), margin saved the most ratings or within a point of the most in
        8 of 11 replays, and more than ActiveLab in 9 (uncertainty and ActiveLab did
        better on dog, Dawid–Skene's own posterior on bluebird and adult). Those
        replays refit Dawid–Skene every round; refitting the default fit (spam with
        item difficulty), margin saved 31.6%, 39.4%, 25.9% and 38.6% on the same four
        sets (five seeds, batches of 20%), as much as uncertainty, 17.2% on face
        sentiment and nothing on bluebird (``bench_policies.py --part default``).
    model : LatentClassModel, optional
        The model fitted when ``fit`` is not given (default: MACE's spam model with item
        difficulty, ``LatentClassModel("spam", "difficulty", rng=0)``).
    fit : LatentClassFit, optional
        A fit of ``ratings`` to use as it is (not refitted). Its gold items
        (``fit(ratings, gold=...)``: gold, or items an expert has verified) are settled
        and never chosen, whatever the policy.
    posterior : {"ensemble", "fit"}, default "ensemble"
        The class posterior the model-based policies read: the mean of MACE's spam
        model's and Dawid–Skene's, or the fit's own. The fit is the member of its own
        model (spam or Dawid–Skene) as it is; the other member is fitted once per fit
        object (one start, the fit's gold and prior), and tempered by the fit's held-out
        temperature (``verification_batch`` on the same fit reuses it). In replays on
        four public crowd sets margin saved more ratings with the mean than with the
        fit's own posterior on three (31.1%, 37.2% and 19.9% against
        26.1%, 34.4% and 10.5%) and as many on the fourth (49.0% against 49.1%;
        ``benchmarks/RESULTS.md``; measured before the second model took one start and
        the fit's temperature). On nine crowd sets with a Dawid–Skene fit
        (``benchmarks/bench_policies.py``) Dawid–Skene's own saved more on bluebird and
        adult (39.1% and 26.7% against 32.6% and 14.4%) and much less on face, trec and
        web (2.6%, 21.9% and 8.8% against 17.9%, 30.3% and 20.9%); nothing seen at
        the start told the two groups apart: with gold on some items, replay both
        (``compare_policies``) on your own data. With the default fit (spam with item
        difficulty) refitted every round, margin saved as much with the mean as with the
        default fit's own posterior or more on five of six crowd sets (web 25.9% against
        17.9%, dog 39.4% against 32.5%) and 0.8 points less on rte (five seeds,
        ``bench_policies.py --part default``).
    cost : pandas.Series or array-like, optional
        Cost of one more rating per item (expected-error-reduction divides by it).
    exclude : sequence, optional
        Item ids not to choose (e.g. items with no annotator left); each must be an item
        of the ratings (a ValueError names those that are not).
    rng : int or numpy.random.Generator, optional
        Ties and the random policy.

    Returns
    -------
    pandas.DataFrame
        ``size`` rows (or every eligible item), best first: ``item``, ``score``, ``reason``, ``n_ratings``,
        ``label`` (published) and ``p_wrong`` (1 − P(label right) under the posterior
        the policy reads; the fit's own for uniform, random and hard).

    Warns
    -----
    GoldnoiseWarning
        When ``size`` is more than the number of items (every eligible item is
        then in the batch; ``goldnoise next`` says the same in a note).

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import next_batch
    >>> nan = np.nan
    >>> x = np.array([[0, 0, 0], [0, 1, nan], [1, 1, 1], [1, 0, 0], [0, 0, nan]] * 20)
    >>> batch = next_batch(x, size=3, policy="uncertainty", rng=0)
    >>> batch.columns.tolist()
    ['item', 'score', 'reason', 'n_ratings', 'label', 'p_wrong']
    >>> len(batch)
    3
    """
    check_params(next_batch, locals())
    _warn_size_above_items(size, fit.ratings if isinstance(fit, LatentClassFit) else ratings)
    fit = _fitted(fit, ratings, model)
    _check_cost(cost, policy)
    r = fit.ratings
    gen = check_rng(rng)
    n_ratings = r.ratings_per_item
    labels_codes = np.asarray(fit.label_codes, dtype=np.intp)
    post, label_post = _posteriors(fit, posterior, policy, labels_codes)
    score = _scores(policy, fit, post, label_post, n_ratings, cost)
    order = _chosen(score, _eligible(fit, exclude), gen, size)
    return pd.DataFrame({"item": r.items[order], "score": score[order],
                         "reason": _REASONS[policy], "n_ratings": n_ratings[order],
                         "label": r.categories[labels_codes[order]],
                         "p_wrong": 1.0 - label_post[order]})


def _check_cost(cost: Any, policy: str) -> None:
    if cost is not None and policy != "expected-error-reduction":
        raise ValueError(f"`cost` weighs the expected error reduction per rating; it is not "
                         f"used by policy={policy!r}: pass policy='expected-error-reduction' "
                         "or leave `cost` out.")


def _fitted(fit: Any, ratings: Any, model: Any) -> LatentClassFit:
    """The fit the policy reads: ``fit``, or ``model`` (default: spam annotators with item
    difficulty) fitted to ``ratings``."""
    from agreement import as_ratings

    if fit is None:
        r = as_ratings(ratings)
        chosen = model if model is not None else LatentClassModel("spam", "difficulty", rng=0)
        if not isinstance(chosen, LatentClassModel):
            raise TypeError(f"`model` must be a LatentClassModel; got {type(chosen).__name__}.")
        fit = chosen.fit(r)
    elif not isinstance(fit, LatentClassFit):
        raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
    return fit


def _posteriors(fit: LatentClassFit, posterior: str, policy: str, labels_codes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each item's class posterior and P(label right): the fit's, or its starts'
    ensemble (``posterior="ensemble"``, for the policies that read them)."""
    n = fit.ratings.n_items
    if posterior == "ensemble" and policy not in ("uniform", "random", "hard"):
        post = ensemble_posterior(fit)
        label_post = post[np.arange(n), labels_codes]
    else:
        post = fit_posterior(fit)
        label_post = np.nan_to_num(np.asarray(fit.label_posterior, dtype=np.float64),
                                   nan=0.0)
    return post, label_post


def _scores(policy: str, fit: LatentClassFit, post: np.ndarray, label_post: np.ndarray,
            n_ratings: np.ndarray, cost: Any) -> np.ndarray:
    """Each item's score under ``policy`` (higher: rated sooner), per rating it already has."""
    r = fit.ratings
    n = r.n_items
    if policy == "uniform":
        score = -n_ratings.astype(np.float64)
    elif policy == "random":
        score = np.zeros(n)
    elif policy == "uncertainty":
        score = (1.0 - label_post) / (n_ratings + 1.0)
    elif policy == "margin":
        top2 = np.sort(post, axis=1)[:, -2:]
        score = (1.0 - (top2[:, 1] - top2[:, 0])) / (n_ratings + 1.0)
    elif policy == "expected-error-reduction":
        total = post.sum(axis=1, keepdims=True)
        norm = np.divide(post, total, out=np.full_like(post, 1.0 / post.shape[1]),
                         where=total > 0)
        score = expected_error_reduction(norm, _typical_emission(fit)) / (n_ratings + 1.0)
        if cost is not None:
            c = _per_item(cost, r, "cost")
            if np.any(c <= 0):
                raise ValueError("`cost` must be positive for every item.")
            score = score / c
    else:  # hard
        hard = fit.posterior_hard
        if hard is None or fit.model.annotators != "perfect":
            hard = EasyHardModel(rng=0).fit(r).posterior_hard
        score = np.asarray(hard, dtype=np.float64) / (n_ratings + 1.0)
    return score


def _chosen(score: np.ndarray, eligible: np.ndarray, gen: np.random.Generator,
            size: int) -> np.ndarray:
    """The ``size`` eligible items of highest score (ties in a seeded random order)."""
    order = _order(np.where(eligible, score, -np.inf), gen)
    return order[eligible[order]][:size]


def _eligible(fit: LatentClassFit, exclude: Any) -> np.ndarray:
    """The items that may be chosen: not gold (or verified), not in ``exclude``."""
    r = fit.ratings
    eligible = ~gold_mask(fit)  # a gold (or verified) item's class is known
    if exclude is not None:
        excluded = pd.Index(list(exclude))
        unknown = excluded[~excluded.isin(r.items)]
        if len(unknown):
            raise ValueError(f"`exclude` names {len(unknown)} id(s) that are not items of the "
                             f"ratings, e.g. {', '.join(map(repr, list(unknown[:3])))}: give "
                             "item ids as the ratings have them.")
        eligible &= ~r.items.isin(excluded)
    return eligible


def _per_item(values: Any, r: Any, name: str) -> np.ndarray:
    if isinstance(values, pd.Series):
        aligned = values.reindex(r.items)
        if aligned.isna().any():
            raise ValueError(f"`{name}` lacks some items: "
                             f"{', '.join(map(str, r.items[aligned.isna().to_numpy()][:5]))}.")
        return aligned.to_numpy(dtype=np.float64)
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (r.n_items,):
        raise ValueError(f"`{name}` must have one value per item ({r.n_items}); got shape "
                         f"{arr.shape}.")
    return arr
