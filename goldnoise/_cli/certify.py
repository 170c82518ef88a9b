"""``goldnoise certify FILE --verified checks_done.csv [--design checks.csv]``: errors left."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import as_option_message, count, gold_fit, probability, real
from goldnoise._cli._input import add_ratings_arguments, load_ratings, read_labels_file
from goldnoise.report import Column, Report

HELP = "bound the wrong labels left, from expert-checked items (a stopping rule)"
DESCRIPTION = (
    "From the true labels of checked items, an upper confidence bound on the wrong labels "
    "among the published (fitted) labels of the whole data set: exact hypergeometric per "
    "random stratum, the ranked stratum counted, Horvitz-Thompson as the estimate. Without "
    "--design the checked items are taken as a simple random sample of all items.\n\n"
    "The bound printed is valid at every look (--looks any, the default): checking after "
    "every round and stopping the first time the bound is below --epsilon is a valid rule "
    "at the confidence level, provided --look counts the looks (1 the first time, 2 the "
    "second, ...). --looks N: valid for up to N looks declared in advance; --looks 1: the "
    "one-look bound (narrower, valid only if the bound is computed once).\n\n"
    "Examples:\n"
    "  goldnoise certify ratings.csv --item id --verified done.csv --design checks.csv\n"
    "  goldnoise certify ratings.csv --item id --verified done.csv --epsilon 0.02 --look 3")

#: The library's parameter names as this verb's options, for its messages.
OPTIONS = {"verified": "--verified", "design": "--design", "epsilon": "--epsilon",
           "looks": "--looks", "look": "--look"}


def _looks(text: str):
    """An argparse type: ``any`` or a whole number of looks >= 1."""
    if text.strip().lower() == "any":
        return "any"
    try:
        return count("--looks", 1)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"--looks must be 'any' or a whole number of looks (1: the one-look bound); got "
            f"{text!r}") from None


#: The columns of a design file that the certificate reads.
DESIGN_NEEDS = ("item", "stratum", "inclusion_probability", "stratum_size", "stratum_sample")


def _same_file(a: str, b: object) -> bool:
    import os

    try:
        return os.path.samefile(a, str(b))
    except OSError:
        return False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold_use="the gold items' labels are known: counted as a "
                                           "stratum of their own (as `goldnoise verify "
                                           "--gold` left them out)")
    g = parser.add_argument_group("certificate")
    g.add_argument("--verified", metavar="FILE", required=True,
                   help="the checked items' true labels: item and label columns")
    g.add_argument("--design", metavar="FILE",
                   help="the file `goldnoise verify --out` wrote (strata and inclusion "
                        "probabilities); default: a simple random sample")
    g.add_argument("--epsilon", type=real("--epsilon", 0.0, 1.0), default=None,
                   help="target share of wrong labels: say whether to stop")
    g.add_argument("--confidence-level", type=probability("--confidence-level"),
                   default=0.95, help="level of the bound (default: %(default)s)")
    g.add_argument("--looks", type=_looks, default="any", metavar="any|N",
                   help="the looks the bound must be valid for: any (default: every look, "
                        "a stopping rule checked after every round), N (up to N looks "
                        "declared in advance) or 1 (the one-look bound)")
    g.add_argument("--look", type=count("--look", 1), default=1,
                   help="which look this is: 1 the first time the bound is computed for "
                        "this stopping decision, 2 the second, ... (default: %(default)s)")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError
    from goldnoise._cli._reading import read_table
    from simulation import residual_errors

    loaded = load_ratings(args)
    r = loaded.ratings
    verified = read_labels_file(args.verified, r.items, "--verified")
    fit = gold_fit(loaded, loaded.source)
    design = None
    if args.design is not None:
        from pathlib import Path

        if not Path(args.design).is_file():
            raise DataError(f"--design {args.design}: no such file")
        if args.file is not None and _same_file(args.design, args.file):
            raise DataError(f"--design {args.design} is the ratings file; --design takes the "
                            "file `goldnoise verify --out` wrote (strata and inclusion "
                            "probabilities), or leave it out for a simple random sample")
        design = read_table(Path(args.design))
        missing = [c for c in DESIGN_NEEDS if c not in design.columns]
        if missing:
            raise DataError(
                f"--design {args.design} lacks the column(s) {', '.join(missing)} (it has "
                f"{', '.join(map(str, list(design.columns)[:8]))}): --design takes the file "
                "`goldnoise verify --out` wrote, keyed by its 'item' column")
        import pandas as pd

        for col in ("inclusion_probability", "stratum_size", "stratum_sample"):
            values = pd.to_numeric(design[col], errors="coerce")
            bad = values.isna() & design[col].notna() | design[col].isna()
            if bad.any():
                row = list(bad).index(True)  # the first bad row
                raise DataError(f"--design {args.design}, row {row + 2}: column {col!r} holds "
                                f"{design[col].iloc[row]!r}, not a number")
            design[col] = values
        by_text = {str(i): i for i in r.items}
        design["item"] = [by_text.get(str(i), i) for i in design["item"]]
    try:
        res = residual_errors(r if fit is None else fit, verified, design=design,
                              confidence_level=args.confidence_level, epsilon=args.epsilon,
                              looks=args.looks, look=args.look)
    except (ValueError, TypeError) as exc:
        text = as_option_message(exc, OPTIONS).replace(
            "pass the frame verification_batch returned for these ratings.",
            "give --design the file `goldnoise verify --out` wrote for these ratings"
            + (", and the --gold that verify was given (its gold items are a stratum of "
               "their own)" if loaded.gold is None else ""))
        raise DataError(text) from None
    report = Report("certify", f"goldnoise certify: {loaded.source}",
                    parameters={"source": loaded.source, "verified": args.verified,
                                "design": args.design, "epsilon": args.epsilon,
                                "confidence_level": args.confidence_level,
                                "looks": args.looks, "look": args.look, "gold": args.gold},
                    primary="certificate/strata")
    s = report.add(section_from_result(
        res, "certificate", "Wrong labels left", exclude=("strata",),
        lines=[line.strip() for line in res.summary().split("\n")], notes=loaded.notes))
    s.tables.append(report_table("strata", [
        Column("stratum", align="<"), Column("size"), Column("checked"), Column("errors"),
        Column("inclusion_probability", "P(drawn)", ".4g"), Column("upper", "at most")],
        res.strata.reset_index().to_dict(orient="records")))
    return report
