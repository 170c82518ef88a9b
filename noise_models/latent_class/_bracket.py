"""The noise bracket of an agreed subset (SPEC §2.4).

:func:`agreed_error_bracket`: a labels-only model's expected error on the
unanimous items (optimistic) beside γ of the paper's model (pessimistic).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    Alpha,
    Resamples,
    Rng,
    check_alpha,
    check_params,
    validate_params,
)
from agreement import Ratings, as_ratings
from noise_models.latent_class._fit import LatentClassFit
from noise_models.latent_class._model import EasyHardModel, LatentClassModel

__all__ = ["ErrorBracketResult", "agreed_error_bracket"]


# -------------------------------------------------------------- the bracket
@dataclass(frozen=True, repr=False)
class ErrorBracketResult(Result):
    """How wrong the unanimously agreed labels may be: optimistic and pessimistic.

    Attributes
    ----------
    n_items : int
        Items in the data.
    n_agreed : int
        Unanimous items with two or more ratings (the candidate gold standard).
    optimistic : float
        Share of the agreed labels a labels-only model expects to be wrong.
    optimistic_errors : float
        The expected number of wrong agreed labels under that model.
    pessimistic : float
        γ: with confidence :attr:`alpha`, at most this share of the agreed
        items are hard (coin flips whose label means nothing).
    pessimistic_errors : int
        The γ bound as a count.
    alpha : float
        The paper's confidence α of γ.
    optimistic_model, pessimistic_model : str
        The models behind the two ends.
    explanation : str
        What each end assumes, in plain words.
    posterior_upper : float or None
        With ``posterior_bound=True``: with confidence :attr:`alpha`, at most this
        share of the agreed labels are wrong under the item-difficulty model's
        posterior, its parameters' uncertainty included (None otherwise).
    posterior_upper_errors : int or None
        That bound as a count.
    posterior_model : str or None
        The model behind it, and how the quantile was computed.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    n_items: int
    n_agreed: int
    optimistic: float
    optimistic_errors: float
    pessimistic: float
    pessimistic_errors: int
    alpha: float
    optimistic_model: str
    pessimistic_model: str
    explanation: str
    posterior_upper: float | None = None
    posterior_upper_errors: int | None = None
    posterior_model: str | None = None



    def __repr__(self) -> str:
        extra = ("" if self.posterior_upper is None else
                 f"; at most {self.posterior_upper:.2%} wrong under the item-difficulty "
                 "posterior")
        return (f"ErrorBracketResult({self.n_agreed} agreed of {self.n_items} items: "
                f"{self.optimistic:.2%} ({self.optimistic_model}) to {self.pessimistic:.2%} "
                f"(γ at alpha={self.alpha:g}) of the agreed labels may be wrong{extra})")


