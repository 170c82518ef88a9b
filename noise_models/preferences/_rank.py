"""``rank_systems``: Bradley–Terry scores, simultaneous rank-sets, PPI, drop-k (SPEC §11)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Rng,
    check_params,
    validate_params,
)
from noise_models.preferences import _bt
from noise_models.preferences._data import Comparisons, as_comparisons
from noise_models.preferences._dropk import drop_k_search, vote_types

__all__ = ["RankingResult", "rank_systems"]


@dataclasses.dataclass(frozen=True)
class RankingResult(Result):
    """Systems ranked by Bradley–Terry scores, with intervals and simultaneous rank-sets.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per system, best first: ``system``, ``score`` (log-strength, each
        component of the comparison graph centred at 0), ``low``, ``high`` (its
        interval at ``confidence_level``), ``rank`` (1 = best), ``rank_low``,
        ``rank_high`` (the simultaneous rank-set), ``component``, ``votes``. This is
        ``to_frame()``.
    top_system : str
        The best-scoring system.
    method : str
        ``"Bradley-Terry MLE"`` or ``"prediction-powered Bradley-Terry (PPI++)"`` /
        ``"(PPI)"``.
    confidence_level : float
    lam : float or None
        PPI's λ (None without judges).
    raters, judges : tuple of str
        Whose votes are the (human) votes fitted; the judges whose votes power PPI.
    n_votes : int
        Human votes fitted.
    n_labelled, n_unlabelled : int
        Comparisons with human votes (and, with judges, the judge's); comparisons
        with the judge's votes only.
    prior : float
        Ridge of the weak prior (0: the plain MLE).
    n_components : int
        Connected components of the comparison graph (ranks compare within one).
    rank_set_size : int
        ``Σ (rank_high − rank_low + 1)``: the rank-sets' total size (``K`` when every
        rank is certain).
    drop_k : int or None
        The fewest human votes whose removal changes the top system of the humans'
        maximum-likelihood ranking (with judges too: of the labelled comparisons' human
        votes) (None: no removal does, or not computed).
    drop_k_method : str
        ``"exact"`` or ``"greedy"`` (an upper bound) or ``"not computed"``.
    covariance : pandas.DataFrame
        The scores' covariance, systems × systems (for contrasts: the variance of
        ``θ_i − θ_j`` is ``C_ii + C_jj − 2 C_ij``).
    classical : pandas.DataFrame or None
        With judges: the same table from the labelled comparisons' human votes
        alone (λ = 0), for comparison.
    notes : tuple of str
    """

    _headline: ClassVar[str] = "rank_set_size"
    _table: ClassVar[str] = "table"
    _records = ("table", "classical")
    _summary = (
        "Ranking of {table!n} systems: {method}",
        "  {n_votes} human votes on {n_labelled} comparisons((, {n_unlabelled} judge-only "
        "comparisons, lambda = {lam:.3g}))",
        "  top system {top_system}; simultaneous {confidence_level:.0%} rank-sets total "
        "size {rank_set_size}",
        ("table", "  {rank:>2d}. {system:<24} score {score:+.3f} [{low:+.3f}, {high:+.3f}]"
                  "  ranks {rank_low}-{rank_high}"),
        ("drop_k_method!=not computed", "  drop-k ({drop_k_method}): {drop_k_text}"),
        ("notes", "  * {}"),
    )

    table: pd.DataFrame = dataclasses.field(repr=False)
    top_system: str
    method: str
    confidence_level: float
    lam: float | None
    raters: tuple[str, ...]
    judges: tuple[str, ...]
    n_votes: int
    n_labelled: int
    n_unlabelled: int
    prior: float
    n_components: int
    rank_set_size: int
    drop_k: int | None
    drop_k_method: str
    classical: pd.DataFrame | None = dataclasses.field(repr=False, compare=False)
    covariance: pd.DataFrame | None = dataclasses.field(default=None, repr=False,
                                                        compare=False)
    notes: tuple[str, ...] = ()

    @property
    def drop_k_text(self) -> str:
        """The drop-k count in words."""
        if self.drop_k is None:
            return "no removal of human votes changes the top system"
        bound = "at most " if self.drop_k_method == "greedy" else ""
        return (f"removing {bound}{self.drop_k} of {self.n_votes} human votes changes the top "
                f"system")

    @property
    def classical_rank_set_size(self) -> int | None:
        """The total rank-set size of the human-only ranking of the labelled comparisons."""
        if self.classical is None:
            return None
        c = self.classical
        return int((c["rank_high"] - c["rank_low"] + 1).sum())

    def plot(self, ax: Any = None) -> Any:
        """A forest plot: each system's score and interval, best at the top."""
        import matplotlib.pyplot as plt

        t = self.table
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.45 * len(t) + 1.2))
        pos = np.arange(len(t))[::-1]
        ax.errorbar(t["score"], pos, xerr=[t["score"] - t["low"], t["high"] - t["score"]],
                    fmt="o", color="C0", capsize=3)
        ax.set_yticks(pos)
        ax.set_yticklabels([f"{s}  (ranks {lo}-{hi})" for s, lo, hi in
                            zip(t["system"], t["rank_low"], t["rank_high"], strict=True)])
        ax.axvline(0.0, color="grey", linestyle=":")
        ax.set_xlabel(f"Bradley-Terry score ({self.confidence_level:.0%} interval)")
        ax.set_title(self.method)
        ax.grid(axis="x", alpha=0.3)
        return ax


