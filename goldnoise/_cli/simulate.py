"""``goldnoise simulate``: simulation studies; ``simulate coverage`` is how often a bound holds.

``goldnoise simulate coverage N`` runs :func:`simulation.gamma_coverage` (the
noise bound γ across true hard counts) or, with ``--bound verified``,
:func:`simulation.verified_sample_coverage` (the verified-sample bound across
true error counts), and prints the coverage table.
"""

from __future__ import annotations

import argparse
from typing import Any

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._audit import progress
from goldnoise._cli._common import count, probability, real
from goldnoise._cli._errors import UsageError
from goldnoise._cli._output import add_output_arguments
from goldnoise.report import Column, Report

HELP = ("simulation studies: how often the noise bounds hold (coverage); realistic noisy labels "
        "(noise) and voter-pool soft labels (voters)")
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

NOISE_DESCRIPTION = (
    "Similarity-based instance-dependent noise (NoisywikiHow): each item's most similar item of "
    "another class (cosine similarity of its embedding); within each noise source the RATE "
    "share of items most similar to another class are corrupted: with --pool (NoisywikiHow) "
    "they keep their label and take the input of their most similar pool item, else they "
    "take their neighbour's class (a changed item's neighbour is never changed). Writes every "
    "item with its new label, the clean one, and the provenance of each change (neighbour, "
    "similarity, source).\n\n"
    "Examples:\n"
    "  goldnoise simulate noise labels.csv embeddings.parquet --rate 0.2 --out noisy.csv\n"
    "  goldnoise simulate noise labels.csv emb.npy --rate 0.4 --sources sources.csv --seed 1")

SEPARABILITY_DESCRIPTION = (
    "How well the loss of the given labels separates the noisy items from the clean ones: "
    "the AUROC of the per-item loss and the overlap of the two loss histograms, with "
    "stratified bootstrap intervals. Synthetic noise separates; human-like noise does not "
    "(NoisywikiHow, Fig. 3). --plot draws the two histograms.\n\n"
    "Examples:\n"
    "  goldnoise simulate noise labels.csv emb.parquet --rate 0.2 --out noisy.csv\n"
    "  goldnoise simulate separability oof_probs.npz --noisy noisy.csv --plot figures/")

VOTERS_DESCRIPTION = (
    "Voter pools (CILN): each model's predicted distribution is a voter; per item, --votes "
    "votes are drawn: a voter uniformly, and its prediction (the most probable class, CILN's "
    "rule), or with --vote sample a class drawn from its distribution. Writes the soft "
    "labels (vote shares) and the reference label per item, and reports the noise rate delta "
    "and nth when true labels are given.\n\n"
    "Examples:\n"
    "  goldnoise simulate voters resnet.npz vit.npz clip.npz --votes 50 --labels truth.csv "
    "--out soft.csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="study", required=True, metavar="STUDY")
    _add_coverage(sub, parser)
    _add_noise(sub, parser)
    _add_voters(sub, parser)
    _add_separability(sub, parser)


def _add_coverage(sub: Any, parser: argparse.ArgumentParser) -> None:
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


def _add_noise(sub: Any, parser: argparse.ArgumentParser) -> None:
    n = sub.add_parser("noise", help="similarity-based noisy labels with provenance "
                                     "(NoisywikiHow)",
                       description=NOISE_DESCRIPTION, formatter_class=parser.formatter_class)
    n.add_argument("labels", metavar="LABELS",
                   help="file of clean labels: an id column and a label column")
    n.add_argument("embeddings", metavar="EMBEDDINGS",
                   help="one vector per item: .parquet/.csv (id column + one column per "
                        "dimension), .npz (ids + logits arrays) or .npy (rows in the order of "
                        "LABELS)")
    n.add_argument("--rate", type=real("--rate", 0.0, 1.0), required=True,
                   help="share of items to change, e.g. 0.1, 0.2, 0.4, 0.6 (required)")
    n.add_argument("--sources", metavar="FILE",
                   help="noise sources: a file with a class column and a source column "
                        "(default: one source)")
    n.add_argument("--pool", nargs=2, metavar=("POOL_LABELS", "POOL_EMBEDDINGS"),
                   help="a separate pool of candidates (NoisywikiHow): its labels and its "
                        "vectors, as LABELS and EMBEDDINGS; the hard cases keep their label "
                        "and take a pool item's input")
    n.add_argument("--parents", metavar="FILE",
                   help="parent classes: a file with a class column and a parent column; an "
                        "item of a class with a parent takes candidates of its sibling "
                        "classes only")
    n.add_argument("--method", choices=("published", "in-data"), default="published",
                   help="published (default): NoisywikiHow's construction, each source "
                        "round(RATE x size), no swaps; in-data: the construction of earlier "
                        "versions (one count split over the sources, mutual neighbours swap)")
    n.add_argument("--id-column", default=None, metavar="NAME",
                   help="id column of LABELS and of the embeddings file (default: 'id'; for "
                        "LABELS without one, its first column)")
    n.add_argument("--label-column", metavar="NAME",
                   help="label column of LABELS (default: the first column that is not the id)")
    n.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="random seed (breaks ties)")
    add_output_arguments(n)


