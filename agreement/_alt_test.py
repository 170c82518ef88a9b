"""The Alternative Annotator Test (Calderon, Reichart & Dror, ACL 2025).

May a candidate annotator (an LLM judge, a classifier) stand in for the humans?
Leave one human out at a time; on each item that human rated, score the left-out
human and the candidate by how well each represents the *remaining* humans;
count a win for whoever scores at least as high (a tie is a win for both);
test per human whether the candidate's advantage beats the cost-benefit margin
ε; correct across humans with Benjamini–Yekutieli. Everything is computed from
per-item category counts, all humans at once (no loop over items).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import Result
from _goldnoise_lib.validation import Integer, check_option, check_params, validate_params
from agreement._ratings import Ratings, as_ratings

__all__ = ["AltTestResult", "alt_test", "benjamini_yekutieli"]

SCORINGS = ("accuracy", "rmse", "abs")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class AltTestResult(Result):
    """The Alternative Annotator Test of one candidate against the humans.

    Attributes
    ----------
    winning_rate : float
        ω, the share of the tested humans whose null hypothesis (the human
        beats the candidate by more than ε) is rejected after the
        Benjamini–Yekutieli correction. The headline value.
    advantage_probability : float
        ρ, the mean over tested humans of the share of items on which the
        candidate scores at least as high as the left-out human.
    passed : bool
        ``winning_rate >= 0.5`` (the paper's criterion).
    epsilon : float
        The cost-benefit margin ε given to the candidate.
    scoring : str
        ``"accuracy"``, ``"rmse"``, ``"abs"``, or the name of the scoring
        function given.
    q : float
        The false-discovery rate of the Benjamini–Yekutieli correction.
    n_items : int
        Items used: rated by the candidate and by ``min_humans_per_item`` or
        more humans.
    n_humans : int
        Humans tested (those with at least ``min_items`` items).
    candidate : str
        The candidate's name.
    table : pandas.DataFrame
        One row per human (index ``human``): ``n_items``, ``candidate_win_rate``
        (mean of W_c, that human's ρ_h), ``human_win_rate`` (mean of W_h),
        ``mean_difference`` (mean of W_h − W_c), ``t_statistic``, ``p_value``,
        ``candidate_wins`` (the BY-adjusted decision) and ``tested`` (False
        for humans left out for too few items; their other columns are NaN).
    notes : tuple of str
        Items dropped, humans left out.

    ``to_frame()``: :attr:`table`.
    """

    _headline = "winning_rate"

    winning_rate: float
    advantage_probability: float
    passed: bool
    epsilon: float
    scoring: str
    q: float
    n_items: int
    n_humans: int
    candidate: str
    table: pd.DataFrame = dataclasses.field(repr=False)
    notes: tuple[str, ...] = ()

    _records = _table = "table"
    _summary = (
        "Alt-Test of {candidate!r} against {n_humans} humans ({scoring} scoring, epsilon "
        "{epsilon:g}, BY q {q:g}, {n_items} items): {passed:passes|fails}",
        "  winning rate omega = {winning_rate:.2f} (passes at >= 0.50), advantage probability "
        "rho = {advantage_probability:.2f}",
        ("table", "{tested:  {name}: {n_items:d} items, candidate wins {candidate_win_rate:.2f}, "
         "human wins {human_win_rate:.2f}, p = {p_value:.3g}{candidate_wins: -> candidate wins|}"
         "|  {name}: not tested ({n_items:d} items)}"),
        ("notes", "  note: {}"))

    def __repr__(self) -> str:
        return (f"AltTestResult(winning_rate={self.winning_rate:.4g}, "
                f"advantage_probability={self.advantage_probability:.4g}, "
                f"passed={self.passed})")


def benjamini_yekutieli(p_values: Any, q: float) -> np.ndarray:
    """Rejections of the Benjamini–Yekutieli step-up procedure at false-discovery rate ``q``.

    The largest rank ``i`` (p-values sorted) with ``p_(i) <= i q / (m H_m)``,
    ``H_m = Σ_{j ≤ m} 1/j``, and every smaller p-value, are rejected
    (Benjamini & Yekutieli 2001, Theorem 1.3). NaN p-values are never rejected.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    harmonic = np.sum(1.0 / np.arange(1, m + 1))
    thresholds = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.flatnonzero(p[order] <= thresholds)
    if below.size:
        out[order[:below[-1] + 1]] = True
    return out


def _candidate_iv(r: Ratings, candidate: Any) -> tuple[np.ndarray, np.ndarray, str]:
    """The candidate's codes (n,), the human columns, the candidate's name."""
    codes = r.require_raters("the Alt-Test")
    if isinstance(candidate, (str, int, np.integer)) and candidate in set(r.raters):
        j = int(np.flatnonzero(r.raters == candidate)[0])
        humans = np.array([c for c in range(r.n_raters) if c != j], dtype=np.intp)
        return codes[:, j].astype(np.int64), humans, str(candidate)
    if isinstance(candidate, str):
        raise ValueError(f"`candidate` {candidate!r} is not a rater of the ratings; the raters "
                         f"are {[str(x) for x in r.raters[:10]]}"
                         f"{' ...' if r.n_raters > 10 else ''}.")
    labels = candidate.reindex(r.items) if isinstance(candidate, pd.Series) else candidate
    labels = np.asarray(labels, dtype=object)
    if labels.ndim != 1 or labels.size != r.n_items:
        raise ValueError(f"`candidate` must name a rater of the ratings or give one label per "
                         f"item ({r.n_items}); got {labels.size} labels.")
    lookup = {c: k for k, c in enumerate(r.categories)}
    out = np.full(r.n_items, -1, dtype=np.int64)
    for i, v in enumerate(labels):
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            continue
        if v not in lookup:
            raise ValueError(f"`candidate` label {v!r} is not a category of the ratings "
                             f"({list(r.categories)[:10]}).")
        out[i] = lookup[v]
    name = candidate.name if isinstance(candidate, pd.Series) and candidate.name else "candidate"
    return out, np.arange(r.n_raters, dtype=np.intp), str(name)


def _distance(values: np.ndarray, scoring: str) -> np.ndarray:
    """Loss (m, m) of label ``c`` against another annotator's ``l``: lower is better.

    accuracy: 1 − [c = l] (the score, a share of agreeing annotators, is 1 − mean
    loss); rmse: (v_c − v_l)² (the score is −sqrt(mean loss)); abs: |v_c − v_l|.
    Each score is a decreasing function of the mean loss over the same
    annotators, so comparing summed losses decides the same wins and ties.
    """
    if scoring == "accuracy":
        return 1.0 - np.eye(values.size)
    diff = values[:, None] - values[None, :]
    return diff * diff if scoring == "rmse" else np.abs(diff)


@validate_params(min_items=Integer(2), min_humans_per_item=Integer(2))
def alt_test(ratings: Any, candidate: Any, *, epsilon: float, scoring: Any = "accuracy",
             q: float = 0.05, min_items: int = 30,
             min_humans_per_item: int = 2) -> AltTestResult:
    r"""The Alternative Annotator Test: may the candidate replace a human annotator?

    Parameters
    ----------
    ratings : Ratings or array_like, shape (n_items, n_raters)
        The humans' ratings (anything :func:`as_ratings` reads, with annotator
        identities), with the candidate as one more rater column or not.
    candidate : str or array_like, shape (n_items,)
        The name of the candidate's rater column in ``ratings`` (the other
        columns are then the humans), or the candidate's labels, one per item
        in the order of ``ratings.items`` (a Series is aligned by item id;
        missing allowed), every column of ``ratings`` being a human.
    epsilon : float
        ε, the cost-benefit margin in [0, 1) granted to the candidate (the
        paper suggests 0.2 against experts, 0.15 against skilled annotators,
        0.1 against crowd workers).
    scoring : {"accuracy", "rmse", "abs"} or callable, default "accuracy"
        How an annotator's label represents the remaining humans on an item:
        the share of them with the same label, the negative root-mean-square
        difference, or the negative mean absolute difference (the last two
        need numeric labels). A callable ``scoring(label, others) -> float``
        (higher is better) gets one label and the array of the remaining
        humans' labels on the item, as the ratings' categories (the paper
        scores free text by embedding similarity this way); it is called
        twice per (item, human), in Python.
    q : float, default 0.05
        False-discovery rate of the Benjamini–Yekutieli correction.
    min_items : int, default 30
        Humans with fewer items (rated by them, the candidate and at least
        one other human) are not tested; the result says so.
    min_humans_per_item : int, default 2
        Items need this many human ratings (the left-out human and at least
        ``min_humans_per_item − 1`` remaining ones).

    Returns
    -------
    AltTestResult
        ``winning_rate`` ω, ``advantage_probability`` ρ, ``passed`` (ω ≥ 0.5)
        and the per-human table.

    Raises
    ------
    ValueError
        For a candidate that is not a rater, ε outside [0, 1), q outside (0, 1),
        fewer than two humans, numeric scoring of non-numeric labels, or no
        human with ``min_items`` items.

    Notes
    -----
    Items need the candidate's label and two or more human ratings. For each
    tested human :math:`h` and each item :math:`i` that :math:`h` rated, with
    :math:`H_i` the other humans who rated it, the scores are
    :math:`S(x, H_i)` for the candidate's label and for :math:`h`'s, and

    .. math:: W^c_{hi} = [S(c_i, H_i) \ge S(h_i, H_i)], \quad
              W^h_{hi} = [S(h_i, H_i) \ge S(c_i, H_i)].

    :math:`H_0: \bar{W^h_h} - \bar{W^c_h} \ge \varepsilon` is tested against
    the alternative ``<`` with the one-sample t-test of the differences
    :math:`W^h_{hi} - W^c_{hi}` (n − 1 degrees of freedom; a constant
    difference gives t = −∞, p = 0 when its mean is below ε, as scipy's
    ``ttest_1samp`` does). ω is the share of humans rejected by
    Benjamini–Yekutieli at ``q``; ρ the mean over humans of
    :math:`\bar{W^c_h}`. Humans left out for too few items still count among
    the remaining humans of the others (as in the authors' code).

    References
    ----------
    Calderon, N., Reichart, R., & Dror, R. (2025). The Alternative Annotator
    Test for LLM-as-a-Judge: How to Statistically Justify Replacing Human
    Annotators with LLMs. ACL 2025, 16051–16081.
    https://doi.org/10.18653/v1/2025.acl-long.782

    Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery
    rate in multiple testing under dependency. Annals of Statistics, 29(4),
    1165–1188. https://doi.org/10.1214/aos/1013699998

    Examples
    --------
    >>> import numpy as np
    >>> from agreement import Ratings, alt_test
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 200)
    >>> def noisy(p):
    ...     return np.where(rng.random(200) < p, rng.integers(0, 3, 200), truth)
    >>> x = np.column_stack([noisy(0.4), noisy(0.4), noisy(0.4), noisy(0.1)])
    >>> r = Ratings.from_wide(x, raters=["h1", "h2", "h3", "judge"])
    >>> res = alt_test(r, "judge", epsilon=0.1)
    >>> res.passed, round(res.winning_rate, 2), round(res.advantage_probability, 2)
    (True, 1.0, 0.94)
    """
    check_params(alt_test, locals())
    if not callable(scoring):
        scoring = check_option(scoring, "scoring", SCORINGS,
                               hint="or a function scoring(label, others) -> float")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.number)):
        raise TypeError(f"`epsilon` must be a number in [0, 1); got {epsilon!r}.")
    if not (math.isfinite(float(epsilon)) and 0.0 <= float(epsilon) < 1.0):
        raise ValueError(f"`epsilon` must be in [0, 1) (the margin granted to the candidate "
                         f"on the win-rate scale); got {epsilon!r}.")
    if isinstance(q, bool) or not isinstance(q, (int, float, np.number)) \
            or not 0.0 < float(q) < 1.0:
        raise ValueError(f"`q` must be a false-discovery rate in (0, 1); got {q!r}.")
    r = as_ratings(ratings)
    cand, humans, name = _candidate_iv(r, candidate)
    if humans.size < 2:
        raise ValueError(f"the Alt-Test needs two or more humans besides the candidate; got "
                         f"{humans.size}.")
    if scoring in ("rmse", "abs") and not (r.ordered
                                            and np.all(np.isfinite(r.category_values))):
        raise ValueError(f"`scoring={scoring!r}` needs numeric labels; these are "
                         f"{list(r.categories)[:5]}. Use scoring='accuracy'.")
    return _alt_test(r, cand, humans, name, float(epsilon), scoring, float(q), int(min_items),
                     int(min_humans_per_item))


