"""``goldnoise bound N D P``: the noise bound γ from counts (SPEC §2.3)."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import section_from_result
from goldnoise._cli._common import capped_margin, count, p_text, pct, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise.report import Report

HELP = "the noise bound gamma from counts: goldnoise bound N D P"
DESCRIPTION = (
    "With N items of which D were disagreed on, and chance P that a hard (coin-flip) item comes "
    "out agreed, bound how many of the N - D agreed items are hard, with confidence alpha. "
    "Example (Beigman Klebanov & Beigman 2009): goldnoise bound 1000 100 0.5")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("n", metavar="N", type=count("N", 1), help="items annotated")
    parser.add_argument("d", metavar="D", type=count("D", 0),
                        help="items the annotators disagreed on")
    parser.add_argument("p", metavar="P", type=real("P", 0.0, 1.0),
                        help="chance that a hard item is agreed on (two annotators, two "
                             "equally likely categories: 0.5)")
    parser.add_argument("--alpha", type=probability("--alpha"), default=0.95,
                        help="the paper's confidence alpha of the bound")


def _small(gamma: float) -> str:
    """Four decimals, or three significant digits where four decimals would print 0.0000
    (a billion items and beyond)."""
    return f"{gamma:.4f}" if gamma == 0 or gamma >= 5e-5 else f"{gamma:.3g}"


def _big(n: int) -> str:
    """A count in digits up to 24 of them; beyond, 12 significant digits (1e+300)."""
    if abs(n) < 10**24:
        return str(n)
    from decimal import Decimal

    return format(Decimal(n).normalize(), ".12g")


def run(args: argparse.Namespace) -> Report:
    from noise_models import noise_bound

    if args.d > args.n:
        raise UsageError(f"D = {args.d} disagreed items is more than N = {args.n} items")
    if args.d == args.n:
        raise UsageError(f"D = N = {args.n}: every item was disagreed on, so there is no agreed "
                         "subset whose noise could be bounded")
    if args.p == 1.0 and args.d > 0:
        raise UsageError("P = 1 says hard items always agree, yet D > 0 items were disagreed "
                         "on: the easy/hard model cannot explain these counts")
    try:
        res = noise_bound(args.n, args.d, args.p, alpha=args.alpha)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    report = Report("bound", f"goldnoise bound: N = {_big(args.n)}, D = {_big(args.d)}, "
                             f"P = {args.p:g}",
                    parameters={"n": args.n, "d": args.d, "p": args.p, "alpha": args.alpha})
    s = report.add(section_from_result(
        res, "noise_bound", f"Noise bound of the agreed subset (alpha = {args.alpha:g})",
        values=("n", "d", "agreed", "p", "alpha", "t0", "hidden_hard", "gamma")))
    s.values.update({"prior": res.to_dict()["prior"], "method": res.method})
    s.lines += [
        f"{_big(res.agreed)} of {_big(res.n)} items agreed on, {_big(res.d)} disagreed; a hard "
        "item comes out "
        f"agreed with chance p = {p_text(res.p)}",
        f"with confidence {res.alpha:g}, at most {_big(res.hidden_hard)} of the "
        f"{_big(res.agreed)} agreed "
        f"items are hidden coin-flips: gamma = {_small(res.gamma)} ({pct(res.gamma)})",
        f"(all hard items, agreed or not: at most t0 = {_big(res.t0)})",
    ]
    from goldnoise._audit import posterior_figure

    s.figures.append(posterior_figure(res, args.alpha))
    margin, margin_note = capped_margin(res, None, args.alpha)
    m = report.add(section_from_result(
        margin, "margin", "Comparing two systems on the agreed items",
        values={"margin": margin.margin, "share": margin.share, "sigma": margin.sigma,
                "hard_items": margin.R, "method": margin.method}))
    items = f"{margin.margin:.1f}" if margin.margin < 1e15 else f"{margin.margin:.4g}"
    m.lines.append(f"two systems equally good on easy items can differ by chance by up to "
                   f"{items} items ({pct(margin.share)} of {_big(res.agreed)}) at alpha "
                   f"= {args.alpha:g} ({margin.method} bound)")
    if margin_note:
        m.notes.append(margin_note)
    return report
