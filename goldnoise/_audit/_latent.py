"""The latent-class sections shared by the audit and ``goldnoise fit``.

``model`` names the annotator model: ``spam`` (MACE's, the default),
``confusion`` (Dawid–Skene), ``one-coin``, or ``easy-hard`` (the paper's M1);
``hard`` adds a hard component to the first three. By default (``hard=None``) the
spam model gets the item-difficulty component (``hard="difficulty"``, the default
crowd model: its P(hard) and P(label right) account for items that are hard for
every annotator) and the others none; ``hard="none"`` fits the plain model. The
hard posterior shown per item is the chosen model's when it has a hard component,
else the easy/hard model's (M1), fitted alongside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._audit._text import capture_notes, pct
from goldnoise.report import Column, Report, Section, Table

__all__ = ["MODELS", "Fitted", "annotator_table", "bracket_section", "fit_models",
           "gold_section", "hard_section", "item_rows", "items_table", "latent_sections",
           "make_model"]

MODELS = ("spam", "confusion", "one-coin", "easy-hard")
#: Rows of a per-annotator or per-item table shown in text, markdown and HTML.
SHOWN = 20


@dataclass
class Fitted:
    """The chosen model's fit and the easy/hard fit beside it."""

    model: Any
    fit: Any
    hard_fit: Any  # EasyHardModel fit (the chosen one when --model easy-hard)
    notes: list[str]


def make_model(model: str = "spam", *, hard: str | None = None, n_starts: int = 10,
               seed: int | None = 0, calibrate: str | None = None) -> Any:
    """The latent-class model named ``model`` (one of :data:`MODELS`)."""
    from noise_models import EasyHardModel, LatentClassModel

    if model not in MODELS:
        raise ValueError(f"`model` must be one of {list(MODELS)}; got {model!r}.")
    if hard not in (None, "auto", "none", "marginal", "uniform", "difficulty"):
        raise ValueError(f"`hard` must be None, 'none', 'marginal', 'uniform' or "
                         f"'difficulty'; got {hard!r}.")
    if hard in (None, "auto"):
        hard = "difficulty" if model == "spam" else None
    hard = None if hard == "none" else hard
    if model == "easy-hard":
        if hard is not None:
            raise ValueError("`hard` goes with the spam, confusion or one-coin model; easy-hard "
                             "has its own hard component (--hard with --model easy-hard)")
        return EasyHardModel(n_starts=n_starts, rng=seed, calibrate=calibrate)
    return LatentClassModel(model, hard=hard, n_starts=n_starts, rng=seed, calibrate=calibrate)


def fit_models(ratings: Any, model: str = "spam", *, hard: str | None = None,
               n_starts: int = 10, seed: int | None = 0, calibrate: str | None = None,
               known: Any = None) -> Fitted:
    """Fit ``model`` and, unless it is easy-hard already, the easy/hard model (M1) beside it.
    ``known``: labels of some items, fitted as observed classes (``fit(..., gold=known)``)."""
    from noise_models import EasyHardModel

    notes: list[str] = []
    chosen = make_model(model, hard=hard, n_starts=n_starts, seed=seed, calibrate=calibrate)
    with capture_notes(notes):
        fit = chosen.fit(ratings) if known is None else chosen.fit(ratings, gold=known)
        hard_fit = fit if model == "easy-hard" else EasyHardModel(rng=seed).fit(ratings)
    return Fitted(chosen, fit, hard_fit, notes)


def _hard_posterior(f: Fitted) -> Any:
    return f.fit.posterior_hard if f.fit.posterior_hard is not None else f.hard_fit.posterior_hard


