"""``goldnoise detect RATINGS SCORES... --out ranking.csv``: which labels look wrong."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count
from goldnoise._cli._input import add_ratings_arguments
from goldnoise._cli._scores import (
    METHODS,
    add_scores_arguments,
    load_ratings_with_labels,
    load_scores_for,
)
from goldnoise.report import Column, Report

HELP = "rank items by how likely their label is wrong, from model scores read from files"
DESCRIPTION = (
    "Read per-item model outputs (probabilities, logits or losses) from files, align them to "
    "the rated items by id, and rank the items by the loss of their label (one model: FML; "
    "several: the loss of their ensemble, FME), by self-confidence, normalized margin or "
    "confident learning. With --truth, the ranking's average precision, AUROC and precision, "
    "recall and F1 at k, with bootstrap intervals.\n\n"
    "Examples:\n"
    "  goldnoise detect ratings.csv --item id bert.npz roberta.npz --out ranking.csv\n"
    "  goldnoise detect ratings.csv --item id scores.parquet --model-column model "
    "--method confident_learning --truth errors.csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold=False)
    add_scores_arguments(parser)
    g = parser.add_argument_group("ranking")
    g.add_argument("--method", choices=METHODS, default="loss",
                   help="how items are ranked (default: %(default)s)")
    g.add_argument("--k", type=count("--k", 1), metavar="K",
                   help="cut for precision/recall/F1 at k (default: the flagged count of "
                        "confident learning, else the number of true errors)")
    g.add_argument("--resamples", type=count("--resamples", 0), default=1000, metavar="B",
                   help="bootstrap resamples for the intervals; 0: no bootstrap, no intervals "
                        "(default: %(default)s)")
    g.add_argument("--seed", type=count("--seed", 0), default=0, help="seed of the bootstrap")
    g.add_argument("--top", type=count("--top", 1), default=20, metavar="N",
                   help="rows of the ranking shown as text (all rows go to --out)")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError, UsageError
    from simulation import detection_metrics, label_error_ranking

    loaded = load_ratings_with_labels(args)
    r = loaded.ratings
    got = load_scores_for(args, r)
    try:
        ranking = label_error_ranking(got.scores, got.labels, method=args.method)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    report = Report("detect", f"goldnoise detect: {loaded.source}",
                    parameters={"source": loaded.source, "scores": " ".join(args.scores),
                                "method": args.method, "model": got.scores.model_names[0],
                                "labels": got.label_source, "resamples": args.resamples,
                                "seed": args.seed},
                    primary="ranking/ranking")
    sc = got.scores
    s = report.add(section_from_result(
        sc, "scores", "Model scores", values={"kind": sc.kind, "model": sc.model_names[0],
                                              "n_items": sc.n_items, "n_classes": sc.n_classes}))
    s.lines.append(f"{sc.n_items} items aligned by id; {sc.kind} of {sc.model_names[0]}"
                   + (f", {sc.n_classes} classes" if sc.n_classes else ""))
    s.lines.append(f"labels judged: {got.label_source}")
    s.notes += got.notes + loaded.notes
    rk = report.add(section_from_result(ranking, "ranking",
                                        f"Items by {args.method}, most suspicious first"))
    frame = ranking.to_frame()
    labels = got.labels.reindex(ranking.items).to_numpy()
    rows = []
    truth = got.truth
    for t, (rank, item, score) in enumerate(zip(frame["rank"], frame["item"], frame["score"],
                                               strict=True)):
        row = {"rank": int(rank), "item": item, "label": labels[t], "score": float(score)}
        if ranking.flagged is not None:
            row["flagged"] = bool(frame["flagged"].iloc[t])
        if truth is not None:
            row["is_error"] = bool(truth.loc[item])
        rows.append(row)
    cols = [Column("rank"), Column("item", align="<"), Column("label", align="<"),
            Column("score", fmt=".4f")]
    if ranking.flagged is not None:
        cols.append(Column("flagged"))
        rk.values["n_flagged"] = ranking.n_flagged
        rk.lines.append(f"confident learning flags {ranking.n_flagged} of {len(frame)} items")
    if truth is not None:
        cols.append(Column("is_error"))
    rk.tables.append(report_table("ranking", cols, rows, shown=args.top))
    if truth is not None:
        d = report.add(section_from_result(None, "detection", "Against the truth"))
        y = truth.reindex(ranking.item_order).to_numpy()
        if not y.any() or y.all():
            d.undefined("the truth marks no label (or every label) as wrong")
        else:
            k = args.k
            if k is not None and not 1 <= k <= len(y):
                raise UsageError(f"--k must be in 1..{len(y)}")
            res = detection_metrics(ranking, truth.reindex(ranking.item_order), k=k,
                                    n_resamples=args.resamples, rng=args.seed)
            d.values.update(res.to_dict())
            d.lines.append(f"{res.n_errors} label errors among {res.n_items} items; k = {res.k}")
            table_rows = []
            for metric, row in res.to_frame().iterrows():
                table_rows.append({"metric": metric, "value": row["value"], "low": row["low"],
                                   "high": row["high"], "exact_low": row["exact_low"],
                                   "exact_high": row["exact_high"]})
            d.tables.append(report_table("metrics", [
                Column("metric", align="<"), Column("value", fmt=".4f"),
                Column("low", fmt=".4f"), Column("high", fmt=".4f"),
                Column("exact_low", "exact low", fmt=".4f"),
                Column("exact_high", "exact high", fmt=".4f")], table_rows))
            d.notes.append(f"intervals: {res.n_resamples} bootstrap resamples stratified by "
                           f"the truth ({res.confidence_level:.0%}); exact: Clopper–Pearson of "
                           "precision at k")
    return report
