"""``goldnoise judge``: may a model (an LLM judge, a classifier) replace or join the annotators?

Parses the options, reads the ratings (one row per rating: item, rater, label,
optionally the kind of rater) and renders :func:`goldnoise.judge_audit`'s
report: the humans' own agreement, the swap and join tests with paired
bootstrap intervals and a forest plot, the Alt-Test when ``--epsilon`` is
given, each candidate against each human, the majority and the latent labels,
and the candidates inside the latent-class fit. With ``--estimate CATEGORY`` it adds
:func:`noise_models.judge_estimate`'s prediction-powered prevalence of a class for
each candidate (the judge's label on every item, the humans' labels on the items
counted as human-labelled: ``--labelled FILE`` or a random ``--labelled-share``).
"""

from __future__ import annotations

import argparse

from goldnoise._cli._common import count, probability, real
from goldnoise._cli._errors import DataError, UsageError
from goldnoise._cli._input import DefaultLayout, add_ratings_arguments, load_ratings
from goldnoise._cli._reading import not_utf8
from goldnoise.report import Report

HELP = "may a model replace or join the annotators: swap and join tests, the Alt-Test"
DESCRIPTION = (
    "Audit candidate annotators (LLM judges, classifiers) against the humans on the same "
    "items: the humans' own agreement, the agreement with a candidate in a human's place "
    "(swap) or added (join) with paired bootstrap intervals and a non-inferiority decision "
    "at --margin, the Alternative Annotator Test with --epsilon, each candidate against each "
    "human, the majority and the latent labels, and the candidates inside the latent-class "
    "fit (accuracy on easy and on hard items).\n\n"
    "Examples:\n"
    "  goldnoise judge ratings.csv --item item --rater rater --label label \\\n"
    "      --candidates gpt-4 --margin 0.05 --kind-column rater_kind\n"
    "  goldnoise judge ratings.csv --candidates judge --margin 0.05 --epsilon 0.1 --plot figs\n"
    "  goldnoise judge ratings.csv --candidates judge --margin 0.05 --estimate 1 \\\n"
    "      --labelled-share 0.2 --seed 1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_ratings_arguments(parser, gold=False)
    # One row per rating unless --layout says otherwise; an export (--from) has its own.
    parser.set_defaults(layout=DefaultLayout("long"))
    a = parser.add_argument_group("judge")
    a.add_argument("--candidates", metavar="NAME", nargs="+", required=True,
                   help="the candidates' rater names (the judges)")
    a.add_argument("--margin", metavar="D", type=real("--margin"), required=True,
                   help="non-inferiority margin on the coefficient's scale, in [0, 1]: a "
                        "candidate may replace a human when the swap difference's interval "
                        "stays above -D (no default: a margin is a decision)")
    a.add_argument("--epsilon", metavar="E", type=real("--epsilon"), default=None,
                   help="also run the Alternative Annotator Test with this epsilon (0.2 "
                        "against experts, 0.15 skilled annotators, 0.1 crowd workers)")
    a.add_argument("--kind-column", metavar="COLUMN",
                   help="column saying which raters are humans (value 'human'); raters of "
                        "another kind that are not candidates are left out. Without it, a "
                        "column named rater_kind is used if FILE has one; else every rater "
                        "that is not a candidate is a human")
    a.add_argument("--coefficient", default="auto",
                   choices=("auto", "krippendorff_alpha", "fleiss_kappa", "conger_kappa",
                            "gwet_ac1", "brennan_prediger", "percent_agreement", "icc1",
                            "icc2", "icc3", "icc1k", "icc2k", "icc3k", "lin_ccc"),
                   help="the agreement coefficient (auto: Krippendorff's alpha); on a "
                        "numeric scale an intraclass correlation (icc2: two-way random, "
                        "absolute agreement, one rater) or lin_ccc")
    a.add_argument("--level", default="auto",
                   choices=("auto", "nominal", "ordinal", "interval", "ratio"),
                   help="Krippendorff's level of measurement (auto: interval when every label "
                        "is a number and there are more than two, nominal otherwise)")
    a.add_argument("--resamples", metavar="B", type=count("--resamples", 1), default=1000,
                   help="bootstrap resamples of items")
    a.add_argument("--latent-resamples", metavar="B", type=count("--latent-resamples", 0),
                   default=100, help="refits of the latent-class model for the annotators' "
                                     "accuracy intervals (0: none)")
    a.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the intervals")
    a.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of the bootstrap, the latent-class starts and the "
                        "--labelled-share draw")
    e = parser.add_argument_group("prediction-powered estimate")
    e.add_argument("--estimate", metavar="CATEGORY",
                   help="also estimate the prevalence of this label over all items from each "
                        "candidate's labels on every item and the humans' labels on the "
                        "human-labelled items (PPI++), beside the humans-only interval")
    e.add_argument("--truth", choices=("mean", "majority", "posterior"),
                   help="an item's human value: the share of its humans choosing CATEGORY "
                        "(mean, the default), the majority's label, or the one-coin "
                        "latent-class posterior")
    e.add_argument("--labelled", metavar="FILE",
                   help="the items counted as human-labelled: one item id a line (the "
                        "humans' labels of other items are ignored)")
    e.add_argument("--labelled-share", metavar="S", type=probability("--labelled-share"),
                   help="count a random share S of the human-rated items as human-labelled "
                        "(drawn with --seed): what the estimate would be with that budget")


