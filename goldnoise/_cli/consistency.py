"""``goldnoise consistency PRED... --gold probe.conll``: label consistency across subsets."""

from __future__ import annotations

import argparse
from pathlib import Path

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability
from goldnoise.report import Column, Report

HELP = "label consistency across subsets: span F1 of models trained under several conditions"
DESCRIPTION = (
    "Zeng et al. (2021): train one model under several conditions — on training data only, "
    "or with a suspect subset (e.g. the test set) added first or last — and let each predict "
    "the same probe set drawn from the training data. A condition that predicts the probe "
    "worse adds something less consistent with the rest: its labels, but also its texts, "
    "its place in the feeding order and its amount of data. Only a control — the same "
    "training with the subset's labels corrected (--control CONDITION=CONTROL) — splits the "
    "gap into what the correction removes (labels) and what remains (not labels). Prints "
    "each condition's span F1 (exact match) with a bootstrap interval, a paired interval of "
    "every difference (documents resampled jointly), each control's split and a verdict "
    "saying what can and cannot be attributed to labels.\n\n"
    "PRED files are per-token scores (.csv/.tsv/.parquet/.jsonl: id columns document and "
    "token, one probability column per tag; one file per condition, or one with "
    "--model-column) or, with --predictions conll, CoNLL files of predicted tags. Documents "
    "are numbered from 1 in the order of the gold file (its -DOCSTART- blocks, else its "
    "sentences), tokens from 0 within each.\n\n"
    "Examples:\n"
    "  goldnoise consistency PureTrain.csv TrainTest.csv TestTrain.csv --gold probe.conll\n"
    "  goldnoise consistency preds.parquet --model-column condition --gold probe.conll\n"
    "  goldnoise consistency a.conll b.conll --predictions conll --gold probe.conll "
    "--conditions PureTrain TestTrain\n"
    "  goldnoise consistency PureTrain.csv TestTrain.csv TestTrainCorrect.csv --gold "
    "probe.conll --control TestTrain=TestTrainCorrect")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="PRED",
                        help="the predictions on the probe set: one file per condition (named "
                             "by its stem, or by --conditions), or one file with --model-column")
    g = parser.add_argument_group("consistency")
    g.add_argument("--gold", required=True, metavar="FILE",
                   help="the probe set's gold labels, a CoNLL file (token and tag columns; "
                        "the tags in the last column, e.g. CoNLL-2003's token POS chunk NER)")
    g.add_argument("--tag-column", type=int, metavar="N", default=None,
                   help="the column of the CoNLL files holding the tags, 0 the first, -1 the "
                        "last (default: the last, as in CoNLL-2003's token POS chunk NER)")
    g.add_argument("--predictions", choices=("scores", "conll"), default="scores",
                   help="what the PRED files hold (default: %(default)s)")
    g.add_argument("--conditions", nargs="+", metavar="NAME",
                   help="names of the conditions, in the order of the files; with "
                        "--model-column the models to compare (default: all)")
    g.add_argument("--control", action="append", metavar="CONDITION=CONTROL", default=None,
                   help="CONTROL is CONDITION's training with the subset's labels corrected; "
                        "reports which part of CONDITION's gap is labels (repeatable)")
    g.add_argument("--model-column", metavar="NAME",
                   help="column naming each row's condition, for one file holding several")
    g.add_argument("--id-columns", nargs=2, default=["document", "token"],
                   metavar=("DOCUMENT", "TOKEN"),
                   help="the id columns of score files (default: document token)")
    g.add_argument("--scheme", choices=("BIO", "BIOES", "IO"), default="BIO",
                   help="tag scheme of the gold and the predicted tags")
    g.add_argument("--resamples", type=count("--resamples", 1), default=2000, metavar="B",
                   help="bootstrap resamples of documents (default: %(default)s)")
    g.add_argument("--confidence-level", type=probability("--confidence-level"), default=0.95,
                   help="level of the intervals (default: %(default)s)")
    g.add_argument("--seed", type=count("--seed", 0), default=0, help="seed of the bootstrap")


