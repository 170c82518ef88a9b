"""How calibrated P(hard) of the default crowd model is on simulated easy/hard data, and why.

The default latent-class model (``LatentClassModel("spam", "difficulty")``) gives each
item a posterior probability of being hard. On simulated data the hard items are known,
so its expected calibration error (ECE, 10 bins) against them can be measured; the
question is what part of that error the model, the estimator or the sample size is to
blame for. Per design, over seeded replicates, this prints:

* ``oracle``: the ECE of the posterior of the simulator's own process at its true
  parameters (:func:`oracle_hard`, or :func:`oracle_hard_dm` for Dirichlet-multinomial
  hard items). It is calibrated by construction: its ECE is the estimation noise of an ECE
  on that many items, the floor any posterior can reach.
* ``model at truth``: the difficulty model's own posterior at the true parameters mapped
  to its form (θ_j = 1 − ε_j m/(m − 1), ξ_j uniform, π, uniform level weights): where the
  simulated item accuracies are the model's levels (hardness 0.4, 0.6, 0.8: item factors
  0.6, 0.4, 0.2) it is the oracle.
* ``fit``: the fitted model's (the shipped defaults), with its hard share π̂.
* ``π pinned``: the fit's parameters refitted by EM with π fixed at its true value (the
  profile likelihood's point at the truth): how calibrated the posterior is when only π
  is given.

and, for one replicate of the model's own form with 5 annotators per item, the profile
log-likelihood of π (EM with π fixed, every other parameter maximised).

Run: ``PYTHONPATH=. python benchmarks/bench_hard_posterior.py [--quick]`` (about ten
minutes of CPU; ``--quick``: 4 replicates per design, 2 of 12,000 items). Prints Markdown for the paragraph on
simulated easy/hard data in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy.special import logsumexp, roots_jacobi

from noise_models import LatentClassModel
from noise_models.latent_class import _em as E
from noise_models.latent_class import _kernels as K
from simulation import simulate_annotations

N_ANNOTATORS = 30
HARD_SHARE = 0.25


def ece(conf: np.ndarray, right: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error with ``bins`` equal-width bins."""
    b = np.minimum((conf * bins).astype(int), bins - 1)
    return float(sum(abs(conf[b == i].mean() - right[b == i].mean()) * np.mean(b == i)
                     for i in range(bins) if np.any(b == i)))


def _easy_logs(sim, pi: float) -> np.ndarray:
    codes = np.asarray(sim.ratings.codes)
    conf = np.asarray(sim.confusion)
    out = []
    for c, share in enumerate(np.asarray(sim.phi)):
        lp = np.full(len(codes), np.log((1 - pi) * share))
        for j in range(codes.shape[1]):
            x = codes[:, j]
            ok = x >= 0
            lp[ok] += np.log(conf[j, c, x[ok]])
        out.append(lp)
    return logsumexp(np.array(out), axis=0)


def oracle_hard(sim, levels, pi: float) -> np.ndarray:
    """P(hard | ratings) under ``simulate_annotations``' own process at its parameters:
    a hard item's level h uniform over ``levels``, each rating a draw from ``q[j]`` with
    probability h, else from the annotator's confusion row of the item's class."""
    codes = np.asarray(sim.ratings.codes)
    conf, q, phi = np.asarray(sim.confusion), np.asarray(sim.q), np.asarray(sim.phi)
    hard = []
    for h in levels:
        for c, share in enumerate(phi):
            lp = np.full(len(codes), np.log(pi * share / len(levels)))
            for j in range(codes.shape[1]):
                x = codes[:, j]
                ok = x >= 0
                lp[ok] += np.log(h * q[j, x[ok]] + (1 - h) * conf[j, c, x[ok]])
            hard.append(lp)
    h_log = logsumexp(np.array(hard), axis=0)
    return np.exp(h_log - np.logaddexp(_easy_logs(sim, pi), h_log))


