"""Expert checks and the certificate of the wrong labels left (SPEC §6).

A verification batch mixes a *ranked* stratum (the items whose published label is
most likely wrong, every one of them checked: inclusion probability 1) with a
*random* stratum (a simple random sample of the other items, inclusion
probability ``n_h / N_h``). From the checked items' true labels the number ``W``
of wrong published labels in the whole data set is bounded:

* ranked (take-all) strata contribute their counted errors exactly;
* each random stratum ``h`` (``N_h`` items, ``n_h`` checked, ``e_h`` wrong) gets
  the exact hypergeometric upper bound of its wrong count ``K_h``
  (:func:`noise_models.verified_sample_bound`), at level ``1 − (1 − c)/H`` for
  ``H`` random strata (Bonferroni: exact for one random stratum, conservative
  for several);
* ``upper = Σ_ranked e_h + Σ_random K_h^max``; the Horvitz–Thompson estimate is
  ``Σ_{checked i} wrong_i / π_i``.

For a design with one random stratum and no ranked one (a simple random sample)
``upper`` is exactly ``verified_sample_bound(N, n, e, alpha=c).max_errors``.
``upper_left = upper − (errors found)`` bounds the wrong labels that remain once
the checked items are corrected. Items the fit knows (``fit(ratings, gold=...)``:
gold, or items verified before and refitted as gold) are neither ranked nor drawn;
they form a take-all stratum ``gold`` whose wrong labels are counted (0: a gold item
keeps its gold class).

**Looks.** A team that checks a fresh batch after every round and stops the first
time ``upper_share ≤ ε`` looks at a bound many times; a bound at level ``c`` at each
look fails at *some* look far more often than ``1 − c`` (10% of runs after 3 looks,
27% after 10, measured on replays). The bound at look ``t`` is therefore taken at the
level ``1 − α_t`` with ``Σ_t α_t ≤ α = 1 − c`` (a union bound over looks): whatever
the labels, the batches and the rule by which the team stops, the probability that
any look's bound falls below the wrong labels of its own round is at most ``α``, as
each look's bound holds with probability ``1 − α_t`` given everything before it (its
random stratum is drawn afresh). So "stop when the bound is below ε" is valid at
level ``c`` however often one looks:

* ``looks="any"`` (default): ``α_t = α / (t (t + 1))`` (sums to ``α`` over every
  ``t ≥ 1``): valid for any number of looks, decided as one goes; look 1 spends
  ``α/2``, look 10 ``α/110``;
* ``looks=L``: ``α_t = α / L`` for ``t ≤ L`` (Bonferroni over ``L`` looks declared
  in advance): valid for at most ``L`` looks;
* ``looks=1``: the one-look bound, ``α_1 = α``: valid only when the data are looked
  at once (or the stopping decision ignores every earlier bound).

The hypergeometric bound grows slowly with its level (about as
``sqrt(log(1/α_t))``), so the price of validity at every look is small; the widths
against the one-look bound are in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.labels import labels_by_item
from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Count,
    Option,
    Probability,
    Rng,
    check_count,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import LatentClassFit, LatentClassModel, verified_sample_bound
from simulation.reannotation._ensemble import POSTERIORS, ensemble_posterior, gold_mask

__all__ = ["ResidualErrorResult", "residual_errors", "verification_batch"]

#: Columns of a design frame (what :func:`verification_batch` returns).
DESIGN_COLUMNS = ("item", "stratum", "inclusion_probability", "stratum_size",
                  "stratum_sample", "label", "p_wrong")


#: The rankings of :func:`verification_batch`'s ranked stratum.
RANKINGS = POSTERIORS

#: ``looks=`` besides a number of looks declared in advance.
ANY_LOOKS = "any"


def _as_fit(ratings_or_fit: Any, fit: LatentClassFit | None = None) -> LatentClassFit:
    if fit is not None:
        if not isinstance(fit, LatentClassFit):
            raise TypeError(f"`fit` must be a LatentClassFit; got {type(fit).__name__}.")
        return fit
    if isinstance(ratings_or_fit, LatentClassFit):
        return ratings_or_fit
    return LatentClassModel("spam", "difficulty", rng=0).fit(ratings_or_fit)


@validate_params(size=Count(1), random_share=Probability(), rank=Option(RANKINGS), rng=Rng())
def verification_batch(ratings: Any, *, size: int, fit: LatentClassFit | None = None,
                       random_share: float = 0.5, rank: str = "ensemble",
                       rng: Any = None) -> pd.DataFrame:
    """Items for expert checks: the most likely wrong, and a random sample of the rest.

    The ranked stratum holds the items whose published label (``fit``'s) is most
    likely wrong. With ``rank="ensemble"`` (default) that probability is averaged
    over two latent-class models fitted to the same ratings with ``fit``'s options,
    MACE's spam model and Dawid–Skene (``fit`` itself, as it is, is the member of its
    own model; the other is fitted once per fit object with ``fit``'s options and gold
    and tempered by ``fit``'s held-out temperature; the default fit is spam with item
    difficulty, ``LatentClassModel("spam", "difficulty")``):

    ``p_wrong_i = ½ · Σ_{M ∈ {spam, DS}} (1 − P_M(s_i = ŷ_i | x_i))``,

    ``ŷ_i`` the published label, ``P_M(s_i = c | x_i)`` model ``M``'s posterior that
    item ``i`` is easy and of class ``c`` (``class_posterior``). One model's
    posterior is too sure where its annotator model is wrong (spam: one shared
    error pattern per annotator; Dawid–Skene: many parameters per annotator, few
    ratings each); the mean is the probability under the equal-weight average of
    the two models, and still reads as "the probability that the published label is
    wrong". With
    ``rank="fit"`` it is ``fit``'s own ``1 − label_posterior``. The ranked stratum is
    checked in full (inclusion probability 1), so the certificate of
    :func:`residual_errors` is valid under either ranking.

    Parameters
    ----------
    ratings : Ratings, array-like or LatentClassFit
        The ratings (fitted with the default model, MACE's spam model with item
        difficulty, ``LatentClassModel("spam", "difficulty", rng=0)``), or a fit.
    size : int
        Items to check (at most the number of items without gold).
    fit : LatentClassFit, optional
        The fit whose labels are published (default: fitted here). Its gold items
        (``fit(ratings, gold=...)``: gold, or items verified before) are neither ranked
        nor drawn: their class is known, and :func:`residual_errors` counts them as a
        stratum of their own.
    random_share : float in [0, 1], default 0.5
        Share of the batch drawn at random from the items outside the ranked
        stratum (the rest, ``size − round(size · random_share)``, are the items with
        the highest ``p_wrong``, ties at random).
    rank : {"ensemble", "fit"}, default "ensemble"
        The ``p_wrong`` of the ranking: the mean over spam and Dawid–Skene (above;
        one more fit per fit object, shared with ``next_batch``), or ``fit``'s
        ``1 − label_posterior``.
    rng : int or numpy.random.Generator, optional

    Returns
    -------
    pandas.DataFrame
        One row per item to check: ``item``, ``stratum`` ("ranked" or "random"),
        ``inclusion_probability``, ``stratum_size``, ``stratum_sample``, the
        published ``label`` and ``p_wrong`` (the ranking's). This frame is the
        ``design`` of :func:`residual_errors`.

    Examples
    --------
    >>> import numpy as np
    >>> from simulation import verification_batch
    >>> g = np.random.default_rng(0)
    >>> truth = g.integers(0, 2, 200)
    >>> x = np.where(g.random((200, 3)) < 0.8, truth[:, None], 1 - truth[:, None])
    >>> batch = verification_batch(x, size=20, rng=0)
    >>> batch.groupby("stratum").size().to_dict()
    {'random': 10, 'ranked': 10}
    >>> float(batch.loc[batch.stratum == "random", "inclusion_probability"].iloc[0])
    0.05263157894736842
    """
    check_params(verification_batch, locals())
    f = _as_fit(ratings, fit)
    r = f.ratings
    n = r.n_items
    if size > n:
        raise ValueError(f"`size` ({size}) exceeds the {n} items.")
    known = gold_mask(f)
    if size > n - known.sum():
        raise ValueError(f"`size` ({size}) exceeds the {n - int(known.sum())} items without "
                         "gold (gold items are not checked again).")
    gen = check_rng(rng)
    if rank == "fit":
        p_wrong = 1.0 - np.nan_to_num(np.asarray(f.label_posterior, dtype=np.float64), nan=0.0)
    else:
        labels = np.asarray(f.label_codes, dtype=np.intp)
        p_wrong = 1.0 - ensemble_posterior(f)[np.arange(labels.size), labels]
    n_random = round(size * random_share)
    n_ranked = size - n_random
    # highest P(wrong) first; ties in a seeded random order
    order = np.lexsort((gen.random(n), -p_wrong))
    order = order[~known[order]]  # gold items are not checked: their class is known
    ranked = order[:n_ranked]
    rest = order[n_ranked:]
    random = np.sort(gen.choice(rest, size=n_random, replace=False)) if n_random else rest[:0]
    return _batch_frame(f, p_wrong, ranked, random, rest)


def _batch_frame(f: Any, p_wrong: np.ndarray, ranked: np.ndarray, random: np.ndarray,
                 rest: np.ndarray) -> pd.DataFrame:
    """The batch's table: the ``ranked`` items (all checked), then the ``random`` ones
    drawn from the ``rest`` with their inclusion probability."""
    r = f.ratings
    n_ranked, n_random = ranked.size, random.size
    labels = r.categories[f.label_codes]
    rows = [pd.DataFrame({"item": r.items[ranked], "stratum": "ranked",
                          "inclusion_probability": 1.0, "stratum_size": n_ranked,
                          "stratum_sample": n_ranked, "label": labels[ranked],
                          "p_wrong": p_wrong[ranked]})]
    if n_random:
        rows.append(pd.DataFrame({"item": r.items[random], "stratum": "random",
                                  "inclusion_probability": n_random / rest.size,
                                  "stratum_size": rest.size, "stratum_sample": n_random,
                                  "label": labels[random], "p_wrong": p_wrong[random]}))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["n_items"] = r.n_items
    return out


@dataclass(frozen=True, eq=False, repr=False)
class ResidualErrorResult(Result):
    """An upper confidence bound on the wrong published labels (see :func:`residual_errors`).

    Attributes
    ----------
    upper : int
        Wrong labels among the published ones, at most, at ``confidence_level``
        (headline).
    upper_share : float
        ``upper / n_items``.
    upper_left : int
        Wrong labels left once the checked items are corrected, at most.
    estimate : float
        Horvitz–Thompson estimate of the wrong published labels.
    errors_found : int
        Checked items whose published label was wrong.
    n_items, n_verified : int
    confidence_level : float
    method : str
        "exact" (at most one random stratum) or "bonferroni" (several).
    looks : "any" or int
        The looks the bound is valid for: ``"any"`` (every look), ``L`` (up to ``L``
        declared looks) or ``1`` (the one-look bound).
    look : int
        Which look this bound is.
    look_level : float
        The level of this look's bound, ``1 − α_t`` (``confidence_level`` for the
        one-look bound); ``confidence_level`` holds over all looks together.
    strata : pandas.DataFrame
        Per stratum: ``size``, ``checked``, ``errors``, ``inclusion_probability``,
        ``upper`` (its bound).
    epsilon : float or None
        The share asked for; ``stop`` says whether ``upper_share <= epsilon``.
    stop : bool or None

    ``to_frame()``: the strata table.
    """

    upper: int
    upper_share: float
    upper_left: int
    estimate: float
    errors_found: int
    n_items: int
    n_verified: int
    confidence_level: float
    method: str
    looks: Any = ANY_LOOKS
    look: int = 1
    look_level: float = math.nan
    epsilon: float | None = None
    stop: bool | None = None
    strata: pd.DataFrame = field(default=None, repr=False)

    _headline = "upper"
    _records = _table = "strata"
    _summary = (
        "Wrong published labels: at most {upper} of {n_items} ({upper_share:.2%}) at "
        "{confidence_level:g%} confidence, {looks==1:one-look bound, valid for a single look "
        "({method})|{looks==any:valid at every look|valid for up to {looks} looks} (look {look} "
        "at {look_level:.4g%}; {method})}; Horvitz-Thompson estimate {estimate:.1f}",
        "  {errors_found} {errors_found:error|errors} found among {n_verified} checked "
        "{n_verified:item|items}; after correcting them at most {upper_left} remain",
        "  {stop:stop|go on}: the bound is {stop:within|above} the target share {epsilon:g%}")

    def __repr__(self) -> str:
        return (f"ResidualErrorResult(upper={self.upper} of {self.n_items} "
                f"({self.upper_share:.4f}), estimate={self.estimate:.1f}, "
                f"errors_found={self.errors_found}, n_verified={self.n_verified}, "
                f"method={self.method!r}, looks={self.looks!r}, look={self.look})")


def _verified_series(verified: Any) -> pd.Series:
    if isinstance(verified, dict):
        verified = pd.Series(verified, dtype=object)
    if not isinstance(verified, pd.Series):
        raise TypeError("`verified` must map item ids to true labels: a pandas Series indexed "
                        f"by item, or a dict; got {type(verified).__name__}.")
    missing = verified.index[verified.isna().to_numpy()]
    if len(missing):
        raise ValueError(f"`verified` has no label for {len(missing)} item(s), e.g. "
                         f"{', '.join(map(repr, list(missing[:3])))}: a checked item's true "
                         "label is known; leave the unchecked items out.")
    if not verified.index.is_unique:
        raise ValueError("`verified` repeats item ids.")
    return verified


def look_alpha(alpha: float, looks: Any, look: int) -> float:
    """The error level spent at look ``look`` (see the module): ``α/(t(t+1))`` for
    ``looks="any"``, ``α/L`` for ``L`` declared looks (``α`` for the one-look bound).

    Examples
    --------
    >>> from simulation.reannotation._certify import look_alpha
    >>> [round(look_alpha(0.05, "any", t), 6) for t in (1, 2, 10)]
    [0.025, 0.008333, 0.000455]
    >>> look_alpha(0.05, 5, 3), look_alpha(0.05, 1, 1)
    (0.01, 0.05)
    """
    if looks == ANY_LOOKS:
        return alpha / (look * (look + 1.0))
    return alpha / looks


def _check_looks(looks: Any, look: Any) -> tuple[Any, int]:
    if isinstance(looks, str):
        if looks != ANY_LOOKS:
            raise ValueError(f"`looks` must be 'any' or a number of looks (1 for the one-look "
                             f"bound); got {looks!r}.")
    else:
        looks = check_count(looks, "looks", minimum=1)
    look = check_count(look, "look", minimum=1)
    if looks != ANY_LOOKS and look > looks:
        raise ValueError(f"`look` ({look}) is past the {looks} look(s) declared in `looks`: "
                         "a bound for more looks than declared is not valid; pass "
                         "looks='any' (or declare more looks from the start).")
    return looks, look


@validate_params(confidence_level=ConfidenceLevel(),
                 epsilon=Probability(optional=True), look=Count(1))
def residual_errors(ratings_or_fit: Any, verified: Any, *, design: pd.DataFrame | None = None,
                    confidence_level: float = 0.95, epsilon: float | None = None,
                    looks: Any = ANY_LOOKS, look: int = 1) -> ResidualErrorResult:
    """An upper confidence bound on the wrong labels left, from checked items.

    By default the bound is valid at every look: a team that computes it after every
    round of checks (passing ``look=1, 2, …``) and stops the first time
    ``upper_share ≤ epsilon`` stops wrongly with probability at most
    ``1 − confidence_level`` over all its looks together (``looks="any"``).
    ``looks=1`` gives the one-look bound (narrower; valid only for a single look).

    Parameters
    ----------
    ratings_or_fit : Ratings, array-like or LatentClassFit
        The fit whose labels are published (ratings are fitted with the default
        model, as :func:`verification_batch` does).
    verified : pandas.Series or dict
        True labels of the checked items, by item id (``2``, ``2.0`` and ``"2"``
        are one label).
    design : pandas.DataFrame, optional
        The frame :func:`verification_batch` returned (its strata and inclusion
        probabilities); every item in it must be verified. Default: the verified
        items are a simple random sample of all items.
    confidence_level : float, default 0.95
    epsilon : float, optional
        A target share of wrong labels: ``stop`` says whether the bound is within it.
    looks : "any" or int, default "any"
        How often the bound is looked at for one stopping decision. ``"any"``: valid
        however many looks (look ``t`` spends ``α/(t(t+1))`` of ``α = 1 −
        confidence_level``); an int ``L``: valid for at most ``L`` looks declared in
        advance (``α/L`` each); ``1``: the one-look bound (``α``), valid only when the
        bound is computed once.
    look : int, default 1
        Which look this is (1 for the first, ``t`` for the ``t``-th bound computed on
        the way to one stopping decision). With ``looks`` other than 1, computing the
        bound again without raising ``look`` spends ``α`` again and voids the
        guarantee.

    Returns
    -------
    ResidualErrorResult
        ``looks`` and ``look`` say which bound it is; ``look_level`` is the level of
        this look's bound, ``1 − α_t``.

    Notes
    -----
    See the module docstring of ``simulation.reannotation._certify`` for the
    formulas: take-all strata are counted, each random stratum gets the exact
    hypergeometric bound at this look's level (Bonferroni over several random
    strata), the estimate is Horvitz–Thompson; the fit's gold items are a take-all
    stratum when the design leaves them out (as ``verification_batch`` does).

    Examples
    --------
    A simple random sample of 100 of 1,000 items, 3 wrong: the bound is the
    hypergeometric one.

    >>> import numpy as np, pandas as pd
    >>> from noise_models import LatentClassModel, verified_sample_bound
    >>> from simulation import residual_errors
    >>> g = np.random.default_rng(1)
    >>> truth = g.integers(0, 2, 1000)
    >>> x = np.where(g.random((1000, 3)) < 0.85, truth[:, None], 1 - truth[:, None])
    >>> fit = LatentClassModel("one-coin", rng=0).fit(x)
    >>> sample = np.sort(g.choice(1000, 100, replace=False))
    >>> res = residual_errors(fit, pd.Series(truth[sample], index=sample))
    >>> res.upper == verified_sample_bound(1000, 100, res.errors_found, alpha=0.975).max_errors
    True

    The one-look bound is the hypergeometric bound at 95%:

    >>> one = residual_errors(fit, pd.Series(truth[sample], index=sample), looks=1)
    >>> one.upper == verified_sample_bound(1000, 100, one.errors_found).max_errors
    True
    """
    check_params(residual_errors, locals())
    looks, look = _check_looks(looks, look)
    f = _as_fit(ratings_or_fit)
    r = f.ratings
    n = r.n_items
    known = gold_mask(f)
    gold_apart = _gold_apart(design, known, n)
    verified = _verified_left(verified, r.items[known] if gold_apart else None)
    wrong = _wrong(f, verified)
    design = _check_design(_simple_design(verified, n) if design is None else design,
                           verified, n)
    level = float(confidence_level)
    look_level = _look_level(level, looks, look)
    gold = _gold_errors(f, known) if gold_apart else None
    strata, estimate, upper, n_random = _strata(design, wrong, look_level, gold, n)
    found = int(wrong.sum())
    share = upper / n
    return ResidualErrorResult(
        upper=int(upper), upper_share=share, upper_left=int(upper - found),
        estimate=float(estimate), errors_found=found, n_items=n,
        n_verified=len(verified), confidence_level=level,
        method="exact" if n_random <= 1 else "bonferroni",
        looks=looks, look=look, look_level=look_level,
        epsilon=epsilon, stop=None if epsilon is None else bool(share <= epsilon),
        strata=strata)


def _verified_left(verified: Any, gold_items: Any) -> pd.Series:
    """The verified labels by item, less the gold items when they are their own take-all
    stratum (they are not checked again)."""
    verified = _verified_series(verified)
    if gold_items is None:
        return verified
    return verified[~verified.index.isin(gold_items)]


def _wrong(f: Any, verified: pd.Series) -> pd.Series:
    """Whether the fit's label of each verified item is wrong."""
    r = f.ratings
    pos, true = labels_by_item(verified, r.items, r.categories, "verified")
    return pd.Series(np.asarray(f.label_codes)[pos] != true, index=verified.index)


