"""``goldnoise study COEFFICIENT``: how many items an agreement study needs (SPEC §8)."""

from __future__ import annotations

import argparse
from typing import Any

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Column, Figure, Report

HELP = "how many items an agreement study needs for an interval's width or a test's power"
DESCRIPTION = (
    "The items an agreement study needs so that the coefficient's interval is narrow enough "
    "(--half-width or --width), or so that a test against --null has the --power wanted; for "
    "Krippendorff's alpha also Bloch & Kraemer's size for a smallest acceptable alpha "
    "(--minimum). Closed forms where they exist (Cohen's kappa, 2 annotators, 2 categories: "
    "Cantor 1996; alpha with --minimum: Krippendorff's table), simulation for every "
    "coefficient, any annotators, categories, shares and missing rate; at the size found the "
    "analytic, percentile and BCa intervals are compared and the one that covers is "
    "recommended. A pilot file (FILE or --example) gives the expected value and the design.\n\n"
    "Examples:\n"
    "  goldnoise study cohen_kappa --expected 0.85 --null 0.7 --power 0.8\n"
    "  goldnoise study krippendorff_alpha --minimum 0.8 --categories 4\n"
    "  goldnoise study fleiss_kappa --expected 0.6 --half-width 0.1 --raters 5 --categories 4\n"
    "  goldnoise study fleiss_kappa pilot.csv --half-width 0.1 --tradeoff 2 3 5 8\n"
    "  goldnoise study icc1 --expected 0.8 --null 0.6 --power 0.8 --raters 3   # Walter et al.")

COEFFICIENTS = ("percent_agreement", "fleiss_kappa", "scott_pi", "cohen_kappa",
                "conger_kappa", "light_kappa", "brennan_prediger", "gwet_ac1",
                "krippendorff_alpha", "icc1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("coefficient", metavar="COEFFICIENT", choices=COEFFICIENTS,
                        help=f"the coefficient: {', '.join(COEFFICIENTS)}")
    add_ratings_arguments(parser, gold=False)
    g = parser.add_argument_group("goal (one of)")
    g.add_argument("--half-width", type=real("--half-width", 0.0, 2.0), metavar="H",
                   help="largest expected half-width of the interval")
    g.add_argument("--width", type=real("--width", 0.0, 4.0), metavar="W",
                   help="largest expected full width of the interval (= 2 x half-width)")
    g.add_argument("--assurance", type=probability("--assurance"), metavar="P",
                   help="with --half-width/--width: plan for the size at which this share of "
                        "studies (e.g. 0.8) reach the width; without it the *mean* half-width "
                        "is planned for, which about half of the studies miss")
    g.add_argument("--null", type=real("--null", -1.0, 1.0), metavar="K0",
                   help="value under the null hypothesis (with --power)")
    g.add_argument("--power", type=probability("--power"), help="power wanted (with --null)")
    g.add_argument("--minimum", type=probability("--minimum"), metavar="ALPHA_MIN",
                   help="Krippendorff's alpha: smallest acceptable value (Bloch & Kraemer)")
    d = parser.add_argument_group("design")
    d.add_argument("--expected", type=real("--expected", -1.0, 1.0), metavar="K",
                   help="the coefficient's expected value (a pilot file gives it otherwise)")
    d.add_argument("--raters", type=count("--raters", 2), default=None,
                   help="annotators per item (default: 2, or the pilot's; given, it wins over "
                        "the pilot's)")
    d.add_argument("--categories", type=count("--categories", 2), default=None,
                   help="equally likely categories (default: 2; with --shares, as many as "
                        "the shares)")
    d.add_argument("--shares", type=real("--shares", 0.0, 1.0), nargs="+", metavar="SHARE",
                   help="category shares, e.g. 0.7 0.2 0.1")
    d.add_argument("--missing", type=real("--missing", 0.0, 0.99), default=None,
                   help="share of ratings missing at random (default: 0, or the pilot's; "
                        "given, it wins over the pilot's)")
    d.add_argument("--level", choices=("nominal", "ordinal", "interval", "ratio"),
                   help="Krippendorff's alpha: level of measurement")
    d.add_argument("--chance", choices=("shares", "uniform"), default="shares",
                   help="how a hard item is rated in the simulation: from the shares, or "
                        "uniformly (Gwet's design)")
    t = parser.add_argument_group("test and interval")
    t.add_argument("--alternative", choices=("greater", "less", "two-sided"), default="greater",
                   help="direction of the test against --null")
    t.add_argument("--significance", type=probability("--significance"), default=None,
                   help="of the test (default 0.05)")
    t.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="of the interval")
    s = parser.add_argument_group("computation")
    s.add_argument("--method", choices=("auto", "closed-form", "simulation"), default="auto",
                   help="auto: the closed form where one exists, else simulation")
    s.add_argument("--sims", type=count("--sims", 10), default=500,
                   help="simulated studies per size")
    s.add_argument("--bootstrap-sims", type=count("--bootstrap-sims", 0), default=200,
                   help="simulated studies comparing the interval methods at the size found "
                        "(0: skip)")
    s.add_argument("--resamples", type=count("--resamples", 1), default=499,
                   help="bootstrap resamples in that comparison")
    s.add_argument("--max-items", type=count("--max-items", 10), default=20_000,
                   help="the search stops here")
    s.add_argument("--seed", type=int, default=0, help="random seed")
    s.add_argument("--max-minutes", type=real("--max-minutes", 0.0), default=30.0,
                   metavar="M",
                   help="refuse a simulation estimated (from a short timed pilot) to take "
                        "longer than this; 0: no limit. The estimate of a simulation of 10 "
                        "seconds or more is said on stderr before it starts (--no-progress: "
                        "not); on a terminal a progress bar shows")
    s.add_argument("--tradeoff", type=count("--tradeoff", 2), nargs="+", metavar="RATERS",
                   help="also: items needed for each of these numbers of annotators, and the "
                        "cheapest design (needs --half-width or --width)")
    s.add_argument("--cost-per-rating", type=real("--cost-per-rating", 0.0), default=1.0,
                   help="--tradeoff: cost of one rating")
    s.add_argument("--cost-per-item", type=real("--cost-per-item", 0.0), default=0.0,
                   help="--tradeoff: cost of one item besides its ratings")