def _humans(args: argparse.Namespace, raters: list[str]) -> list[str] | None:
    """The humans named by --kind-column (None: every rater that is not a candidate).

    Without --kind-column, a column named ``rater_kind`` of FILE is used (and said).
    """
    if args.kind_column is None and args.file is None:
        return None
    from pathlib import Path

    from goldnoise._cli._reading import read_table

    tool = getattr(args, "from_tool", None)
    if tool is not None:
        if args.kind_column is None:
            return None  # an export's raters: every one that is not a candidate is a human
        if tool != "mturk":
            raise UsageError(f"--kind-column reads a column of a table; a {tool} export has "
                             "none: leave it out (every rater that is not a candidate is a "
                             "human)")
        args.rater = ["WorkerId"]  # MTurk's batch results: one row per assignment
    frame = read_table(Path(args.file), sep=args.sep)
    if args.kind_column is None:
        if "rater_kind" not in frame.columns:
            return None
        args.kind_column = "rater_kind"
        args.kind_column_found = True
    if args.kind_column not in frame.columns:
        raise DataError(f"--kind-column {args.kind_column!r} is not a column of {args.file}; "
                        f"its columns are {', '.join(map(str, frame.columns))}")
    rater = args.rater[0] if args.rater else next(
        (c for c in frame.columns if str(c).lower() in ("rater", "annotator", "worker",
                                                         "coder")), None)
    if rater is None or len(args.rater or []) > 1:
        raise UsageError("--kind-column needs one --rater COLUMN")
    kinds = frame[[rater, args.kind_column]].drop_duplicates()
    mixed = kinds[rater][kinds[rater].duplicated()].astype(str).unique()
    if len(mixed):
        raise DataError(f"{args.file}: column {args.kind_column!r} gives rater "
                        f"{', '.join(map(repr, mixed[:3]))}{' ...' if len(mixed) > 3 else ''} "
                        "more than one kind on different rows; give each rater one kind")
    return [str(x) for x in kinds.loc[kinds[args.kind_column].astype(str).str.lower()
                                      == "human", rater] if str(x) in raters]


def _category(r, text: str):
    """The label of the ratings whose text is ``text`` (labels are read as numbers or text)."""
    for c in r.categories:
        if str(c) == text or (isinstance(c, (int, float)) and _number(text) == c):
            return c
    cats = [str(c) for c in r.categories]
    raise DataError(f"--estimate {text!r} is not a label of the file; its labels are "
                    f"{', '.join(cats[:12])}{' ...' if len(cats) > 12 else ''}")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _labelled(args: argparse.Namespace, r, humans: list[str] | None):
    """The items counted as human-labelled: --labelled FILE, --labelled-share S, or None."""
    if args.labelled is not None and args.labelled_share is not None:
        raise UsageError("give --labelled FILE or --labelled-share S, not both")
    if args.labelled is not None:
        from pathlib import Path

        path = Path(args.labelled)
        try:
            ids = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                   if line.strip()]
        except OSError as exc:
            raise DataError(f"--labelled {args.labelled}: cannot read it ({exc.strerror})") \
                from None
        except UnicodeDecodeError as exc:
            raise DataError(f"--labelled {not_utf8(path, exc)}") from None
        by_text = {str(x): x for x in r.items}
        unknown = [x for x in ids if x not in by_text]
        if not ids:
            raise DataError(f"--labelled {args.labelled} names no item: give one item id a "
                            "line (the items whose human labels count)")
        if unknown == ids[:1] and len(ids) > 1:
            raise DataError(f"--labelled {args.labelled}: its first line {ids[0]!r} is not an "
                            "item of the ratings, the others are: leave out the header line "
                            "(one item id a line)")
        if unknown:
            raise DataError(f"--labelled {args.labelled} names items that are not in the "
                            f"ratings, e.g. {', '.join(unknown[:3])}; give one item id a line")
        return [by_text[x] for x in dict.fromkeys(ids)]
    if args.labelled_share is None:
        return None
    from noise_models import labelled_sample

    try:
        return labelled_sample(r, args.labelled_share, candidates=args.candidates,
                               humans=humans, rng=args.seed)
    except ValueError as exc:
        raise UsageError(f"--labelled-share: {' '.join(str(exc).split())}") from None