def _simple_design(verified: pd.Series, n: int) -> pd.DataFrame:
    """The design of a verified sample drawn at random from all ``n`` items."""
    return pd.DataFrame({"item": verified.index, "stratum": "random",
                         "inclusion_probability": len(verified) / n, "stratum_size": n,
                         "stratum_sample": len(verified)})


def _gold_errors(f: Any, known: np.ndarray) -> tuple[int, int]:
    """The fit's wrong labels among the gold items, and their number."""
    label_codes = np.asarray(f.label_codes)
    return (int((label_codes[known] != np.asarray(f.gold_codes)[known]).sum()),
            int(known.sum()))


def _gold_apart(design: Any, known: np.ndarray, n: int) -> bool:
    """Whether the design's strata leave the gold items out (they are then a take-all
    stratum of their own, not checked again)."""
    return bool(design is not None and known.any() and isinstance(design, pd.DataFrame)
                and "stratum_size" in design.columns and "stratum" in design.columns
                and int(design["stratum_size"].groupby(design["stratum"]).first().sum())
                == n - int(known.sum()))


def _look_level(level: float, looks: Any, look: Any) -> float:
    """The confidence level of this look: ``1 − α_t`` of the error level spent so far."""
    spent = look_alpha(1.0 - level, looks, look)
    look_level = 1.0 - spent
    if look_level >= 1.0:  # 1 − α_t rounds to 1: no float bound at that level
        raise ValueError(f"`look` {look} spends an error level of {spent:.3g} at this look, "
                         "below what a confidence level can hold (1.1e-16): count the looks "
                         "(1 the first time the bound is computed, 2 the second, ...).")
    return look_level