def _max_seconds(args: argparse.Namespace) -> float | None:
    return None if args.max_minutes == 0 else 60.0 * args.max_minutes


def _target(args: argparse.Namespace) -> float | None:
    if args.half_width is not None and args.width is not None:
        raise UsageError("give --half-width or --width, not both")
    if args.width is not None:
        return args.width / 2.0
    return args.half_width


def run(args: argparse.Namespace) -> Report:
    from simulation import study_tradeoff

    target = _target(args)
    if args.tradeoff and target is None:
        raise UsageError("--tradeoff needs --half-width or --width")
    if target is not None and target <= 0:
        raise UsageError("--half-width and --width must be above 0")
    pilot = None
    source = None
    if args.file is not None or args.example is not None:
        loaded = load_ratings(args)
        pilot, source = loaded.ratings, loaded.source
    elif args.expected is None and args.minimum is None:
        raise UsageError("give --expected (the coefficient's assumed value) or a pilot FILE")
    kw = dict(expected=args.expected, target=target, null=args.null, power=args.power,
              alternative=args.alternative, minimum=args.minimum,
              significance=args.significance, n_raters=args.raters,
              n_categories=args.categories, category_shares=args.shares,
              missing=args.missing, level=args.level, confidence_level=args.confidence_level,
              method=args.method, n_sims=args.sims, n_bootstrap_sims=args.bootstrap_sims,
              n_resamples=args.resamples, max_items=args.max_items, chance=args.chance,
              pilot=pilot, rng=args.seed, assurance=args.assurance,
              max_seconds=_max_seconds(args))
    goals = [name for name, given in (("--half-width/--width", target is not None),
                                      ("--null/--power", args.null is not None
                                       or args.power is not None),
                                      ("--minimum", args.minimum is not None)) if given]
    if len(goals) != 1:
        raise UsageError("give exactly one goal: --half-width (or --width), --null with "
                         f"--power, or --minimum; got {', '.join(goals) or 'none'}")
    if (args.null is None) != (args.power is None):
        raise UsageError("--null and --power go together (the power of a test against --null)")
    try:
        plan = _plan(args.coefficient, kw)
    except (TypeError, ValueError) as exc:
        text = _cli_words(str(exc))
        if source and source not in text:
            text = f"the pilot {source}: {text}"  # what the pilot gave is part of the plan
        raise UsageError(text) from None

    title = f"goldnoise study: {args.coefficient}"
    if source:
        title += f", pilot {source}"
    report = Report("study", title, primary="plan/sizes",
                    parameters={k: v for k, v in vars(args).items()
                                if not k.startswith("_") and not callable(v)})
    s = report.add(section_from_result(plan, "plan", "How many items", exclude=("table",)))
    notes = {f"  * {note}" for note in plan.notes}  # the section lists them as notes
    s.lines += [_cli_words(line) for line in plan.summary().splitlines() if line not in notes]
    s.notes += list(plan.notes)
    rows = plan.table.to_dict("records")
    cols = [Column("stage", "stage", align="<"), Column("n_items", "items"),
            Column("interval", "interval", align="<"), Column("n_sims", "studies"),
            Column("coverage", "coverage", ".3f"), Column("mean_half_width", "half-width", ".4f")]
    if "reach_share" in plan.table:
        cols.append(Column("reach_share", "reach target", ".3f"))
    if "power" in plan.table:
        cols.append(Column("power", "power", ".3f"))
    if plan.goal != "minimum":
        s.tables.append(report_table("sizes", cols, rows,
                                     title="simulated studies per size and interval method"))
        s.figures.append(Figure("study_size", "Interval half-width against the number of items",
                                lambda fig: plan.plot(ax=fig.add_subplot())))
    else:
        s.tables.append(report_table("sizes", [Column("n_ratings", "values"),
                                               Column("n_items", "units"),
                                               Column("formula_value", "formula", ".2f")],
                                     rows))
    if args.tradeoff:
        try:
            t = study_tradeoff(args.coefficient, expected=plan.expected, target=target,
                               raters=args.tradeoff, cost_per_rating=args.cost_per_rating,
                               cost_per_item=args.cost_per_item, n_categories=args.categories,
                               category_shares=args.shares, missing=args.missing,
                               level=args.level, confidence_level=args.confidence_level,
                               n_sims=args.sims, n_bootstrap_sims=0, max_items=args.max_items,
                               chance=args.chance, rng=args.seed, assurance=args.assurance,
                               max_seconds=_max_seconds(args))
        except (TypeError, ValueError) as exc:
            raise UsageError(_cli_words(str(exc))) from None
        ts = report.add(section_from_result(t, "tradeoff", "More items or more annotators",
                                            values=("n_raters", "n_items", "cost")))
        ts.lines.append(f"cheapest: {t.n_raters} annotators x {t.n_items} items, cost "
                        f"{t.cost:,.0f} (cost per rating {args.cost_per_rating:g}, per item "
                        f"{args.cost_per_item:g})")
        ts.tables.append(report_table("per_raters", [
            Column("n_raters", "annotators"), Column("n_items", "items"),
            Column("n_ratings", "ratings", ".0f"), Column("cost", "cost", ".0f")],
            t.table))
    return report


