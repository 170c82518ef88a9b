"""``goldnoise fit FILE --model ... --out labels.csv``: a label per item, with its posterior."""

from __future__ import annotations

import argparse

from goldnoise._cli._common import add_model_arguments, check_model_arguments
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Report

HELP = "fit a latent-class model: a label per item with its posterior and hard posterior"
DESCRIPTION = (
    "Fit a latent-class model to a file of ratings and write, per item, the fitted label, the "
    "probability that it is right, the probability that the item is hard (its annotators know "
    "its class less well than an easy item's; under --model perfect, a coin-flip), and its "
    "number of ratings; the annotator table goes beside it.\n\n"
    "Examples:\n"
    "  goldnoise fit ratings.csv --item id --out labels.csv       # + labels.annotators.csv\n"
    "  goldnoise fit crowd.csv --layout long --model confusion --out labels.parquet\n"
    "  goldnoise fit crowd.csv --layout long --gold expert.csv --gold-in-fit   # known labels")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser)
    add_model_arguments(parser)
    parser.add_argument("--gold-in-fit", action="store_true",
                        help="fit the --gold labels as known classes (semi-supervised EM: the "
                             "annotators' parameters learn from them) instead of only comparing "
                             "the fitted labels with them")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._audit import fit_report
    from goldnoise._cli._errors import DataError

    check_model_arguments(args)
    loaded = load_ratings(args)
    if args.gold_in_fit and loaded.gold is None:
        raise DataError("--gold-in-fit needs the known labels: add --gold COLUMN|FILE")
    if not loaded.ratings.has_raters:
        raise DataError("a latent-class model needs to know which annotator gave which label; "
                        "a count table does not say (use --layout wide or long)")
    try:
        return fit_report(loaded.ratings, model=args.model, hard=args.hard,
                          n_starts=args.starts, seed=args.seed, gold=loaded.gold,
                          source=loaded.source, notes=loaded.notes,
                          calibrate=None if args.calibrate == "none" else args.calibrate,
                          gold_in_fit=args.gold_in_fit)
    except ValueError as exc:
        raise DataError(f"{loaded.source}: {exc}") from None