def _strata(design: pd.DataFrame, wrong: pd.Series, look_level: float,
            gold: tuple[int, int] | None, n: int) -> tuple[pd.DataFrame, float, int, int]:
    """Each stratum's errors found and upper bound (Bonferroni over the strata sampled at
    random), the Horvitz–Thompson estimate and the bound of all of them, and how many
    strata were sampled at random. ``gold``: the errors and size of the gold stratum."""
    strata = []
    random_strata = design.loc[design["stratum_size"] > design["stratum_sample"],
                               "stratum"].unique()
    h_random = max(len(random_strata), 1)
    per_level = 1.0 - (1.0 - look_level) / h_random
    estimate = 0.0
    upper = 0
    if gold is not None:
        e, n_gold = gold
        estimate += e
        upper += e
        strata.append({"stratum": "gold", "size": n_gold, "checked": n_gold, "errors": e,
                       "inclusion_probability": 1.0, "upper": e})
    for name, part in design.groupby("stratum", sort=False):
        size = int(part["stratum_size"].iloc[0])
        checked = len(part)
        e = int(wrong.loc[part["item"]].sum())
        pi = float(part["inclusion_probability"].iloc[0])
        estimate += e / pi
        if checked >= size:
            k_max = e
        else:
            k_max = verified_sample_bound(size, checked, e, alpha=per_level).max_errors
        upper += k_max
        strata.append({"stratum": name, "size": size, "checked": checked, "errors": e,
                       "inclusion_probability": pi, "upper": k_max})
    covered = int(design["stratum_size"].groupby(design["stratum"]).first().sum())
    if covered + (0 if gold is None else gold[1]) != n:
        raise ValueError(f"the design's strata cover {covered} items, the ratings have {n}: "
                         "pass the frame verification_batch returned for these ratings.")
    return pd.DataFrame(strata).set_index("stratum"), estimate, upper, len(random_strata)


