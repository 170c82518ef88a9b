"""``goldnoise audit``: what a set of annotations is worth.

Parses the options, reads the ratings and renders :func:`goldnoise.audit`'s
report: the data; every agreement coefficient with its interval; the noise
bound γ of the unanimously agreed items; κ read through the easy/hard model;
the chance-difference margin; the latent-class fit. A section the data do not
allow is kept and says why in words.
"""

from __future__ import annotations

import argparse

from agreement import SCALE_STATISTICS, STATISTICS
from goldnoise._audit import LEVELS
from goldnoise._cli._common import (
    add_model_arguments,
    as_option_message,
    check_model_arguments,
    count,
    probability,
    real,
)
from goldnoise._cli._dask import add_engine_arguments, run_dask
from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Report

# The names --coefficients takes: every coefficient of agreement_table.
AUDIT_COEFFICIENTS = (*STATISTICS, *SCALE_STATISTICS, "kendall_w")

HELP = "audit a set of annotations: agreement, the noise bound gamma, the kappa claim"
DESCRIPTION = (
    "Audit a file of ratings or a bundled example: every agreement coefficient with its "
    "interval, the noise bound gamma of the unanimously agreed items (the candidate gold "
    "standard), what the kappa value implies under the easy/hard model, and the margin two "
    "systems compared on the agreed items must beat.\n\n"
    "Examples:\n"
    "  goldnoise audit --example fleiss1971\n"
    "  goldnoise audit ratings.csv --item id                   # one row per item\n"
    "  goldnoise audit ratings.csv --layout long --item item --rater worker --label response\n"
    "  goldnoise audit coders.csv --transpose                  # one row per annotator\n"
    "  goldnoise audit 'ratings/*.parquet' --engine dask       # larger than memory")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser)
    a = parser.add_argument_group("analysis")
    a.add_argument("--level", choices=LEVELS, default="auto",
                   help="measurement level of the labels for Krippendorff's alpha: nominal "
                        "(categories), or also ordinal, interval or ratio. auto: nominal, plus "
                        "ordinal and interval when the labels are declared ordered (an ordered "
                        "categorical column in Parquet)")
    a.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                   help="the paper's confidence alpha of the noise bound")
    a.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the coefficients' confidence intervals")
    a.add_argument("--coefficients", metavar="NAME", nargs="+", choices=AUDIT_COEFFICIENTS,
                   help="compute only these agreement coefficients (and bootstrap only them), "
                        "e.g. --coefficients fleiss_kappa krippendorff_alpha; one of "
                        f"{', '.join(AUDIT_COEFFICIENTS)} (default: all; the rating-scale "
                        "ones icc1, icc2, icc3, lin_ccc and kendall_w when the labels are "
                        "numbers with three or more values)")
    a.add_argument("--no-latent", action="store_true",
                   help="skip the latent-class section (and its agreed-error bracket)")
    a.add_argument("--threshold", type=real("--threshold", -1.0, 1.0), default=None,
                   help="a claimed kappa threshold to check against kappa's interval, e.g. 0.67")
    a.add_argument("--bootstrap", metavar="B", type=count("--bootstrap", 0), default=None,
                   help="also bootstrap every coefficient over items with B resamples (0: no "
                        "bootstrap, as without the option): "
                        "percentile and BCa intervals beside the analytic ones (seeded by "
                        "--seed: the same seed gives the same intervals)")
    a.add_argument("--verified", metavar="FILE",
                   help="true labels of a checked sample of items (a file with item and label "
                        "columns): the calibration section grades the fit's confidence on them")
    add_model_arguments(parser)
    add_engine_arguments(parser)


def run(args: argparse.Namespace) -> Report:
    from goldnoise import audit

    check_model_arguments(args)
    if args.engine == "dask":  # larger than memory: the same audit over Dask partitions
        return run_dask(args)
    if args.scheduler:
        raise UsageError("--scheduler goes with --engine dask")
    loaded = load_ratings(args)
    verified = None
    if args.verified is not None:
        from goldnoise._cli._input import read_labels_file

        verified = read_labels_file(args.verified, loaded.ratings.items, "--verified")
    try:
        result = audit(loaded.ratings, model=args.model, hard=args.hard, gold=loaded.gold,
                       alpha=args.alpha, confidence_level=args.confidence_level,
                       bootstrap=args.bootstrap or None, threshold=args.threshold,
                       level=args.level, latent=not args.no_latent, n_starts=args.starts,
                       rng=args.seed, labels_ordered=loaded.declared_order,
                       source=loaded.source, notes=loaded.notes, verified=verified,
                       coefficients=args.coefficients,
                       calibrate=None if args.calibrate == "none" else args.calibrate)
    except ValueError as exc:
        if "`verified`" not in str(exc):
            raise
        raise DataError(as_option_message(exc, {"verified": "--verified"})) from None
    return result.report
