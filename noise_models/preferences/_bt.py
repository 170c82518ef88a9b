"""Bradley–Terry scores by one estimating-equation solver: MLE, sandwich, PPI (SPEC §11).

A comparison (unit) ``u`` of systems ``lo_u`` and ``hi_u`` has design vector
``x_u = e_lo − e_hi`` and a value ``y_u ∈ [0, 1]``: the share of its votes won by
``lo`` (a tie counts 1/2 for each side). With ``σ_u = σ(x_u·θ)`` the scores solve

    Σ_u x_u (c_u − d_u σ_u) − ρ θ = 0                                      (1)

* maximum likelihood (Bradley & Terry 1952; Davidson-free: a tie is half a win,
  Rao & Kupper's tie parameter is not modelled): ``c_u = m_u y_u``, ``d_u = m_u``
  with ``m_u`` votes on the unit -- the vote-level likelihood, equal to ``choix``'s
  ML scores;
* prediction-powered (Angelopoulos et al. 2023, §"M-estimation"; PPI++'s λ, Angelopoulos,
  Duchi & Zrnic 2023): labelled units ``c = y − λf``, ``d = 1 − λ``; unlabelled units
  ``c = (n/N) λ f``, ``d = (n/N) λ``, with ``f`` the judge's value of the unit;
* ``ρ`` the ridge of a weak Gaussian prior ``θ ~ N(0, 1/ρ)``, used only when the
  maximum-likelihood scores are not finite (a system that never wins or never loses
  inside its component: Ford 1957's condition, the win graph strongly connected).

Newton's method on (1) with the pseudo-inverse keeps every connected component of
the comparison graph centred at 0 (the Jacobian is a weighted graph Laplacian, block
diagonal by component): scores compare only within a component. The covariance is
the sandwich ``H⁺ B H⁺`` with ``B`` the covariance of the per-unit estimating
functions (clustered by comparison: several humans per comparison are one
observation).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["PRIOR", "components", "fit_scores", "needs_prior", "rank_sets", "sandwich",
           "unit_values"]

#: Ridge of the weak prior N(0, 1/PRIOR) on the scores (log-odds scale: SD 3.2).
PRIOR = 0.1


def unit_values(frame, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: (share of the votes won by the unit's lower-numbered system, vote count)."""
    i = frame["i"].to_numpy()
    j = frame["j"].to_numpy()
    a_score = frame["a_score"].to_numpy()        # a won 1, tie 1/2, b won 0 (or soft)
    lo_score = np.where(i < j, a_score, 1.0 - a_score)
    u = frame["unit"].to_numpy()
    m = np.bincount(u, minlength=n_units).astype(np.float64)
    s = np.bincount(u, weights=lo_score, minlength=n_units)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(m > 0, s / np.maximum(m, 1.0), np.nan)
    return y, m


def _design(lo: np.ndarray, hi: np.ndarray, k: int) -> np.ndarray:
    x = np.zeros((lo.size, k))
    x[np.arange(lo.size), lo] = 1.0
    x[np.arange(lo.size), hi] = -1.0
    return x


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def components(lo: np.ndarray, hi: np.ndarray, k: int) -> np.ndarray:
    """The comparison graph's connected component of each system (0, 1, ...)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    g = coo_matrix((np.ones(lo.size), (lo, hi)), shape=(k, k))
    return connected_components(g, directed=False)[1]


def needs_prior(lo: np.ndarray, hi: np.ndarray, won: np.ndarray, lost: np.ndarray, k: int
                ) -> list[int]:
    """Systems whose ML score is not finite: the win graph is not strongly connected.

    ``won``/``lost``: the evidence that ``lo`` beat ``hi`` / lost to it (> 0). Returns
    the systems of the strong components that differ from their weak component
    (empty when the MLE exists, Ford 1957; Hunter 2004, Assumption 1).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rows = np.concatenate([hi[won > 0], lo[lost > 0]])   # edge loser -> winner
    cols = np.concatenate([lo[won > 0], hi[lost > 0]])
    g = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(k, k))
    strong = connected_components(g, directed=True, connection="strong")[1]
    weak = components(lo, hi, k)
    bad = []
    for c in np.unique(weak):
        members = np.flatnonzero(weak == c)
        if len(members) > 1 and len(np.unique(strong[members])) > 1:
            bad += members.tolist()
    return bad