def _renumbered(spans, prefix: str):
    """The spans of one CoNLL file with documents ``"<stem>:n"`` renamed ``n`` (1, 2, ...)."""
    from agreement.spans import Spans

    def num(d):
        return int(str(d).rsplit(":", 1)[1]) if str(d).startswith(prefix) else d

    frame = spans.frame.assign(document=spans.frame["document"].map(num))
    return Spans(frame, coverage=[(a, num(d)) for a, d in spans.coverage], unit=spans.unit,
                 lengths={num(d): n for d, n in spans.lengths.items()})


def _only(spans, keep):
    from agreement.spans import Spans

    return Spans(spans.frame[spans.frame["annotator"].isin(keep)],
                 coverage=[(a, d) for a, d in spans.coverage if a in keep], unit=spans.unit,
                 lengths=spans.lengths)


def _read(args: argparse.Namespace):
    """(predictions, gold, conditions) for :func:`simulation.subset_consistency`."""
    from agreement.spans import read_conll
    from goldnoise._cli._errors import DataError, UsageError
    from simulation import load_scores

    gold_path = Path(args.gold)
    files = [Path(f) for f in args.files]
    for f in [gold_path, *files]:
        if not f.is_file():
            raise DataError(f"{f}: no such file")
        if f.stat().st_size == 0 or not f.read_bytes()[:65536].strip():
            raise DataError(f"{f} is empty")
    names = args.conditions
    if args.model_column is None and names is not None and len(names) != len(files):
        raise UsageError(f"--conditions names {len(names)} condition(s) for {len(files)} "
                         "file(s)")
    if args.predictions == "conll":
        if args.model_column is not None:
            raise UsageError("--model-column is for score files, not --predictions conll")
        names = names or [f.stem for f in files]
        if "gold" in names or len(set(names)) != len(names):
            raise UsageError(f"the conditions need distinct names other than 'gold'; got "
                             f"{names} (name them with --conditions)")
        both = read_conll([gold_path, *files], annotators=["gold", *names], scheme=args.scheme,
                          tag_column=args.tag_column)
        # A file without a probe document would count that document's gold spans as
        # misses: refuse it, as a score file lacking tokens is refused.
        probe = [d for a, d in both.coverage if a == "gold"]
        for name, f in zip(names, files, strict=True):
            have = {d for a, d in both.coverage if a == name}
            lacking = sorted((d for d in probe if d not in have), key=str)
            if lacking:
                raise DataError(f"{f} lacks {len(lacking)} of the {len(probe)} documents of "
                                f"the probe set {gold_path} (e.g. document {lacking[0]}, "
                                "counted from 1): predict every probe document (its spans "
                                "would count as misses)")
        return _only(both, set(names)), _only(both, {"gold"}), names
    gold = _renumbered(read_conll(gold_path, annotators=["gold"], scheme=args.scheme,
                                  tag_column=args.tag_column), f"{gold_path.stem}:")
    items = [(d, t) for d in gold.documents for t in range(gold.lengths[d])]
    if args.model_column is not None:
        if len(files) != 1:
            raise UsageError("--model-column reads one file holding every condition; got "
                             f"{len(files)} files")
        scores = load_scores(files[0], items=items, id_column=tuple(args.id_columns),
                             model_column=args.model_column)
        return scores, gold, list(names or scores.model_names)
    stems = [f.stem for f in files]
    names = names or stems
    if len(set(names)) != len(names):
        raise UsageError(f"two files have the name {names}; name the conditions with "
                         "--conditions")
    scores = load_scores({n: f for n, f in zip(names, files, strict=True)}, items=items,
                         id_column=tuple(args.id_columns))
    return scores, gold, names


