"""Recalibration from a verified 5% sample (issue 45, item 4), on nine public crowd sets.

Run: ``GOLDNOISE_HELDOUT_SETS=DIR python benchmarks/bench_recalibration.py`` (the five sets
of ``$GOLDNOISE_SHARED_DATA/crowd_gold``, Snow et al.'s temp and wsd beside them, and the
sets under ``$GOLDNOISE_HELDOUT_SETS``; research data, not shipped; Zheng et al.'s "duck"
is bluebird and is counted once). Prints Markdown for benchmarks/RESULTS.md.

Protocol: the default fit (``LatentClassModel("spam", "difficulty", rng=0)``, no gold) on
each set; 50 draws (seeds 0–49) of 5% of the gold items (at least 5), the same draws for
every column; each map fitted on the draw's verified items as :func:`calibration` fits it
and applied to the fit's ``P(label right)``; the ECE (10 bins) on the other gold items,
averaged over the draws. Targets: within 0.01 of the gold-free fit's ECE on every set, and
at most 0.07 on every set with 20 or more verified items.

Columns:

- gold-free: the fit's own confidence;
- ``temperature``, ``auto``: the penalised slope on Platt's smoothed targets, and the
  leave-one-out choice among the identity, that map and Platt's;
- ``bayes`` (the default): the temperature map averaged over its slope's posterior,
  ``log a ~ N(0, τ²)``, τ = 0.66 (``TEMPERATURE_PRIOR_SD``);
- ``bayes``, τ from the other sets: τ by type-II maximum likelihood from the eight other
  sets (the prior is not chosen on the set it is scored on);
- ``bayes``, τ = 0.5 / 1.0 / 1.25; the posterior mode (MAP) map at τ = 0.66;
- Bayesian Platt: ``σ(a · logit p + b)`` averaged over the posterior of ``(log a, b)``,
  ``log a ~ N(0, τ²)``, ``b ~ N(0, 0.5²)``; and Bayesian model averaging of the identity,
  the Bayesian temperature map and the Bayesian Platt map by their marginal likelihoods.

Then how τ is chosen: each set's maximum-likelihood log-slope on all its gold items (with
its standard error), τ by type-II maximum likelihood (``log â_s ~ N(0, τ² + se_s²)``) over
all nine sets and with each left out; and a sweep of τ against the two targets.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

N_DRAWS = 50
PLATT_B_SD = 0.5


def _sets():
    """``(name, P(label right) on the gold items, label right on them)`` per set."""
    import bench_calibration as B

    from noise_models import LatentClassModel

    seen = set()
    for name, r, gold, has in list(B._crowd_sets() or []) + list(B._heldout_sets()):
        key = (r.n_items, r.n_raters, r.n_categories,
               tuple(sorted(map(tuple, np.asarray(r.counts).tolist()))))
        if key in seen:  # "duck" is bluebird
            continue
        seen.add(key)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = LatentClassModel("spam", "difficulty", rng=0).fit(r)
        conf = np.nan_to_num(np.asarray(fit.label_posterior, dtype=np.float64))
        right = (np.asarray(fit.label_codes) == gold).astype(np.float64)
        yield name, conf[has], right[has]


def _mle_log_slope(conf, right):
    """The maximum-likelihood ``log a`` of ``σ(a · logit p)`` and its standard error."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_expit

    from noise_models.latent_class._check import _logit

    z = _logit(conf)

    def nll(la):
        u = np.exp(la) * z
        return -float(np.sum(right * log_expit(u) + (1 - right) * log_expit(-u)))

    la = minimize_scalar(nll, bounds=(-6, 6), method="bounded").x
    h = 1e-3
    curv = (nll(la + h) - 2 * nll(la) + nll(la - h)) / h ** 2
    return float(la), float(1 / np.sqrt(curv))


def _type2_tau(est):
    """τ maximising Π_s N(log â_s; 0, τ² + se_s²)."""
    from scipy.optimize import minimize_scalar

    def nll(t):
        v = t ** 2 + np.array([se for _, se in est]) ** 2
        return float(np.sum(0.5 * np.log(v) + 0.5 * np.array([m for m, _ in est]) ** 2 / v))

    return float(minimize_scalar(nll, bounds=(0.0, 5.0), method="bounded").x)