def annotator_rows(f: Fitted, gold: Any = None) -> list[dict[str, Any]]:
    """Per annotator: ratings, the model's accuracy estimate, agreement with the fitted labels.

    Every value comes from the fit: the counts, the parameters, the accuracy and the
    accuracy on gold from :meth:`LatentClassFit.annotator_frame`, the agreement from
    :attr:`LatentClassFit.label_agreement`. The spam models show their competence, the
    one-coin and confusion models their accuracy, the perfect (easy/hard) model neither.
    """
    fit = f.fit
    r = fit.ratings
    known = _known_gold(r, gold)
    frame = fit.annotator_frame(gold=known)
    n_rated = frame["n_ratings"].to_numpy()
    agree = fit.label_agreement.to_numpy()
    what = {"spam": "competence", "one-coin": "accuracy",
            "confusion": "accuracy"}.get(fit.model.annotators)
    estimate = None if what is None else frame[what].to_numpy()
    rows = []
    for j, name in enumerate(r.raters):
        row: dict[str, Any] = {"annotator": name, "n_ratings": int(n_rated[j])}
        if estimate is not None:
            row[what] = float(estimate[j])
        row["agreement_with_labels"] = float(agree[j])
        if gold is not None:
            row["gold_accuracy"] = (math.nan if known is None
                                    else float(frame["gold_accuracy"].iloc[j]))
        rows.append(row)
    rows.sort(key=lambda row: (-row["n_ratings"], str(row["annotator"])))
    return rows


def _known_gold(r: Any, gold: Any) -> Any:
    """The gold labels of rated items among the categories (None when there are none)."""
    import pandas as pd

    codes = _gold_codes(r, gold)
    if codes is None or not (codes >= 0).any():
        return None
    has = codes >= 0
    return pd.Series(r.categories[codes[has]], index=pd.Index(r.items)[has], dtype=object)


def _interval_cell(what: str):
    def cell(row: dict) -> str:
        lo, hi = row.get(f"{what}_low"), row.get(f"{what}_high")
        if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
            return "-"
        return f"[{lo:.3f}, {hi:.3f}]"
    return cell


def annotator_table(f: Fitted, gold: Any = None, intervals: Any = None) -> Table:
    """The per-annotator table; ``intervals``: :func:`noise_models.annotator_intervals`' frame."""
    rows = annotator_rows(f, gold)
    if intervals is not None:
        what = "competence" if rows and "competence" in rows[0] else "accuracy"
        for row in rows:
            at = intervals.index.get_loc(row["annotator"])
            row[f"{what}_low"] = float(intervals[f"{what}_low"].iloc[at])
            row[f"{what}_high"] = float(intervals[f"{what}_high"].iloc[at])
    cols = [Column("annotator", "annotator", align="<"), Column("n_ratings", "items rated")]
    if rows and "competence" in rows[0]:
        cols.append(Column("competence", "competence", ".3f"))
        if intervals is not None:
            cols.append(Column("competence_ci", "95% CI", cell=_interval_cell("competence"),
                               align="<", data=False))
    if rows and "accuracy" in rows[0]:
        cols.append(Column("accuracy", "est. accuracy", ".3f"))
        if intervals is not None:
            cols.append(Column("accuracy_ci", "95% CI", cell=_interval_cell("accuracy"),
                               align="<", data=False))
    cols.append(Column("agreement_with_labels", "agrees with fitted label", ".3f"))
    if rows and "gold_accuracy" in rows[0]:
        cols.append(Column("gold_accuracy", "accuracy vs gold", ".3f"))
    return report_table("annotators", cols, rows, title=None, shown=SHOWN)


def _gold_codes(r: Any, gold: Any) -> Any:
    """Gold labels as category codes aligned to the items (-1: no gold or unknown label)."""
    import numpy as np
    import pandas as pd

    from _goldnoise_lib.labels import match_labels

    if gold is None:
        return None
    g = pd.Series(gold).reindex(r.items)
    codes = match_labels(np.asarray(g.to_numpy(), dtype=object), r.categories)
    codes[g.isna().to_numpy()] = -1
    return codes.astype(np.int64)