def _add_voters(sub: Any, parser: argparse.ArgumentParser) -> None:
    v = sub.add_parser("voters", help="soft labels from a pool of models' distributions (CILN)",
                       description=VOTERS_DESCRIPTION, formatter_class=parser.formatter_class)
    v.add_argument("scores", nargs="+", metavar="SCORES",
                   help="per-item probabilities or logits of each voter model (.npz with ids, "
                        ".csv/.tsv, .parquet, .jsonl; one file per model, or one file with "
                        "--model-column)")
    v.add_argument("--votes", type=count("--votes", 1), required=True,
                   help="votes drawn per item (required)")
    v.add_argument("--labels", metavar="FILE",
                   help="true labels (an id column and a label column): kept as the reference, "
                        "and delta and nth are reported")
    v.add_argument("--kind", choices=("probs", "logits"),
                   help="what the score files hold (default: as the files say)")
    v.add_argument("--id-column", default="id", metavar="NAME", help="id column of the files")
    v.add_argument("--model-column", metavar="NAME",
                   help="column naming the model of each row, for a file holding several")
    v.add_argument("--vote", choices=("argmax", "sample"), default="argmax",
                   help="how a drawn voter votes: its most probable class (argmax, CILN's "
                        "rule; default) or a class drawn from its distribution (sample)")
    v.add_argument("--seed", type=count("--seed", 0), default=0, help="random seed")
    add_output_arguments(v)


def _add_separability(sub: Any, parser: argparse.ArgumentParser) -> None:
    sp = sub.add_parser("separability", help="how well a model's loss separates noisy from "
                                             "clean items (NoisywikiHow Fig. 3)",
                        description=SEPARABILITY_DESCRIPTION,
                        formatter_class=parser.formatter_class)
    sp.add_argument("scores", nargs="+", metavar="SCORES",
                    help="per-item probabilities or logits of a model trained on the noisy "
                         "labels (several files: the loss is averaged over models)")
    sp.add_argument("--noisy", metavar="FILE", required=True,
                    help="the noisy labels, as `simulate noise --out` writes them: an item "
                         "column, a label column and a changed column (true/false)")
    sp.add_argument("--kind", choices=("probs", "logits"),
                    help="what the score files hold (default: as the files say)")
    sp.add_argument("--id-column", default="id", metavar="NAME",
                    help="id column of the score files")
    sp.add_argument("--bins", type=count("--bins", 1), default=30,
                    help="bins of the common histogram grid of the overlap")
    sp.add_argument("--resamples", type=count("--resamples", 1), default=1999,
                    help="bootstrap resamples of the intervals")
    sp.add_argument("--confidence-level", type=probability("--confidence-level"),
                    default=0.95, help="of the intervals")
    sp.add_argument("--seed", type=count("--seed", 0), default=0, help="random seed")
    add_output_arguments(sp)


def _grid(n: int, shares: tuple[float, ...]) -> list[int]:
    return sorted({round(s * n) for s in shares})


def _columns(first: str, first_label: str, extra: list[Column]) -> list[Column]:
    return [Column(first, first_label, "d"), Column("coverage", "coverage", ".3f"),
            Column("coverage_low", "95% low", ".3f"), Column("coverage_high", "95% high", ".3f"),
            Column("exact_coverage", "exact", ".3f"), *extra]


def run(args: argparse.Namespace) -> Report:
    if args.study == "noise":
        return _run_noise(args)
    if args.study == "voters":
        return _run_voters(args)
    if args.study == "separability":
        return _run_separability(args)
    return _run_coverage(args)


def _params(args: argparse.Namespace) -> dict:
    return {k: (" ".join(map(str, v)) if isinstance(v, list) else v)
            for k, v in vars(args).items()
            if not k.startswith("_") and k not in ("command", "format", "out", "quiet")}