@validate_params(alpha=Alpha(), n_resamples=Resamples(1), rng=Rng())
def agreed_error_bracket(ratings: Any, *, alpha: float = 0.95,
                         model: LatentClassModel | LatentClassFit | None = None,
                         posterior_bound: bool = False, n_resamples: int = 100,
                         rng: Any = None) -> ErrorBracketResult:
    """Bracket the share of wrong labels among the unanimously agreed items.

    Parameters
    ----------
    ratings : Ratings or array_like or pandas.DataFrame
        Items × annotators labels (annotator identity needed).
    alpha : float, default 0.95
        The paper's confidence α of the pessimistic end (γ).
    model : LatentClassModel, optional
        The labels-only model of the optimistic end. Default: the spam model
        (MACE's annotators, ``LatentClassModel("spam", rng=0)``). A model
        with a hard component counts an agreed item's chance of being hard
        as a chance that its label is wrong. A :class:`LatentClassFit` of
        these ratings is used as it is (no second fit).
    posterior_bound : bool, default False
        Also bound the wrong agreed labels under the default model's posterior
        (MACE's spam model with item difficulty; ``model`` itself when it is
        that model or its fit): the upper ``alpha``-quantile of the number of
        agreed items whose class is not their label, a mixture over ``n_resamples``
        bootstrap refits of the sums of independent Bernoullis (see Notes).
    n_resamples : int, default 100
        Bootstrap refits of that bound (each warm-started at the fit).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap.

    Returns
    -------
    ErrorBracketResult

    Raises
    ------
    ValueError
        If no item is unanimous with two or more ratings, the data cannot
        be fitted (see :meth:`LatentClassModel.fit`), or ``model`` is a fit of
        other ratings.

    Notes
    -----
    *Optimistic*: the model's expected number of wrong agreed labels,
    ``Σ_agreed (1 − P(easy and class = agreed label | labels))``. It assumes
    that annotators err independently given the true class, so it cannot see
    errors they share (a misleading item fools everyone alike): on Snow et
    al.'s RTE data with five workers per item (20 draws; the README's bracket
    table), 2.2% of the unanimous labels are wrong against the gold standard
    on average while the spam model expects 0.6%.

    *Pessimistic*: γ of the paper's easy/hard model (:class:`EasyHardModel`,
    :meth:`LatentClassFit.noise_bound`): every unanimous item could be a hard
    item whose coin flips happened to agree, and with confidence α at most
    this share are. It assumes nothing about annotator quality, and so
    usually overstates the error.
    It stays M1's with the item-difficulty default: under that model a hard
    item keeps its class and its annotators still know it with ``θ_j·a``, so
    its γ (:meth:`LatentClassFit.noise_bound`) bounds hard agreed items, not
    wrong labels, and reads fitted competences. On crowd sets with gold
    neither γ covers the wrong agreed labels where annotators err together
    (dog: 7.3% wrong, M1's γ 0, the difficulty model's 2.4%; face: 11.4%,
    1.3%, 10.1%; ``benchmarks/RESULTS.md``).

    The default optimistic model is the spam model rather than Dawid–Skene:
    with ``m`` parameters per annotator instead of ``m(m − 1)`` it stays
    stable when crowd workers label few items each, and where annotators are
    near-random it is far better (MACE's example: 0.80 accuracy against
    Dawid–Skene's 0.42), while matching Dawid–Skene on RTE and temp.

    *Posterior bound* (``posterior_bound=True``): given the item-difficulty
    model's parameters ``θ`` the items' classes are independent a posteriori, so
    the wrong agreed labels are a sum of independent Bernoullis with
    ``p_i(θ) = 1 − P(class = agreed label | x_i, θ)`` (a Poisson-binomial); the
    bound is the upper ``α``-quantile of the mixture of these over the bootstrap
    refits ``θ_b`` (items resampled), so the parameters' uncertainty is in it.
    Unlike γ it bounds wrong labels (a hard item keeps its class), and unlike the
    optimistic end it is a bound, not an expectation. It holds where the data
    follow the model: in simulation with the model's own form (binary labels,
    4 of 15 annotators per item, 30% hard items at the model's levels) it covered
    the true wrong agreed labels in 95 of 100 replicates and 20 of 20 at α = 0.95
    (``tests/test_bracket.py``). Errors that fool everyone alike beyond the item's
    level are not in it, as in the optimistic end: on Snow et al.'s RTE and temp
    crowd data (3 or 5 workers drawn per item, 20 draws, against expert gold) it
    covered the wrong agreed labels in 17, 6, 5 and 0 of 20 draws
    (``benchmarks/bracket_table.py``).

    A verified random sample of the agreed items settles where in the bracket
    the truth lies: see :func:`verified_sample_bound`.

    Examples
    --------
    >>> from simulation import simulate_annotations
    >>> from noise_models import agreed_error_bracket
    >>> sim = simulate_annotations(2000, 5, model="M2", error_rates=0.1, hard_share=0.2,
    ...                            rng=1)
    >>> b = agreed_error_bracket(sim.ratings)
    >>> b.optimistic < b.pessimistic
    True
    """
    check_params(agreed_error_bracket, locals())
    alpha = check_alpha(alpha)
    if not isinstance(posterior_bound, bool):
        raise TypeError(f"`posterior_bound` must be True or False; got {posterior_bound!r}.")
    model, r = _model_and_ratings(model, ratings)
    r.require_raters("`agreed_error_bracket`")
    counts = r.counts
    n_rated = counts.sum(axis=1)
    agreed = r.agreed
    n_agreed = int(agreed.sum())
    if n_agreed == 0:
        raise ValueError(
            "no item is unanimous with two or more ratings: there are no agreed labels "
            "to bracket."
        )
    opt_fit = model if isinstance(model, LatentClassFit) else model.fit(r)
    model = opt_fit.model
    label = np.argmax(counts[agreed], axis=1)
    right = opt_fit.class_posterior[np.flatnonzero(agreed), label]
    expected = float(np.sum(1.0 - right))
    hard_fit = EasyHardModel(rng=0).fit(r)
    bound = hard_fit.noise_bound(alpha=alpha)
    text = _explanation(r.n_items, n_agreed, model.name, expected, alpha, bound)
    extra: dict[str, Any] = {}
    if posterior_bound:
        extra, more = _posterior_bound(opt_fit, r, agreed, label, alpha, n_resamples, rng)
        text += more
    return ErrorBracketResult(
        n_items=r.n_items, n_agreed=n_agreed, optimistic=expected / n_agreed,
        optimistic_errors=expected, pessimistic=bound.gamma,
        pessimistic_errors=bound.hidden_hard, alpha=alpha, optimistic_model=model.name,
        pessimistic_model=f"{hard_fit.model.name}, {bound.method}", explanation=text,
        **extra,
    )