def item_rows(f: Fitted, gold: Any = None) -> list[dict[str, Any]]:
    """Per item: label, its posterior, the hard posterior, ratings (and gold)."""
    fit = f.fit
    r = fit.ratings
    hard = _hard_posterior(f)
    gold_codes = _gold_codes(r, gold)
    labels = r.categories[fit.label_codes]
    n_ratings = fit.n_ratings
    rows = []
    for i, item in enumerate(r.items):
        row = {"item": item, "label": labels[i], "label_posterior": float(fit.label_posterior[i]),
               "posterior_hard": float(hard[i]), "n_ratings": int(n_ratings[i])}
        if gold_codes is not None:
            row["gold"] = None if gold_codes[i] < 0 else r.categories[gold_codes[i]]
        rows.append(row)
    return rows


def items_table(f: Fitted, gold: Any = None, *, shown: int | None = SHOWN) -> Table:
    rows = item_rows(f, gold)
    # Without a hard component of its own, the column is the easy/hard model's (M1), and
    # its header says so (M1 calls every item with a disagreement hard).
    hard = "P(hard)" if f.fit.posterior_hard is not None else "P(hard, M1)"
    cols = [Column("item", "item", align="<"), Column("label", "label", align="<"),
            Column("label_posterior", "P(label right)", ".4f"),
            Column("posterior_hard", hard, ".4f"), Column("n_ratings", "ratings")]
    if gold is not None:
        cols.append(Column("gold", "gold", align="<"))
    return report_table("items", cols, rows, shown=shown)


def latent_sections(f: Fitted, *, gold: Any = None, alpha: float, bracket: Any,
                    bracket_reason: str | None, bootstrap: int | None = None,
                    seed: Any = None) -> list[Section]:
    """The audit's latent-class sections: the fit and its annotators, hard items, bracket."""
    fit = f.fit
    r = fit.ratings
    expected_wrong = fit.expected_wrong_labels
    likely_wrong = fit.labels_likely_wrong
    differs = fit.labels_differing_from_majority
    s = section_from_result(
        fit, "latent_class", f"Latent-class fit ({fit.model.name}): who is reliable, which "
        "labels are likely wrong", values={
            "model": fit.model.name, "converged": bool(fit.converged),
            "n_iter": int(fit.n_iter), "log_likelihood": float(fit.log_likelihood),
            "pi": fit.pi,
            "phi": {str(c): float(v) for c, v in zip(r.categories, fit.phi, strict=True)},
            "expected_wrong_labels": expected_wrong,
            "expected_wrong_share": expected_wrong / r.n_items,
            "labels_likely_wrong": likely_wrong, "labels_differing_from_majority": differs,
            "n_items": r.n_items})
    state = "converged" if fit.converged else "NOT converged"
    collapsed = [n for n in f.notes if "collapsed" in n]
    s.values["collapsed"] = bool(collapsed)
    if collapsed:
        # the headline must not read as a clean bill when the fit is degenerate
        s.lines.append("THE FIT COLLAPSED: " + collapsed[0].split(": ", 1)[-1].split(
            " The best-likelihood")[0] + " Its share of wrong labels below is not to be "
            "trusted; try another model (--model one-coin or confusion).")
    s.values["seed"] = seed
    s.values["starts"] = len(fit.start_objectives)
    s.lines += [
        f"{fit.n_iter} EM iterations, {state} (best of {len(fit.start_objectives)} starts, "
        f"seed {seed}); class shares "
        + ", ".join(f"{c} {v:.3f}" for c, v in zip(r.categories, fit.phi, strict=True)),
        f"labels likely wrong: {expected_wrong:.1f} of {r.n_items} expected "
        f"({pct(expected_wrong / r.n_items)}); {likely_wrong} items have a fitted label more "
        f"likely wrong than right; {differs} fitted labels differ from the majority vote",
    ]
    unstable = fit.unstable_starts()
    s.values["unstable_starts"] = len(unstable)
    if len(unstable):
        s.lines.append(_unstable_line(unstable, len(fit.start_objectives)))
    if bracket is not None:
        s.lines.append(
            f"that share is the model's own, labels-only estimate (annotators err "
            f"independently): optimistic. For the {bracket.n_agreed} unanimous labels the "
            + (f"bracket runs from {pct(bracket.optimistic, 2)} to "
               f"{pct(bracket.pessimistic, 2)} wrong (below)"
               if bracket.optimistic <= bracket.pessimistic else
               f"two ends cross: the fit expects {pct(bracket.optimistic, 2)} wrong, gamma "
               f"bounds the hidden coin-flips at {pct(bracket.pessimistic, 2)} (below)")
            + "; a verified sample settles it")
    intervals = None
    if bootstrap and (fit.competence is not None or fit.confusion is not None
                      or fit.error_rate is not None):
        from noise_models import annotator_intervals

        intervals = annotator_intervals(fit, n_resamples=bootstrap, rng=seed)
        s.notes.append(f"annotator intervals: 95% percentile, {bootstrap} bootstrap resamples "
                       "of the items, the model refitted on each")
    table = annotator_table(f, gold, intervals)
    s.tables.append(table)
    s.figures.append(annotator_figure(table))
    # The model's hints name its Python parameters; say what the command line calls them.
    s.notes += [n.replace("(e.g. annotators='spam' or 'one-coin') or a larger "
                          "`prior_strength`", "(model spam or one-coin: --model spam, "
                          "--model one-coin)") for n in f.notes]
    return [s, hard_section(f), bracket_section(bracket, bracket_reason, alpha)]