def _estimates(args: argparse.Namespace, r, humans: list[str] | None) -> dict:
    """``judge_estimate`` for each candidate: {candidate: JudgeEstimateResult}."""
    import warnings

    from _goldnoise_lib.errors import EstimationWarning
    from noise_models import judge_estimate

    category = _category(r, args.estimate)
    labelled = _labelled(args, r, humans)
    people = humans if humans is not None else [str(x) for x in r.raters
                                                if str(x) not in args.candidates]
    out = {}
    for cand in args.candidates:
        try:
            with warnings.catch_warnings():  # the weak-judge warning is in the result's notes
                warnings.simplefilter("ignore", EstimationWarning)
                out[cand] = judge_estimate(r, cand, category=category,
                                           truth=args.truth or "mean",
                                           labelled=labelled, humans=people,
                                           confidence_level=args.confidence_level,
                                           rng=args.seed)
        except ValueError as exc:
            if "no judge-only items" in str(exc):
                raise UsageError(f"--estimate: every item {cand!r} rated has human labels, so "
                                 "its labels add nothing; say which items count as "
                                 "human-labelled with --labelled-share S (a random share, "
                                 "--seed) or --labelled FILE") from None
            raise DataError(f"--estimate: {' '.join(str(exc).split())}") from None
    return out


def run(args: argparse.Namespace) -> Report:
    from noise_models import judge_audit

    if args.example is not None and args.kind_column is not None:
        raise UsageError("--kind-column reads FILE; it does not go with --example")
    if args.estimate is None:
        alone = [flag for flag, value in (("--labelled", args.labelled),
                                          ("--labelled-share", args.labelled_share),
                                          ("--truth", args.truth)) if value is not None]
        if alone:
            raise UsageError(f"{' and '.join(alone)} shape{'s' if len(alone) == 1 else ''} "
                             "the prediction-powered estimate; add --estimate CATEGORY (the "
                             "label whose prevalence to estimate)")
    twice = sorted({c for c in args.candidates if args.candidates.count(c) > 1})
    if twice:
        raise UsageError(f"--candidates names {', '.join(map(repr, twice))} twice; name each "
                         "candidate once")
    loaded = load_ratings(args)
    r = loaded.ratings
    try:
        r.require_raters("the judge audit")
    except ValueError:
        what = f"--example {args.example}" if args.example else loaded.source
        raise DataError(f"{what} holds counts of labels per item, not who gave "
                        "them: the judge audit needs each rater's own labels (a long file "
                        "of item, rater, label, or a wide one of a column per rater)") from None
    raters = [str(x) for x in r.raters]
    for cand in args.candidates:
        if cand not in raters:
            raise DataError(f"--candidates {cand!r} is not a rater of the file; its raters are "
                            f"{', '.join(raters[:12])}{' ...' if len(raters) > 12 else ''}")
    humans = _humans(args, raters)
    if humans is not None:
        humans = [h for h in humans if h not in args.candidates]
    n_humans = len(humans) if humans is not None else len(raters) - len(set(args.candidates))
    if n_humans < 2:
        raise DataError(f"the judge audit needs two or more humans besides the candidates; "
                        f"the file has {n_humans}")
    if not 0.0 <= args.margin <= 1.0:
        raise UsageError(f"--margin must be in [0, 1], the coefficient's scale (a drop of "
                         f"agreement a candidate may cost); got {args.margin:g}")
    if args.epsilon is not None and not 0.0 <= args.epsilon < 1.0:
        raise UsageError(f"--epsilon must be in [0, 1); got {args.epsilon:g}")
    try:
        result = judge_audit(r, args.candidates, margin=args.margin,
                             coefficient=args.coefficient, level=args.level,
                             epsilon=args.epsilon, n_resamples=args.resamples,
                             confidence_level=args.confidence_level, rng=args.seed,
                             latent_resamples=args.latent_resamples, humans=humans)
    except ValueError as exc:
        raise DataError(" ".join(str(exc).split())) from None
    estimates = _estimates(args, r, humans) if args.estimate is not None else None
    report = result.report(source=loaded.source, estimates=estimates)
    report.notes[:0] = loaded.notes
    if estimates is not None:
        report.companions.append("estimate/estimate")  # --out x.csv writes x.estimate.csv
        report.notes.extend(f"{cand}: {note}" for cand, res in estimates.items()
                            for note in res.notes)
    if getattr(args, "kind_column_found", False):
        report.notes.append("the humans are the raters whose rater_kind is 'human' (the "
                            "file's rater_kind column; --kind-column names another)")
    if humans is not None:
        left = [x for x in raters if x not in humans and x not in args.candidates]
        if left:
            report.notes.append(f"raters neither human nor candidate, left out: "
                                f"{', '.join(left)}")
    return report
