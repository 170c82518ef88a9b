"""``goldnoise next FILE --size N [--policy ...] --out batch.csv``: who gets the next rating."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import column_decimals, report_table, section_from_result
from goldnoise._cli._common import as_option_message, count, gold_fit
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Column, Report

HELP = "choose the items that get one more rating (re-annotation policies)"
DESCRIPTION = (
    "Fit the annotation model to the ratings and choose the items that should get one more "
    "rating next: uniform (fewest ratings), random, uncertainty, margin (the default: the "
    "closest call between two classes first; in replays on seven public crowd sets it saved "
    "the most ratings, or within a point of the most, on five), "
    "expected-error-reduction (the expected drop in P(label wrong) per rating, shared among "
    "the ratings an item already has) or hard (the easy/hard model's hard posterior).\n\n"
    "Examples:\n"
    "  goldnoise next ratings.csv --item id --size 100 --out batch.csv\n"
    "  goldnoise next crowd.csv --layout long --size 50 --policy uncertainty\n"
    "  goldnoise next crowd.csv --layout long --size 50 --gold gold.csv  # gold items settled")

#: The library's parameter names as this verb's options, for its messages.
OPTIONS = {"size": "--size", "policy": "--policy", "posterior": "--posterior"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from simulation.reannotation import POLICIES

    add_ratings_arguments(parser, gold_use="gold items (or items an expert has checked) are "
                                           "settled and never get a new rating")
    g = parser.add_argument_group("batch")
    g.add_argument("--size", type=count("--size", 1), required=True,
                   help="items to choose")
    g.add_argument("--policy", choices=POLICIES, default="margin",
                   help="how items are chosen (default: %(default)s)")
    g.add_argument("--posterior", choices=("ensemble", "fit"), default="ensemble",
                   help="the posterior the policy reads: the mean of the spam model's and "
                        "Dawid-Skene's, or the fitted model's own (default: %(default)s)")
    g.add_argument("--seed", type=count("--seed", 0), default=0, help="seed of ties and draws")


def run(args: argparse.Namespace) -> Report:
    import warnings

    from _goldnoise_lib.errors import GoldnoiseWarning
    from goldnoise._cli._errors import DataError
    from simulation import next_batch

    loaded = load_ratings(args)
    fit = gold_fit(loaded, loaded.source)
    try:
        with warnings.catch_warnings():
            # the note below says it in the command's words
            warnings.filterwarnings("ignore", message="`size` = .* asks for more items",
                                    category=GoldnoiseWarning)
            batch = next_batch(loaded.ratings, size=args.size, policy=args.policy,
                               posterior=args.posterior, fit=fit, rng=args.seed)
    except ValueError as exc:
        raise DataError(f"{loaded.source}: {as_option_message(exc, OPTIONS)}") from None
    report = Report("next", f"goldnoise next: {loaded.source}",
                    parameters={"source": loaded.source, "size": args.size,
                                "policy": args.policy, "seed": args.seed,
                                "gold": args.gold},
                    primary="batch/batch")
    s = report.add(section_from_result(
        None, "batch", f"The next {len(batch)} items to rate ({args.policy})",
        values={"n_items": loaded.ratings.n_items, "chosen": len(batch)}))
    s.lines.append(f"{len(batch)} of {loaded.ratings.n_items} items; reason: "
                   f"{batch['reason'].iloc[0] if len(batch) else '-'}")
    if fit is not None:
        n_gold = len(loaded.gold.dropna())
        s.values["n_gold"] = n_gold
        s.lines.append(f"{n_gold} gold items settled: none of them is chosen")
    if len(batch) < args.size:
        open_items = ("items than there are" if fit is None else
                      f"items than the {len(batch)} the gold does not settle")
        s.notes.append(f"--size {args.size} asked for more {open_items}: all "
                       f"{len(batch)} are in the batch")
    s.notes += loaded.notes
    s.tables.append(report_table("batch", [
        Column("item", align="<"), Column("score", fmt=column_decimals(batch["score"])),
        Column("n_ratings", "ratings"),
        Column("label", "label now", align="<"), Column("p_wrong", "P(label wrong)", ".4f")],
        batch.drop(columns=["reason"]).to_dict(orient="records"), shown=20))
    return report