def _unstable_line(unstable: Any, n_starts: int) -> str:
    """The sentence on :meth:`LatentClassFit.unstable_starts`' table (its largest share)."""
    return (f"the optimum depends on the starts: {len(unstable)} of {n_starts} "
            f"end within 1 log-likelihood unit of the best yet label up to "
            f"{pct(float(unstable['disagreement'].max()))} of the items differently (more "
            "starts: --starts; known labels: --gold)")


def annotator_figure(table: Table) -> Any:
    """Estimated accuracy (or competence, or agreement) against items rated."""
    from goldnoise._audit._figures import annotator_accuracy

    rows = table.rows
    key = next((k for k in ("accuracy", "competence") if rows and k in rows[0]),
               "agreement_with_labels")
    what = {"accuracy": "estimated accuracy", "competence": "competence (share of true labels)",
            "agreement_with_labels": "agreement with the fitted labels"}[key]
    return annotator_accuracy([str(r["annotator"]) for r in rows],
                              [r["n_ratings"] for r in rows], [r[key] for r in rows], what)


def hard_figure(f: Fitted) -> Any:
    from goldnoise._audit._figures import hard_histogram

    own = f.fit.posterior_hard is not None
    hard = f.fit.posterior_hard if own else f.hard_fit.posterior_hard
    model = f.fit.model.name if own else f.hard_fit.model.name
    return hard_histogram([float(x) for x in hard], model)


