"""``goldnoise judge``: may a model (an LLM judge, a classifier) replace or join the annotators?

Parses the options, reads the ratings (one row per rating: item, rater, label,
optionally the kind of rater) and renders :func:`goldnoise.judge_audit`'s
report: the humans' own agreement, the swap and join tests with paired
bootstrap intervals and a forest plot, the Alt-Test when ``--epsilon`` is
given, each candidate against each human, the majority and the latent labels,
and the candidates inside the latent-class fit.
"""

from __future__ import annotations

import argparse

from goldnoise._cli._common import count, probability, real
from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Report

HELP = "may a model replace or join the annotators: swap and join tests, the Alt-Test"
DESCRIPTION = (
    "Audit candidate annotators (LLM judges, classifiers) against the humans on the same "
    "items: the humans' own agreement, the agreement with a candidate in a human's place "
    "(swap) or added (join) with paired bootstrap intervals and a non-inferiority decision "
    "at --margin, the Alternative Annotator Test with --epsilon, each candidate against each "
    "human, the majority and the latent labels, and the candidates inside the latent-class "
    "fit (accuracy on easy and on hard items).\n\n"
    "Examples:\n"
    "  goldnoise judge ratings.csv --item item --rater rater --label label \\\n"
    "      --candidates gpt-4 --margin 0.05 --kind-column rater_kind\n"
    "  goldnoise judge ratings.csv --candidates judge --margin 0.05 --epsilon 0.1 --plot figs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold=False)
    parser.set_defaults(layout="long")
    a = parser.add_argument_group("judge")
    a.add_argument("--candidates", metavar="NAME", nargs="+", required=True,
                   help="the candidates' rater names (the judges)")
    a.add_argument("--margin", metavar="D", type=real("--margin"), required=True,
                   help="non-inferiority margin on the coefficient's scale, in [0, 1]: a "
                        "candidate may replace a human when the swap difference's interval "
                        "stays above -D (no default: a margin is a decision)")
    a.add_argument("--epsilon", metavar="E", type=real("--epsilon"), default=None,
                   help="also run the Alternative Annotator Test with this epsilon (0.2 "
                        "against experts, 0.15 skilled annotators, 0.1 crowd workers)")
    a.add_argument("--kind-column", metavar="COLUMN",
                   help="column saying which raters are humans (value 'human'); raters of "
                        "another kind that are not candidates are left out. Without it, a "
                        "column named rater_kind is used if FILE has one; else every rater "
                        "that is not a candidate is a human")
    a.add_argument("--coefficient", default="auto",
                   choices=("auto", "krippendorff_alpha", "fleiss_kappa", "conger_kappa",
                            "gwet_ac1", "brennan_prediger", "percent_agreement"),
                   help="the agreement coefficient (auto: Krippendorff's alpha)")
    a.add_argument("--level", default="auto",
                   choices=("auto", "nominal", "ordinal", "interval", "ratio"),
                   help="Krippendorff's level of measurement (auto: nominal)")
    a.add_argument("--resamples", metavar="B", type=count("--resamples", 1), default=1000,
                   help="bootstrap resamples of items")
    a.add_argument("--latent-resamples", metavar="B", type=count("--latent-resamples", 0),
                   default=100, help="refits of the latent-class model for the annotators' "
                                     "accuracy intervals (0: none)")
    a.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the intervals")
    a.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the bootstrap and the latent-class starts")


def _humans(args: argparse.Namespace, raters: list[str]) -> list[str] | None:
    """The humans named by --kind-column (None: every rater that is not a candidate).

    Without --kind-column, a column named ``rater_kind`` of FILE is used (and said).
    """
    if args.kind_column is None and args.file is None:
        return None
    from pathlib import Path

    from goldnoise._cli._input import read_table

    frame = read_table(Path(args.file), sep=args.sep)
    if args.kind_column is None:
        if "rater_kind" not in frame.columns:
            return None
        args.kind_column = "rater_kind"
        args.kind_column_found = True
    if args.kind_column not in frame.columns:
        raise DataError(f"--kind-column {args.kind_column!r} is not a column of {args.file}; "
                        f"its columns are {', '.join(map(str, frame.columns))}")
    rater = args.rater[0] if args.rater else next(
        (c for c in frame.columns if str(c).lower() in ("rater", "annotator", "worker",
                                                         "coder")), None)
    if rater is None or len(args.rater or []) > 1:
        raise UsageError("--kind-column needs one --rater COLUMN")
    kinds = frame[[rater, args.kind_column]].drop_duplicates()
    return [str(x) for x in kinds.loc[kinds[args.kind_column].astype(str).str.lower()
                                      == "human", rater] if str(x) in raters]


def run(args: argparse.Namespace) -> Report:
    from goldnoise import judge_audit
    from goldnoise._judge._report import judge_report

    if args.example is not None and args.kind_column is not None:
        raise UsageError("--kind-column reads FILE; it does not go with --example")
    loaded = load_ratings(args)
    r = loaded.ratings
    raters = [str(x) for x in r.raters]
    for cand in args.candidates:
        if cand not in raters:
            raise DataError(f"--candidates {cand!r} is not a rater of the file; its raters are "
                            f"{', '.join(raters[:12])}{' ...' if len(raters) > 12 else ''}")
    humans = _humans(args, raters)
    if humans is not None:
        humans = [h for h in humans if h not in args.candidates]
    n_humans = len(humans) if humans is not None else len(raters) - len(set(args.candidates))
    if n_humans < 2:
        raise DataError(f"the judge audit needs two or more humans besides the candidates; "
                        f"the file has {n_humans}")
    if not 0.0 <= args.margin <= 1.0:
        raise UsageError(f"--margin must be in [0, 1], the coefficient's scale (a drop of "
                         f"agreement a candidate may cost); got {args.margin:g}")
    if args.epsilon is not None and not 0.0 <= args.epsilon < 1.0:
        raise UsageError(f"--epsilon must be in [0, 1); got {args.epsilon:g}")
    try:
        result = judge_audit(r, args.candidates, margin=args.margin,
                             coefficient=args.coefficient, level=args.level,
                             epsilon=args.epsilon, n_resamples=args.resamples,
                             confidence_level=args.confidence_level, rng=args.seed,
                             latent_resamples=args.latent_resamples, humans=humans)
    except ValueError as exc:
        raise DataError(" ".join(str(exc).split())) from None
    report = judge_report(result, source=loaded.source)
    report.notes[:0] = loaded.notes
    if getattr(args, "kind_column_found", False):
        report.notes.append("the humans are the raters whose rater_kind is 'human' (the "
                            "file's rater_kind column; --kind-column names another)")
    if humans is not None:
        left = [x for x in raters if x not in humans and x not in args.candidates]
        if left:
            report.notes.append(f"raters neither human nor candidate, left out: "
                                f"{', '.join(left)}")
    return report
