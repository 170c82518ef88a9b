"""Options and loading shared by ``detect`` and ``crosscheck``: model scores, labels, truth."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldnoise._cli._errors import DataError, UsageError

__all__ = ["LoadedScores", "add_scores_arguments", "load_scores_for"]

METHODS = ("loss", "self_confidence", "normalized_margin", "confident_learning")


@dataclass
class LoadedScores:
    scores: Any          # ModelScores of one model (or the ensemble)
    labels: Any          # pandas Series of the judged labels, by item
    truth: Any = None    # pandas Series of bool (is the label wrong), by item, or None
    label_source: str = ""
    notes: list[str] = field(default_factory=list)


def add_scores_arguments(parser: argparse.ArgumentParser) -> None:
    """SCORES... and the options that say how to read and combine them."""
    g = parser.add_argument_group("model scores")
    g.add_argument("scores", nargs="+", metavar="SCORES",
                   help="files of per-item model outputs (.npz with an ids array, .csv/.tsv, "
                        ".parquet, .jsonl; one per model, or one with --model-column), "
                        "aligned to the items by id")
    g.add_argument("--kind", choices=("probs", "logits", "loss"),
                   help="what the score files hold (default: the array or key present; "
                        "tables: probs, or loss for a lone loss column)")
    g.add_argument("--id-column", default="id", metavar="NAME",
                   help="id column (key) of the score files (default: %(default)s)")
    g.add_argument("--ids", metavar="FILE",
                   help=".npy score files hold no ids: a file of the item id of each row, one "
                        "per line (or a .npy array of ids)")
    g.add_argument("--model-column", metavar="NAME",
                   help="column naming the model of each row, for files holding several")
    g.add_argument("--model", metavar="NAME",
                   help="rank with this model alone (FML); default: the ensemble of all (FME)")
    g.add_argument("--ensemble", choices=("probs", "logits"), default="probs",
                   help="how several models are combined: mean probabilities or mean logits "
                        "(default: %(default)s)")
    g.add_argument("--labels", metavar="COLUMN|FILE",
                   help="the labels to judge: a column of the ratings file (long: per rating "
                        "row; wide: taken out of the annotators) or a file with item and label "
                        "columns (default: the majority label of the ratings, ties to the first "
                        "category)")
    g.add_argument("--truth", metavar="FILE",
                   help="known label errors: a file with an item column and either an "
                        "is_error column (true/false, 1/0) or a truth column of correct "
                        "labels; adds detection metrics")


def read_ids(args: argparse.Namespace) -> Any:
    """The ids of ``--ids FILE`` (one per line, or a .npy array), or None."""
    import numpy as np

    spec = getattr(args, "ids", None)
    if spec is None:
        return None
    path = Path(spec)
    if not path.is_file():
        raise DataError(f"--ids {spec}: no such file")
    if path.suffix.lower() == ".npy":
        try:
            ids = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise DataError(f"--ids {spec}: {exc}") from None
        if ids.ndim != 1:
            raise DataError(f"--ids {spec} holds a {ids.ndim}-d array; it needs one id per row")
        return ids
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    ids = [line for line in lines if line]
    if not ids:
        raise DataError(f"--ids {spec} is empty; it needs one item id per line")
    return np.asarray(ids, dtype=object)


def _item_column(frame: Any) -> Any:
    for name in frame.columns:
        if str(name).strip().lower() in ("item", "id", "item_id", "unit", "subject"):
            return name
    return frame.columns[0]


def _read(path: str, what: str) -> Any:
    from goldnoise._cli._reading import read_table

    return read_table(Path(path))


def load_ratings_with_labels(args: argparse.Namespace) -> Any:
    """The ratings; ``--labels COLUMN`` (not a file) is read from them, as ``--gold`` is."""
    from goldnoise._cli._input import load_ratings

    spec = args.labels
    args.labels_column = spec is not None and not Path(spec).is_file()
    if args.labels_column:
        args.gold, args.gold_option = spec, "--labels"
    loaded = load_ratings(args)
    if args.labels_column:
        args.labels_from_column, loaded.gold = loaded.gold, None
    return loaded


def load_scores_for(args: argparse.Namespace, ratings: Any) -> LoadedScores:
    """The scores (one model or the ensemble), the judged labels and the truth."""
    import numpy as np
    import pandas as pd

    from simulation import ensemble, load_scores

    notes: list[str] = []
    paths = list(args.scores)
    if getattr(args, "example", None) and getattr(args, "file", None):
        paths.insert(0, args.file)  # with --example the first SCORES fills FILE
    for p in paths:
        if not Path(p).is_file():
            raise DataError(f"no such score file: {p}")
    try:
        scores = load_scores(paths, items=ratings, id_column=args.id_column, kind=args.kind,
                             model_column=args.model_column, ids=read_ids(args))
    except (ValueError, TypeError) as exc:
        raise DataError(str(exc).splitlines()[0]) from None
    if args.model is not None:
        if args.model not in scores.model_names:
            raise UsageError(f"--model {args.model!r} is not among the models "
                             f"{list(scores.model_names)}")
        scores = scores.select(args.model)
    elif scores.n_models > 1:
        if scores.kind == "loss":
            raise UsageError("several models of per-item losses cannot be ensembled: pick one "
                             "with --model")
        scores = ensemble(scores, args.ensemble)
        notes.append(f"{len(paths) if args.model_column is None else 'the'} models combined "
                     f"by their mean {args.ensemble} (FME)")
    # the labels to judge
    if args.labels is None:
        labels = ratings.majority_labels()
        source = "majority label of the ratings"
    elif getattr(args, "labels_column", False):
        labels = _align_ids(args.labels_from_column, ratings, f"--labels {args.labels}")
        source = f"column {args.labels!r} of the ratings file"
    else:
        frame = _read(args.labels, "labels")
        item = _item_column(frame)
        rest = [c for c in frame.columns if c != item]
        if not rest:
            raise DataError(f"{args.labels} needs an item column and a label column")
        labels = pd.Series(frame[rest[0]].to_numpy(), index=frame[item].to_numpy())
        labels = _align_ids(labels, ratings, args.labels)
        source = f"{args.labels} (column {rest[0]!r})"
    if scores.classes is not None:
        # class names from a file header are text: 2, 2.0 and "2" are one label
        from _goldnoise_lib.labels import match_labels

        values = labels.to_numpy(dtype=object)
        bad = sorted({str(v) for v in values[match_labels(values, scores.classes) < 0]})
        if bad:
            raise DataError(f"labels {bad[:5]} are not classes of the scores "
                            f"{[str(c) for c in scores.classes][:10]}")
    truth = None
    if args.truth is not None:
        frame = _read(args.truth, "truth")
        item = _item_column(frame)
        cols = {str(c).strip().lower(): c for c in frame.columns if c != item}
        if "is_error" in cols:
            raw = frame[cols["is_error"]]
            vals = raw.astype(str).str.strip().str.lower().map(
                {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False})
            if vals.isna().any():
                raise DataError(f"{args.truth}: is_error must be true/false or 1/0")
            truth = pd.Series(vals.to_numpy(dtype=bool), index=frame[item].to_numpy())
        else:
            rest = [c for c in frame.columns if c != item]
            if not rest:
                raise DataError(f"{args.truth} needs an item column and an is_error or truth "
                                "column")
            correct = pd.Series(frame[rest[0]].to_numpy(), index=frame[item].to_numpy())
            correct = _align_ids(correct, ratings, args.truth)
            truth = pd.Series(correct.astype(str).to_numpy() != labels.astype(str).to_numpy(),
                              index=labels.index)
        truth = _align_ids(truth, ratings, args.truth).astype(bool)
        if not np.any(truth.to_numpy()):
            notes.append("the truth marks no label as wrong: AP and AUROC are undefined")
    return LoadedScores(scores, labels, truth, source, notes)


def _align_ids(series: Any, ratings: Any, path: str) -> Any:
    """A by-item Series put in the order of the ratings' items (ids compared as text)."""
    import pandas as pd

    index = pd.Index([str(i) for i in series.index])
    if not index.is_unique:
        raise DataError(f"{path} repeats item ids")
    series = pd.Series(series.to_numpy(), index=index)
    want = pd.Index([str(i) for i in ratings.items])
    missing = want.difference(index)
    if len(missing):
        raise DataError(f"{path} lacks {len(missing)} of the rated items: "
                        f"{', '.join(missing[:5])}")
    return pd.Series(series.reindex(want).to_numpy(), index=ratings.items)