def hard_section(f: Fitted) -> Section:
    """The items most likely hard (coin-flips), from the model's own hard component or M1."""
    fit = f.fit
    r = fit.ratings
    own = fit.posterior_hard is not None and fit.model.name != f.hard_fit.model.name
    source = fit if own else f.hard_fit
    model = source.model.name
    s = section_from_result(source, "hard_items", f"Items most likely hard ({model})")
    s.figures.append(hard_figure(f))
    s.values.update({"model": model, "expected_hard_items": source.expected_hard_items,
                     "n_items": r.n_items})
    if own:
        s.lines.append(f"expected hard items: {source.expected_hard_items:.1f} of {r.n_items}")
    else:
        # Under the easy/hard model every disagreed item is hard (P = 1); what is worth
        # ranking is which unanimous items may be hidden coin-flips.
        counts = r.describe()
        n_dis, n_agreed = counts["disagreed_items"], counts["agreed_items"]
        hidden = source.expected_hidden_hard
        s.values.update({"disagreed_items": n_dis, "agreed_items": n_agreed,
                         "expected_hidden_hard": hidden})
        s.lines.append(f"every one of the {n_dis} disagreed items is hard under this model; "
                       f"of the {n_agreed} unanimous items, {hidden:.1f} are expected "
                       "to be hidden coin-flips")
    top = source.hard_items(10, unanimous=not own)
    if top.empty:
        s.lines.append("no unanimous item to rank")
        return s
    at = r.items.get_indexer(top.index)  # positions (item ids may be tuples)
    labels = fit.labels
    votes = r.counts_frame()
    rows = [{"item": r.items[i], "posterior_hard": float(p), "label": labels.iloc[i],
             "votes": _votes(votes.iloc[i])}
            for i, p in zip(at, top["posterior_hard"], strict=True)]
    s.tables.append(report_table("most_likely_hard", [
        Column("item", "item", align="<"), Column("posterior_hard", "P(hard)", ".4f"),
        Column("label", "fitted label", align="<"), Column("votes", "votes", align="<")],
        rows, title=None if own else "unanimous items most likely hidden coin-flips"))
    return s


def _votes(row: Any) -> str:
    """An item's row of :meth:`Ratings.counts_frame`, as ``label: count`` of the chosen labels."""
    return ", ".join(f"{c}: {int(v)}" for c, v in row.items() if v)


def bracket_section(bracket: Any, reason: str | None, alpha: float) -> Section:
    """How wrong the unanimous labels may be, and the verified sample that settles it."""
    from noise_models import sample_size_needed

    title = "How wrong are the unanimous labels? (agreed-error bracket)"
    if bracket is None:
        return section_from_result(None, "bracket", title, undefined=reason or "not computed")
    b = bracket
    s = section_from_result(b, "bracket", title, exclude=("explanation",))
    optimistic = (f"{pct(b.optimistic, 2)} ({b.optimistic_errors:.1f}, {b.optimistic_model}: "
                  "annotators err independently)")
    pessimistic = (f"{pct(b.pessimistic, 2)} ({b.pessimistic_errors}, gamma at alpha = "
                   f"{alpha:g}: any unanimous item may be a coin-flip)")
    s.lines.append(
        f"of the {b.n_agreed} unanimous labels, between {optimistic} and {pessimistic} are "
        "wrong" if b.optimistic <= b.pessimistic else
        f"of the {b.n_agreed} unanimous labels the two ends cross: {optimistic} are expected "
        f"wrong, above the pessimistic end, {pessimistic}; neither model sees errors that "
        "fool every annotator alike")
    advice = []
    for target in (0.05, 0.02, 0.01):
        if target >= b.pessimistic:
            continue
        n = sample_size_needed(b.n_agreed, target_share=target, alpha=alpha)
        advice.append({"target_share": target, "sample_size": n})
    s.values["verified_sample_advice"] = advice
    if advice:
        parts = [f"{a['sample_size']} items show at most {pct(a['target_share'], 0)} wrong"
                 for a in advice]
        s.lines.append("to settle it, verify a random sample of the unanimous items by hand: "
                       "if none of them is wrong, " + ", ".join(parts) +
                       f" (confidence {alpha:g})")
    else:
        s.lines.append("the pessimistic end is already small: no verified sample is needed")
    return s