def _labelled_units(labelled: Any, c: Comparisons, has_human: np.ndarray, rng: Any
                    ) -> np.ndarray:
    n_units = c.n_units
    if labelled is None:
        return has_human.copy()
    if isinstance(labelled, float) and not isinstance(labelled, bool):
        if not 0.0 < labelled <= 1.0:
            raise ValueError(f"`labelled` as a share must be in (0, 1]; got {labelled}.")
        cand = np.flatnonzero(has_human)
        k = round(labelled * cand.size)
        pick = np.random.default_rng(rng).choice(cand, size=k, replace=False)
        out = np.zeros(n_units, dtype=bool)
        out[pick] = True
        return out
    arr = np.asarray(labelled)
    if arr.dtype == bool:
        if arr.shape != (n_units,):
            raise ValueError(f"`labelled` as a mask needs one entry per comparison ({n_units}, "
                             f"numbered as `Comparisons.frame['unit']`); got shape {arr.shape}.")
        return arr & has_human
    items = set(arr.tolist())
    unit_item = c.frame.groupby("unit")["item"].first()
    known = set(unit_item.tolist())
    unknown = items - known
    if unknown:
        raise ValueError(f"`labelled` names items that are not in the comparisons, e.g. "
                         f"{sorted(unknown, key=str)[:3]}.")
    out = np.zeros(n_units, dtype=bool)
    out[unit_item.index[unit_item.isin(items)].to_numpy()] = True
    return out & has_human


