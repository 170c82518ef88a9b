"""judge_audit: may a candidate annotator (an LLM judge, a classifier) replace or join humans?"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from _goldnoise_lib.results import plain_value
from _goldnoise_lib.validation import (
    ConfidenceLevel,
    Integer,
    Option,
    Resamples,
    Rng,
    check_candidates_and_humans,
    check_params,
    validate_params,
)
from noise_models.judge._result import JudgeAuditResult

__all__ = ["HUMAN_FLOOR", "judge_audit"]

#: Below this the humans barely agree: a judge cannot be validated against them.
HUMAN_FLOOR = 0.4
LEVELS = ("auto", "nominal", "ordinal", "interval", "ratio")


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"`{name}` must be a number; got {value!r}.")
    return float(value)


def _is_number(label: Any) -> bool:
    if isinstance(label, (bool, np.bool_)):
        return False
    if isinstance(label, (int, float, np.number)):
        return math.isfinite(float(label))
    try:
        return math.isfinite(float(str(label)))
    except ValueError:
        return False


def _scale(r: Any) -> str:
    """``"numbers"`` (every label a number), ``"mixed"`` (numbers and text), ``"text"``."""
    numeric = [_is_number(c) for c in r.categories]
    if all(numeric):
        return "numbers"
    return "mixed" if sum(numeric) >= 2 else "text"


def _coefficient_iv(coefficient: str, level: str, r: Any) -> tuple[str, str | None]:
    from agreement import coefficient_info

    if level == "auto" and _scale(r) == "mixed":
        nums = [str(c) for c in r.categories if _is_number(c)]
        text = [str(c) for c in r.categories if not _is_number(c)]
        raise ValueError(f"the labels mix numbers ({', '.join(nums[:5])}"
                         f"{', ...' if len(nums) > 5 else ''}) and text "
                         f"({', '.join(repr(t) for t in text[:3])}): recode or drop the text "
                         "labels (e.g. 'N/A' as missing) to audit a rating scale, or pass "
                         "`level='nominal'` to treat every label as a category.")

    name = "krippendorff_alpha" if coefficient == "auto" else coefficient
    try:
        spec = coefficient_info(name)
    except ValueError as exc:
        raise ValueError(f"`coefficient`: {exc}") from None
    if spec.name == "light_kappa" or spec.name in ("cohen_kappa", "scott_pi"):
        raise ValueError(f"`coefficient={coefficient!r}` is a two-annotator or pairwise "
                         "coefficient; use 'auto' (Krippendorff's alpha), 'fleiss_kappa', "
                         "'conger_kappa', 'gwet_ac1', 'brennan_prediger', "
                         "'percent_agreement', or on a numeric scale 'icc2' (any ICC form) "
                         "or 'lin_ccc'.")
    if spec.name != "krippendorff_alpha":
        if level not in ("auto", "nominal"):
            raise ValueError(f"`level` applies to Krippendorff's alpha only; got "
                             f"level={level!r} with coefficient={coefficient!r}.")
        return spec.name, None
    if level == "auto":  # a rating scale (numbers, more than two): interval
        level = ("interval" if _scale(r) == "numbers" and r.ordered and r.n_categories > 2
                 else "nominal")
    if level != "nominal" and not r.ordered:
        raise ValueError(f"`level={level!r}` needs ordered (numeric) labels; these are "
                         f"{list(r.categories)[:5]}.")
    return spec.name, level


@validate_params(coefficient=Option(("auto", "krippendorff_alpha", "fleiss_kappa",
                                     "conger_kappa", "gwet_ac1", "brennan_prediger",
                                     "percent_agreement", "icc1", "icc2", "icc3", "icc1k",
                                     "icc2k", "icc3k", "lin_ccc")),
                 level=Option(LEVELS), n_resamples=Resamples(1),
                 confidence_level=ConfidenceLevel(), rng=Rng(),
                 latent_resamples=Integer(0))
def judge_audit(ratings: Any, candidates: Any, *, margin: float, coefficient: str = "auto",
                level: str = "auto", epsilon: float | None = None, n_resamples: int = 1000,
                confidence_level: float = 0.95, rng: Any = None,
                latent_resamples: int = 100, humans: Any = None,
                scoring: Any = "auto") -> JudgeAuditResult:
    r"""Audit candidate annotators (judges): may one replace a human, join them, or neither?

    Parameters
    ----------
    ratings : Ratings or array_like
        Items × raters: the humans and the candidates as rater columns
        (anything :func:`agreement.as_ratings` reads, e.g.
        ``Ratings.from_long(frame, item=..., rater=..., label=...)``).
    candidates : str or sequence of str
        The candidates' rater names; every other rater is a human.
    margin : float
        δ, the non-inferiority margin on the coefficient's scale, in [0, 1]:
        a candidate may replace a human when the lower end of the swap
        difference's interval is above −δ. Required: no default passes a
        judge silently.
    coefficient : str, default "auto"
        ``"auto"`` (Krippendorff's α), ``"fleiss_kappa"``, ``"conger_kappa"``,
        ``"gwet_ac1"``, ``"brennan_prediger"`` or ``"percent_agreement"``; for
        numeric labels also an intraclass correlation (``"icc1"`` ... ``"icc3k"``,
        :func:`agreement.icc`) or ``"lin_ccc"`` (:func:`agreement.lin_ccc`).
    level : {"auto", "nominal", "ordinal", "interval", "ratio"}, default "auto"
        Krippendorff's level of measurement; ``"auto"`` is interval when every
        label is a number and there are more than two (a rating scale: a note
        says so), nominal otherwise; labels mixing numbers and text are refused
        under ``"auto"`` (recode the text, or pass ``"nominal"``).
    epsilon : float, optional
        Also run the Alt-Test (:func:`agreement.alt_test`) with this ε.
    scoring : {"auto", "accuracy", "rmse", "abs"} or callable, default "auto"
        The Alt-Test's scoring: ``"auto"`` is accuracy at the nominal level
        (and for the kappas), negative RMSE at an ordered level; a callable
        ``scoring(label, others) -> float`` as :func:`agreement.alt_test`
        takes it. The report names it.
    n_resamples : int, default 1000
        Bootstrap resamples of items for the swap and join intervals and the
        humans' interval.
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator
        Seeds the bootstrap, the latent-class starts and their refits.
    latent_resamples : int, default 100
        Refits of the latent-class model for the annotators' accuracy
        intervals (:func:`noise_models.annotator_intervals`); 0 for none.
    humans : sequence of str, optional
        The humans' rater names (default: every rater that is not a
        candidate); raters in neither list are left out.

    Returns
    -------
    JudgeAuditResult
        ``summary()`` says in words whether each candidate may replace a
        human, may join, or neither, and why.

    Raises
    ------
    ValueError
        A candidate that is not a rater, fewer than two humans, a candidate
        with no rating on an item the humans rated, a margin outside [0, 1],
        ε outside [0, 1).

    Notes
    -----
    Swap test: with humans :math:`H` and the coefficient :math:`A`,

    .. math:: \Delta_c = \frac{1}{|H|} \sum_{h \in H} A(H \setminus h \cup c) - A(H),

    on the items the candidate rated (with a human rating), :math:`A(H)` on
    the same items; its interval is the percentile interval of the paired
    bootstrap over those items (every set from the same resamples:
    :func:`agreement.bootstrap_rows`; each candidate from a stream keyed by its
    name). The humans' own coefficient (the headline) is on every item with a
    human rating. Join: :math:`A(H \cup c) -
    A(H)`. The verdict: ``"replace"`` when the swap difference is
    non-inferior at δ; else ``"join"`` when the join difference is; else
    ``"neither"``; ``"not validated"`` whenever the humans' own coefficient
    is below 0.4.

    Examples
    --------
    >>> import numpy as np
    >>> import agreement as ag
    >>> from noise_models import judge_audit
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 400)
    >>> def noisy(p):
    ...     return np.where(rng.random(400) < p, rng.integers(0, 3, 400), truth)
    >>> x = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.2), noisy(0.15), noisy(0.7)])
    >>> r = ag.Ratings.from_wide(x, raters=["h1", "h2", "h3", "good", "poor"])
    >>> res = judge_audit(r, ["good", "poor"], margin=0.05, n_resamples=200, rng=1,
    ...                   latent_resamples=0, level="nominal")  # 0-2: categories
    >>> res.verdicts["verdict"].to_dict()
    {'good': 'replace', 'poor': 'neither'}
    """
    check_params(judge_audit, locals())
    from agreement import as_ratings

    if not (callable(scoring) or scoring in ("auto", "accuracy", "rmse", "abs")):
        raise ValueError(f"`scoring` must be 'auto', 'accuracy', 'rmse', 'abs' or a function "
                         f"scoring(label, others) -> float; got {scoring!r}.")

    margin = _number(margin, "margin")
    if not (math.isfinite(margin) and 0.0 <= margin <= 1.0):
        raise ValueError(f"`margin` must be in [0, 1] (the coefficient's scale: a drop of "
                         f"agreement the candidate may cost); got {margin!r}.")
    if epsilon is not None:
        epsilon = _number(epsilon, "epsilon")
        if not (math.isfinite(epsilon) and 0.0 <= epsilon < 1.0):
            raise ValueError(f"`epsilon` must be in [0, 1); got {epsilon!r}.")
    r = as_ratings(ratings)
    codes_all = r.require_raters("the judge audit")
    cands, human_cols, cand_cols = check_candidates_and_humans(r.raters, candidates, humans)
    coef, lvl = _coefficient_iv(coefficient, level, r)
    names = [str(r.raters[j]) for j in human_cols] + cands
    codes = np.ascontiguousarray(codes_all[:, human_cols + cand_cols]).astype(np.int64)
    n_h = len(human_cols)
    human_rated = (codes[:, :n_h] >= 0).any(axis=1)
    notes: list[str] = []
    if level == "auto" and lvl not in (None, "nominal"):
        shown = ", ".join(str(v) for v in list(r.categories)[:6])
        notes.append(f"the labels are numbers ({shown}{', ...' if r.n_categories > 6 else ''}): "
                     f"alpha at the {lvl} level, as for a rating scale (level 'auto'); "
                     "`level='nominal'` treats them as unordered categories")
    human_codes = codes[:, :n_h]
    used = np.unique(human_codes[human_codes >= 0])
    if used.size < 2 and coef != "percent_agreement":
        # the humans agree completely, but agreement beyond chance is 0/0 with one label
        shown = repr(plain_value(r.categories[used[0]])) if used.size else "none"
        raise ValueError(f"every human rating is the same label ({shown}): the humans agree "
                         f"completely, but {coef} is undefined with one label (agreement "
                         "beyond chance is 0/0 there); compare raw agreement with "
                         "`coefficient='percent_agreement'`.")
    for c, cand in enumerate(cands):
        if not np.any((codes[:, n_h + c] >= 0) & human_rated):
            raise ValueError(f"candidate {cand!r} rated no item the humans rated; the audit "
                             "compares it with the humans on the same items: give its labels "
                             "on items the humans rated (or leave it out of `candidates`).")
    if not human_rated.all():
        notes.append(f"{int((~human_rated).sum())} items without a human rating are left out")
        codes = codes[human_rated]
    gen = np.random.default_rng(rng)
    seed_boot, seed_fit = (int(s) for s in gen.integers(2**63, size=2))

    from noise_models.judge._compare import compare_rows, latent_rows
    from noise_models.judge._swap import SwapBootstrap, audit_swap

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        boot = SwapBootstrap(coef, lvl, n_resamples, confidence_level)
        parts = audit_swap(r, codes, names, n_h, cands, boot=boot, margin=margin,
                           rng=seed_boot)
        notes += parts.notes
        latent_table, latent = None, None
        try:
            latent_table, latent, lnotes = latent_rows(
                r, codes, names, n_h, n_resamples=latent_resamples,
                confidence_level=confidence_level, seed=seed_fit)
            notes += lnotes
        except ValueError as exc:
            notes.append(f"no latent-class fit: {exc}")
        agreement, confusion, cnotes = compare_rows(r, codes, names, n_h, cands, latent,
                                                    confidence_level)
        notes += cnotes
        if scoring == "auto":
            scoring = "accuracy" if lvl in (None, "nominal") else "rmse"
        alt = _alt_tests(r, codes, names, n_h, cands, epsilon, scoring, notes)
    notes += [" ".join(str(w.message).split()) for w in caught
              if " ".join(str(w.message).split()) not in notes]
    validated = bool(np.isfinite(parts.humans) and parts.humans >= HUMAN_FLOOR)
    verdicts = _verdicts(parts, alt, cands, margin, validated, coef, confidence_level)
    return JudgeAuditResult(
        human_reliability=parts.humans, human_low=parts.humans_low,
        human_high=parts.humans_high, validated=validated, coefficient=coef, level=lvl,
        margin=margin, epsilon=epsilon, confidence_level=float(confidence_level),
        n_resamples=int(n_resamples), n_items=parts.n_items, humans=tuple(names[:n_h]),
        scoring=(None if epsilon is None else scoring if isinstance(scoring, str)
                 else getattr(scoring, "__name__", "custom")),
        candidates=tuple(cands), swap=parts.swap, join=parts.join, agreement=agreement,
        confusion=confusion, latent=latent_table, alt_test=alt, verdicts=verdicts,
        notes=tuple(dict.fromkeys(notes)), bootstrap=parts.bootstrap)


def _alt_tests(r: Any, codes: np.ndarray, names: list[str], n_h: int, cands: list[str],
               epsilon: float | None, scoring: Any, notes: list[str]) -> pd.DataFrame | None:
    if epsilon is None:
        return None
    from agreement import alt_test
    from noise_models.judge._swap import subset_ratings

    rows = []
    for c, cand in enumerate(cands):
        sub = subset_ratings(r, codes, [*range(n_h), n_h + c], names)
        try:
            res = alt_test(sub, cand, epsilon=epsilon, scoring=scoring)
            rows.append({"candidate": cand, "winning_rate": res.winning_rate,
                         "advantage_probability": res.advantage_probability,
                         "passed": res.passed})
            notes += [f"Alt-Test {cand}: {n}" for n in res.notes]
        except ValueError as exc:
            notes.append(f"Alt-Test {cand}: not run, {exc}")
            rows.append({"candidate": cand, "winning_rate": math.nan,
                         "advantage_probability": math.nan, "passed": False})
    return pd.DataFrame(rows).set_index("candidate")


def _verdicts(parts: Any, alt: pd.DataFrame | None, cands: list[str], margin: float,
              validated: bool, coef: str, confidence_level: float) -> pd.DataFrame:
    from agreement import coefficient_info

    label = {"krippendorff_alpha": "alpha", "fleiss_kappa": "Fleiss' kappa",
             "conger_kappa": "Conger's kappa", "gwet_ac1": "AC1",
             "brennan_prediger": "Brennan-Prediger", "percent_agreement": "agreement"
             }.get(coef) or coefficient_info(coef).label
    pct = f"{100 * confidence_level:g}%"
    rows = []
    for cand in cands:
        s, j = parts.swap.loc[cand], parts.join.loc[cand]
        swap_txt = (f"in a human's place {label} is {s['with_candidate']:.3f} against the "
                    f"humans' {s['humans']:.3f} (difference {s['difference']:+.3f}, {pct} "
                    f"interval [{s['low']:+.3f}, {s['high']:+.3f}])")
        join_txt = (f"added to the humans {label} is {j['with_candidate']:.3f} (difference "
                    f"{j['difference']:+.3f}, [{j['low']:+.3f}, {j['high']:+.3f}])")
        if not validated and not np.isfinite(parts.humans):
            verdict = "not validated"
            reason = (f"the humans' {label} is undefined (too few items rated by two or more "
                      "humans, or no variation): a judge cannot be validated against it")
        elif not validated:
            verdict = "not validated"
            reason = (f"the humans barely agree ({label} {s['humans']:.3f} < {HUMAN_FLOOR}): "
                      "a judge cannot be validated against humans who do not agree with each "
                      f"other; for the record, {swap_txt}")
        elif s["non_inferior"]:
            verdict = "replace"
            reason = (f"may replace a human: {swap_txt}, above -{margin:g}, the margin")
        elif j["non_inferior"]:
            verdict = "join"
            reason = (f"may join the humans but not replace one: {join_txt}, above "
                      f"-{margin:g}; but {swap_txt}, reaching below -{margin:g}")
        else:
            verdict = "neither"
            reason = (f"neither replace nor join: {swap_txt} and {join_txt}; both reach "
                      f"below -{margin:g}")
        if np.isfinite(s["high"]) and s["high"] < 0 and verdict != "not validated":
            reason += "; it lowers the humans' agreement (the whole interval is below 0)"
        if alt is not None and cand in alt.index and np.isfinite(alt.loc[cand, "winning_rate"]):
            a = alt.loc[cand]
            if a["passed"] and not s["non_inferior"]:
                reason += (f". The Alt-Test disagrees: it passes (omega {a['winning_rate']:.2f}, "
                           f"rho {a['advantage_probability']:.2f}), as it asks only whether "
                           "the candidate matches the remaining humans item by item at least "
                           "as often as the left-out human, not whether agreement holds")
            elif not a["passed"] and s["non_inferior"]:
                reason += (f". The Alt-Test disagrees: it fails (omega "
                           f"{a['winning_rate']:.2f}, rho {a['advantage_probability']:.2f}): "
                           "the candidate does not beat the humans it replaces by the margin "
                           "epsilon, though agreement holds")
        rows.append({"candidate": cand, "verdict": verdict, "reason": reason})
    return pd.DataFrame(rows).set_index("candidate")