def gold_section(f: Fitted | None, ratings: Any, gold: Any) -> Section:
    """Accuracy against gold of the majority vote, the fitted labels, the unanimous items
    (:meth:`Ratings.gold_accuracy`, :meth:`LatentClassFit.label_accuracy`)."""
    s = section_from_result(None, "gold", "Against the gold labels")
    acc = ratings.gold_accuracy(gold)
    n_gold = acc["items_with_gold"]
    s.values["items_with_gold"] = n_gold
    if acc["unknown_gold"]:
        s.notes.append(f"{acc['unknown_gold']} gold labels are not among the annotators' "
                       "categories")
    if n_gold == 0:
        return s.undefined("no item of the ratings has a gold label (check the item ids and "
                           "labels of --gold)")
    rows = [{"labels": "majority vote (ties: first category)",
             "accuracy": acc["majority_accuracy"], "items": acc["majority_items"]}]
    if f is not None and f.fit.n_gold:
        s.notes.append(f"the fit took {f.fit.n_gold} gold labels as known classes "
                       "(--gold-in-fit): its labels of those items are the gold ones, so they "
                       "are not compared here")
    elif f is not None:
        rows.append({"labels": f"fitted ({f.fit.model.name})",
                     "accuracy": f.fit.label_accuracy(gold), "items": n_gold})
    n_agreed = acc["unanimous_items"]
    if n_agreed:
        wrong = acc["unanimous_wrong"]
        rows.append({"labels": "unanimous items", "accuracy": acc["unanimous_accuracy"],
                     "items": n_agreed})
        s.values["unanimous_wrong"] = wrong
        s.values["unanimous_wrong_share"] = acc["unanimous_wrong_share"]
        s.lines.append(f"{wrong} of the {n_agreed} unanimous labels are wrong against "
                       f"gold ({pct(acc['unanimous_wrong_share'], 2)})")
    s.values["accuracy"] = {row["labels"]: row["accuracy"] for row in rows}
    s.tables.append(report_table("accuracy", [Column("labels", "labels", align="<"),
                                              Column("accuracy", "accuracy", ".4f"),
                                              Column("items", "items")], rows))
    return s


def fit_report(r: Any, *, model: str, hard: str | None, n_starts: int, seed: Any,
               gold: Any = None, source: str = "ratings", notes: Any = (),
               calibrate: str | None = None, gold_in_fit: bool = False) -> Report:
    """The report of ``goldnoise fit``: the fit, per item, per annotator (and gold).
    ``gold_in_fit``: the gold labels enter the fit as known classes."""
    from goldnoise.report import Report

    fitted = fit_models(r, model, hard=hard, n_starts=n_starts, seed=seed, calibrate=calibrate,
                        known=gold if gold_in_fit else None)
    fit = fitted.fit
    report = Report("fit", f"goldnoise fit: {source}",
                    parameters={"source": source, "model": model, "hard": hard or "none",
                                "starts": n_starts, "seed": seed, "gold_in_fit": gold_in_fit},
                    primary="items/items", companions=["annotators/annotators"])
    s = report.add(section_from_result(
        fit, "fit", f"Model: {fit.model.name}", exclude=("phi",),
        values={"phi": {str(c): float(v) for c, v in zip(r.categories, fit.phi, strict=True)}}))
    state = "converged" if fit.converged else "NOT converged"
    s.lines += [
        f"{r.n_items} items, {r.n_raters} annotators, {r.n_categories} categories; "
        f"{fit.n_iter} EM iterations, {state}, log-likelihood {fit.log_likelihood:.3f}",
        "class shares " + ", ".join(f"{c} {v:.3f}" for c, v in
                                    zip(r.categories, fit.phi, strict=True)),
    ]
    if fit.posterior_hard is None:
        s.notes.append(f"P(hard, M1) is the easy/hard model's ({fitted.hard_fit.model.name}), "
                       "which calls every item with a disagreement hard: this model has no "
                       "hard component (add --hard marginal for one)")
    if r.categories.dtype.kind in "iuf" and r.n_categories > 10:
        s.notes.append(f"{r.n_categories} numeric categories, each fitted as a category of its "
                       "own, unordered: if they are scores on a scale, `goldnoise audit --level "
                       "interval` gives agreement on that scale")
    s.notes += fitted.notes + list(notes)
    items = report.add(section_from_result(None, "items", "Per item"))
    items.tables.append(items_table(fitted, gold))
    items.figures.append(hard_figure(fitted))
    ann = report.add(section_from_result(None, "annotators", "Per annotator"))
    ann.tables.append(annotator_table(fitted, gold))
    ann.figures.append(annotator_figure(ann.tables[0]))
    if gold is not None:
        report.add(gold_section(fitted, r, gold))
    return report


