"""The report of ``goldnoise judge``: a :class:`JudgeAuditResult` as sections, tables, a plot."""

from __future__ import annotations

import math
from typing import Any

from _goldnoise_lib.report import (
    Column,
    Figure,
    Report,
    Section,
    report_table,
    section_from_result,
)

__all__ = ["estimate_section", "judge_report"]

SCORING_NAMES = {"accuracy": "accuracy", "rmse": "-RMSE", "abs": "-|difference|"}


def _iv(lo: Any, hi: Any, fmt: str = "+.3f") -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "-"
    return f"[{lo:{fmt}}, {hi:{fmt}}]"


def _forest(res: Any):
    """Each candidate's swap (and join) difference with its interval; 0 and −margin marked."""
    def draw(fig: Any) -> None:
        ax = fig.add_subplot(1, 1, 1)
        cands = list(res.candidates)
        for i, cand in enumerate(cands):
            for table, dy, marker, colour, label in ((res.swap, 0.12, "o", "C0", "swap"),
                                                     (res.join, -0.12, "s", "C1", "join")):
                row = table.loc[cand]
                y = len(cands) - 1 - i + dy
                ax.errorbar([row["difference"]], [y],
                            xerr=[[row["difference"] - row["low"]],
                                  [row["high"] - row["difference"]]],
                            fmt=marker, color=colour, capsize=4,
                            label=label if i == 0 else None)
        ax.axvline(0.0, color="0.3", lw=1)
        ax.axvline(-res.margin, color="C3", ls="--", lw=1.2,
                   label=f"margin -{res.margin:g}")
        ax.set_yticks(range(len(cands)))
        ax.set_yticklabels(cands[::-1])
        ax.set_ylim(-0.6, len(cands) - 0.4)
        ax.set_xlabel(f"change of {res.coefficient} ({100 * res.confidence_level:g}% paired "
                      "bootstrap interval)")
        ax.legend(loc="best", fontsize=8)
    return Figure("forest", "Swap and join: change of agreement", draw,
                  size=(6.4, 1.6 + 0.7 * len(res.candidates)))