def fit_scores(lo: np.ndarray, hi: np.ndarray, c: np.ndarray, d: np.ndarray, k: int,
               prior: float = 0.0, tol: float = 1e-11, max_iter: int = 200,
               start: np.ndarray | None = None) -> np.ndarray:
    """Solve (1) by damped Newton steps; every component centred at 0."""
    x = _design(lo, hi, k)
    theta = np.zeros(k) if start is None else start.copy()
    for _ in range(max_iter):
        s = _sigmoid(x @ theta)
        g = x.T @ (c - d * s) - prior * theta
        h = (x * (d * s * (1.0 - s))[:, None]).T @ x + prior * np.eye(k)
        step = np.linalg.pinv(h, rcond=1e-12, hermitian=True) @ g
        big = float(np.abs(step).max()) if step.size else 0.0
        if big > 2.0:  # damped: far from the optimum the logistic curvature misleads
            step *= 2.0 / big
        theta = theta + step
        if big < tol:
            break
    return theta


def sandwich(lo: np.ndarray, hi: np.ndarray, theta: np.ndarray, hess_w: np.ndarray,
             scores: np.ndarray, k: int, prior: float = 0.0) -> np.ndarray:
    """``H⁺ B H⁺``: ``H = Σ hess_w σ(1−σ) x xᵀ + ρI``, ``B = Σ_u s_u s_uᵀ`` (rows of ``scores``)."""
    x = _design(lo, hi, k)
    s = _sigmoid(x @ theta)
    h = (x * (hess_w * s * (1.0 - s))[:, None]).T @ x + prior * np.eye(k)
    hp = np.linalg.pinv(h, rcond=1e-12, hermitian=True)
    b = scores.T @ scores
    return hp @ b @ hp


def design(lo: np.ndarray, hi: np.ndarray, k: int) -> np.ndarray:
    """The units' design vectors ``e_lo − e_hi``, (U, k)."""
    return _design(lo, hi, k)


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, overflow-free."""
    return _sigmoid(z)


def rank_sets(theta: np.ndarray, cov: np.ndarray, comp: np.ndarray, confidence_level: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank, and simultaneous rank-sets from Bonferroni intervals of all score differences.

    In each component with ``K_c`` systems, system ``i``'s rank-set is
    ``[1 + #{j: θ_j − θ_i > z·se}, K_c − #{j: θ_i − θ_j > z·se}]`` with ``z`` the
    two-sided normal quantile at ``(1 − level)/P`` for the ``P`` pairs of the
    component: all differences are inside their intervals at once with probability
    ≥ level (Bonferroni), and then every rank-set holds the true rank.
    """
    from scipy import stats

    k = theta.size
    rank = np.zeros(k, dtype=np.int64)
    low = np.zeros(k, dtype=np.int64)
    high = np.zeros(k, dtype=np.int64)
    for cc in np.unique(comp):
        m = np.flatnonzero(comp == cc)
        kc = m.size
        order = m[np.argsort(-theta[m], kind="stable")]
        rank[order] = np.arange(1, kc + 1)
        pairs = kc * (kc - 1) // 2
        if pairs == 0:
            low[m] = high[m] = 1
            continue
        z = float(stats.norm.isf((1.0 - confidence_level) / (2.0 * pairs)))
        for i in m:
            above = below = 0
            for j in m:
                if j == i:
                    continue
                se = math.sqrt(max(cov[i, i] + cov[j, j] - 2.0 * cov[i, j], 0.0))
                diff = theta[j] - theta[i]
                if diff > z * se:
                    above += 1
                elif -diff > z * se:
                    below += 1
            low[i] = 1 + above
            high[i] = kc - below
    return rank, low, high