def _name_the_undecodable(paths) -> None:
    """Raise a DataError naming the first text file that is not UTF-8, its line and byte."""
    from goldnoise._cli._errors import DataError

    for p in map(Path, paths):
        if p.suffix.lower() == ".parquet" or not p.is_file():
            continue
        raw = p.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise DataError(f"{p}, line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                            "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None


def run(args: argparse.Namespace) -> Report:
    from goldnoise._cli._errors import DataError, UsageError
    from simulation import subset_consistency

    controls = {}
    for spec in args.control or []:
        cond, sep, ctrl = spec.partition("=")
        if not sep or not cond or not ctrl:
            raise UsageError(f"--control takes CONDITION=CONTROL (e.g. "
                             f"TestTrain=TestTrainCorrect); got {spec!r}")
        if cond in controls and controls[cond] != ctrl:
            raise UsageError(f"--control gives condition {cond!r} two controls "
                             f"({controls[cond]!r} and {ctrl!r}); give it one")
        controls[cond] = ctrl
    try:
        try:
            predictions, gold, conditions = _read(args)
        except UnicodeDecodeError:
            _name_the_undecodable([args.gold, *args.files])
            raise
        res = subset_consistency(predictions, gold, conditions=conditions, scheme=args.scheme,
                                 controls=controls or None, n_resamples=args.resamples,
                                 confidence_level=args.confidence_level, rng=args.seed)
    except (ValueError, TypeError, OSError, UnicodeDecodeError) as exc:
        raise DataError(" ".join(str(exc).split())) from None
    source = " ".join(args.files)
    report = Report("consistency", f"goldnoise consistency: {source} against {args.gold}",
                    parameters={"predictions": source, "gold": args.gold,
                                "resamples": args.resamples, "seed": args.seed,
                                "confidence_level": args.confidence_level},
                    primary="consistency/conditions", companions=["consistency/differences"])
    verdict = res.verdict.replace("given as controls=", "given with --control "
                                  "CONDITION=CONTROL")
    s = report.add(section_from_result(
        res, "consistency", "Label consistency across subsets (Zeng et al. 2021): span F1 on "
        "the probe set", values={"least_consistent": res.least_consistent, "verdict": verdict,
                                 "n_documents": res.n_documents}))
    pct = f"{100 * res.confidence_level:g}%"
    s.lines.append(f"{len(conditions)} conditions on {res.n_documents} probe documents; "
                   f"{pct} percentile intervals from {args.resamples} resamples of documents "
                   "(the same for every condition)")
    s.lines.append(verdict)
    s.tables.append(report_table("conditions", [
        Column("condition", align="<"), Column("tp"), Column("fp"), Column("fn"),
        Column("precision", fmt=".4f"), Column("recall", fmt=".4f"),
        Column("f1", "F1", ".4f"), Column("low", fmt=".4f"), Column("high", fmt=".4f")],
        res.f1.reset_index().to_dict(orient="records"), title="per condition"))
    s.tables.append(report_table("differences", [
        Column("first", align="<"), Column("second", align="<"),
        Column("difference", fmt="+.4f"), Column("low", fmt="+.4f"),
        Column("high", fmt="+.4f"), Column("separated")],
        res.differences.to_dict(orient="records"),
        title="differences of F1 (first - second), paired"))
    if not res.controls.empty:
        s.tables.append(report_table("controls", [
            Column("condition", align="<"), Column("control", align="<"),
            Column("reference", align="<"), Column("gap", fmt="+.4f"),
            Column("labels", fmt="+.4f"), Column("low", fmt="+.4f"), Column("high", fmt="+.4f"),
            Column("not_labels", "not labels", "+.4f"),
            Column("labels_share", "labels share", ".0%")],
            res.controls.to_dict(orient="records"),
            title="controls: the gap (reference - condition) split into labels (control - "
                  "condition, paired) and not labels (reference - control)"))
    s.notes += list(res.notes)
    return report
