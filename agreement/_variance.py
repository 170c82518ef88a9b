"""Analytic standard errors as sums over items of linearised per-item values.

Every variance here has the form ``scale · Σ_i (x_i − center)²`` over rated
items, where ``x_i = row_i · beta`` is linear in the item's row of per-item
statistics (see :mod:`agreement._item_stats`). So the variance is one more
pass over the items, with ``beta`` computed from the column sums.

* Gwet's linearised variance (Gwet 2008; 2014, ch. 5; as his irrCAC 1.0):
  ``x_i = (n/n₂)(PA_i − PE·[r_i ≥ 2])/(1 − PE) − 2(1 − κ)(PE_i − PE)/(1 − PE)``,
  ``var = (1 − f) Σ_i (x_i − κ)² / (n(n − 1))`` with ``f = n / N``. ``PE_i``
  is the item's share of chance agreement: ``Σ_c p_ic (Wπ)_c`` for Fleiss and
  Scott, ``Σ W/(m(m − 1)) Σ_c p_ic (1 − π_c)`` for Gwet's AC1/AC2, ``PE`` for
  Brennan–Prediger and percent agreement; for Conger's κ Gwet's ``λ_i`` term
  built from each annotator's marginals.
* Fleiss, Cohen & Everitt (1969) for Cohen's κ (as SAS PROC FREQ, vcd and
  irrCAC's ``kappa2.table``): ``x_i = ψ(x_i1, x_i2)/(1 − PE)`` with
  ``ψ(a, b) = w_ab − (1 − κ)(w̄_a· + w̄_·b)``, ``var = (1 − f) Σ (x_i − x̄)² / n²``.
* Light's κ, a mean of pairwise Cohen κ's, takes the mean over pairs of each
  pair's Gwet linearisation (rescaled to all n items): the same delta method.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from agreement._item_stats import (
    CoefficientInfo,
    FinalizedCoefficient,
    _rater_marginals,
    pair_index,
)

__all__ = ["Linearization", "linearization", "variance"]


class Linearization(NamedTuple):
    beta: np.ndarray  # (n_columns,) coefficients of the per-item row
    center: float  # subtract before squaring
    method: str  # "gwet" or "fce"


def linearization(spec: CoefficientInfo, sums: np.ndarray, parts: FinalizedCoefficient,
                  w: np.ndarray, k: int, *, fce: bool = False) -> Linearization:
    """``beta`` and ``center`` of the per-item linearised values of ``spec``."""
    s = np.asarray(sums, dtype=np.float64)
    m = w.shape[0]
    n, n2 = float(parts.n_items), float(parts.n_pairable)
    kappa, pe = float(parts.value), float(parts.expected)
    q = 1.0 - pe
    beta = np.zeros(s.shape[-1])
    if spec.family == "count":
        pi = s[4:4 + m] / n
        if spec.chance == "fleiss":
            u = w @ pi
        elif spec.chance == "gwet":
            u = w.sum() / (m * (m - 1)) * (1.0 - pi)
        elif spec.chance == "bp":
            u = np.full(m, pe)
        else:
            u = np.zeros(m)
        beta[0] = 2.0 * (1.0 - kappa) * pe / q
        beta[1] = -(n / n2) * pe / q
        beta[2] = (n / n2) / q
        beta[4:4 + m] = -2.0 * (1.0 - kappa) * u / q
        return Linearization(beta, kappa, "gwet")
    if spec.family == "rater":
        p, ng, valid = _rater_marginals(s[3:].reshape(k, m))
        if fce:
            g1, g2 = np.flatnonzero(valid)[:2]
            beta[2] = 1.0 / q
            t = np.zeros((k, m))
            t[g1] = -(1.0 - kappa) * (w @ p[g2]) / q  # w̄_a· = Σ_b w_ab p_·b
            t[g2] = -(1.0 - kappa) * (w @ p[g1]) / q  # w̄_·b = Σ_a w_ab p_a·
            beta[3:] = t.ravel()
            return Linearization(beta, (kappa - pe * (1.0 - kappa)) / q, "fce")
        ke = int(valid.sum())
        pbar = p.sum(axis=0) / ke
        # Gwet (2014), eq. 5.6: λ_ig = (n/n_g) Σ_k (r p̄_k − p_gk) Σ_l w_kl
        # (δ_igl − (ε_ig − n_g/n) p_gl). Unrated: c_g; rated in l: c_g + t_g[l].
        u = (ke * pbar[None, :] - p) @ w
        c = np.einsum("gl,gl->g", u, p)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(valid[:, None], (n / np.where(valid, ng, 1.0))[:, None]
                         * (u - c[:, None]), 0.0)
        denom = ke * (ke - 1.0)
        beta[0] = -2.0 * (1.0 - kappa) * (c[valid].sum() / denom - pe) / q
        beta[1] = -(n / n2) * pe / q
        beta[2] = (n / n2) / q
        beta[3:] = (-2.0 * (1.0 - kappa) / (q * denom) * t).ravel()
        return Linearization(beta, kappa, "gwet")
    # Light's κ: mean over defined pairs of u_jl,i = (n/n_jl)(κ*_jl,i − κ_jl) on the
    # items the pair rated (either annotator), where κ*_jl,i is Gwet's
    # linearisation of the pair's Cohen κ (Conger with two annotators).
    npairs = k * (k - 1) // 2
    p, ng, valid = _rater_marginals(s[2:2 + k * m].reshape(k, m))
    both = s[2 + k * m:2 + k * m + npairs]
    agree = s[2 + k * m + npairs:]
    j, l_ = pair_index(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        pa_pair = agree / both
        pe_pair = np.einsum("pc,cl,pl->p", p[j], w, p[l_])
        kap = (pa_pair - pe_pair) / (1.0 - pe_pair)
    ok = np.isfinite(kap) & (both > 0) & ((1.0 - pe_pair) > 1e-12)
    n_ok = int(ok.sum())
    onehot = np.zeros((k, m))
    for idx in np.flatnonzero(ok):
        a, b = j[idx], l_[idx]
        qp, kp, pep = 1.0 - pe_pair[idx], kap[idx], pe_pair[idx]
        npq = ng[a] + ng[b] - both[idx]
        scale = n / npq / n_ok
        ta = (npq / ng[a]) * (w @ p[b] - pep)
        tb = (npq / ng[b]) * (w @ p[a] - pep)
        onehot[a] += scale * (-(1.0 - kp) * ta / qp - kp)
        onehot[b] += scale * (-(1.0 - kp) * tb / qp - kp)
        beta[2 + k * m + idx] = scale * (-(npq / both[idx]) * pep / qp + kp)
        beta[2 + k * m + npairs + idx] = scale * (npq / both[idx]) / qp
    beta[0] = kappa
    beta[2:2 + k * m] = onehot.ravel()
    return Linearization(beta, kappa, "gwet")


def variance(ss: float, n: float, method: str, n_population: float | None) -> float:
    """Variance from ``ss = Σ (x_i − center)²``; NaN for fewer than two items."""
    if n < 2:
        return math.nan
    fpc = 1.0 if n_population is None else 1.0 - n / n_population
    if method == "fce":
        return fpc * ss / (n * n)
    return fpc * ss / (n * (n - 1.0))
