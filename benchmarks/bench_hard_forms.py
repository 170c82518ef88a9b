"""Hard components that can give near-unanimous hard items, measured beside the default's.

The default crowd model (``LatentClassModel("spam", "difficulty")``) has hard items on which
annotator j knows the class with θ_j times the item's level (0.2, 0.4 or 0.6), else draws
from their own spam distribution ξ_j. Such a hard state cannot produce a hard item whose
ratings nearly all agree, which a Dirichlet-multinomial item term does
(``simulate_annotations(..., hard_concentration=2)``): there the ECE of P(hard) misses 0.05.
This script adds to the default's fitted model one more hard state, fits the weights by
EM with the annotators held at the default fit's (θ_j, ξ_j; the hard share π, the class
shares φ and the weights of every hard state — the three levels and the new one — by EM),
and measures the result on the same simulated designs and on the crowd sets with gold:

* ``pure DM``: the item's own label distribution p ~ Dirichlet(s/m, …, s/m), every rating
  a draw from p (annotator-free), the true label one more draw from p;
* ``DM with competence``: each rating a draw from p with the annotator's competence θ_j,
  else from their ξ_j; the true label one more draw from p (the form of the default's
  hard-part label distribution ``v``, as a state of its own);
* ``simulator's form``: on a hard item of class c at level h ∈ {0.4, 0.7, 1}, each rating a
  draw from p with probability h, else from the annotator's easy emission of class c; the
  true class independent of p (``simulate_annotations``' own process).

Each likelihood is written from its definition in plain numpy (the polynomials over how
many of a class's ratings were drawn from p, integrated against the Dirichlet), slow but
direct; it is a measurement, not a candidate kernel.

Run: ``PYTHONPATH=. python benchmarks/bench_hard_forms.py [--sims N] [--real]`` (``--real``
reads the crowd sets as ``bench_calibration.py --table`` does; a few minutes of CPU).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.special import gammaln, logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_hard_posterior as H

from noise_models import LatentClassModel
from noise_models.latent_class import _kernels as K
from simulation import simulate_annotations

#: the Dirichlet's total pseudo-count s: 2 is the simulation's Beta(1, 1) for two classes
CONCENTRATION = 2.0
#: the simulator's levels (its ``hardness``) for the third form
SIM_LEVELS = (0.4, 0.7, 1.0)
FORMS = ("pure DM", "DM with competence", "simulator's form")


def _counts(codes: np.ndarray, m: int) -> np.ndarray:
    rows, cols = np.nonzero(codes >= 0)
    out = np.zeros((codes.shape[0], m))
    np.add.at(out, (rows, codes[rows, cols]), 1.0)
    return out


def _dirichlet_mixture(factors: list[np.ndarray], m: int, s: float) -> float:
    """log E_p[Π_c Π_{j voted c} (α_j p_c + β_j)] for p ~ Dirichlet(s/m, …): ``factors[c]``
    holds the (β_j, α_j) pairs of the ratings of class c. Expanding each class's product
    as a polynomial in p_c and taking E[Π p_c^{q_c}] = Π_c (s/m)^(q_c) / s^(Σ q_c) (rising
    factorials) gives a sum over Q = Σ q_c."""
    a = s / m
    total = np.array([1.0])
    log_scale = 0.0
    for pairs in factors:
        poly = np.array([1.0])
        for beta, alpha in pairs:
            poly = np.convolve(poly, [beta, alpha])
        q = np.arange(len(poly))
        poly = poly * np.exp(gammaln(a + q) - gammaln(a))
        total = np.convolve(total, poly)
        top = total.max()
        total /= top
        log_scale += np.log(top)
    q = np.arange(len(total))
    return log_scale + float(np.log(np.sum(total * np.exp(gammaln(s) - gammaln(s + q)))))


def _pure_dm(codes, p, logtab, s):
    m = p.phi.shape[0]
    n_c = _counts(codes, m)
    r = n_c.sum(axis=1)
    a = s / m
    log_dm = gammaln(s) - gammaln(s + r) + (gammaln(a + n_c) - gammaln(a)).sum(axis=1)
    return (log_dm[:, None] + np.log(n_c + a) - np.log(r + s)[:, None])[:, :, None], False


def _dm_competence(codes, p, logtab, s):
    m, theta, xi = p.phi.shape[0], p.theta, p.xi
    out = np.empty((codes.shape[0], m, 1))
    v = K.hard_label_means(codes, logtab)  # E[p_c | ratings]: the true label's draw
    for i, row in enumerate(codes):
        js = np.nonzero(row >= 0)[0]
        factors = [[((1 - theta[j]) * xi[j, c], theta[j]) for j in js[row[js] == c]]
                   for c in range(m)]
        out[i, :, 0] = _dirichlet_mixture(factors, m, s) + np.log(np.maximum(v[i], 1e-300))
    return out, False


def _simulators_form(codes, p, logtab, s):
    m, theta, xi = p.phi.shape[0], p.theta, p.xi
    emis = (1 - theta)[:, None, None] * xi[:, :, None] + theta[:, None, None] * np.eye(m)
    out = np.empty((codes.shape[0], m, len(SIM_LEVELS)))
    for i, row in enumerate(codes):
        js = np.nonzero(row >= 0)[0]
        for c in range(m):
            for t, h in enumerate(SIM_LEVELS):
                factors = [[((1 - h) * emis[j, x, c], h) for j in js[row[js] == x]]
                           for x in range(m)]
                out[i, c, t] = _dirichlet_mixture(factors, m, s)
    return out, True


_FORMS = dict(zip(FORMS, (_pure_dm, _dm_competence, _simulators_form), strict=True))
#: the columns: (heading, form, refit the annotators)
VARIANTS = (("+ pure DM", "pure DM", False), ("+ pure DM, annotators refitted", "pure DM", True),
            ("+ DM with competence", "DM with competence", False),
            ("+ simulator's form", "simulator's form", False))


def _row_logs(codes: np.ndarray, logtab: np.ndarray) -> np.ndarray:
    """``out[i, s] = Σ_j logtab[j, x_ij, s]`` over the rated cells."""
    rows = np.zeros((codes.shape[0], logtab.shape[2]))
    for j in range(codes.shape[1]):
        x = codes[:, j]
        ok = x >= 0
        rows[ok] += logtab[j, x[ok], :]
    return rows


def with_form(codes: np.ndarray, fit, form: str, s: float = CONCENTRATION,
              prior: float = 0.1, max_iter: int = 3000, tol: float = 1e-10,
              refit: bool = False) -> dict:
    """The default fit's model with one more hard state (``form``), the annotators held at
    the fit's and the weights by EM; with ``refit`` (the pure DM form only, whose state
    reads no annotator parameter, so the EM is exact) the annotators' θ and ξ too, by the
    engine's M-step over the easy and level states. Returns the class posterior, P(hard),
    π, the new state's share of the hard items and the log-likelihood."""
    if refit and form != "pure DM":
        raise ValueError("refit: the pure DM form only")
    p = H.fit_params(fit)
    m = p.phi.shape[0]
    logtab, _ = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
    new, by_phi = _FORMS[form](codes, p, logtab, s)
    n = codes.shape[0]
    pi, phi = float(p.pi[0]), p.phi.copy()
    omega = np.full(K.N_LEVELS + new.shape[2], 1.0 / (K.N_LEVELS + new.shape[2]))
    last = -np.inf
    for it in range(max_iter):
        if refit or it == 0:
            logtab, _ = K.tables(K.SPAM, K.HARD_DIFFICULTY, *p.args())
            rows = _row_logs(codes, logtab)
            easy = rows[:, :m]
            levels = rows[:, m:].reshape(-1, m, K.N_LEVELS)
        lw = np.log(omega)
        parts = [np.log1p(-pi) + np.log(phi) + easy,
                 (np.log(pi) + np.log(phi)[:, None] + lw[:K.N_LEVELS] + levels).reshape(n, -1),
                 (np.log(pi) + lw[K.N_LEVELS:] + new
                  + (np.log(phi)[:, None] if by_phi else 0.0)).reshape(n, -1)]
        joint = np.concatenate(parts, axis=1)
        z = logsumexp(joint, axis=1)
        ll = float(z.sum())
        resp = np.exp(joint - z[:, None])
        r_easy = resp[:, :m]
        r_lev = resp[:, m:m + m * K.N_LEVELS].reshape(n, m, K.N_LEVELS)
        r_new = resp[:, m + m * K.N_LEVELS:].reshape(n, m, -1)
        if ll - last <= tol * abs(ll):
            break
        last = ll
        pi = (r_lev.sum() + r_new.sum() + prior) / (n + 2 * prior)
        cls = r_easy.sum(axis=0) + r_lev.sum(axis=(0, 2)) + (
            r_new.sum(axis=(0, 2)) if by_phi else 0.0) + prior
        phi = cls / cls.sum()
        w = np.r_[r_lev.sum(axis=(0, 1)), r_new.sum(axis=(0, 1))] + prior
        omega = w / w.sum()
        if refit:  # θ, ξ from the expected counts of the easy and level states
            r_fact = resp[:, :m + m * K.N_LEVELS]
            cnt = np.zeros((codes.shape[1], m, r_fact.shape[1]))
            for j in range(codes.shape[1]):
                for x in range(m):
                    cnt[j, x] = r_fact[codes[:, j] == x].sum(axis=0)
            K._mstep(K.SPAM, K.HARD_DIFFICULTY, prior, 0.5, cnt, r_fact.sum(axis=0), float(n),
                     p.args())
        p.phi[:], p.pi[0] = phi, pi
        p.pi[1:] = omega[:K.N_LEVELS] / omega[:K.N_LEVELS].sum()
    # as the default reads its fit: a hard item of the levels has the label distribution v
    # (the posterior mean of its own p, votes counted by competence), not the levels' own
    # class posterior
    v = K.hard_label_means(codes, logtab)
    return {"post": r_easy + r_lev.sum(axis=(1, 2))[:, None] * v + r_new.sum(axis=2),
            "hard": 1.0 - r_easy.sum(axis=1), "pi": pi,
            "new_share": float(omega[K.N_LEVELS:].sum()), "ll": ll}