def _check_design(design: pd.DataFrame, verified: pd.Series, n: int) -> pd.DataFrame:
    if not isinstance(design, pd.DataFrame):
        raise TypeError("`design` must be the DataFrame verification_batch returned; got "
                        f"{type(design).__name__}.")
    need = {"item", "stratum", "inclusion_probability", "stratum_size", "stratum_sample"}
    if missing := need - set(design.columns):
        raise ValueError(f"`design` lacks the column(s) {sorted(missing)}: pass the frame "
                         "verification_batch returned.")
    p = design["inclusion_probability"].to_numpy(dtype=np.float64)
    if not np.all((p > 0) & (p <= 1)):
        raise ValueError("`design` has an inclusion probability outside (0, 1]: an item that "
                         "could not have been drawn cannot stand for others.")
    unchecked = pd.Index(design["item"]).difference(verified.index)
    if len(unchecked):
        raise ValueError(f"{len(unchecked)} item(s) of the design were not verified: "
                         f"{', '.join(map(str, unchecked[:5]))}. The bound needs every drawn "
                         "item checked (a skipped item would bias it).")
    extra = verified.index.difference(pd.Index(design["item"]))
    if len(extra):
        raise ValueError(f"`verified` has {len(extra)} item(s) outside the design: "
                         f"{', '.join(map(str, extra[:5]))}.")
    for name, part in design.groupby("stratum", sort=False):
        size, sample = int(part["stratum_size"].iloc[0]), int(part["stratum_sample"].iloc[0])
        if len(part) != sample or not math.isclose(float(part["inclusion_probability"].iloc[0]),
                                                   sample / size, rel_tol=1e-9):
            raise ValueError(f"stratum {name!r} of `design` is inconsistent: {len(part)} items, "
                             f"stratum_sample {sample}, size {size}, inclusion probability "
                             f"{float(part['inclusion_probability'].iloc[0]):g}.")
    return design
