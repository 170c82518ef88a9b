"""``goldnoise crosscheck RATINGS SCORES...``: a model's ranking beside the annotation model."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability
from goldnoise._cli._input import add_ratings_arguments
from goldnoise._cli._scores import add_scores_arguments, load_ratings_with_labels, load_scores_for
from goldnoise.report import Column, Report

HELP = "set a model's label-error ranking beside the annotation model, with a verdict"
DESCRIPTION = (
    "Read per-item model outputs from files (aligned by id) and set the model's loss beside "
    "the annotation model fitted to the ratings: AUROC and AP of the loss for the annotators' "
    "disagreement and for the posterior that the label is wrong, their Spearman correlation, "
    "the share of agreed items the model flags beside the agreed-error bracket (up to γ), and "
    "a verdict in plain words.\n\n"
    "Examples:\n"
    "  goldnoise crosscheck ratings.csv --item id bert.npz roberta.npz\n"
    "  goldnoise crosscheck ratings.csv --item id scores.parquet --truth errors.csv "
    "--format json")


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() and abs(value) > 1 else f"{value:.4f}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold=False)
    add_scores_arguments(parser)
    g = parser.add_argument_group("annotation model")
    g.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                   help="the confidence α of γ (default: %(default)s)")
    g.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the model's random starts")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError
    from noise_models import LatentClassModel
    from simulation import crosscheck

    loaded = load_ratings_with_labels(args)
    r = loaded.ratings
    if not r.has_raters:
        raise DataError("the cross-check fits an annotation model, which needs to know which "
                        "annotator gave which label; a count table does not say")
    got = load_scores_for(args, r)
    try:
        fit = LatentClassModel("spam", rng=args.seed).fit(r)
        res = crosscheck(got.scores, got.labels, r, fit=fit, alpha=args.alpha, truth=got.truth)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    report = Report("crosscheck", f"goldnoise crosscheck: {loaded.source}",
                    parameters={"source": loaded.source, "scores": " ".join(args.scores),
                                "model": got.scores.model_names[0], "labels": got.label_source,
                                "alpha": args.alpha, "seed": args.seed},
                    primary="crosscheck/quantities", companions=["items/items"])
    s = report.add(section_from_result(
        res, "crosscheck", f"{res.model_name} beside {res.annotation_model}", exclude=()))
    frame = res.to_frame()
    s.tables.append(report_table("quantities", [
        Column("quantity", align="<"), Column("value", fmt=_number),
        Column("meaning", align="<")],
        [{"quantity": q, "value": row["value"], "meaning": row["meaning"]}
         for q, row in frame.iterrows()]))
    s.lines.append(res.verdict)
    s.notes += got.notes + loaded.notes
    if res.detection is not None:
        det = report.add(section_from_result(res, "detection", "Against the truth"))
        det.tables.append(report_table("detection", [
            Column("ranking", align="<"), Column("average_precision", "AP", fmt=".4f"),
            Column("auroc", "AUROC", fmt=".4f"), Column("precision_at_k", "P@k", fmt=".4f"),
            Column("recall_at_k", "R@k", fmt=".4f"), Column("f1_at_k", "F1@k", fmt=".4f")],
            [{"ranking": name, **row.to_dict()} for name, row in res.detection.iterrows()]))
    items = report.add(section_from_result(res, "items", "Per item"))
    fr = res.frame.reset_index()
    items.tables.append(report_table("items", [
        Column("item", align="<"), Column("label", align="<"), Column("loss", fmt=".4f"),
        Column("posterior_wrong", "P(wrong)", fmt=".4f"), Column("combined", fmt=".4f"),
        Column("agreed"), Column("model_flags", "flagged")],
        fr.sort_values("combined", ascending=False, kind="stable").to_dict("records"),
        shown=15))
    return report