def oracle_hard_dm(sim, levels, pi: float, concentration: float,
                   nodes: int = 64) -> np.ndarray:
    """The same with Dirichlet-multinomial hard items (two classes): the item's own
    P(label 0) = p ~ Beta(s q̄_0, s q̄_1), a flipped rating a draw from it; p integrated
    out by Gauss–Jacobi quadrature."""
    codes = np.asarray(sim.ratings.codes)
    conf, phi = np.asarray(sim.confusion), np.asarray(sim.phi)
    a, b = concentration * np.asarray(sim.q).mean(axis=0)
    t, w = roots_jacobi(nodes, b - 1, a - 1)  # weight (1 - t)^(b-1) (1 + t)^(a-1)
    p0 = (1 + t) / 2
    w = w / w.sum()
    hard = []
    for h in levels:
        for c, share in enumerate(phi):
            lp = np.tile(np.log(pi * share / len(levels) * w), (len(codes), 1))
            for j in range(codes.shape[1]):
                x = codes[:, j]
                ok = x >= 0
                px = np.where(x[ok, None] == 0, p0[None, :], 1 - p0[None, :])
                lp[ok] += np.log(h * px + (1 - h) * conf[j, c, x[ok]][:, None])
            hard.append(logsumexp(lp, axis=1))
    h_log = logsumexp(np.array(hard), axis=0)
    return np.exp(h_log - np.logaddexp(_easy_logs(sim, pi), h_log))


def truth_params(sim, eps: np.ndarray, pi: float) -> E._Params:
    """The true parameters in the difficulty model's form (one-coin ε_j with uniform
    wrong labels is the spam emission with θ_j = 1 − ε_j m/(m − 1) and ξ_j uniform; a
    flip to a uniform q with probability h leaves the item factor 1 − h)."""
    k, m = len(eps), len(sim.phi)
    p = E._base_params(k, m, None)
    p.phi[:] = sim.phi
    p.pi[:] = np.r_[pi, np.full(K.N_LEVELS, 1.0 / K.N_LEVELS)]
    p.theta[:] = 1 - eps * m / (m - 1)
    p.xi[:] = 1.0 / m
    return p


def hard_posterior(codes: np.ndarray, p: E._Params) -> np.ndarray:
    logtab, logw = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
    return K.posteriors(codes, logtab, logw)[1]


def fit_params(fit) -> E._Params:
    """A difficulty fit's stage-2 parameters."""
    k, m = fit.competence.shape[0], fit.ratings.n_categories
    p = E._base_params(k, m, None)
    p.phi[:] = fit.class_weights
    p.pi[:] = np.r_[fit.pi, fit.level_weights]
    p.theta[:] = fit.competence
    p.xi[:] = fit.spam_distribution
    return p


def pinned(codes: np.ndarray, start: E._Params, pi: float, prior: float,
           max_iter: int = 2000, tol: float = 1e-10) -> tuple[float, E._Params]:
    """EM of the difficulty model with π fixed at ``pi`` from ``start``: the profile
    log-likelihood of π and its maximiser. π's M-step is separate from the others' (they
    read the expected counts only), so fixing it after each M-step is the constrained
    EM."""
    p = start.copy()
    p.pi[0] = pi
    last = -np.inf
    m = codes.shape[0]
    for _ in range(max_iter):
        logtab, logw = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
        cnt, tot, ll = K.estep_counts(codes, logtab, logw)
        if ll - last <= tol * abs(ll):
            break
        last = ll
        K._mstep(K.SPAM, K.HARD_DIFFICULTY, prior, 0.5, cnt, tot, float(m), p.args())
        p.pi[0] = pi
    return float(ll), p


