"""``goldnoise plan N``: how many annotators to hire for a target γ (SPEC §2.6)."""

from __future__ import annotations

import argparse
import math

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, p_text, pct, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise.report import Column, Report

HELP = "how many annotators to hire for a target gamma"
DESCRIPTION = (
    "For k = 2, 3, ... annotators: the expected number of agreed items (every easy item and "
    "the hard items whose coin-flips happen to agree), the noise bound gamma of that outcome, "
    "and the smallest k meeting the target. Example: goldnoise plan 1000 --easy-fraction 0.8 "
    "--gamma 0.05")
#: Beyond this many annotators the table is not extended (a note says so).
HARD_CAP = 200


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("n", metavar="N", type=count("N", 1), help="items to annotate")
    parser.add_argument("--gamma", type=probability("--gamma"), required=True,
                        help="target noise bound of the agreed items, e.g. 0.05 (required)")
    grp = parser.add_mutually_exclusive_group(required=True)
    grp.add_argument("--easy-fraction", type=real("--easy-fraction", 0.0, 1.0),
                     help="expected share of easy items (give this or --kappa)")
    grp.add_argument("--kappa", type=real("--kappa", -1.0, 1.0),
                     help="a pilot kappa, read as the easy share (give this or --easy-fraction)")
    parser.add_argument("--category-shares", type=real("--category-shares", 0.0, 1.0),
                        nargs="+", metavar="SHARE",
                        help="label distribution of hard items, e.g. 0.5 0.3 0.2 (default: two "
                             "equally likely categories)")
    parser.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                        help="the paper's confidence alpha of the bound")
    parser.add_argument("--max-raters", type=count("--max-raters", 2), default=20,
                        help="largest number of annotators to consider; the table stops "
                             f"earlier once more annotators change nothing (at most {HARD_CAP})")


def run(args: argparse.Namespace) -> Report:
    from noise_models import annotators_needed

    if args.category_shares is not None and not math.isclose(sum(args.category_shares), 1.0,
                                                              abs_tol=1e-6):
        raise UsageError(f"--category-shares must add up to 1; they add up to "
                         f"{sum(args.category_shares):g}")
    k_max = min(args.max_raters, HARD_CAP)  # the table's length, a display limit
    notes: list[str] = []
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = annotators_needed(
                args.n, easy_fraction=args.easy_fraction, kappa=args.kappa,
                category_shares=args.category_shares, gamma=args.gamma, alpha=args.alpha,
                max_raters=k_max, trim=True)
        except (TypeError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    table = res.table
    empty = [int(k) for k, g in zip(table["k"], table["gamma"], strict=True) if math.isnan(g)]
    if empty:
        notes.append(f"with k = {', '.join(map(str, empty))} no item is expected to be agreed "
                     "on, so there is no gold standard to bound (gamma undefined)")
    notes += [" ".join(str(w.message).split()) for w in caught
              if "no item is expected to be agreed" not in str(w.message)]
    notes += list(res.notes)
    if args.max_raters > HARD_CAP and int(table["k"].max()) == HARD_CAP:
        notes.append(f"the table stops at k = {HARD_CAP} (asked for {args.max_raters})")
    source = (f"easy fraction {args.easy_fraction:g}" if args.easy_fraction is not None
              else f"pilot kappa {args.kappa:g}")
    report = Report(
        "plan", f"goldnoise plan: {args.n} items, {res.easy_items:g} expected easy ({source}), "
                f"target gamma <= {args.gamma:g} at alpha = {args.alpha:g}",
        parameters={"n": args.n, "gamma": args.gamma, "easy_fraction": args.easy_fraction,
                    "kappa": args.kappa, "alpha": args.alpha, "max_raters": args.max_raters,
                    "category_shares": (None if args.category_shares is None else
                                        " ".join(f"{x:g}" for x in args.category_shares))},
        primary="plan/per_k")
    s = report.add(section_from_result(
        res, "plan", "How many annotators",
        values={"n_raters": res.n_raters, "n": res.n, "easy_items": res.easy_items,
                "target_gamma": res.gamma, "alpha": res.alpha,
                "largest_k": int(table["k"].max())}))
    rows = []
    for r in table.to_dict("records"):
        agreed = args.n - int(r["expected_disagreed"])
        rows.append({"k": int(r["k"]), "p": r["p"], "agreed": agreed,
                     "disagreed": int(r["expected_disagreed"]),
                     "mean_agreed": r["expected_agreed"], "gamma": r["gamma"],
                     "hidden_hard": (None if math.isnan(r["gamma"]) else
                                     round(r["gamma"] * agreed)),
                     "meets_target": bool(r["meets_target"]),
                     "annotations": int(r["annotations"])})
    if res.n_raters is None:
        best = min((r for r in rows if r["gamma"] == r["gamma"]), key=lambda r: r["gamma"],
                   default=None)
        s.lines.append(f"no number of annotators up to {int(table['k'].max())} meets gamma <= "
                       f"{args.gamma:g}" + (f"; the best is k = {best['k']} with gamma "
                                           f"{best['gamma']:.4f}" if best else ""))
    else:
        row = next(r for r in rows if r["k"] == res.n_raters)
        s.values.update({"expected_gamma": row["gamma"], "expected_agreed": row["agreed"],
                         "annotations": row["annotations"]})
        s.lines.append(
            f"hire {res.n_raters} annotators: about {row['agreed']} of {args.n} items come out "
            f"agreed, and with confidence {args.alpha:g} at most {pct(row['gamma'])} of them "
            f"are coin-flips (gamma {row['gamma']:.4f} <= {args.gamma:g}); "
            f"{row['annotations']} annotations")
    s.tables.append(report_table("per_k", [
        Column("k", "k"), Column("p", "p(k)", fmt=lambda v: p_text(float(v))),
        Column("agreed", "agreed"), Column("disagreed", "disagreed"),
        Column("gamma", "gamma", ".4f"), Column("meets_target", "meets target"),
        Column("annotations", "annotations"),
    ], rows, title="per number of annotators k (expected outcome, counts rounded to whole "
                   "items)"))
    from goldnoise._audit import gamma_by_k

    s.figures.append(gamma_by_k([r["k"] for r in rows], [r["gamma"] for r in rows],
                                args.gamma, res.n_raters))
    s.notes += notes
    s.notes.append("p(k): chance that k annotators flipping the hard-item coin all agree; "
                   "agreed = easy items + hard items x p(k), rounded (the unrounded mean is "
                   "mean_agreed in the JSON)")
    return report
