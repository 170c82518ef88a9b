"""``goldnoise verify FILE --size N --out checks.csv``: items for expert checks."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import as_option_message, count, gold_fit, real
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Column, Report

HELP = "choose items for expert checks: most likely wrong, and a random sample"
DESCRIPTION = (
    "Fit the annotation model and choose items for an expert to check: a ranked stratum (the "
    "labels most likely wrong, all of them; P(label wrong) is the mean of MACE's spam model's "
    "and Dawid-Skene's) and a random stratum (a simple random sample of "
    "the other items), each with its inclusion probability. Write them with --out; once "
    "checked, `goldnoise certify` bounds the wrong labels left.\n\n"
    "Examples:\n"
    "  goldnoise verify ratings.csv --item id --size 200 --out checks.csv\n"
    "  goldnoise verify ratings.csv --item id --size 200 --random-share 1 --out srs.csv\n"
    "  goldnoise verify ratings.csv --item id --size 200 --gold gold.csv --out checks.csv")

#: The library's parameter names as this verb's options, for its messages.
OPTIONS = {"size": "--size", "random_share": "--random-share"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold_use="gold items (or items checked before) are known: "
                                           "neither ranked nor drawn (give the same --gold "
                                           "to `goldnoise certify`)")
    g = parser.add_argument_group("checks")
    g.add_argument("--size", type=count("--size", 1), required=True, help="items to check")
    g.add_argument("--random-share", type=real("--random-share", 0.0, 1.0), default=0.5,
                   help="share of the checks drawn at random (default: %(default)s)")
    g.add_argument("--seed", type=count("--seed", 0), default=0, help="seed of the draws")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError
    from simulation import verification_batch

    loaded = load_ratings(args)
    fit = gold_fit(loaded, loaded.source)
    try:
        design = verification_batch(loaded.ratings, size=args.size, fit=fit,
                                    random_share=args.random_share, rng=args.seed)
    except ValueError as exc:
        raise DataError(f"{loaded.source}: {as_option_message(exc, OPTIONS)}") from None
    report = Report("verify", f"goldnoise verify: {loaded.source}",
                    parameters={"source": loaded.source, "size": args.size,
                                "random_share": args.random_share, "seed": args.seed,
                                "gold": args.gold},
                    primary="checks/checks")
    per = design.groupby("stratum").size().to_dict()
    s = report.add(section_from_result(
        None, "checks", "Items for expert checks",
        values={"n_items": loaded.ratings.n_items, **{f"n_{k}": v for k, v in per.items()}}))
    s.lines.append(", ".join(f"{v} {k}" for k, v in per.items()) +
                   f" of {loaded.ratings.n_items} items; check every one of them and give the "
                   "true labels to `goldnoise certify --verified FILE --design THIS_FILE`")
    if fit is not None:
        n_gold = len(loaded.gold.dropna())
        s.values["n_gold"] = n_gold
        s.lines.append(f"{n_gold} gold items known: none of them is ranked or drawn (their "
                       "stratum is counted by `goldnoise certify` with the same --gold)")
    s.notes += loaded.notes
    s.tables.append(report_table("checks", [
        Column("item", align="<"), Column("stratum", align="<"),
        Column("inclusion_probability", "P(drawn)", ".4g"), Column("stratum_size", "stratum size"),
        Column("stratum_sample", "drawn from it"), Column("label", "label now", align="<"),
        Column("p_wrong", "P(label wrong)", ".4f")],
        design.to_dict(orient="records"), shown=20))
    return report