def check_section(f: Fitted, seed: Any = 0) -> Section:
    """The held-out check: does the fit predict ratings it was not shown?"""
    from noise_models import posterior_check

    fit = f.fit
    title = "How sure should the fit be? (held-out ratings)"
    notes: list[str] = []
    try:
        with capture_notes(notes):
            chk = posterior_check(fit, rng=seed)
    except ValueError as exc:
        return section_from_result(None, "posterior_check", title, notes=notes,
                                   undefined=str(exc))
    s = section_from_result(chk, "posterior_check", title, exclude=("reliability",),
                            notes=notes)
    s.lines += [
        f"{chk.n_heldout} ratings, each held out in turn and predicted from the item's other "
        f"ratings by the model refitted without the item (5 folds): log score {chk.log_score:.4f} per rating (majority of the rest "
        f"{chk.log_score_majority:.4f}, the annotator's own shares {chk.log_score_marginal:.4f})",
        chk.verdict,
    ]
    if fit.temperature != 1.0:
        s.lines.append(f"posteriors tempered at T = {fit.temperature:.2f} (calibrate="
                       "held-out)")
    s.tables.append(report_table("reliability", [
        Column("low", "from", ".1f"), Column("high", "to", ".1f"), Column("n", "ratings"),
        Column("confidence", "predicted", ".3f"), Column("accuracy", "observed", ".3f")],
        chk.reliability[chk.reliability["n"] > 0].to_dict(orient="records"),
        title="predicted probability of the most likely held-out rating vs how often it is"))
    return s



def _map_words(res) -> str:
    """The recalibration map of a CalibrationResult, in words."""
    if res.method == "bayes":
        return f"temperature averaged over its posterior, log-odds x {res.slope:.2f} on average"
    if res.method == "isotonic":
        return "isotonic"
    return f"{res.method}, log-odds x {res.slope:.2f}"


def calibration_section(f: Fitted, verified: Any, what: str) -> Section:
    """The fit's confidence against verified labels (gold, or a checked sample)."""
    from noise_models import calibration

    title = f"Is the fit's confidence right? (against {what})"
    notes: list[str] = []
    try:
        with capture_notes(notes):
            res = calibration(f.fit, verified, rng=0)
    except ValueError as exc:
        return section_from_result(None, "calibration", title, notes=notes,
                                   undefined=str(exc))
    s = section_from_result(res, "calibration", title, exclude=("reliability",), notes=notes)
    lo, hi = res.verified_interval
    s.lines += [
        f"on {res.n_verified} verified items the fit claims {pct(res.claimed_accuracy)} of its "
        f"labels right; {pct(res.verified_accuracy)} are ({100 * res.confidence_level:g}% "
        f"exact interval {pct(lo)} to {pct(hi)}); ECE {res.ece:.3f}",
        f"recalibrated on them ({_map_words(res)}, graded out of fold): "
        f"ECE {res.ece_recalibrated:.3f}; "
        f"over all {len(res.recalibrated_label_posterior)} items the expected accuracy is "
        f"{pct(res.recalibrated_accuracy_all)} (the fit claims {pct(res.claimed_accuracy_all)})",
    ]
    s.tables.append(report_table("reliability", [
        Column("low", "from", ".1f"), Column("high", "to", ".1f"), Column("n", "items"),
        Column("confidence", "claimed", ".3f"), Column("accuracy", "verified", ".3f")],
        res.reliability[res.reliability["n"] > 0].to_dict(orient="records")))
    s.figures.append(reliability_figure(res.reliability))
    return s


def reliability_figure(table: Any) -> Any:
    from goldnoise._audit._figures import reliability_diagram

    rows = table[table["n"] > 0]
    return reliability_diagram(rows["confidence"].tolist(), rows["accuracy"].tolist(),
                               rows["n"].tolist())