def _default_fit(r):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LatentClassModel("spam", "difficulty", rng=0).fit(r)


def simulated(reps: int) -> None:
    """ECE of P(hard) against the known hard items: the default and each form added."""
    print(f"{H.N_ANNOTATORS} one-coin annotators, {H.HARD_SHARE:.0%} hard items, 3,000 items, "
          f"{reps} replicates per design; ECE of P(hard) (10 bins), mean (max); π̂ in "
          "brackets:\n")
    print("| design | per item | default | " + " | ".join(v[0] for v in VARIANTS) + " |")
    print("|---|---|---|" + "---|" * len(VARIANTS))
    for label, n, per, hardness, conc in H.DESIGNS:
        if n != 3000 or label.startswith("model's"):
            continue
        cells: dict[str, list] = {k: [] for k in ("default", *(v[0] for v in VARIANTS))}
        for rep in range(reps):
            g = np.random.default_rng(3 + 1000 * rep)
            eps = g.uniform(0.05, 0.3, H.N_ANNOTATORS)
            sim = simulate_annotations(n, H.N_ANNOTATORS, model="M2", hard_share=H.HARD_SHARE,
                                       error_rates=eps, raters_per_item=per,
                                       hardness=hardness, hard_concentration=conc, rng=1 + rep)
            codes = np.ascontiguousarray(np.asarray(sim.ratings.codes))
            truth = np.asarray(sim.is_hard)
            fit = _default_fit(sim.ratings)
            cells["default"].append((H.ece(np.asarray(fit.posterior_hard), truth), fit.pi))
            for head, form, refit in VARIANTS:
                out = with_form(codes, fit, form, refit=refit)
                cells[head].append((H.ece(out["hard"], truth), out["pi"]))
        row = []
        for key in cells:
            a = np.array(cells[key])
            row.append(f"{a[:, 0].mean():.3f} ({a[:, 0].max():.3f}) [{a[:, 1].mean():.2f}]")
        print(f"| {label} | {per} | " + " | ".join(row) + " |", flush=True)


