"""The ``goldnoise`` command line.

``goldnoise audit``  -- what a set of annotations is worth: every coefficient
                        with its interval, the noise bound γ of the agreed
                        subset, κ read through the easy/hard model, and the
                        chance-difference margin a benchmark on it must beat.
``goldnoise bound``  -- γ from counts: ``goldnoise bound N D P``.
``goldnoise plan``   -- how many annotators to hire for a target γ.
``goldnoise examples`` -- the bundled data sets.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from agreement import Ratings, agreement_table
from goldnoise import datasets
from noise_models import annotators_needed, audit_kappa, chance_margin, noise_bound

EXAMPLES = {
    "fleiss1971": "Fleiss (1971): 30 patients, each diagnosed by 6 of a pool of psychiatrists "
                  "(5 diagnoses)",
    "dawid_skene1979": "Dawid & Skene (1979): 45 patients x 7 ratings (observer 1 three times), 4 classes",
}
_READERS = {".csv": ",", ".tsv": "\t", ".txt": None}


class CliError(Exception):
    """A user error: printed without a traceback, exit status 2."""


def load_example(name: str) -> Ratings:
    """The bundled example ``name`` as Ratings."""
    if name == "fleiss1971":
        # The six columns are rating slots filled from a pool of psychiatrists,
        # not the same six people: the data are a count table (no rater identity).
        wide = Ratings.from_wide(datasets.load_fleiss1971())
        return Ratings.from_counts(wide.counts_frame())
    if name == "dawid_skene1979":
        long = datasets.load_dawid_skene1979()
        long = long.assign(rater=long["observer"].astype(str) + "." + long["replicate"].astype(str))
        return Ratings.from_long(long, item="patient", rater="rater", label="rating")
    raise CliError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES)}.")


def read_table(path: Path) -> pd.DataFrame:
    """Read a CSV, TSV, Parquet or JSON-lines file into a DataFrame."""
    if not path.exists():
        raise CliError(f"no such file: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            return pd.read_parquet(path)
        if suffix in (".jsonl", ".ndjson"):
            return pd.read_json(path, lines=True)
        if suffix in _READERS:
            return pd.read_csv(path, sep=_READERS[suffix], engine="python")
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise CliError(f"could not read {path}: {exc}") from None
    raise CliError(f"unsupported file type {suffix!r}: use .csv, .tsv, .parquet or .jsonl.")


def load_ratings(args: argparse.Namespace) -> tuple[Ratings, str]:
    if args.example is not None:
        if args.file is not None:
            raise CliError("give either a FILE or --example, not both.")
        return load_example(args.example), EXAMPLES[args.example]
    if args.file is None:
        raise CliError("give a FILE of ratings or --example NAME (see `goldnoise examples`).")
    path = Path(args.file)
    frame = read_table(path)
    try:
        if args.layout == "long":
            item = args.item or "item"
            return Ratings.from_long(frame, item=item, rater=args.rater, label=args.label), str(path)
        if args.item is not None:
            if args.item not in frame.columns:
                raise CliError(f"--item {args.item!r} is not a column of {path}: {list(frame.columns)}")
            frame = frame.set_index(args.item)
        if args.layout == "counts":
            return Ratings.from_counts(frame), str(path)
        return Ratings.from_wide(frame), str(path)
    except (KeyError, ValueError, TypeError) as exc:
        raise CliError(f"{path}: {exc}") from None


def _fmt(x: float, digits: int = 4) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def audit(ratings: Ratings, *, source: str, alpha: float, confidence_level: float,
          threshold: float | None) -> dict:
    """Everything ``goldnoise audit`` reports, as a dict of plain values and frames."""
    table = agreement_table(ratings, confidence_level=confidence_level)
    bound = noise_bound(ratings, alpha=alpha)
    kappa_audit = audit_kappa(ratings, alpha=alpha, threshold=threshold,
                              confidence_level=confidence_level)
    margin = chance_margin(L=bound.agreed, gamma=bound.gamma, alpha=alpha) if bound.agreed else None
    return {"source": source, "ratings": ratings, "table": table, "bound": bound,
            "kappa_audit": kappa_audit, "margin": margin}


def _agreement_lines(table: pd.DataFrame, confidence_level: float) -> list[str]:
    """The coefficients as an aligned text table; rows that were not computed become notes."""
    pct = f"{100 * confidence_level:g}% CI"
    done = table[table["value"].notna()]
    skipped = table[table["value"].isna()]
    width = max(len(str(name)) for name in table.index)
    lines = [f"  {'coefficient':<{width}}   value      SE   {pct:<18} observed  expected"]
    for name, row in done.iterrows():
        ci = f"[{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"
        # Percent agreement has no chance term: show a dash, not a zero.
        expected = "-" if name == "Percent agreement" else f"{row['expected']:.4f}"
        lines.append(f"  {name:<{width}}  {row['value']:>6.4f}  {row['standard_error']:>6.4f}   "
                     f"{ci:<18} {row['observed']:>8.4f}  {expected:>8}")
    for name, row in done.iterrows():
        if row.get("notes"):
            lines.append(f"  * {name}: {row['notes']}")
    for name, row in skipped.iterrows():
        reason = str(row.get("notes") or "undefined for these data").removeprefix("not computed: ")
        lines.append(f"  - {name} not computed: {reason}")
    return lines


def render_audit(report: dict, *, alpha: float, confidence_level: float = 0.95) -> str:
    r: Ratings = report["ratings"]
    bound = report["bound"]
    ka = report["kappa_audit"]
    margin = report["margin"]
    p_text = f"{bound.p:.4f}" if bound.p >= 1e-3 else f"{bound.p:.3g}"
    lines = [
        f"goldnoise audit: {report['source']}",
        f"  {r.n_items} items, {r.n_raters} annotators, {r.n_categories} categories, "
        f"{r.n_ratings} ratings",
        "",
        "Agreement",
        *_agreement_lines(report["table"], confidence_level),
        "",
        f"Noise bound of the gold standard (easy/hard model, confidence alpha = {alpha:g})",
        f"  {bound.agreed} items agreed unanimously, {bound.d} disagreed; "
        f"chance that a hard item comes out unanimous p = {p_text}",
        f"  with confidence {alpha:g}, at most {bound.t0 - bound.d} of the {bound.agreed} agreed "
        f"items are hidden coin-flips: gamma = {_fmt(bound.gamma)} "
        f"({100 * bound.gamma:.1f}% of the agreed subset)",
        "",
        "The kappa claim, read through the model (kappa estimates the share of easy items)",
        f"  Fleiss' kappa {ka.kappa:.4f}"
        + (f", {100 * ka.confidence_level:g}% CI [{ka.kappa_interval.low:.4f}, "
           f"{ka.kappa_interval.high:.4f}]" if ka.kappa_interval is not None else ""),
        f"  -> about {ka.easy_items:.1f} easy items of {ka.n}; {ka.expected_agreed:.1f} agreed "
        f"expected, {ka.agreed} observed; point noise of the agreed subset "
        f"{100 * ka.point_noise:.1f}%, gamma {100 * ka.gamma:.1f}%",
    ]
    if ka.threshold is not None and ka.threshold_in_interval is not None:
        where = "inside" if ka.threshold_in_interval else "outside"
        lines.append(f"  the claimed threshold {ka.threshold:g} is {where} kappa's interval")
    lines += [f"  * {note}" for note in ka.notes]
    if margin is not None:
        lines += [
            "",
            "Comparing two systems on the agreed subset (chance-difference margin)",
            f"  systems equally good on easy items can differ by chance by up to "
            f"{margin.margin:.1f} items ({100 * margin.share:.1f}% of {bound.agreed}) "
            f"at alpha = {alpha:g} ({margin.method} bound)",
        ]
    return "\n".join(lines)


def _jsonable(obj):
    if isinstance(obj, pd.DataFrame):
        return json.loads(obj.to_json(orient="index"))
    if isinstance(obj, Ratings):
        return {"n_items": obj.n_items, "n_raters": obj.n_raters,
                "categories": [str(c) for c in obj.categories], "n_ratings": obj.n_ratings}
    if hasattr(obj, "to_dict"):
        return {k: _jsonable(v) for k, v in obj.to_dict().items()}
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return None if not math.isfinite(obj) else float(obj)
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    return str(obj)


def _probability(name: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number in (0, 1); got {text!r}") from None
        if not 0.0 < value < 1.0:
            raise argparse.ArgumentTypeError(f"{name} must be in (0, 1); got {text}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goldnoise",
        description="How noisy is your gold standard? Agreement, the easy/hard noise bound, "
                    "kappa audits and annotation planning.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("audit", help="audit a set of annotations (a file or a bundled example)")
    p.add_argument("file", nargs="?", help="ratings: .csv, .tsv, .parquet or .jsonl")
    p.add_argument("--example", choices=sorted(EXAMPLES), help="use a bundled real data set")
    p.add_argument("--layout", choices=("wide", "long", "counts"), default="wide",
                   help="wide: items x annotators (default); long: one row per rating; "
                        "counts: items x categories")
    p.add_argument("--item", help="item id column (wide/counts: used as the index)")
    p.add_argument("--rater", default="rater", help="annotator column of long data")
    p.add_argument("--label", default="label", help="label column of long data")
    p.add_argument("--alpha", type=_probability("--alpha"), default=0.95,
                   help="confidence alpha of the noise bound (default 0.95)")
    p.add_argument("--confidence-level", type=_probability("--confidence-level"), default=0.95,
                   help="level of the coefficients' intervals (default 0.95)")
    p.add_argument("--threshold", type=float, default=None,
                   help="a claimed kappa threshold to check against the interval, e.g. 0.67")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    b = sub.add_parser("bound", help="the noise bound gamma from counts")
    b.add_argument("n", type=int, help="items")
    b.add_argument("d", type=int, help="disagreed items")
    b.add_argument("p", type=float, help="chance agreement on a hard item")
    b.add_argument("--alpha", type=_probability("--alpha"), default=0.95)
    b.add_argument("--json", action="store_true")

    pl = sub.add_parser("plan", help="how many annotators to hire for a target gamma")
    pl.add_argument("n", type=int, help="items")
    pl.add_argument("--gamma", type=_probability("--gamma"), required=True, help="target gamma")
    grp = pl.add_mutually_exclusive_group(required=True)
    grp.add_argument("--easy-fraction", type=float, help="expected share of easy items")
    grp.add_argument("--kappa", type=float, help="a pilot kappa, read as the easy share")
    pl.add_argument("--category-shares", type=float, nargs="+",
                    help="hard-item label distribution (default: uniform over 2)")
    pl.add_argument("--alpha", type=_probability("--alpha"), default=0.95)
    pl.add_argument("--max-raters", type=int, default=20)
    pl.add_argument("--json", action="store_true")

    sub.add_parser("examples", help="list the bundled data sets")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    try:
        if args.command == "examples":
            for name, what in EXAMPLES.items():
                print(f"{name:18s} {what}", file=out)
            return 0
        if args.command == "audit":
            ratings, source = load_ratings(args)
            report = audit(ratings, source=source, alpha=args.alpha,
                           confidence_level=args.confidence_level, threshold=args.threshold)
            if args.json:
                print(json.dumps(_jsonable(report), indent=2), file=out)
            else:
                print(render_audit(report, alpha=args.alpha,
                                   confidence_level=args.confidence_level), file=out)
            return 0
        if args.command == "bound":
            result = noise_bound(args.n, args.d, args.p, alpha=args.alpha)
            print(json.dumps(_jsonable(result), indent=2) if args.json else result, file=out)
            return 0
        if args.command == "plan":
            result = annotators_needed(
                args.n, easy_fraction=args.easy_fraction, kappa=args.kappa,
                category_shares=args.category_shares, gamma=args.gamma, alpha=args.alpha,
                max_raters=args.max_raters,
            )
            if args.json:
                print(json.dumps(_jsonable(result), indent=2), file=out)
            else:
                print(result, file=out)
                print(result.table.to_string(index=False, float_format=lambda v: f"{v:.4f}"),
                      file=out)
            return 0
    except CliError as exc:
        print(f"goldnoise: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        print(f"goldnoise: error: {exc}", file=sys.stderr)
        return 2
    return 1  # pragma: no cover - argparse enforces a command
