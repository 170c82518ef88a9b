"""``goldnoise preferences FILE``: how noisy are the preference labels, is the judge biased?

Reads pairwise votes and renders :func:`noise_models.preference_audit`: the
humans' agreement on the three-way label, the noise of their labels against the
latent better answer, each annotator (judges included) inside the latent-class
fit, and each judge's position bias.
"""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability
from goldnoise._cli._errors import DataError
from goldnoise._cli._pairwise import add_comparison_arguments, load_comparisons
from goldnoise.report import Column, Report

HELP = "pairwise preferences: agreement, noise against latent truth, position bias"
DESCRIPTION = (
    "Audit pairwise preference labels (A better, B better, tie): the humans' agreement with "
    "intervals, the noise of their labels against the latent better answer (a latent-class "
    "fit, judges inside it as annotators) with a bootstrap interval, each annotator's "
    "accuracy, and each judge's position bias -- run in both orders: its consistency and its "
    "share of verdicts for the answer shown first minus 0.5; in one order: its first-position "
    "rate minus the humans'.\n\n"
    "Examples:\n"
    "  goldnoise preferences votes.csv --judges judge-a\n"
    "  goldnoise preferences ratings.csv --items items.csv       # PandaLM's layout")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_comparison_arguments(parser)
    a = parser.add_argument_group("audit")
    a.add_argument("--judges", metavar="NAME", nargs="+",
                   help="the judges (default: the raters whose kind column is not 'human')")
    a.add_argument("--model", default="confusion", choices=("confusion", "one-coin", "spam"),
                   help="the latent-class model's annotators")
    a.add_argument("--resamples", metavar="B", type=count("--resamples", 10), default=200,
                   help="bootstrap resamples of comparisons")
    a.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the intervals")
    a.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the bootstrap and the latent-class starts")


def _records(frame, cols) -> list[dict]:
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({k: (row[k].item() if hasattr(row[k], "item") else row[k]) for k in cols})
    return out


def run(args: argparse.Namespace) -> Report:
    from noise_models import preference_audit

    c = load_comparisons(args, judges=args.judges)
    try:
        res = preference_audit(c, judges=args.judges, model=args.model,
                               n_resamples=args.resamples,
                               confidence_level=args.confidence_level, rng=args.seed)
    except (TypeError, ValueError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    lvl = f"{args.confidence_level:.0%}"
    report = Report("preferences", f"goldnoise preferences: {res.n_comparisons} comparisons, "
                                   f"{len(res.humans)} humans, {len(res.judges)} judges",
                    parameters={"file": args.file, "model": args.model,
                                "resamples": args.resamples,
                                "confidence_level": args.confidence_level, "seed": args.seed})
    n = report.add(section_from_result(
        res, "noise", "Noise of the humans' preference labels",
        values={"noise": res.noise, "low": res.noise_low, "high": res.noise_high}))
    n.lines.append(f"{res.noise:.3f} of the humans' labels differ from the latent better "
                   f"answer, {lvl} interval [{res.noise_low:.3f}, {res.noise_high:.3f}] "
                   f"({res.model} latent-class fit)")
    ag = res.agreement.reset_index().rename(columns={res.agreement.index.name or "index":
                                                     "coefficient"})
    s = report.add(section_from_result(res, "agreement",
                                       "The humans' agreement on the three-way label"))
    s.tables.append(report_table("coefficients", [
        Column("coefficient", "coefficient", align="<"), Column("value", "value", ".3f"),
        Column("ci_low", "low", ".3f"), Column("ci_high", "high", ".3f"),
        Column("n_items", "items", "d")],
        _records(ag, ["coefficient", "value", "ci_low", "ci_high", "n_items"])))
    ann = res.annotators.reset_index()
    ann = ann.rename(columns={ann.columns[0]: "annotator"})
    a = report.add(section_from_result(res, "annotators",
                                       "Each annotator inside the latent-class fit"))
    a.tables.append(report_table("accuracy", [
        Column("annotator", "annotator", align="<"), Column("kind", "kind", align="<"),
        Column("accuracy", "accuracy", ".3f"), Column("accuracy_low", "low", ".3f"),
        Column("accuracy_high", "high", ".3f")],
        _records(ann, ["annotator", "kind", "accuracy", "accuracy_low", "accuracy_high"])))
    report.primary = "annotators/accuracy"
    p = report.add(section_from_result(res, "position_bias", "Position bias of the judges"))
    if res.position_bias is None:
        p.undefined("no judges: name them with --judges or mark them in the kind column")
    else:
        pb = res.position_bias
        p.tables.append(report_table("judges", [
            Column("judge", "judge", align="<"), Column("design", "design", align="<"),
            Column("estimate", "estimate", "+.3f"), Column("low", "low", "+.3f"),
            Column("high", "high", "+.3f"), Column("flagged", "flagged"),
            Column("consistency", "consistency", ".3f"),
            Column("first_share", "first shown", ".3f"),
            Column("human_first_share", "humans' first", ".3f")],
            _records(pb, ["judge", "design", "estimate", "low", "high", "flagged",
                                 "consistency", "first_share", "human_first_share"])))
        p.lines.append("estimate: both orders, the share of verdicts for the answer shown "
                       "first minus 0.5; one order, the judge's first-position rate minus the "
                       f"humans'; flagged when the {lvl} interval excludes 0")
    report.notes.extend(res.notes)
    return report