def _map_of_posterior_mode(prior_sd):
    """The temperature map at the mode of the slope's posterior (not averaged)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import expit

    from noise_models.latent_class._check import _bayes_log_posterior, _logit

    def fit(x, y):
        z = _logit(x)
        la = minimize_scalar(lambda v: -_bayes_log_posterior(np.array([v]), z, y,
                                                             prior_sd)[0],
                             bounds=(-8 * prior_sd, 8 * prior_sd), method="bounded").x
        return lambda v: expit(np.exp(la) * _logit(v))

    return fit


def _bayes_platt(prior_sd, b_sd=PLATT_B_SD, n=61):
    """``v ↦ E[σ(a · logit v + b)]`` over the posterior of ``(log a, b)`` on a 61 × 61 grid
    (±5 prior sd); ``.evidence``: the log marginal likelihood."""
    from scipy.special import expit, log_expit, logsumexp

    from noise_models.latent_class._check import _logit

    la, b = np.meshgrid(np.linspace(-5 * prior_sd, 5 * prior_sd, n),
                        np.linspace(-5 * b_sd, 5 * b_sd, n), indexing="ij")
    la, b = la.ravel(), b.ravel()
    lp = -0.5 * (la / prior_sd) ** 2 - 0.5 * (b / b_sd) ** 2
    lp -= logsumexp(lp)
    a = np.exp(la)

    def fit(x, y):
        z = _logit(x)
        u = a[:, None] * z[None, :] + b[:, None]
        lw = lp + (y * log_expit(u) + (1 - y) * log_expit(-u)).sum(axis=1)
        ev = logsumexp(lw)
        w = np.exp(lw - ev)
        keep = np.flatnonzero(w > 1e-12)

        def apply(v):
            zz = _logit(v)
            out = np.zeros(zz.shape)
            for ak, bk, wk in zip(a[keep], b[keep], w[keep], strict=True):
                out += wk * expit(ak * zz + bk)
            return out / w[keep].sum()

        apply.evidence = float(ev)
        return apply

    return fit


def _bayes_temperature_evidence(prior_sd, n=241):
    """The Bayesian temperature map with its log marginal likelihood (for the average)."""
    from scipy.special import log_expit, logsumexp

    from noise_models.latent_class._check import _bayes_temperature_map, _logit

    la = np.linspace(-6 * prior_sd, 6 * prior_sd, n)
    lp = -0.5 * (la / prior_sd) ** 2
    lp -= logsumexp(lp)

    def fit(x, y):
        g = _bayes_temperature_map(x, y, prior_sd)
        u = np.exp(la)[:, None] * _logit(x)[None, :]
        g.evidence = float(logsumexp(lp + (y * log_expit(u) + (1 - y) * log_expit(-u))
                                     .sum(axis=1)))
        return g

    return fit


def _identity_evidence(x, y):
    from scipy.special import log_expit

    from noise_models.latent_class._check import _identity_map, _logit

    g = _identity_map(x, y)
    z = _logit(x)
    g.evidence = float(np.sum(y * log_expit(z) + (1 - y) * log_expit(-z)))
    return g


def _average(*fits):
    """Bayesian model averaging of maps with ``.evidence`` (equal prior weights)."""
    from scipy.special import logsumexp

    def fit(x, y):
        gs = [f(x, y) for f in fits]
        ev = np.array([g.evidence for g in gs])
        w = np.exp(ev - logsumexp(ev))
        return lambda v: sum(wi * g(v) for wi, g in zip(w, gs, strict=True))

    return fit


def _ece_after(conf, right, maps):
    """Mean over the draws of the ECE on the other gold items, per map (and gold-free)."""
    from noise_models.latent_class._check import reliability_table

    idx = np.arange(len(conf))
    out = {name: [] for name in ("gold-free", *maps)}
    for seed in range(N_DRAWS):
        rng = np.random.default_rng(seed)
        sample = rng.choice(idx, size=max(5, round(0.05 * idx.size)), replace=False)
        rest = np.setdiff1d(idx, sample)
        out["gold-free"].append(reliability_table(conf[rest], right[rest])[1])
        for name, fit_map in maps.items():
            g = fit_map(conf[sample], right[sample])
            out[name].append(reliability_table(np.clip(g(conf[rest]), 0.0, 1.0),
                                               right[rest])[1])
    return {name: float(np.mean(v)) for name, v in out.items()}


def _tally(rows, col, n_verified):
    within = [s for s in rows if rows[s][col] <= rows[s]["gold-free"] + 0.01]
    big = [s for s in rows if n_verified[s] >= 20]
    low = [s for s in big if rows[s][col] <= 0.07]
    worst = max(rows, key=lambda s: rows[s][col] - rows[s]["gold-free"])
    top = max(big, key=lambda s: rows[s][col])
    return (f"within 0.01 on {len(within)} of {len(rows)} (worst {worst} "
            f"{rows[worst][col] - rows[worst]['gold-free']:+.3f}); ≤ 0.07 on {len(low)} of "
            f"{len(big)} (highest {top} {rows[top][col]:.3f})")


def main() -> None:
    from noise_models.latent_class._check import (
        TEMPERATURE_PRIOR_SD,
        _auto_map,
        _bayes_temperature_map,
        _temperature_map,
    )

    tau = TEMPERATURE_PRIOR_SD
    sets = list(_sets())
    est = {name: _mle_log_slope(c, y) for name, c, y in sets}
    tau_loso = {name: _type2_tau([est[s] for s in est if s != name]) for name in est}
    n_verified = {name: max(5, round(0.05 * len(c))) for name, c, _ in sets}

    print("Each set's slope on all its gold items (maximum likelihood, standard error) and "
          "τ by type-II maximum likelihood without it:\n")
    print("| set | gold items | log â (se) | â | τ from the other sets |")
    print("|---|---|---|---|---|")
    for name, c, _ in sets:
        m, se = est[name]
        print(f"| {name} | {len(c)} | {m:+.3f} ({se:.3f}) | {np.exp(m):.3f} | "
              f"{tau_loso[name]:.3f} |")
    print(f"\nτ from all {len(sets)} sets: {_type2_tau(list(est.values())):.3f} (shipped: "
          f"{tau}).\n", flush=True)

    def bayes(sd):
        return lambda x, y: _bayes_temperature_map(x, y, sd)

    cols = ["temperature", "auto", f"bayes τ={tau}", "bayes, τ from the other sets",
            "bayes τ=0.5", "bayes τ=1.0", "bayes τ=1.25", f"MAP τ={tau}", "Bayesian Platt",
            "average: identity, bayes, Bayesian Platt"]
    rows = {}
    for name, c, y in sets:
        maps = {"temperature": _temperature_map, "auto": _auto_map,
                f"bayes τ={tau}": bayes(tau),
                "bayes, τ from the other sets": bayes(tau_loso[name]),
                "bayes τ=0.5": bayes(0.5), "bayes τ=1.0": bayes(1.0),
                "bayes τ=1.25": bayes(1.25), f"MAP τ={tau}": _map_of_posterior_mode(tau),
                "Bayesian Platt": _bayes_platt(tau),
                "average: identity, bayes, Bayesian Platt": _average(
                    _identity_evidence, _bayes_temperature_evidence(tau), _bayes_platt(tau))}
        rows[name] = _ece_after(c, y, maps)
        print(f"({name} done)", file=sys.stderr, flush=True)
    print("| set | verified items | gold-free | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for name in rows:
        print(f"| {name} | {n_verified[name]} | {rows[name]['gold-free']:.3f} | "
              + " | ".join(f"{rows[name][col]:.3f}" for col in cols) + " |")
    print()
    for col in cols:
        print(f"- {col}: {_tally(rows, col, n_verified)}")

    print("\nThe prior's spread τ against the targets (the same draws):\n")
    print("| τ | within 0.01 of gold-free | ≤ 0.07 with ≥ 20 verified |")
    print("|---|---|---|")
    grid = (0.4, 0.5, 0.55, 0.6, 0.66, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5)
    sweep = {name: _ece_after(c, y, {t: bayes(t) for t in grid}) for name, c, y in sets}
    for t in grid:
        line = _tally(sweep, t, n_verified).split("; ")
        print(f"| {t} | {line[0]} | {line[1]} |")


if __name__ == "__main__":
    main()
