"""Monte-Carlo coverage of the noise bound γ (SPEC §3, "Calibration of γ").

γ is a Bayesian bound (uniform prior on the number of hard items H). Its
frequentist coverage at a *fixed* H is the honest check: over data sets
simulated with exactly H hard items, how often is the true share of hard items
among the agreed ones at most γ?
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from _goldnoise_lib.lazy import lazy_module
from _goldnoise_lib.validation import (
    Alpha,
    Integer,
    Option,
    Rng,
    check_alpha,
    check_integer,
    check_option,
    check_params,
    check_rng,
    validate_params,
)
from noise_models import noise_bound
from simulation.calibration._common import check_counts, coverage_interval

# Imported at first use: scipy and Numba would double the time of `import goldnoise`.
_stats = lazy_module("scipy.stats")

__all__ = ["gamma_coverage"]

_P_MODES = ("known", "estimated")
_MODELS = ("M1", "M2")


def _gamma_coverage_iv(n, hard_counts, n_raters, n_categories, alpha, p, model, error_rate,
                       n_sims):
    n = check_integer(n, "n", 2)
    hard = check_counts(hard_counts, "hard_counts", n, "n")
    k = check_integer(n_raters, "n_raters", 2)
    m = check_integer(n_categories, "n_categories", 2)
    alpha = check_alpha(alpha)
    check_option(p, "p", _P_MODES)
    check_option(model, "model", _MODELS)
    if isinstance(error_rate, bool) or not isinstance(error_rate, (int, float)) or not (
            0 <= error_rate < 1):
        raise ValueError(f"`error_rate` must be in [0, 1); got {error_rate!r}.")
    if model == "M1" and error_rate != 0:
        raise ValueError("`error_rate` is the annotators' error on easy items under "
                         "`model='M2'`; under M1 easy items are always unanimous.")
    n_sims = check_integer(n_sims, "n_sims", 1)
    return n, hard, k, m, float(alpha), n_sims


def _simulate(rng, n_sims, n, hard, k, m, model, error_rate):
    """Labels (n_sims, n, k) with the first ``hard`` items hard, and the easy items' truth."""
    truth = rng.integers(0, m, size=(n_sims, n, 1))
    labels = np.broadcast_to(truth, (n_sims, n, k)).copy()
    labels[:, :hard, :] = rng.integers(0, m, size=(n_sims, hard, k))
    if model == "M2" and error_rate > 0:
        # an error on an easy item: a different category, uniformly
        err = rng.random((n_sims, n - hard, k)) < error_rate
        shift = rng.integers(1, m, size=err.shape)
        easy = labels[:, hard:, :]
        labels[:, hard:, :] = np.where(err, (easy + shift) % m, easy)
    return labels, truth[..., 0]


def _p_hat(labels, disagreed, m):
    """p as ``noise_bound(ratings)`` estimates it: per-annotator shares q[j, c] over the
    disagreed items (all items if none), ``p = Σ_c Π_j q[j, c]``."""
    out = np.empty(labels.shape[0])
    for s in range(labels.shape[0]):
        rows = labels[s][disagreed[s]] if disagreed[s].any() else labels[s]
        q = np.stack([np.bincount(rows[:, j], minlength=m) for j in range(rows.shape[1])])
        q = q / q.sum(axis=1, keepdims=True)
        out[s] = float(np.prod(q, axis=0).sum())
    return out


@validate_params(n=Integer(2), n_raters=Integer(2), n_categories=Integer(2), alpha=Alpha(),
                 p=Option(_P_MODES), model=Option(_MODELS), n_sims=Integer(1), rng=Rng())