def _posterior_bound(opt_fit: Any, r: Ratings, agreed: np.ndarray, label: np.ndarray,
                     alpha: float, n_resamples: int, rng: Any) -> tuple[dict[str, Any], str]:
    """The bracket's fields of ``posterior_bound=True`` and its sentence."""
    from noise_models.latent_class._wrong_bound import posterior_wrong_bound

    n_agreed = int(agreed.sum())
    diff_fit = (opt_fit if opt_fit.model.annotators == "spam"
                and opt_fit.model.hard == "difficulty"
                else LatentClassModel("spam", "difficulty", rng=0).fit(r))
    upper, _, how = posterior_wrong_bound(diff_fit, agreed, label, alpha=alpha,
                                          n_resamples=n_resamples, rng=rng)
    extra = {"posterior_upper": upper / n_agreed, "posterior_upper_errors": upper,
             "posterior_model": f"{diff_fit.model.name}, {how}"}
    return extra, (f" Under the {diff_fit.model.name} model's posterior, its parameters' "
                   f"uncertainty included, at most {upper} ({upper / n_agreed:.2%}) of the "
                   f"agreed labels are wrong with confidence {alpha:g}; it sees what that "
                   "model sees (not errors that fool everyone alike).")


def _model_and_ratings(model: Any, ratings: Any) -> tuple[Any, Ratings]:
    """The optimistic model (default: spam annotators) and the ratings, checked: a fit
    must be of these ratings."""
    if model is None:
        model = LatentClassModel("spam", rng=0)
    elif not isinstance(model, (LatentClassModel, LatentClassFit)):
        raise TypeError("`model` must be a LatentClassModel, a LatentClassFit or None; got "
                        f"{type(model).__name__}.")
    r = as_ratings(ratings)
    if isinstance(model, LatentClassFit) and not _same_ratings(model.ratings, r):
        raise ValueError("`model` is a fit of other ratings than `ratings`; pass the fitted "
                         "model's own ratings, or the unfitted LatentClassModel.")
    return model, r


def _explanation(n_items: int, n_agreed: int, name: str, expected: float, alpha: float,
                 bound: Any) -> str:
    """What the two ends of the bracket assume, in words."""
    return (
        f"Of {n_items} items, {n_agreed} were labelled unanimously (by two or more "
        f"annotators). Optimistic: {name} expects {expected:.1f} of their labels "
        f"({expected / n_agreed:.2%}) to be wrong; it assumes annotators err independently "
        "given the true class, so errors they share (items that mislead everyone) are "
        f"invisible to it. Pessimistic: with confidence {alpha:g}, at most "
        f"{bound.hidden_hard} ({bound.gamma:.2%}) of them are hard items whose coin flips "
        "happened to agree (the easy/hard model's γ); it assumes nothing about annotator "
        "quality and usually overstates the error. A verified random sample of the "
        "agreed items settles it (verified_sample_bound)."
    )


def _same_ratings(a: Any, b: Any) -> bool:
    """Whether two Ratings hold the same labels (the same object, or equal codes)."""
    if a is b:
        return True
    return (a.codes is not None and b.codes is not None and a.codes.shape == b.codes.shape
            and bool(np.array_equal(a.codes, b.codes)) and list(a.categories) ==
            list(b.categories))
