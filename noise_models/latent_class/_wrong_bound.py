"""An upper bound on the wrong labels among the agreed items, from a fit's posterior.

Given the fitted parameters ``θ``, the items' true classes are independent a posteriori,
so the number of wrong agreed labels is a sum of independent Bernoullis, each with the
item's ``p_i(θ) = 1 − P(class = agreed label | x_i, θ)``: a Poisson-binomial. ``θ`` is
estimated; its uncertainty enters by the bootstrap over items (each resample refitted,
warm-started at the fit's parameters as :func:`annotator_intervals` does), and the bound
is the upper ``α``-quantile of the mixture, over the refits, of the Poisson-binomials of
``p_i(θ_b)`` on the data's own agreed items.

With the item-difficulty model (the default) a hard item keeps its class, so this bounds
wrong labels, not hard items (what γ bounds). It assumes what the model assumes: on a
hard item the annotators know the class less well, but given the item's level they err
independently; errors that fool everyone alike beyond that are not in it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from noise_models.latent_class import _kernels as K
from noise_models.latent_class import _kernels_checks as checks
from noise_models.latent_class._em import _base_params, _params_of
from noise_models.latent_class._intervals import refit_warnings_summarised

__all__ = ["posterior_wrong_bound"]

#: Work budget of the Poisson-binomial DP (replicates × agreed rows × support).
_DP_BUDGET = 4e8


def _params_from(rep: dict[str, Any], k: int, m: int):
    """A refit's parameter dict (``refit_resamples``) as the EM's arrays."""
    p = _base_params(k, m, None if rep["q"] is None else np.asarray(rep["q"]))
    p.phi[:] = rep["phi"]
    if rep["pi"] is not None:
        p.pi[0] = rep["pi"]
    if rep.get("level_weights") is not None:
        p.pi[1:] = rep["level_weights"]
    for name, key in (("eps", "error_rate"), ("conf", "confusion"), ("theta", "competence"),
                      ("xi", "spam_distribution")):
        if rep[key] is not None:
            getattr(p, name)[:] = rep[key]
    return p


def _p_wrong(rows: np.ndarray, labels: np.ndarray, em_model: int, hard: int,
             params: Any) -> np.ndarray:
    """``1 − P(class = label | row)`` under the parameters: the model's posterior of the
    true class, summed over the states of each class (easy, and hard at every level).
    Not ``class_posterior``, whose hard part is the item's vote shares (how sure the
    label is as a summary of the votes): on a unanimous hard item the model's own
    posterior keeps the chance that every annotator missed the class alike."""
    from scipy.special import logsumexp

    from noise_models.latent_class._tempering import state_log_posterior

    m = params.phi.shape[0]
    logtab, logw = K.tables(em_model, hard, *params.args())
    lp = state_log_posterior(np.ascontiguousarray(rows), logtab, logw)
    lp -= logsumexp(lp, axis=1, keepdims=True)
    post = np.exp(lp[:, :m])
    if hard == K.HARD_DIFFICULTY:  # states m + c·N_LEVELS + l: hard, class c, level l
        post += np.exp(lp[:, m:]).reshape(len(rows), m, K.N_LEVELS).sum(axis=2)
    return np.clip(1.0 - post[np.arange(len(labels)), labels], 0.0, 1.0)


def posterior_wrong_bound(fit: Any, agreed: np.ndarray, labels: np.ndarray, *,
                          alpha: float, n_resamples: int, rng: Any
                          ) -> tuple[int, float, str]:
    """``(upper, expected, method)``: the upper ``alpha``-quantile of the wrong labels among
    the ``agreed`` items (their ``labels``: category codes), the fit's expected number, and
    how the quantile was computed. See the module."""
    from noise_models.latent_class._em import _em_codes

    r = fit.ratings
    codes = np.ascontiguousarray(r.require_raters("`agreed_error_bracket`"))
    rows = codes[agreed]
    labels = np.asarray(labels, dtype=np.int64)
    em_model, hard = _em_codes(fit.model)
    if hard not in (K.HARD_NONE, K.HARD_DIFFICULTY):
        raise ValueError(f"the {fit.model.name} model's hard items have no class: the wrong "
                         "labels are bounded under a model whose every item has one (hard="
                         "'difficulty' or None).")
    # agreed items with the same row and label share p_i(θ) under every θ: one group each
    _, first, inverse = np.unique(np.column_stack([rows, labels]), axis=0,
                                  return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.bincount(inverse).astype(np.int64)
    g_rows, g_labels = rows[first], labels[first]

    gen = np.random.default_rng(rng)
    n = r.n_items
    draws = [gen.multinomial(n, np.full(n, 1.0 / n)) for _ in range(n_resamples)]
    seeds = [int(s) for s in gen.integers(2**63, size=n_resamples)]
    model = type(fit.model)(fit.model.annotators, fit.model.hard,
                            prior_strength=fit.model.prior_strength,
                            max_iter=fit.model.max_iter, tol=fit.model.tol, n_starts=1)
    warm = fit if fit.gold_codes is None else None
    k, m = codes.shape[1], r.n_categories
    rho = np.empty((n_resamples, len(counts)))
    with refit_warnings_summarised(n_resamples, fit.model.name, "the posterior bound"):
        for b, rep in enumerate(model.refit_resamples(r, draws, seeds, start=warm)):
            rho[b] = _p_wrong(g_rows, g_labels, em_model, hard, _params_from(rep, k, m))
    n_agreed = int(counts.sum())
    mean, var = rho @ counts, (rho * (1.0 - rho)) @ counts
    support = int(min(n_agreed, np.ceil(mean.max() + 12.0 * np.sqrt(var.max()) + 10)))
    if n_resamples * len(counts) * (support + 1) > _DP_BUDGET:
        raise ValueError(f"{n_agreed:,} agreed items: the exact Poisson-binomial mixture is "
                         "beyond this bound's budget; lower `n_resamples`.")
    p0 = _p_wrong(g_rows, g_labels, em_model, hard, _params_of(fit))[inverse]
    mix = checks.pb_cdf(np.ascontiguousarray(rho), counts, support + 1).mean(axis=0)
    above = np.flatnonzero(mix >= alpha)
    upper = int(above[0]) if above.size else n_agreed
    return upper, float(p0.sum()), (f"exact Poisson-binomial mixture over {n_resamples} "
                                    "bootstrap refits (warm-started)")