def _plan(coefficient: str, kw: dict[str, Any]) -> Any:
    """The plan of the one goal given (checked above), from that goal's entry."""
    from simulation import study_size_for_minimum, study_size_for_power, study_size_for_width

    minimum, target, assurance = kw.pop("minimum"), kw.pop("target"), kw.pop("assurance")
    if assurance is not None and target is None:
        raise ValueError("`assurance` is the share of studies reaching an interval's "
                         "half-width: it goes with `target` only.")
    if minimum is not None:
        if coefficient != "krippendorff_alpha":
            raise ValueError("`minimum` is Bloch & Kraemer's goal for Krippendorff's alpha; "
                             f"for {coefficient} give `null` and `power`, or `target`.")
        if kw["method"] == "simulation":
            raise ValueError("`minimum` has a closed form only; for a simulation plan give "
                             "`null=minimum` and `power` (with `expected`).")
        return study_size_for_minimum(minimum, **{k: kw[k] for k in (
            "significance", "n_raters", "n_categories", "category_shares", "level",
            "confidence_level", "pilot")})
    if target is not None:
        width = {k: v for k, v in kw.items()
                 if k not in ("null", "power", "alternative", "significance")}
        return study_size_for_width(coefficient, target=target, assurance=assurance, **width)
    return study_size_for_power(coefficient, **kw)


#: The Python parameters of the planner's entries and the options that set them here.
_OPTIONS = {"target": "--half-width", "expected": "--expected", "n_raters": "--raters",
            "n_categories": "--categories", "category_shares": "--shares",
            "missing": "--missing", "max_items": "--max-items", "null": "--null",
            "power": "--power", "minimum": "--minimum", "significance": "--significance",
            "level": "--level", "method": "--method", "pilot": "FILE", "chance": "--chance",
            "n_sims": "--sims", "raters": "--tradeoff", "assurance": "--assurance",
            "max_seconds": "--max-minutes"}


def _cli_words(message: str) -> str:
    """An API message with the options of this command in place of Python parameters."""
    import re

    text = " ".join(message.split())
    text = re.sub(r"`(\w+)`", lambda m: _OPTIONS.get(m.group(1), m.group(0)), text)
    text = re.sub(r"alternative='([\w-]+)'", r"--alternative \1", text)
    text = text.replace("goes with --half-width only", "goes with --half-width or --width "
                        "only")
    return text.replace("method='simulation'", "--method simulation").replace(
        "n_raters=", "--raters ").replace("study_tradeoff shows", "--tradeoff shows")