def replicate(rep: int, n: int, per_item: int, hardness, concentration=None) -> dict:
    g = np.random.default_rng(3 + 1000 * rep)
    eps = g.uniform(0.05, 0.3, N_ANNOTATORS)
    sim = simulate_annotations(n, N_ANNOTATORS, model="M2", hard_share=HARD_SHARE,
                               error_rates=eps, raters_per_item=per_item, hardness=hardness,
                               hard_concentration=concentration, rng=1 + rep)
    codes = np.ascontiguousarray(np.asarray(sim.ratings.codes))
    truth = np.asarray(sim.is_hard)
    model = LatentClassModel("spam", "difficulty", rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.fit(sim.ratings)
    out = {"share": truth.mean(), "pi_fit": fit.pi,
           "fit": ece(np.asarray(fit.posterior_hard), truth)}
    if concentration is None:
        out["oracle"] = ece(oracle_hard(sim, hardness, HARD_SHARE), truth)
        out["model_truth"] = ece(hard_posterior(codes, truth_params(sim, eps, HARD_SHARE)),
                                 truth)
    else:
        out["oracle"] = ece(oracle_hard_dm(sim, hardness, HARD_SHARE, concentration), truth)
        out["model_truth"] = np.nan
    ll_pinned, p = pinned(codes, fit_params(fit), HARD_SHARE, model.prior_strength)
    out["pinned"] = ece(hard_posterior(codes, p), truth)
    ll_fit = pinned(codes, fit_params(fit), fit.pi, model.prior_strength, max_iter=1)[0]
    # the likelihood-ratio statistic of the true hard share against the fit's, and how far
    # the fit's ECE exceeds the true posterior's plus its hard-share error
    out["lr"] = 2 * (ll_fit - ll_pinned)
    if concentration is None:
        out["excess"] = out["fit"] - out["model_truth"] - abs(fit.pi - out["share"])
    else:
        out["excess"] = np.nan
    return out


DESIGNS = (
    # label, items, annotators per item, hardness levels, hard_concentration
    ("test's form (levels 0.4/0.7/1)", 3000, 10, (0.4, 0.7, 1.0), None),
    ("test's form (levels 0.4/0.7/1)", 3000, 5, (0.4, 0.7, 1.0), None),
    ("model's own form (levels 0.4/0.6/0.8)", 3000, 5, (0.4, 0.6, 0.8), None),
    ("model's own form (levels 0.4/0.6/0.8)", 12000, 5, (0.4, 0.6, 0.8), None),
    ("Dirichlet-multinomial hard items, s = 2", 3000, 10, (0.4, 0.7, 1.0), 2.0),
    ("Dirichlet-multinomial hard items, s = 2", 3000, 5, (0.4, 0.7, 1.0), 2.0),
)


def _ms(v: np.ndarray) -> str:
    return f"{np.nanmean(v):.3f} ± {np.nanstd(v, ddof=1):.3f}" if np.isfinite(v).any() else "–"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 4 if args.quick else 20
    print(f"{N_ANNOTATORS} one-coin annotators (ε_j ~ U(0.05, 0.3)), {HARD_SHARE:.0%} hard "
          f"items, two classes; {reps} replicates per design ({max(2, reps * 2 // 5)} with "
          "12,000 items; ECE, 10 bins, mean ± sd):\n")
    print("| design | items | per item | oracle | model at truth | fit | fit > 0.05 | "
          "π̂ (true 0.25) | π pinned at 0.25 | fit − truth's − \\|π̂ − share\\|, max | "
          "LR of π = 0.25 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, n, per, hardness, conc in DESIGNS:
        n_reps = reps if n <= 3000 else max(2, reps * 2 // 5)
        rows = [replicate(r, n, per, hardness, conc) for r in range(n_reps)]
        col = {key: np.array([row[key] for row in rows]) for key in rows[0]}
        print(f"| {label} | {n:,} | {per} | {_ms(col['oracle'])} | {_ms(col['model_truth'])} "
              f"| {_ms(col['fit'])} (max {col['fit'].max():.3f}) | "
              f"{np.mean(col['fit'] > 0.05):.0%} | {_ms(col['pi_fit'])} | "
              f"{_ms(col['pinned'])} | "
              + ("–" if np.isnan(col["excess"]).all() else f"{np.nanmax(col['excess']):+.3f}")
              + f" | {col['lr'].min():.1f} to {col['lr'].max():.1f} |")
    print("\nProfile log-likelihood of π (model's own form, 3,000 items, 5 per item), "
          "ΔLL from its maximum:\n")
    for rep in range(2):
        g = np.random.default_rng(3 + 1000 * rep)
        eps = g.uniform(0.05, 0.3, N_ANNOTATORS)
        sim = simulate_annotations(3000, N_ANNOTATORS, model="M2", hard_share=HARD_SHARE,
                                   error_rates=eps, raters_per_item=5,
                                   hardness=(0.4, 0.6, 0.8), rng=1 + rep)
        codes = np.ascontiguousarray(np.asarray(sim.ratings.codes))
        model = LatentClassModel("spam", "difficulty", rng=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = model.fit(sim.ratings)
        grid = np.arange(0.10, 0.401, 0.05)
        lls = np.array([pinned(codes, fit_params(fit), v, model.prior_strength)[0]
                        for v in grid])
        cells = " ".join(f"{v:.2f}: {d:+.2f};" for v, d in zip(grid, lls - lls.max(),
                                                              strict=True))
        print(f"- replicate {rep} (true share {np.mean(sim.is_hard):.3f}, π̂ {fit.pi:.3f}): "
              f"{cells}")


if __name__ == "__main__":
    main()