def _cell(conf: np.ndarray, hard: np.ndarray, right: np.ndarray, has: np.ndarray) -> str:
    """ECE of ``conf`` on the gold items, the share with P(hard) > 0.5, the AUROC of P(hard)
    for a wrong label."""
    from sklearn.metrics import roc_auc_score

    from noise_models.latent_class._check import reliability_table

    ece = reliability_table(conf[has], right)[1]
    auc = roc_auc_score(~right, hard[has]) if 0 < right.sum() < right.size else np.nan
    return f"{ece:.3f} / {np.mean(hard > 0.5):.0%} / {auc:.2f}"


def real() -> None:
    """On the crowd sets with gold: ECE of P(label right) for the default's labels, the
    share of items with P(hard) > 0.5 and the AUROC of P(hard) for a wrong label."""
    import bench_calibration as C

    print("\nCrowd sets with gold, the default's labels; ECE of P(label right) / items with "
          "P(hard) > 0.5 / AUROC of P(hard) for a wrong label:\n")
    print("| set | default | " + " | ".join(v[0] for v in VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    seen = set()
    for name, r, gold, has in list(C._crowd_sets() or []) + list(C._heldout_sets()):
        key = (r.n_items, r.n_raters, int(np.asarray(r.counts).sum()))
        if key in seen:  # duck is bluebird under other ids
            continue
        seen.add(key)
        codes = np.ascontiguousarray(np.asarray(r.require_raters("table")))
        fit = _default_fit(r)
        label = np.asarray(fit.label_codes)
        right = (label == gold)[has]
        row = [_cell(np.asarray(fit.label_posterior), np.asarray(fit.posterior_hard), right,
                     has)]
        for _, form, refit in VARIANTS:
            out = with_form(codes, fit, form, refit=refit)
            row.append(_cell(out["post"][np.arange(len(label)), label], out["hard"], right, has))
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sims", type=int, default=4, help="replicates per simulated design (0: none)")
    ap.add_argument("--real", action="store_true", help="also the crowd sets with gold")
    args = ap.parse_args()
    if args.sims:
        simulated(args.sims)
    if args.real:
        real()


if __name__ == "__main__":
    main()