def _wins(r: Ratings, codes: np.ndarray, cand: np.ndarray, rated: np.ndarray,
          scoring: str) -> tuple[np.ndarray, np.ndarray]:
    """W_c and W_h (items × humans) of a named scoring, from per-item category counts."""
    n, k = codes.shape
    m = r.n_categories
    safe = np.where(rated, codes, 0)
    if scoring == "accuracy":  # loss 1 − [c = l], from the humans' own labels: no items ×
        # labels table (free-text labels may be thousands)
        n_rated = rated.sum(axis=1)
        same = ((codes[:, :, None] == codes[:, None, :]) & rated[:, None, :]).sum(axis=2)
        cand_same = ((codes == cand[:, None]) & rated).sum(axis=1)
        own = ((cand[:, None] != safe) & rated).astype(np.float64)
        cand_loss = (n_rated - cand_same)[:, None] - own
        human_loss = (n_rated[:, None] - same).astype(np.float64)
        return (cand_loss <= human_loss) & rated, (human_loss <= cand_loss) & rated
    # counts[i, c]: humans who put item i in c
    counts = np.zeros((n, m), dtype=np.float64)
    rows = np.repeat(np.arange(n), k)
    flat = codes.ravel()
    ok = flat >= 0
    np.add.at(counts, (rows[ok], flat[ok]), 1.0)
    # table[i, l]: summed loss of label l against every human of item i (loss is symmetric)
    loss = _distance(np.asarray(r.category_values, dtype=np.float64), scoring)
    table = counts @ loss
    own = np.where(rated, loss[cand[:, None], safe], 0.0)
    # against the humans other than h: the candidate's sum minus h's own label; h's label
    # against all includes itself at loss 0
    cand_loss = table[np.arange(n), cand][:, None] - own
    human_loss = np.take_along_axis(table, safe, axis=1)
    # the same remaining humans on both sides: compare summed losses (ties exact for integers)
    w_c = (cand_loss <= human_loss) & rated
    w_h = (human_loss <= cand_loss) & rated
    return w_c, w_h


