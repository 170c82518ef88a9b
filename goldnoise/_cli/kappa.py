"""``goldnoise kappa K --items N --annotators A``: what a reported κ implies (SPEC §2.5)."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import section_from_result
from goldnoise._cli._common import capped_margin, count, p_text, pct, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise.report import Report

HELP = "what a reported kappa implies: easy items, noise of the agreed items, gamma"
DESCRIPTION = (
    "Read a kappa value from a paper through the easy/hard model: kappa estimates the share "
    "of easy items, so it implies how many items the annotators agreed on, how many of those "
    "are coin-flips (the noise bound gamma), and how far apart two systems compared on them "
    "must be. Example (Beigman Klebanov & Beigman 2009): goldnoise kappa 0.8 --items 1000 "
    "--annotators 2")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kappa", metavar="KAPPA", type=real("KAPPA", -1.0, 1.0),
                        help="the reported kappa, in [-1, 1]")
    parser.add_argument("--items", type=count("--items", 1), required=True,
                        help="items annotated (required)")
    parser.add_argument("--annotators", type=count("--annotators", 2), required=True,
                        help="annotators per item (required)")
    grp = parser.add_mutually_exclusive_group()
    grp.add_argument("--p", type=real("--p", 0.0, 1.0), default=None,
                     help="chance that the annotators agree on a hard item (default: two "
                          "equally likely categories, 0.5 ** (annotators - 1))")
    grp.add_argument("--category-shares", type=real("--category-shares", 0.0, 1.0), nargs="+",
                     metavar="SHARE", help="label distribution, e.g. 0.6 0.4: p = sum of "
                                           "share ** annotators")
    parser.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                        help="the paper's confidence alpha of the bound")


def run(args: argparse.Namespace) -> Report:
    from noise_models import audit_kappa, kappa_range

    try:
        ka = audit_kappa(args.kappa, n=args.items, n_raters=args.annotators, p=args.p,
                         category_shares=args.category_shares, alpha=args.alpha)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    report = Report("kappa", f"goldnoise kappa: kappa = {args.kappa:g} on {args.items} items, "
                              f"{args.annotators} annotators per item",
                    parameters={"kappa": args.kappa, "items": args.items,
                                "annotators": args.annotators, "p": args.p,
                                "category_shares": (None if args.category_shares is None else
                                                    " ".join(f"{x:g}" for x in
                                                             args.category_shares)),
                                "alpha": args.alpha})
    s = report.add(section_from_result(
        ka, "kappa_audit", "What the kappa claim implies (kappa estimates the share of easy "
        "items)", exclude=("notes", "kappa_low", "kappa_high", "confidence_level", "threshold",
                           "threshold_in_interval"),
        values={"hidden_hard": ka.bound.hidden_hard}))
    s.lines += [
        f"about {ka.easy_items:.1f} easy items of {ka.n}; with chance agreement p = "
        f"{p_text(ka.p)} on a hard item, about {ka.agreed} items come out agreed",
        f"point estimate: {ka.agreed - ka.easy_items:.1f} of the {ka.agreed} agreed items are "
        f"coin-flips ({pct(ka.point_noise)})",
        f"with confidence {ka.alpha:g}, at most {ka.bound.hidden_hard} of them are: gamma = "
        f"{ka.gamma:.4f} ({pct(ka.gamma)})",
    ]
    s.notes += [n.replace("(no `p` or `category_shares` given)",
                          "(no --p or --category-shares given)") for n in ka.notes]
    if args.annotators > 2:
        r = report.add(section_from_result(None, "kappa_range", "Kappa for this much agreement"))
        try:
            kr = kappa_range(ka.n, ka.agreed, args.annotators,
                             category_shares=args.category_shares)
        except ValueError as exc:
            r.undefined(str(exc))
        else:
            r.values.update({"lowest": kr.lowest, "most_likely": kr.most_likely,
                             "highest": kr.highest, "agreed": ka.agreed})
            r.lines.append(f"{ka.agreed} unanimous items of {ka.n} with {args.annotators} "
                           f"annotators fit any kappa from {kr.lowest:.4f} (disagreements split "
                           f"as evenly as possible) to {kr.highest:.4f} (as unevenly as "
                           f"possible); {kr.most_likely:.4f} at the likeliest mix")
    margin, margin_note = capped_margin(ka.agreed, ka.gamma, args.alpha)
    m = report.add(section_from_result(
        margin, "margin", "Comparing two systems on the agreed items",
        values={"margin": margin.margin, "share": margin.share, "sigma": margin.sigma,
                "hard_items": margin.R, "method": margin.method}))
    m.lines.append(f"two systems equally good on easy items can differ by chance by up to "
                   f"{margin.margin:.1f} items ({pct(margin.share)} of {ka.agreed}) at alpha = "
                   f"{args.alpha:g} ({margin.method} bound)")
    if margin_note:
        m.notes.append(margin_note)
    return report