def gamma_coverage(
    n: int,
    hard_counts: Any,
    *,
    n_raters: int = 2,
    n_categories: int = 2,
    alpha: float = 0.95,
    p: str = "known",
    model: str = "M1",
    error_rate: float = 0.0,
    n_sims: int = 1000,
    rng: Any = None,
    _progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Coverage of the noise bound γ across true hard counts, by simulation.

    For each true number H of hard items, ``n_sims`` data sets of ``n`` items
    are drawn: H hard items on which each of ``n_raters`` annotators picks one
    of ``n_categories`` categories uniformly at random (chance agreement ``p =
    m^(1−k)``), and ``n − H`` easy items labelled unanimously (under
    ``model="M2"`` each annotator errs on an easy item with probability
    ``error_rate``, choosing another category uniformly). γ is
    ``noise_bound(n, d, p, alpha=alpha)`` from the observed disagreements d.

    Parameters
    ----------
    n : int
        Items per data set (≥ 2).
    hard_counts : int or list of int
        True numbers of hard items, each in 0..n.
    n_raters, n_categories : int, default 2
        Annotators per item and categories.
    alpha : float, default 0.95
        The bound's confidence (the paper's α).
    p : {"known", "estimated"}, default "known"
        ``"known"``: γ uses the true ``p``. ``"estimated"``: ``p`` is estimated
        from each simulated data set as ``noise_bound(ratings)`` does
        (per-annotator label shares over the disagreed items).
    model : {"M1", "M2"}, default "M1"
        M1 is the bound's own model; M2 adds errors on easy items, which the
        bound takes for hard items.
    error_rate : float, default 0.0
        Under M2, each annotator's chance of a wrong label on an easy item.
    n_sims : int, default 1000
        Simulated data sets per hard count.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One row per hard count: ``hard_count``, ``hard_share`` (H / n),
        ``coverage`` (share of data sets whose true share of hard items among
        the agreed ones is ≤ γ), ``coverage_low`` and ``coverage_high`` (Wilson
        95% interval, as statsmodels' Wilson interval), ``exact_coverage``
        (M1 with known p: the binomial sum over d, else NaN),
        ``noisy_coverage`` (the same for the share of agreed items that are hard
        *or* carry a wrong label; equals ``coverage`` under M1), ``mean_gamma``,
        ``mean_true_share``, ``n_sims`` and ``n_undefined`` (data sets in which
        every item was disagreed: no agreed subset, left out).

    Notes
    -----
    γ bounds the hard share with posterior probability α under a uniform prior
    on H; at a fixed H the frequentist coverage may fall below α (typically
    where H is large relative to what the prior favours). The table shows it.

    Examples
    --------
    >>> from simulation import gamma_coverage
    >>> tab = gamma_coverage(200, [0, 20, 100], n_sims=200, rng=0)
    >>> tab[["hard_count", "coverage", "exact_coverage"]].round(3)
       hard_count  coverage  exact_coverage
    0           0      1.00           1.000
    1          20      0.97           0.979
    2         100      0.94           0.956
    """
    check_params(gamma_coverage, locals())
    n, hard, k, m, alpha, n_sims = _gamma_coverage_iv(
        n, hard_counts, n_raters, n_categories, alpha, p, model, error_rate, n_sims)
    gen = check_rng(rng)
    sim = _Simulation(n, k, m, model, error_rate, p, float(m) ** (1 - k), n_sims)
    gamma = _cached_gamma(n, alpha)
    return pd.DataFrame([_coverage_row(sim, int(h), gen, gamma, _progress) for h in hard])


class _Simulation(NamedTuple):
    """The simulated design: items, annotators, categories, the annotators' model and
    easy-item error rate, how p is had (and its true value), data sets per hard count."""

    n: int
    k: int
    m: int
    model: str
    error_rate: float
    p: str
    p_true: float
    n_sims: int


def _cached_gamma(n: int, alpha: float) -> Callable[[int, float], float]:
    """γ of ``d`` disagreed items at chance agreement ``p``, each pair computed once."""
    gammas: dict[tuple[int, float], float] = {}

    def gamma(d: int, pv: float) -> float:
        key = (d, pv)
        if key not in gammas:
            gammas[key] = noise_bound(n, d, pv, alpha=alpha).gamma
        return gammas[key]

    return gamma


def _coverage_row(sim: _Simulation, h: int, gen: np.random.Generator,
                  gamma: Callable[[int, float], float],
                  progress: Callable[[int], None] | None) -> dict[str, Any]:
    """The table's row of ``h`` true hard items: coverage of γ (and of the share of noisy
    agreed items), its interval, the exact coverage where known, the mean γ and share."""
    n, k, m, model, error_rate, p, p_true, n_sims = sim
    block = max(1, min(n_sims, 2_000_000 // max(1, n * k)))
    cov = noisy = undefined = 0
    g_sum = share_sum = 0.0
    for lo in range(0, n_sims, block):
        size = min(block, n_sims - lo)
        labels, truth = _simulate(gen, size, n, h, k, m, model, error_rate)
        disagreed = (labels != labels[..., :1]).any(axis=-1)
        d = disagreed.sum(axis=1)
        pv = _p_hat(labels, disagreed, m) if p == "estimated" else np.full(size, p_true)
        agreed_hard = h - disagreed[:, :h].sum(axis=1)
        wrong = ~disagreed[:, h:] & (labels[:, h:, 0] != truth[:, h:])
        for s in range(size):
            if d[s] == n:
                undefined += 1
                continue
            g = gamma(int(d[s]), float(pv[s]))
            share = agreed_hard[s] / (n - d[s])
            cov += share <= g
            noisy += (agreed_hard[s] + wrong[s].sum()) / (n - d[s]) <= g
            g_sum += g
            share_sum += share
        if progress is not None:
            progress(size)
    used = n_sims - undefined
    low, high = coverage_interval(cov, used)
    exact = (_exact_coverage(h, n, p_true, gamma) if p == "known" and model == "M1"
             else float("nan"))
    return {
        "hard_count": h, "hard_share": h / n,
        "coverage": cov / used if used else float("nan"),
        "coverage_low": low, "coverage_high": high, "exact_coverage": exact,
        "noisy_coverage": noisy / used if used else float("nan"),
        "mean_gamma": g_sum / used if used else float("nan"),
        "mean_true_share": share_sum / used if used else float("nan"),
        "n_sims": n_sims, "n_undefined": undefined,
    }


def _exact_coverage(h: int, n: int, p_true: float, gamma: Callable[[int, float], float]
                    ) -> float:
    """The coverage of γ under the bound's own model with p known:
    Σ_d Binomial(d; H, 1 − p) [share ≤ γ(d)], over the d that leave agreed items."""
    dd = np.arange(min(h, n - 1) + 1)
    pmf = _stats.binom.pmf(dd, h, 1 - p_true)
    ok = np.array([(h - di) / (n - di) <= gamma(int(di), p_true) for di in dd])
    return float(pmf[ok].sum() / pmf.sum()) if pmf.sum() > 0 else float("nan")