def _id_label_series(path: str, id_column: str | None, label_column: str | None, what: str,
                     *, fallback: str = "id"):
    """Ids and one label column of ``path``. ``id_column`` given must exist (a wrong name
    used to fall back to the first column without a word); None looks for ``fallback``,
    else takes the first column."""
    from pathlib import Path

    import pandas as pd

    from goldnoise._cli._errors import DataError
    from goldnoise._cli._reading import read_table

    frame = read_table(Path(path))
    if id_column is not None and id_column not in frame.columns:
        raise DataError(f"{path} has no id column {id_column!r} (columns: "
                        f"{', '.join(map(str, list(frame.columns)[:8]))}); name it with "
                        "--id-column")
    name = id_column if id_column is not None else fallback
    ids = name if name in frame.columns else frame.columns[0]
    rest = [c for c in frame.columns if c != ids]
    if label_column is not None:
        if label_column not in frame.columns:
            raise DataError(f"{path} has no column {label_column!r} (columns: "
                            f"{', '.join(map(str, frame.columns))})")
        rest = [label_column]
    if not rest:
        raise DataError(f"{path} needs an id column and a {what} column")
    if frame[ids].duplicated().any():
        raise DataError(f"{path} repeats ids, e.g. {frame[ids][frame[ids].duplicated()].iloc[0]!r}")
    series = pd.Series(frame[rest[0]].to_numpy(), index=pd.Index(frame[ids].to_numpy(),
                                                                  name="item"), name=rest[0])
    if series.isna().any():
        raise DataError(f"{path}: {int(series.isna().sum())} rows have no {what}")
    return series


def _embeddings_file(path: str, items, id_column: str):
    """One vector per labelled item, in the labels' order, read by ``id_column``."""
    from pathlib import Path

    import numpy as np

    from goldnoise._cli._errors import DataError
    from simulation import load_scores

    p = Path(path)
    if p.suffix.lower() in (".csv", ".tsv", ".parquet"):
        from goldnoise._cli._reading import read_table

        head = read_table(p)
        if id_column not in head.columns:
            raise DataError(f"{path} has no id column {id_column!r} (columns: "
                            f"{', '.join(map(str, list(head.columns)[:8]))}); name it with "
                            "--id-column")
    ids = items.to_numpy() if p.suffix.lower() == ".npy" else None
    scores = load_scores(p, items=items, kind="logits", ids=ids, id_column=id_column)
    return np.asarray(scores.values[0], dtype=np.float64)