def judge_report(res: Any, *, source: str = "ratings") -> Report:
    """The report of one :class:`JudgeAuditResult` (what ``goldnoise judge`` prints)."""
    pct = f"{100 * res.confidence_level:g}%"
    name = res.coefficient if res.level is None else f"{res.coefficient} ({res.level})"
    report = Report("judge", f"goldnoise judge: {source}",
                    parameters={"source": source, "coefficient": res.coefficient,
                                "level": res.level, "margin": res.margin,
                                "epsilon": res.epsilon, "scoring": res.scoring,
                                "n_resamples": res.n_resamples,
                                "confidence_level": res.confidence_level},
                    primary="swap/swap")
    lines = [f"coefficient {res.coefficient}, level {res.level or '-'}; "
             + ("Alt-Test not run (it needs an epsilon)" if res.scoring is None
                else "Alt-Test scoring "
                + SCORING_NAMES.get(res.scoring, f"{res.scoring} (a function)")),
             f"{len(res.humans)} humans ({', '.join(res.humans)}) on {res.n_items} "
             f"items: {name} {res.human_reliability:.3f}, {pct} interval "
             f"{_iv(res.human_low, res.human_high, '.3f')}"]
    if not res.validated and not math.isfinite(res.human_reliability):
        lines.append("the humans' coefficient is undefined: a judge cannot be validated "
                     "against it")
    elif not res.validated:
        lines.append("the humans barely agree (below 0.4): a judge cannot be validated "
                     "against humans who do not agree with each other")
    report.add(section_from_result(None, "humans", "The humans alone", lines=lines, values={
        "coefficient": res.coefficient, "level": res.level, "value": res.human_reliability,
        "low": res.human_low, "high": res.human_high, "validated": res.validated,
        "n_items": res.n_items, "humans": list(res.humans)}))
    report.add(section_from_result(
        None, "verdicts", "May a candidate replace a human, join them, or neither?",
        lines=[f"{cand}: {row['verdict']} -- {row['reason']}"
               for cand, row in res.verdicts.iterrows()],
        values={"verdicts": {c: r["verdict"] for c, r in res.verdicts.iterrows()}}))
    rows = []
    for cand in res.candidates:
        for kind, table in (("swap", res.swap), ("join", res.join)):
            r = table.loc[cand]
            rows.append({"candidate": cand, "test": kind,
                         "with_candidate": r["with_candidate"], "humans": r["humans"],
                         "difference": r["difference"], "low": r["low"], "high": r["high"],
                         "non_inferior": bool(r["non_inferior"])})
    swap = report_table("swap", [
        Column("candidate", "candidate", align="<"), Column("test", "test", align="<"),
        Column("with_candidate", "with it", ".3f"), Column("humans", "humans", ".3f"),
        Column("difference", "difference", "+.3f"),
        Column("interval", f"{pct} interval", align="<", data=False,
               cell=lambda r: _iv(r["low"], r["high"])),
        Column("non_inferior", "within margin"),
    ], rows)
    report.add(section_from_result(
        None, "swap", f"Swap (a human replaced, averaged over which) and join (added): the "
                      f"change of {name}, margin {res.margin:g}",
        tables=[swap], figures=[_forest(res)],
        lines=["paired bootstrap over the items each candidate rated: every set of "
               "annotators from the same resamples; humans = the humans' coefficient on "
               "those items; within margin = the interval's low end above -margin"]))
    if res.alt_test is not None:
        scored = SCORING_NAMES.get(res.scoring, res.scoring)
        alt = report_table("alt_test", [
            Column("candidate", "candidate", align="<"),
            Column("winning_rate", "omega", ".2f"),
            Column("advantage_probability", "rho", ".2f"), Column("passed", "passes")],
            [{"candidate": c, **{k: r[k] for k in ("winning_rate", "advantage_probability")},
              "passed": bool(r["passed"])} for c, r in res.alt_test.iterrows()])
        report.add(section_from_result(
            None, "alt_test", f"Alternative Annotator Test (epsilon {res.epsilon:g}, "
                              f"{scored} scoring)", tables=[alt]))
    agreement = report_table("agreement", [
        Column("candidate", "candidate", align="<"), Column("reference", "against", align="<"),
        Column("n_items", "items"), Column("accuracy", "accuracy", ".3f"),
        Column("acc_iv", f"{pct} (exact)", align="<", data=False,
               cell=lambda r: _iv(r["accuracy_low"], r["accuracy_high"], ".3f")),
        Column("kappa", "Cohen's kappa", ".3f"),
        Column("kappa_iv", pct, align="<", data=False,
               cell=lambda r: _iv(r["kappa_low"], r["kappa_high"], ".3f")),
    ], [{"candidate": c, "reference": ref, "n_items": int(row["n_items"]), **{k: row[k] for k in (
        "accuracy", "accuracy_low", "accuracy_high", "kappa", "kappa_low", "kappa_high")}}
        for (c, ref), row in res.agreement.iterrows()])
    report.add(section_from_result(
        None, "agreement", "Each candidate against each human, the humans' majority and the "
                           "latent labels", tables=[agreement],
        lines=["majority: strict majority of the humans; latent: the humans-only latent-"
               "class fit's labels (the model below); both taken as fixed references"]))
    latent_title = ("Inside the latent-class fit (spam model with item difficulty): accuracy, "
                    "and on easy and hard items")
    if res.latent is None:
        report.add(section_from_result(
            None, "latent", latent_title,
            undefined="the latent-class model could not be fitted (see notes)"))
    else:
        has_iv = "accuracy_low" in res.latent.columns
        cols = [Column("annotator", "annotator", align="<"), Column("kind", "kind", align="<"),
                Column("accuracy", "accuracy", ".3f")]
        if has_iv:
            cols.append(Column("acc_iv", pct, align="<", data=False,
                               cell=lambda r: _iv(r["accuracy_low"], r["accuracy_high"],
                                                  ".3f")))
        cols += [Column("accuracy_easy", "on easy", ".3f"),
                 Column("accuracy_hard", "on hard", ".3f")]
        keep = ["kind", "accuracy", "accuracy_easy", "accuracy_hard", "hard_share"] + (
            ["accuracy_low", "accuracy_high"] if has_iv else [])
        latent = report_table("latent", cols, [
            {"annotator": who, **{k: row[k] for k in keep}}
            for who, row in res.latent.iterrows()])
        share = float(res.latent["hard_share"].mean())
        report.add(section_from_result(
            None, "latent", latent_title, tables=[latent],
            lines=["easy/hard: agreement with the humans-only latent labels, weighted by "
                   f"that fit's posterior that the item is hard (mean {share:.3f}); "
                   "'-' where the annotator's items carry less than 5 items' worth of "
                   "that weight"]))
    report.notes.extend(res.notes)
    return report


def estimate_section(estimates: dict) -> Section:
    """The prediction-powered estimates, one row per candidate ({candidate: result})."""
    first = next(iter(estimates.values()))
    pct = f"{100 * first.confidence_level:g}%"
    rows = [{"candidate": cand, "estimate": res.estimate, "low": res.low, "high": res.high,
             "classical_estimate": res.classical_estimate, "classical_low": res.classical_low,
             "classical_high": res.classical_high, "sample_size_gain": res.sample_size_gain,
             "effective_n": res.effective_n, "correlation": res.correlation,
             "n_labelled": res.n_labelled, "n_unlabelled": res.n_unlabelled,
             "method": res.method, "weak_judge": bool(res.weak_judge)}
            for cand, res in estimates.items()]
    table = report_table("estimate", [
        Column("candidate", "candidate", align="<"), Column("estimate", "estimate", ".4f"),
        Column("interval", f"{pct} interval", align="<", data=False,
               cell=lambda r: _iv(r["low"], r["high"], ".4f")),
        Column("classical_estimate", "humans only", ".4f"),
        Column("classical_interval", pct, align="<", data=False,
               cell=lambda r: _iv(r["classical_low"], r["classical_high"], ".4f")),
        Column("sample_size_gain", "sample-size gain", ".3f"),
        Column("effective_n", "worth (items)", ",.0f"),
        Column("n_labelled", "labelled"), Column("n_unlabelled", "judge-only"),
        Column("weak_judge", "weak judge"),
    ], rows)
    return section_from_result(
        None, "estimate", f"Prediction-powered estimate: {first.estimand} (human truth: "
                          f"{first.truth})", tables=[table],
        lines=[f"{first.method}: the judge's label on every item and one human value per "
               f"human-labelled item ({first.humans_per_item:.2g} humans on average); "
               "humans only = the same items' human values alone; the gain = how many "
               "human-labelled items each is worth with the judge's labels added"],
        values={"category": first.category, "truth": first.truth,
                "estimates": {r["candidate"]: r["estimate"] for r in rows}})
