"""``goldnoise simulate``: simulation studies; ``simulate coverage`` is how often a bound holds.

``goldnoise simulate coverage N`` runs :func:`simulation.gamma_coverage` (the
noise bound γ across true hard counts) or, with ``--bound verified``,
:func:`simulation.verified_sample_coverage` (the verified-sample bound across
true error counts), and prints the coverage table.
"""

from __future__ import annotations

import argparse

from goldnoise._cli._common import count, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise._cli._output import add_output_arguments
from goldnoise._cli._progress import progress
from goldnoise._cli._report import Column, Report, Section, Table

HELP = "simulation studies: how often the noise bounds hold (coverage)"
DESCRIPTION = (
    "Simulation studies.\n\n"
    "coverage: over simulated data sets with a known truth, how often does the bound hold?\n"
    "  gamma (default): N items, a true number of hard items H (--hard); the true share of\n"
    "  hard items among the agreed ones is compared with gamma.\n"
    "  verified: N agreed items, K of them wrong (--errors), a verified sample of\n"
    "  --sample-size items; K is compared with the bound's max_errors.\n\n"
    "Examples:\n"
    "  goldnoise simulate coverage 1000 --hard 0 10 100 400\n"
    "  goldnoise simulate coverage 1000 --p estimated --raters 3 --categories 3\n"
    "  goldnoise simulate coverage 1000 --model M2 --error-rate 0.05\n"
    "  goldnoise simulate coverage 10000 --bound verified --sample-size 500 --errors 0 100 500")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="study", required=True, metavar="STUDY")
    c = sub.add_parser("coverage", help="how often the noise bound gamma (or the "
                                        "verified-sample bound) holds, by simulation",
                       description=DESCRIPTION, formatter_class=parser.formatter_class)
    c.add_argument("n", metavar="N", type=count("N", 2),
                   help="items per data set (with --bound verified: agreed items)")
    c.add_argument("--bound", choices=("gamma", "verified"), default="gamma",
                   help="which bound to check")
    c.add_argument("--hard", metavar="H", type=count("--hard", 0), nargs="+", default=None,
                   help="true numbers of hard items (default: 0, 1%%, 5%%, 10%%, 20%%, 40%%, "
                        "70%%, 90%% and 100%% of N)")
    c.add_argument("--raters", type=count("--raters", 2), default=2, help="annotators per item")
    c.add_argument("--categories", type=count("--categories", 2), default=2,
                   help="categories (hard items: uniform over them)")
    c.add_argument("--p", choices=("known", "estimated"), default="known",
                   help="gamma from the true chance agreement p, or p estimated from each "
                        "data set as `noise_bound(ratings)` does")
    c.add_argument("--model", choices=("M1", "M2"), default="M1",
                   help="M1: the bound's model; M2: annotators also err on easy items")
    c.add_argument("--error-rate", type=real("--error-rate", 0.0, 0.999), default=0.0,
                   help="with --model M2: each annotator's error rate on easy items")
    c.add_argument("--errors", metavar="K", type=count("--errors", 0), nargs="+", default=None,
                   help="with --bound verified: true numbers of wrong labels (default: 0, "
                        "0.1%%, 1%%, 5%%, 10%% and 50%% of N)")
    c.add_argument("--sample-size", type=count("--sample-size", 1), default=None,
                   help="with --bound verified: items verified per draw")
    c.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                   help="the bound's confidence")
    c.add_argument("--sims", type=count("--sims", 1), default=1000,
                   help="simulated data sets per true count")
    c.add_argument("--seed", type=count("--seed", 0), default=0, help="random seed")
    # the output options after the study's name too (`simulate coverage ... --json`)
    add_output_arguments(c)


def _grid(n: int, shares: tuple[float, ...]) -> list[int]:
    return sorted({round(s * n) for s in shares})


def _columns(first: str, first_label: str, extra: list[Column]) -> list[Column]:
    return [Column(first, first_label, "d"), Column("coverage", "coverage", ".3f"),
            Column("coverage_low", "95% low", ".3f"), Column("coverage_high", "95% high", ".3f"),
            Column("exact_coverage", "exact", ".3f"), *extra]


def run(args: argparse.Namespace) -> Report:
    from simulation import gamma_coverage, verified_sample_coverage

    n = args.n
    if args.bound == "verified":
        if args.sample_size is None:
            raise UsageError("--bound verified needs --sample-size (items verified per draw)")
        errors = args.errors or _grid(n, (0.0, 0.001, 0.01, 0.05, 0.1, 0.5))
        if max(errors) > n or args.sample_size > n:
            raise UsageError(f"--errors and --sample-size must be at most N = {n}")
        with progress(len(errors) * args.sims, "coverage") as update:
            tab = verified_sample_coverage(n, errors, sample_size=args.sample_size,
                                           alpha=args.alpha, n_sims=args.sims, rng=args.seed,
                                           _progress=update)
        title = (f"goldnoise simulate coverage: verified-sample bound, {n} agreed items, "
                 f"{args.sample_size} verified, alpha = {args.alpha:g}")
        columns = _columns("error_count", "true wrong", [
            Column("mean_max_errors", "mean max_errors", ".1f")])
        what = (f"share of {args.sims} draws per row in which the true number of wrong labels "
                "is at most the bound's max_errors")
    else:
        if args.model == "M1" and args.error_rate:
            raise UsageError("--error-rate applies to --model M2 (under M1 easy items are "
                             "always unanimous)")
        hard = args.hard or _grid(n, (0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 0.9, 1.0))
        if max(hard) > n:
            raise UsageError(f"--hard counts must be at most N = {n}")
        with progress(len(hard) * args.sims, "coverage") as update:
            tab = gamma_coverage(n, hard, n_raters=args.raters, n_categories=args.categories,
                                 alpha=args.alpha, p=args.p, model=args.model,
                                 error_rate=args.error_rate, n_sims=args.sims, rng=args.seed,
                                 _progress=update)
        title = (f"goldnoise simulate coverage: gamma, {n} items, {args.raters} annotators, "
                 f"{args.categories} categories, p {args.p}, {args.model}"
                 f"{f' (error rate {args.error_rate:g})' if args.model == 'M2' else ''}, "
                 f"alpha = {args.alpha:g}")
        columns = _columns("hard_count", "true hard", [
            Column("noisy_coverage", "noisy", ".3f"), Column("mean_gamma", "mean gamma", ".4f"),
            Column("mean_true_share", "mean true share", ".4f"),
            Column("n_undefined", "undefined", "d")])
        what = (f"share of {args.sims} data sets per row whose true share of hard items among "
                "the agreed ones is at most gamma")
    params = {k: (" ".join(map(str, v)) if isinstance(v, list) else v)
              for k, v in vars(args).items()
              if not k.startswith("_") and k not in ("command", "format", "out", "quiet")}
    report = Report("simulate", title, parameters=params, primary="coverage/coverage")
    s = report.add(Section("coverage", "Coverage"))
    s.lines.append(what + f"; nominal {args.alpha:g}; 95% Wilson interval")
    s.tables.append(Table("coverage", columns, tab.to_dict("records")))
    short = tab[tab["coverage_high"] < args.alpha]
    if len(short):
        first = columns[0].key
        s.notes.append(f"coverage below {args.alpha:g} (beyond binomial error) at "
                       f"{first.replace('_', ' ')} {', '.join(str(v) for v in short[first])}")
    if "exact_coverage" in tab and tab["exact_coverage"].isna().all():
        s.notes.append("exact coverage: only for the gamma bound under M1 with p known")
    return report