def _run_noise(args: argparse.Namespace) -> Report:
    from pathlib import Path

    from goldnoise._cli._errors import DataError
    from simulation import perturb_similar

    labels = _id_label_series(args.labels, args.id_column, args.label_column, "label")
    sources = None
    if args.sources is not None:
        src = _id_label_series(args.sources, None, None, "source", fallback="class")
        sources = {k: v for k, v in src.items()}
        # class names read from text files: match the labels' own values by their text
        by_text = {str(k): v for k, v in sources.items()}
        sources = {c: by_text.get(str(c)) for c in labels.unique() if str(c) in by_text}
    parents = None
    if args.parents is not None:
        par = _id_label_series(args.parents, "class", None, "parent")
        parents = {str(k): v for k, v in par.items()}
    pool_labels = pool_embeddings = None
    if args.pool is not None:
        pool_labels = _id_label_series(args.pool[0], args.id_column, args.label_column,
                                       "label")
        pool_embeddings = args.pool[1]
        if not Path(pool_embeddings).is_file():
            raise DataError(f"no such file: {pool_embeddings}")
    if parents is not None:  # class names read from text files: match them by their text
        names = [*labels.unique(), *([] if pool_labels is None else pool_labels.unique())]
        parents = {c: parents[str(c)] for c in names if str(c) in parents}
    if not Path(args.embeddings).is_file():
        raise DataError(f"no such file: {args.embeddings}")
    try:
        # Read here, by --id-column, and pass the vectors: perturb_similar then checks them
        # as it checks an array (zero rows, NaN), which it did not for a path.
        embeddings = _embeddings_file(args.embeddings, labels.index,
                                      args.id_column or "id")
        noisy = perturb_similar(labels, embeddings, rate=args.rate, sources=sources,
                                pool_labels=pool_labels, pool_embeddings=pool_embeddings,
                                parents=parents, method=args.method, rng=args.seed)
    except (TypeError, ValueError, OSError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    frame = noisy.to_frame().reset_index()
    report = Report("simulate", f"goldnoise simulate noise: {args.labels}, rate {args.rate:g}",
                    parameters=_params(args), primary="noise/items")
    s = report.add(section_from_result(
        noisy, "noise", "Similarity-based noise (NoisywikiHow)",
        values={"n_items": len(frame), "n_changed": noisy.n_changed, "rate": args.rate}))
    per = frame.groupby("noise_source")["changed"].agg(["size", "sum"]).reset_index()
    what = ("had their input replaced by their most similar pool item of another class "
            "(labels kept)" if args.pool is not None
            else "changed to the class of their most similar item of another class")
    s.lines.append(f"{noisy.n_changed} of {len(frame)} items {what} ({len(per)} noise source"
                   f"{'s' if len(per) != 1 else ''}; {args.method} construction)")
    s.tables.append(report_table("sources", [Column("noise_source", "source", align="<"),
                                             Column("size", "items"), Column("sum", "changed")],
                                 per.to_dict("records"), title="per noise source"))
    changed = frame[frame["changed"]].sort_values("similarity", ascending=False)
    cols = [Column(frame.columns[0], "item", align="<"), Column("clean", "clean", align="<"),
            Column("label", "noisy", align="<"), Column("neighbour", "neighbour", align="<"),
            Column("similarity", "similarity", ".4f"), Column("noise_source", "source",
                                                              align="<")]
    if "neighbour_class" in frame:
        cols.insert(4, Column("neighbour_class", "its class", align="<"))
    s.tables.append(report_table("changed", cols, changed,
                                 title="changed items, most similar first", shown=10))
    s.tables.append(report_table("items", [*cols, Column("changed", "changed")], frame,
                                 title="every item, in the order of LABELS", shown=5))
    if args.pool is None:
        s.notes.append("the paper replaces the input by a pool item's and keeps the label; "
                       "without a pool (--pool), the label takes the neighbour's class")
    return report


def _score_ids(path: str, id_column: str):
    from pathlib import Path

    import numpy as np

    from goldnoise._cli._errors import DataError
    from goldnoise._cli._reading import read_table

    p = Path(path)
    if not p.is_file():
        raise DataError(f"no such score file: {path}")
    if p.suffix == ".npz":
        with np.load(p, allow_pickle=False) as z:
            if "ids" not in z:
                raise DataError(f"{path} has no ids array")
            return z["ids"]
    frame = read_table(p)
    if id_column not in frame.columns:
        raise DataError(f"{path} has no id column {id_column!r}; name it with --id-column")
    return frame[id_column].drop_duplicates().to_numpy()


def _run_voters(args: argparse.Namespace) -> Report:
    from pathlib import Path

    from goldnoise._cli._errors import DataError
    from noise_models import noise_rate, noise_transition_heterogeneity
    from simulation import load_scores, voter_labels

    for path in args.scores:  # every one, not only the first (a later one raised a traceback)
        if not Path(path).is_file():
            raise DataError(f"no such score file: {path}")
    items = _score_ids(args.scores[0], args.id_column)
    truth = None
    if args.labels is not None:
        # the default "id" may be absent from the labels file (its first column is then the
        # id, as before); a name given must be there
        truth = _id_label_series(args.labels, None if args.id_column == "id" else
                                 args.id_column, None, "label")
        items = truth.index.to_numpy()
    try:
        scores = load_scores(list(args.scores), items=items, id_column=args.id_column,
                             kind=args.kind, model_column=args.model_column)
        if truth is not None and scores.classes is not None:
            known = {str(c): c for c in scores.classes}
            bad = sorted({str(v) for v in truth} - set(known))
            if bad:
                raise DataError(f"labels {bad[:5]} are not classes of the scores "
                                f"{list(known)[:10]}")
            truth = truth.map(lambda v: known[str(v)])
        soft = voter_labels(scores, n_votes=args.votes, labels=truth, vote=args.vote,
                            rng=args.seed)
    except (TypeError, ValueError, OSError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    frame = soft.to_frame().reset_index()
    report = Report("simulate", f"goldnoise simulate voters: {scores.n_models} voters, "
                                f"{args.votes} votes per item", parameters=_params(args),
                    primary="voters/items")
    s = report.add(section_from_result(
        soft, "voters", "Voter-pool soft labels (CILN)",
        values={"n_items": soft.n_instances, "n_voters": scores.n_models,
                "n_votes": args.votes, "vote": args.vote}))
    how = ("each vote a drawn voter's most probable class" if args.vote == "argmax"
           else "each vote a class drawn from a drawn voter's distribution")
    s.lines.append(f"{soft.n_instances} items, {scores.n_models} voters "
                   f"({', '.join(map(str, scores.model_names))}), {args.votes} votes each "
                   f"({how})")
    if truth is not None:
        rate = noise_rate(soft)
        nth = noise_transition_heterogeneity(soft)
        s.values.update({"delta": rate.rate, "nth": nth.nth})
        s.lines.append(f"noise rate delta {rate.rate:.4f} (mean 1 - share of votes for the "
                       f"true label); nth {nth.nth:.4f} (0: class-conditional noise)")
    else:
        s.lines.append("reference label: one vote drawn per item (give --labels for the "
                       "truth, delta and nth)")
    s.tables.append(report_table("items", [Column(c, str(c)) for c in frame.columns],
                                 frame.to_dict("records"), title="soft labels per item", shown=10))
    return report


def _run_separability(args: argparse.Namespace) -> Report:
    from pathlib import Path

    from goldnoise._cli._errors import DataError
    from goldnoise._cli._reading import read_table
    from goldnoise.report import Figure
    from simulation import load_scores, loss_separability

    frame = read_table(Path(args.noisy))
    cols = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in ("label", "changed") if c not in cols]
    if missing:
        raise DataError(f"{args.noisy} needs columns label and changed (as `goldnoise "
                        f"simulate noise --out` writes them); it lacks {', '.join(missing)}")
    item = cols.get("item", frame.columns[0])
    raw = frame[cols["changed"]].astype(str).str.strip().str.lower().map(
        {"true": True, "false": False, "1": True, "0": False})
    if raw.isna().any():
        raise DataError(f"{args.noisy}: the changed column must be true/false or 1/0")
    items = frame[item].to_numpy()
    for p in args.scores:
        if not Path(p).is_file():
            raise DataError(f"no such score file: {p}")
    try:
        scores = load_scores(list(args.scores), items=items, id_column=args.id_column,
                             kind=args.kind)
        labels = frame[cols["label"]].to_numpy()
        if scores.classes is not None:
            known = {str(c): c for c in scores.classes}
            bad = sorted({str(v) for v in labels} - set(known))
            if bad:
                raise DataError(f"labels {bad[:5]} are not classes of the scores "
                                f"{list(known)[:10]}")
            labels = [known[str(v)] for v in labels]
        res = loss_separability(scores, labels, raw.to_numpy(dtype=bool), bins=args.bins,
                                n_resamples=args.resamples,
                                confidence_level=args.confidence_level, rng=args.seed)
    except (TypeError, ValueError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    report = Report("simulate", f"goldnoise simulate separability: {args.noisy}",
                    parameters=_params(args), primary="separability/statistics")
    s = report.add(section_from_result(res, "separability",
                                       "Separability of noisy labels by loss", exclude=(),
                                       lines=[res.summary()]))
    s.lines.append("AUROC near 1 and overlap near 0: the noise is easy to find by loss "
                   "(synthetic-looking); AUROC near 0.5 and overlap near 1: it looks like the "
                   "data (human-like)")
    s.tables.append(report_table("statistics", [
        Column("statistic", "statistic", align="<"), Column("estimate", "estimate", ".4f"),
        Column("low", "low", ".4f"), Column("high", "high", ".4f")],
        res.to_frame().to_dict("records")))
    s.figures.append(Figure("loss_histograms", "Loss of noisy and clean items",
                            lambda fig: res.plot(ax=fig.add_subplot())))
    return report


def _run_coverage(args: argparse.Namespace) -> Report:
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
    report = Report("simulate", title, parameters=_params(args), primary="coverage/coverage")
    s = report.add(section_from_result(None, "coverage", "Coverage"))
    s.lines.append(what + f"; nominal {args.alpha:g}; 95% Wilson interval")
    s.tables.append(report_table("coverage", columns, tab.to_dict("records")))
    short = tab[tab["coverage_high"] < args.alpha]
    if len(short):
        first = columns[0].key
        s.notes.append(f"coverage below {args.alpha:g} (beyond binomial error) at "
                       f"{first.replace('_', ' ')} {', '.join(str(v) for v in short[first])}")
    if "exact_coverage" in tab and tab["exact_coverage"].isna().all():
        s.notes.append("exact coverage: only for the gamma bound under M1 with p known")
    return report