def _wins_callable(labels: np.ndarray, items: Any, codes: np.ndarray, cand: np.ndarray,
                   rated: np.ndarray, scoring: Any) -> tuple[np.ndarray, np.ndarray]:
    """W_c and W_h of a scoring function ``scoring(label, others)``, item by item."""
    w_c = np.zeros(codes.shape, dtype=bool)
    w_h = np.zeros(codes.shape, dtype=bool)
    for i in range(codes.shape[0]):
        who = np.flatnonzero(rated[i])
        own = labels[codes[i, who]]
        c = labels[cand[i]]
        for pos, h in enumerate(who):
            others = np.delete(own, pos)
            s_c, s_h = float(scoring(c, others)), float(scoring(own[pos], others))
            if not (math.isfinite(s_c) and math.isfinite(s_h)):
                raise ValueError(f"`scoring` returned {s_c!r} and {s_h!r} on item "
                                 f"{items[i]!r}; it must return finite numbers.")
            w_c[i, h], w_h[i, h] = s_c >= s_h, s_h >= s_c
    return w_c, w_h


def _alt_test(r: Ratings, cand: np.ndarray, humans: np.ndarray, name: str, epsilon: float,
              scoring: Any, q: float, min_items: int, min_humans: int) -> AltTestResult:
    from scipy import stats

    codes = r.codes[:, humans].astype(np.int64)
    rated = codes >= 0
    n_rated = rated.sum(axis=1)
    keep = (n_rated >= min_humans) & (cand >= 0)
    notes = []
    n_some = int(np.count_nonzero(n_rated > 0))
    if keep.sum() < n_some:
        few = "two" if min_humans == 2 else str(min_humans)
        notes.append(f"{n_some - int(keep.sum())} items left out: fewer than {few} humans or "
                     "no label of the candidate")
    keep_items = r.items[keep]
    codes, cand, rated = codes[keep], cand[keep], rated[keep]
    n, k = codes.shape
    if callable(scoring):
        w_c, w_h = _wins_callable(np.asarray(r.categories, dtype=object), keep_items, codes,
                                  cand, rated, scoring)
        scoring = getattr(scoring, "__name__", "custom")
    else:
        w_c, w_h = _wins(r, codes, cand, rated, scoring)
    n_h = rated.sum(axis=0)
    d = w_h.astype(np.int64) - w_c.astype(np.int64)
    s1 = d.sum(axis=0).astype(np.float64)
    s2 = np.abs(d).sum(axis=0).astype(np.float64)  # d² = |d| for d in {-1, 0, 1}
    tested = n_h >= min_items
    nt = np.where(tested, n_h, 2).astype(np.float64)
    mean = s1 / nt
    var = np.maximum(s2 - nt * mean * mean, 0.0) / (nt - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / np.sqrt(var / nt)
    p = stats.t.cdf(t, nt - 1.0)
    p = np.where(tested, p, np.nan)
    t = np.where(tested, t, np.nan)
    human_names = [str(x) for x in r.raters[humans]]
    skipped = [f"{h} ({int(c)})" for h, c, ok in zip(human_names, n_h, tested, strict=True)
               if not ok]
    if skipped:
        notes.append(f"humans with fewer than {min_items} items are not tested: "
                     + ", ".join(skipped))
    if not tested.any():
        raise ValueError(f"no human has {min_items} or more items rated by them, the "
                         f"candidate and another human (most: {int(n_h.max(initial=0))}); "
                         "lower `min_items` or add items.")
    wins = np.zeros(k, dtype=bool)
    wins[tested] = benjamini_yekutieli(p[tested], q)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_h = np.where(tested, w_c.sum(axis=0) / nt, np.nan)
        hw = np.where(tested, w_h.sum(axis=0) / nt, np.nan)
    frame = pd.DataFrame({
        "n_items": n_h.astype(np.int64), "candidate_win_rate": rho_h, "human_win_rate": hw,
        "mean_difference": np.where(tested, mean, np.nan), "t_statistic": t, "p_value": p,
        "candidate_wins": wins, "tested": tested,
    }, index=pd.Index(human_names, name="human"))
    omega = float(wins[tested].sum() / tested.sum())
    return AltTestResult(
        winning_rate=omega, advantage_probability=float(np.mean(rho_h[tested])),
        passed=bool(omega >= 0.5), epsilon=epsilon, scoring=scoring, q=q, n_items=int(n),
        n_humans=int(tested.sum()), candidate=name, table=frame, notes=tuple(notes))