def _unit_pairs(c: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    f = c.frame.groupby("unit")[["i", "j"]].first()
    lo = np.minimum(f["i"], f["j"]).to_numpy()
    hi = np.maximum(f["i"], f["j"]).to_numpy()
    return lo, hi


def _table(c: Comparisons, theta, cov, comp, level, votes) -> pd.DataFrame:
    from scipy import stats

    z = float(stats.norm.isf((1.0 - level) / 2.0))
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    rank, rlo, rhi = _bt.rank_sets(theta, cov, comp, level)
    t = pd.DataFrame({"system": list(c.systems), "score": theta, "low": theta - z * se,
                      "high": theta + z * se, "rank": rank, "rank_low": rlo, "rank_high": rhi,
                      "component": comp, "votes": votes})
    return t.sort_values(["component", "rank"]).reset_index(drop=True)


def _prior_note(bad: list[int], systems: tuple[str, ...]) -> str:
    names = [systems[b] for b in bad][:5]
    return (f"the Bradley-Terry scores are not finite: some systems never win or never lose "
            f"within their component (among {names}); a weak prior N(0, 1/{_bt.PRIOR:g}) on the "
            "scores keeps them finite")


def _fit_humans(lo, hi, y, m, k):
    """Vote-level MLE (sum scale) and its sandwich covariance clustered by comparison."""
    used = m > 0
    lo_, hi_, y_, m_ = lo[used], hi[used], y[used], m[used]
    bad = _bt.needs_prior(lo_, hi_, m_ * y_, m_ * (1 - y_), k)
    rho = _bt.PRIOR if bad else 0.0
    theta = _bt.fit_scores(lo_, hi_, m_ * y_, m_, k, prior=rho)
    x = _bt.design(lo_, hi_, k)
    s = _bt.sigmoid(x @ theta)
    scores = (m_ * (y_ - s))[:, None] * x
    cov = _bt.sandwich(lo_, hi_, theta, m_, scores, k, prior=rho)
    return theta, cov, rho, bad


def _ppi_fit(lo, hi, y, f, lab, unl, k, tuned):
    """Prediction-powered BT scores and covariance; returns (θ, cov, λ, ρ, bad)."""
    n, big_n = int(lab.sum()), int(unl.sum())
    allu = lab | unl
    won = np.where(lab, np.maximum(y, f), f)
    lost = np.where(lab, np.maximum(1 - y, 1 - f), 1 - f)
    bad = _bt.needs_prior(lo[allu], hi[allu], won[allu], lost[allu], k)
    rho = _bt.PRIOR if bad else 0.0
    x = _bt.design(lo, hi, k)
    nn = int(allu.sum())

    def solve(lam: float) -> np.ndarray:
        c = np.where(lab, y - lam * f, (n / big_n) * lam * f)
        d = np.where(lab, 1.0 - lam, (n / big_n) * lam)
        return _bt.fit_scores(lo[allu], hi[allu], c[allu], d[allu], k, prior=rho)

    theta = solve(1.0)
    if tuned:  # PPI++'s λ at the PPI estimate (as ppi_py's _calc_lam_glm, clipped to [0, 1])
        s = _bt.sigmoid(x @ theta)
        w = s * (1 - s)
        h = (x[allu] * w[allu][:, None]).T @ x[allu] / nn
        hp = np.linalg.pinv(h, rcond=1e-12, hermitian=True)
        gy = x[lab] * (y[lab] - s[lab])[:, None]
        gf = x[lab] * (f[lab] - s[lab])[:, None]
        gfa = x[allu] * (f[allu] - s[allu])[:, None]
        cyf = (gy - gy.mean(0)).T @ (gf - gf.mean(0)) / n
        cff = (gfa - gfa.mean(0)).T @ (gfa - gfa.mean(0)) / (nn - 1)
        num = float(np.trace(hp @ (cyf + cyf.T) @ hp))
        den = float(2.0 * (1.0 + n / big_n) * np.trace(hp @ cff @ hp))
        lam = float(np.clip(num / den, 0.0, 1.0)) if den > 0 else 0.0
        theta = solve(lam)
    else:
        lam = 1.0
    s = _bt.sigmoid(x @ theta)
    gy = x * (y - s)[:, None]
    gf = x * (f - s)[:, None]
    # Var = H⁺ (Cov(g_Y − λ g_f)/n + λ² Cov(g_f)/N) H⁺, covariances with divisor n − 1 and
    # N − 1 (as ppi_py's ppi_logistic_ci)
    rows_l = gy[lab] - lam * gf[lab]
    rows_l = (rows_l - rows_l.mean(0)) / math.sqrt(n * (n - 1))
    rows_u = lam * (gf[unl] - gf[unl].mean(0)) / math.sqrt(big_n * max(big_n - 1, 1))
    hw = np.full(nn, 1.0 / nn)
    cov = _bt.sandwich(lo[allu], hi[allu], theta, hw, np.vstack([rows_l, rows_u]), k,
                       prior=rho / nn)
    return theta, cov, lam, rho, bad


def _classical_fit(lo, hi, y, lab, k):
    n = int(lab.sum())
    bad = _bt.needs_prior(lo[lab], hi[lab], y[lab], 1 - y[lab], k)
    rho = _bt.PRIOR if bad else 0.0
    theta = _bt.fit_scores(lo[lab], hi[lab], y[lab], np.ones(n), k, prior=rho)
    x = _bt.design(lo[lab], hi[lab], k)
    s = _bt.sigmoid(x @ theta)
    rows = x * (y[lab] - s)[:, None]
    rows = (rows - rows.mean(0)) / math.sqrt(n * (n - 1))  # ppi_py's classical (λ = 0)
    cov = _bt.sandwich(lo[lab], hi[lab], theta, np.full(n, 1.0 / n), rows, k, prior=rho / n)
    return theta, cov


@validate_params(confidence_level=ConfidenceLevel(), rng=Rng())
def rank_systems(comparisons: Any, *, judges: Any = None, labelled: Any = None,
                 raters: Any = None, tuned: bool = True, drop_k: bool = True,
                 max_fits: int = 2000, confidence_level: float = 0.95, rng: Any = None,
                 columns: dict | None = None) -> RankingResult:
    """Rank systems by Bradley–Terry scores, with intervals and simultaneous rank-sets.

    From human votes alone (the maximum-likelihood scores), or from a few human and
    many judge votes through prediction-powered inference (the judge's votes on
    every comparison, the humans' on a subset; Chatzi et al. 2024's setting).

    Parameters
    ----------
    comparisons : pandas.DataFrame or Comparisons
        One row per vote (see :func:`as_comparisons`).
    judges : str or sequence of str, optional
        Judges whose votes power a prediction-powered ranking (their votes on a
        comparison averaged into one value; a soft vote -- the ``probability`` column
        -- counts as its probability, not its top class). Default: none -- the humans' votes
        alone (votes of raters marked as judges by ``rater_kind`` are then left out).
    labelled : float, sequence of item ids or boolean mask over comparisons, optional
        The comparisons whose human votes are used; a float in (0, 1] draws that
        share of the human-voted comparisons with ``rng``. Default: all. With
        ``judges``, the others are judge-only comparisons.
    raters : sequence of str, optional
        The raters whose votes are the "human" votes (e.g. one judge alone, to rank by
        that judge); default every rater that is not a judge.
    tuned : bool, default True
        PPI++'s power-tuned λ (else λ = 1).
    drop_k : bool, default True
        Search the fewest human votes whose removal changes the top system.
    max_fits : int, default 2000
        Refits the exact drop-k search may spend before it turns greedy.
    confidence_level : float, default 0.95
        Of each score's interval, and of the rank-sets simultaneously.
    rng : None, int or Generator
        Draws ``labelled`` when it is a share.
    columns : dict, optional
        Column names passed to :func:`as_comparisons` (``item=``, ``a=``, ...).

    Returns
    -------
    RankingResult
        ``to_frame()``: system, score, low, high, rank, rank_low, rank_high, ...

    Raises
    ------
    ValueError
        Bad votes (see :func:`as_comparisons`), no human votes, judges without
        judge-only comparisons.

    Notes
    -----
    The scores solve the Bradley–Terry likelihood equations (a tie is half a win
    for each side); the covariance is the sandwich clustered by comparison. With
    judges, the prediction-powered M-estimator (Angelopoulos et al. 2023) with
    PPI++'s λ (Angelopoulos, Duchi & Zrnic 2023) on per-comparison values (the
    humans' share of votes, the judges' share). Rank-sets: Bonferroni intervals of
    all pairwise score differences, a system's set runs from 1 + (systems surely
    better) to K − (systems surely worse), which holds every true rank at once with
    probability ≥ ``confidence_level``. Chatzi et al. (2024) build the same kind of
    rank-sets from a confidence ellipsoid of the pairwise win probabilities; here the
    scores' differences take that role.

    References
    ----------
    Bradley & Terry (1952), Biometrika 39:324–345, doi:10.2307/2334029.
    Ford (1957), Amer. Math. Monthly 64:28–33, doi:10.2307/2308513.
    Chatzi, Straitouri, Thejaswi & Gomez Rodriguez (2024), Prediction-powered ranking of
    large language models, NeurIPS 2024, arXiv:2402.17826.
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), Science 382:669–674,
    doi:10.1126/science.adi6000.

    Examples
    --------
    >>> import pandas as pd
    >>> from noise_models.preferences import rank_systems
    >>> votes = pd.DataFrame({
    ...     "item": range(12), "rater": "h",
    ...     "a": ["x", "x", "x", "y", "y", "z"] * 2, "b": ["y", "z", "z", "z", "x", "x"] * 2,
    ...     "winner": ["a", "a", "b", "a", "b", "b"] * 2})
    >>> res = rank_systems(votes)
    >>> res.to_frame()[["system", "score", "rank", "rank_low", "rank_high"]].round(3)
      system  score  rank  rank_low  rank_high
    0      x  0.912     1         1          3
    1      y -0.343     2         1          3
    2      z -0.569     3         1          3
    >>> res.drop_k, res.drop_k_method
    (3, 'exact')
    """
    check_params(rank_systems, locals())
    c = as_comparisons(comparisons, judges=judges, **(columns or {}))
    fr = c.frame
    k = len(c.systems)
    notes: list[str] = []
    judge_set = ([] if judges is None else
                 [str(judges)] if isinstance(judges, (str, bytes)) else [str(j) for j in judges])
    is_h = _human_votes(fr, raters, judge_set, notes)
    lo, hi = _unit_pairs(c)
    y, m = _bt.unit_values(fr[is_h], c.n_units)
    has_h = m > 0
    lab = _labelled_units(labelled, c, has_h, rng)
    level = float(confidence_level)
    if judge_set:
        fit = _ppi_fit_votes(c, is_h, lab, y, lo, hi, judge_set, bool(tuned), level, notes)
    else:
        fit = _human_fit_votes(c, is_h, lab, y, m, lo, hi)
    theta, cov, rho, bad, used, method, n_lab, n_unl, h_mask, lam, classical = fit
    if bad:
        notes.append(_prior_note(bad, c.systems))
    comp = _bt.components(lo[used], hi[used], k)
    n_comp = len(np.unique(comp))
    if n_comp > 1:
        notes.append(f"the comparison graph has {n_comp} disconnected components: systems are "
                     "scored and ranked within their component only (scores of different "
                     "components are not comparable)")
    votes = np.bincount(np.concatenate([fr["i"].to_numpy()[h_mask], fr["j"].to_numpy()[h_mask]]),
                        minlength=k)
    table = _table(c, theta, cov, comp, level, votes)
    top = table.loc[table["score"].idxmax(), "system"]
    best = table["score"].max()
    tied = table.loc[table["score"] >= best - 1e-9 * max(1.0, abs(best)), "system"].tolist()
    if len(tied) > 1:
        names = ", ".join(map(str, tied[:-1])) + f" and {tied[-1]}"
        notes.append(f"{names} tie for the top score: these votes name no single top system "
                     f"(top_system is the first of them, {top})")
    dk, dk_method = (_drop_k(fr[h_mask], k, int(max_fits)) if drop_k
                     else (None, "not computed"))
    size = int((table["rank_high"] - table["rank_low"] + 1).sum())
    return RankingResult(
        table=table, top_system=str(top), method=method, confidence_level=level,
        lam=None if lam is None else float(lam),
        raters=tuple(pd.unique(fr.loc[is_h, "rater"])), judges=tuple(judge_set),
        n_votes=int(h_mask.sum()), n_labelled=n_lab, n_unlabelled=n_unl,
        prior=float(rho), n_components=n_comp, rank_set_size=size, drop_k=dk,
        drop_k_method=dk_method, classical=classical,
        covariance=pd.DataFrame(cov, index=list(c.systems), columns=list(c.systems)),
        notes=tuple(notes))


def _human_votes(fr: pd.DataFrame, raters: Any, judge_set: list[str],
                 notes: list[str]) -> np.ndarray:
    """Which votes are the humans' whose votes are fitted: those of ``raters``, else
    those marked human (the votes of other judges left out, noted)."""
    if raters is not None:
        rs = [str(raters)] if isinstance(raters, (str, bytes)) else [str(r) for r in raters]
        unknown = set(rs) - set(fr["rater"])
        if unknown:
            raise ValueError(f"`raters` names {sorted(unknown)[:3]}, not raters of the "
                             "comparisons.")
        is_h = fr["rater"].isin(rs).to_numpy()
    else:
        is_h = (fr["rater_kind"] == "human").to_numpy()
        n_j = int((~is_h & ~fr["rater"].isin(judge_set)).sum())
        if n_j:
            notes.append(f"{n_j} votes of raters marked as judges are left out (pass them as "
                         "`judges` for a prediction-powered ranking)")
    if not is_h.any():
        raise ValueError("no human votes: name the raters whose votes to fit with `raters`, "
                         "or mark humans in `rater_kind`.")
    return is_h


class _VoteFit(NamedTuple):
    """The Bradley-Terry fit of a ranking: scores, covariance, prior, the systems the
    prior held, the comparisons used, the method, labelled and unlabelled comparisons,
    the human votes used, PPI's λ and the classical (human-only) table."""

    theta: np.ndarray
    cov: np.ndarray
    rho: float
    bad: Any
    used: np.ndarray
    method: str
    n_lab: int
    n_unl: int
    h_mask: np.ndarray
    lam: float | None = None
    classical: pd.DataFrame | None = None


def _ppi_fit_votes(c: Comparisons, is_h: np.ndarray, lab: np.ndarray, y: np.ndarray,
                   lo: np.ndarray, hi: np.ndarray, judge_set: list[str], tuned: bool,
                   level: float, notes: list[str]) -> _VoteFit:
    """The prediction-powered fit: the human votes on the labelled comparisons, the
    judges' on every comparison; with the classical fit of the labelled ones beside."""
    fr, k = c.frame, len(c.systems)
    f, mf = _bt.unit_values(fr[fr["rater"].isin(judge_set).to_numpy()], c.n_units)
    has_f = mf > 0
    left = int((lab & ~has_f).sum())
    if left:
        notes.append(f"{left} labelled comparisons without a judge vote are left out (PPI "
                     "needs the judge's vote on every comparison)")
    lab_j, unl = lab & has_f, has_f & ~lab
    if unl.sum() < 1:
        raise ValueError("every comparison the judges voted on has human votes: there are "
                         "no judge-only comparisons. Pass `labelled` (e.g. a share such as "
                         "0.2) to use the human votes of a subset.")
    if lab_j.sum() < 2:
        raise ValueError(f"{int(lab_j.sum())} comparison(s) carry both human and judge "
                         "votes; at least 2 are needed.")
    f = np.nan_to_num(f)
    yv = np.nan_to_num(y)
    theta, cov, lam, rho, bad = _ppi_fit(lo, hi, yv, f, lab_j, unl, k, bool(tuned))
    used = lab_j | unl
    theta_c, cov_c = _classical_fit(lo, hi, yv, lab_j, k)
    comp_c = _bt.components(lo[lab_j], hi[lab_j], k)
    votes_c = np.bincount(np.concatenate([fr["i"], fr["j"]])[
        np.tile(is_h & lab_j[fr["unit"].to_numpy()], 2)], minlength=k)
    classical = _table(c, theta_c, cov_c, comp_c, level, votes_c)
    method = f"prediction-powered Bradley-Terry ({'PPI++' if tuned else 'PPI'})"
    n_lab, n_unl = int(lab_j.sum()), int(unl.sum())
    h_mask = is_h & lab_j[fr["unit"].to_numpy()]
    return _VoteFit(theta, cov, rho, bad, used, method, n_lab, n_unl, h_mask, lam, classical)


def _human_fit_votes(c: Comparisons, is_h: np.ndarray, lab: np.ndarray, y: np.ndarray,
                     m: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> _VoteFit:
    """The Bradley-Terry MLE of the human votes on the labelled comparisons."""
    fr, k = c.frame, len(c.systems)
    yv = np.where(lab, y, 0.0)
    mv = np.where(lab, m, 0.0)
    theta, cov, rho, bad = _fit_humans(lo, hi, yv, mv, k)
    used = lab
    method = "Bradley-Terry MLE"
    n_lab, n_unl = int(lab.sum()), 0
    h_mask = is_h & lab[fr["unit"].to_numpy()]
    return _VoteFit(theta, cov, rho, bad, used, method, n_lab, n_unl, h_mask)


def _drop_k(hv: pd.DataFrame, k: int, max_fits: int) -> tuple[Any, str]:
    """The fewest human votes whose removal changes the top system, and how it was found."""
    i, j = hv["i"].to_numpy(), hv["j"].to_numpy()
    a_score = hv["a_score"].to_numpy()
    tl, th, ty, tn = vote_types(np.minimum(i, j), np.maximum(i, j),
                                np.where(i < j, a_score, 1 - a_score))
    dk, dk_method, _ = drop_k_search(tl, th, ty, tn, k, max_fits=max_fits)
    return dk, dk_method
