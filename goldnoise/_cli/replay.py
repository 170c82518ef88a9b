"""``goldnoise replay FILE --truth COLUMN|FILE [--policies ...] [--plot DIR]``: policies replayed."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import as_option_message, count
from goldnoise._cli._input import add_ratings_arguments, load_ratings
from goldnoise.report import Column, Figure, Report

HELP = "replay re-annotation policies on ratings with known truth and compare them"
DESCRIPTION = (
    "Replay re-annotation policies on data that have more ratings per item than a policy "
    "starts with, and the true labels: start with --start random ratings per item, then each "
    "round give one more (held-out, real) rating to the --batch-size items the policy "
    "chooses, refit, and record the ratings spent, the accuracy against the truth (ties "
    "fractional), the fit's claimed accuracy, gamma and, with --verify, the bound on the "
    "wrong labels. Every policy runs on the same seeds (the same start and order of the "
    "hidden ratings). --plot DIR draws accuracy against ratings spent, one line per policy "
    "with the seeds' range.\n\n"
    "Examples:\n"
    "  goldnoise replay crowd.csv --layout long --truth truth.csv --plot plots/\n"
    "  goldnoise replay ratings.csv --item id --truth gold --policies uniform uncertainty "
    "--seeds 5 --out replay.csv")

#: The library's parameter names as this verb's options, for its messages.
OPTIONS = {"truth": "--truth", "policies": "--policies", "seeds": "--seeds",
           "start_ratings": "--start", "batch_size": "--batch-size", "budget": "--budget",
           "rounds": "--rounds", "verify_per_round": "--verify", "posterior": "--posterior",
           "pool": "FILE"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    import inspect

    from simulation import compare_policies
    from simulation.reannotation import POLICIES

    defaults = inspect.signature(compare_policies).parameters["policies"].default

    add_ratings_arguments(parser, gold=False)
    g = parser.add_argument_group("replay")
    g.add_argument("--truth", metavar="COLUMN|FILE", required=True,
                   help="the true labels: a column of FILE (wide: taken out of the annotators; "
                        "long: per rating row) or a file with item and label columns")
    g.add_argument("--policies", nargs="+", choices=POLICIES, default=list(defaults),
                   metavar="POLICY",
                   help=f"policies to replay, among {', '.join(POLICIES)} "
                        f"(default: {' '.join(defaults)})")
    g.add_argument("--seeds", type=count("--seeds", 1), default=10,
                   help="replays per policy (seeds 0..N-1, shared by every policy)")
    g.add_argument("--start", type=count("--start", 1), default=3,
                   help="ratings per item revealed before the first round")
    g.add_argument("--batch-size", type=count("--batch-size", 1), default=None,
                   help="items that get one more rating per round (default: 5%% of the items)")
    g.add_argument("--budget", type=count("--budget", 0), default=None,
                   help="ratings to reveal after the start (default: until none is left)")
    g.add_argument("--rounds", type=count("--rounds", 0), default=None,
                   help="at most this many rounds after the start")
    g.add_argument("--verify", type=count("--verify", 0), default=0,
                   help="expert checks per round (ranked + random), checked against the "
                        "truth, with the 95%% bound on the wrong labels valid at every look "
                        "(round t is look t + 1); checked items are gold from then on")
    g.add_argument("--model", choices=("spam", "confusion", "one-coin"), default="spam",
                   help="annotator model refitted every round: spam (MACE), confusion "
                        "(Dawid-Skene), one-coin")
    g.add_argument("--calibrate", choices=("none", "held-out"), default="held-out",
                   help="held-out: temper the posteriors by held-out ratings")
    g.add_argument("--starts", type=count("--starts", 1), default=10, help="EM starts")
    g.add_argument("--posterior", choices=("ensemble", "fit"), default="ensemble",
                   help="the posterior the policies read: the mean of the spam model's and "
                        "Dawid-Skene's, or the refitted model's own (default: %(default)s)")


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError
    from noise_models import LatentClassModel
    from simulation import compare_policies

    args.gold, args.gold_option = args.truth, "--truth"
    loaded = load_ratings(args)
    r = loaded.ratings
    if loaded.gold is None:
        raise DataError(f"--truth {args.truth}: no true labels read")
    batch = args.batch_size if args.batch_size is not None else max(1, round(0.05 * r.n_items))
    model = LatentClassModel(args.model, rng=0, n_starts=args.starts,
                             calibrate=None if args.calibrate == "none" else args.calibrate)
    try:
        cmp = compare_policies(r, truth=loaded.gold, policies=args.policies, seeds=args.seeds,
                               start_ratings=args.start, batch_size=batch, budget=args.budget,
                               rounds=args.rounds, verify_per_round=args.verify, model=model,
                               posterior=args.posterior)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{loaded.source}: {as_option_message(exc, OPTIONS)}") from None
    report = Report("replay", f"goldnoise replay: {loaded.source}",
                    parameters={"source": loaded.source, "truth": args.truth,
                                "policies": list(args.policies), "seeds": args.seeds,
                                "start": args.start, "batch_size": batch,
                                "budget": args.budget, "rounds": args.rounds,
                                "verify": args.verify, "model": args.model,
                                "calibrate": args.calibrate, "starts": args.starts},
                    primary="replay/rounds", companions=["replay/policies"])
    need = cmp.ratings_to_reach()
    goal = need.attrs["accuracy"]
    s = report.add(section_from_result(
        cmp, "replay", "Policies replayed",
        values={"n_items": cmp.n_items, "n_truth": cmp.n_truth,
                "ratings_available": cmp.ratings_available,
                "full_accuracy": cmp.full_accuracy, "goal": goal}))
    lines = [line.strip() for line in cmp.summary().split("\n")]
    if cmp.n_truth < cmp.n_items:  # the accuracies are over the items with a truth
        lines[0] = lines[0].replace(
            f"on {cmp.n_items} items", f"on {cmp.n_items} items (accuracies over the "
            f"{cmp.n_truth} with a known truth)", 1)
    s.lines += lines
    s.lines.append(f"goal: accuracy {goal:.4f} (every rating less one point); ratings to "
                   "reach it per policy below (median and range over the seeds that reached "
                   "it)")
    for p in cmp.policies:
        k, n = int(need.loc[p, "reached"]), int(need.loc[p, "seeds"])
        at = ("" if k == 0 else f": median {need.loc[p, 'median']:,.0f} ratings "
              f"[{need.loc[p, 'low']:,.0f}, {need.loc[p, 'high']:,.0f}]")
        s.lines.append(f"  {p}: goal reached by {k} of {n} seeds{at}")
    s.notes += loaded.notes
    fin = cmp.final()
    rows = [{"policy": p, "accuracy": fin.loc[p, "accuracy"],
             "accuracy_low": fin.loc[p, "accuracy_low"],
             "accuracy_high": fin.loc[p, "accuracy_high"],
             "to_goal": need.loc[p, "median"], "to_goal_low": need.loc[p, "low"],
             "to_goal_high": need.loc[p, "high"],
             "reached": need.loc[p, "reached"], "seeds": need.loc[p, "seeds"],
             "saving": need.loc[p, "saving"]} for p in cmp.policies]
    s.tables.append(report_table("policies", [
        Column("policy", align="<"), Column("accuracy", "accuracy at the end", ".4f"),
        Column("accuracy_low", "low", ".4f"), Column("accuracy_high", "high", ".4f"),
        Column("to_goal", "ratings to goal", ".0f"), Column("to_goal_low", "low", ".0f"),
        Column("to_goal_high", "high", ".0f"), Column("reached", "goal reached by", ".0f"),
        Column("seeds", "of seeds", ".0f"),
        Column("saving", "saving vs uniform", ".1%")], rows))
    cols = [Column("policy", align="<"), Column("seed"), Column("round"),
            Column("ratings_spent", "ratings"), Column("accuracy", "accuracy", ".4f"),
            Column("claimed_accuracy", "claimed", ".4f"), Column("gamma", "gamma", ".4f"),
            Column("wrong_labels", "wrong labels")]
    if args.verify:
        s.lines.append("wrong at most: the 95% bound valid at every look (round t is look "
                       "t + 1), so stopping at the first round below a target is valid")
        cols += [Column("errors_upper", "wrong at most"),
                 Column("errors_upper_share", "share at most", ".4f")]
    s.tables.append(report_table("rounds", cols, cmp.to_frame(), shown=20))
    s.figures.append(Figure("accuracy", "Accuracy against ratings spent",
                            lambda fig: cmp.plot(ax=fig.add_subplot())))
    return report
