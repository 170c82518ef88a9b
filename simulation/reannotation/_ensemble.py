"""The posterior both re-annotation choices read: the mean over two annotator models.

One latent-class model's posterior is too sure where its annotator model is wrong
(MACE's spam model: one shared error pattern per annotator; Dawid–Skene: a confusion
matrix per annotator, many parameters for few ratings each). ``next_batch`` (which
item gets the next rating) and ``verification_batch`` (which items an expert checks)
therefore read, by default, the equal-weight mixture of the two,

    π_i(c) = ½ · (P_spam(s_i = c | x_i) + P_DS(s_i = c | x_i)),

``P_M(s_i = c | x_i)`` model ``M``'s posterior that item ``i`` is easy and of class
``c`` (``class_posterior``).

What is fitted. The given fit is the member of its own annotator model (spam or
Dawid–Skene without a hard component), as it is: its gold, its held-out temperature
``T`` and its starts are not redone. The other member (both, for a fit of another
model) is fitted once to ``fit.ratings`` with the fit's prior, iterations and
tolerance, **the fit's gold** (the gold items are observed in its EM and keep their
gold class with probability 1), one EM start (from majority vote), and without its own
held-out calibration: its posterior is tempered by the fit's temperature, ``P^(1/T)``
renormalised per item. The member only scores (the published labels are the fit's,
chosen over the fit's own starts); the random starts and the held-out tempering were
most of its time (on web, 177 annotators and 5 classes, ten starts took 27 s against
1.7 s for one, and the one-start ranking found 100 errors in the top 5% against 94;
the same or more on the other four crowd sets of ``benchmarks/RESULTS.md``). That fit
is kept with the given fit (for as long as the fit object lives), so ``next_batch``
and ``verification_batch`` on the same fit in one round fit the second model once.

The default fit (MACE's spam model with item difficulty) is a member of neither model,
so both members are fitted beside it.

In replays on four public crowd sets margin sampling saved more ratings with this
mixture than with Dawid–Skene's own posterior on three and as many on the fourth (run
before the second member took one start and the fit's temperature). Replayed on nine
sets (``benchmarks/bench_policies.py``, Dawid–Skene refitted, two to five seeds), the
mixture saved as many ratings or more on seven; Dawid–Skene's own posterior saved more on
bluebird (every annotator rates every item) and adult (a median of 3 ratings per
annotator). With the default fit refitted every round (five seeds, ``--part default``),
margin reading the mixture saved as many ratings as margin reading the default fit's own
posterior or more on five of six sets (web 25.9% against 17.9%, dog 39.4% against 32.5%)
and 0.8 points fewer on rte (31.6% against 32.4%). As the ranking of expert checks (with every rating, the default fit), the
mixture's top 5% holds 3.3× (bluebird) to 8.8× (sentiment) the errors of a random 5% on
the five shared crowd sets but 1.4× on face sentiment, a public set held out; it finds
more errors than the default fit's own ranking on five of eight sets and fewer on three
(rte 15 against 23, temp 8 against 9, face 15 against 19): neither ranking finds more
everywhere (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pandas as pd

from _goldnoise_lib.errors import ConvergenceWarning
from noise_models import LatentClassFit, LatentClassModel

__all__ = ["POSTERIORS", "ensemble_models", "ensemble_posterior", "fit_posterior",
           "gold_mask", "gold_series"]

#: What the re-annotation choices read: the two-model mixture, or the fit alone.
POSTERIORS = ("ensemble", "fit")

_MEMBERS = ("spam", "confusion")

#: The other member's tempered posterior, per fit object (fitted once per fit).
_OTHER: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def ensemble_models(fit: LatentClassFit) -> tuple[LatentClassModel, ...]:
    """MACE's spam model and Dawid–Skene with ``fit``'s prior, iterations and tolerance,
    one start (majority vote), uncalibrated (new instances; the fit's temperature is
    applied to their posteriors)."""
    m = fit.model
    return tuple(LatentClassModel(annotators, prior_strength=m.prior_strength,
                                  max_iter=m.max_iter, tol=m.tol, n_starts=1, rng=m.rng)
                 for annotators in _MEMBERS)


def fit_posterior(fit: LatentClassFit) -> np.ndarray:
    """``fit.class_posterior`` as floats, NaN (no rating) as 0."""
    return np.nan_to_num(np.asarray(fit.class_posterior, dtype=np.float64), nan=0.0)


def gold_mask(fit: LatentClassFit) -> np.ndarray:
    """Items fitted with a known class (``fit(ratings, gold=...)``), as a boolean mask."""
    codes = fit.gold_codes
    if codes is None:
        return np.zeros(fit.ratings.n_items, dtype=bool)
    return np.asarray(codes) >= 0


def gold_series(fit: LatentClassFit) -> pd.Series | None:
    """The fit's gold labels by item id (None without gold): what refits are given."""
    known = gold_mask(fit)
    if not known.any():
        return None
    r = fit.ratings
    return pd.Series(r.categories[np.asarray(fit.gold_codes)[known]], index=r.items[known])


def _tempered(post: np.ndarray, temperature: float) -> np.ndarray:
    """``post^(1/T)`` renormalised per item (rows without a posterior stay 0)."""
    if temperature == 1.0:
        return post
    out = post ** (1.0 / temperature)  # T ≥ 1: no underflow beyond the posterior's own
    total = out.sum(axis=1, keepdims=True)
    return np.divide(out, total, out=np.zeros_like(out), where=total > 0)


def _is_member(fit: LatentClassFit, annotators: str) -> bool:
    return fit.model.annotators == annotators and fit.model.hard is None


def _member_posterior(fit: LatentClassFit, model: LatentClassModel) -> np.ndarray:
    cache = _OTHER.setdefault(fit, {})
    key = repr(model)
    if key not in cache:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            member = model.fit(fit.ratings, gold=gold_series(fit))
        cache[key] = _tempered(fit_posterior(member), float(fit.temperature))
    return cache[key]


def ensemble_posterior(fit: LatentClassFit) -> np.ndarray:
    """The mean of the members' class posteriors (see the module), items × classes.

    A member of ``fit``'s own annotator model is ``fit`` itself; the other is fitted
    once per fit object with the fit's gold and tempered by its temperature. The
    members only score (their posteriors enter the mean, not their labels), so their
    convergence warnings (unstable starts) are not passed on.
    """
    out = np.zeros(np.shape(fit.class_posterior))
    members = ensemble_models(fit)
    for model in members:
        if _is_member(fit, model.annotators):
            out += fit_posterior(fit)
        else:
            out += _member_posterior(fit, model)
    return out / len(members)
