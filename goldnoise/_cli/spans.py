"""``goldnoise spans FILE... --from conll|brat|labelstudio|doccano|prodigy``: span agreement."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from _goldnoise_lib.errors import DegenerateDataWarning
from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._common import count, probability
from goldnoise.report import Column, Report, Section

HELP = ("agreement of span annotations (named entities): F1 per label, pair and document, "
        "Krippendorff's unitizing alpha and its split")
DESCRIPTION = (
    "Read span annotations and report how well the annotators agree: pooled F1 (positive "
    "specific agreement) with exact, overlap or IoU matching, per label, per annotator pair "
    "(precision and recall) and per document; Krippendorff's unitizing alpha with its "
    "boundary part (|u|alpha, labels ignored) and label part (cu-alpha); with --bootstrap, "
    "intervals of every statistic from resamples of documents. Then the annotators' spans "
    "merged into candidates under the same rule (labels plus \"no entity\"): the noise "
    "bound gamma of the agreed spans and, from a latent-class fit (one-coin), the spans "
    "most likely wrong.\n\n"
    "Examples:\n"
    "  goldnoise spans ann1.conll ann2.conll --from conll --match overlap\n"
    "  goldnoise spans ann1.conll ann2.conll --from conll --bootstrap 999\n"
    "  goldnoise spans tags.conll --from conll --annotators alice bob   # one column each\n"
    "  goldnoise spans brat/alice brat/bob --from brat\n"
    "  goldnoise spans export.json --from labelstudio")

FORMATS = ("conll", "brat", "labelstudio", "doccano", "prodigy")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agreement.spans import MATCHES

    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="annotation files (conll, doccano: one per annotator, or one "
                             "with a tag column per annotator; brat: one folder per "
                             "annotator; labelstudio: one export, JSON or JSONL; prodigy: one "
                             "export)")
    g = parser.add_argument_group("spans")
    g.add_argument("--from", dest="source_format", choices=FORMATS, required=True,
                   help="what tool wrote the files")
    g.add_argument("--annotators", nargs="+", metavar="NAME",
                   help="annotator names, in the order of the files (or of the tag columns)")
    g.add_argument("--scheme", choices=("BIO", "BIOES", "IO"), default="BIO",
                   help="tag scheme of CoNLL files (BIOES also reads BILOU)")
    g.add_argument("--tag-column", type=int, nargs="+", metavar="N", default=None,
                   help="CoNLL: the column(s) holding tags, 0 the first, -1 the last (default: "
                        "the last column of each file with one file per annotator; one file: "
                        "every column after the token, one annotator each, but only the last "
                        "for CoNLL-2003's token POS chunk NER)")
    g.add_argument("--include", nargs="+", choices=("drafts", "predictions"), default=(),
                   metavar="KIND",
                   help="labelstudio: also read drafts and/or predictions as annotators "
                        "('<user> (draft)', '<model> (prediction)'); by default only submitted "
                        "annotations count, skipped ones (was_cancelled) never")
    g.add_argument("--match", choices=MATCHES, default="exact",
                   help="when two spans count as the same (default: %(default)s)")
    g.add_argument("--threshold", type=probability("--threshold"), default=0.5,
                   help="the IoU a match needs with --match iou (default: %(default)s)")
    g.add_argument("--top", type=count("--top", 1), default=10, metavar="N",
                   help="spans most likely wrong shown as text (all go to --out json)")
    g.add_argument("--bootstrap", metavar="B", type=count("--bootstrap", 0), default=None,
                   help="also bootstrap every statistic over documents with B resamples (0: "
                        "no bootstrap, as without the option): percentile intervals of span "
                        "F1 (pooled and per label), unitizing alpha and its parts and, with "
                        "CoNLL tokens, token-level kappa, alpha and AC1 (seeded by --seed); "
                        "needs 10 documents, or a CoNLL file's 10 sentences (resampled "
                        "instead, with a note)")
    g.add_argument("--seed", type=count("--seed", 0), default=0,
                   help="seed of --bootstrap: the same seed gives the same intervals")


def _read(args: argparse.Namespace):
    from agreement.spans import Spans, read_brat, read_conll, read_jsonl, read_labelstudio
    from goldnoise._cli._errors import DataError, UsageError

    files = [Path(f) for f in args.files]
    for f in files:
        if not f.exists():
            raise DataError(f"{f}: no such file or folder")
    if args.tag_column is not None and args.source_format != "conll":
        raise UsageError("--tag-column is for --from conll")
    if args.tag_column is not None and len(set(args.tag_column)) < len(args.tag_column):
        twice = sorted({c for c in args.tag_column if args.tag_column.count(c) > 1})
        raise UsageError(f"--tag-column names column {', '.join(map(str, twice))} twice: "
                         "each annotator's tags are a column of their own")
    if args.include and args.source_format != "labelstudio":
        raise UsageError("--include is for --from labelstudio (its drafts and predictions)")
    names = args.annotators
    if names is not None and args.source_format in ("brat", "doccano") and \
            len(names) != len(files):
        raise UsageError(f"--annotators names {len(names)} annotator(s) for {len(files)} "
                         "file(s)")
    try:
        if args.source_format == "conll":
            return read_conll(files if len(files) > 1 else files[0], annotators=names,
                              scheme=args.scheme, tag_column=args.tag_column)
        if args.source_format == "brat":
            return Spans.concat(read_brat(f, annotator=names[i] if names else f.name)
                                for i, f in enumerate(files))
        if args.source_format == "labelstudio":
            include = ("annotations", *args.include)
            return Spans.concat(read_jsonl(f, include=include)
                                if f.suffix.lower() == ".jsonl"
                                else read_labelstudio(f, include=include) for f in files)
        return Spans.concat(read_jsonl(f, annotator=names[i] if names else f.stem)
                            for i, f in enumerate(files))
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise DataError(" ".join(str(exc).split())) from None


def run(args: argparse.Namespace) -> Report:
    from agreement.spans import span_agreement, unitizing_alpha
    from goldnoise._cli._errors import DataError

    spans = _read(args)
    intervals = None
    try:
        with warnings.catch_warnings():
            # undefined statistics are said in their sections, with the reason
            warnings.simplefilter("ignore", DegenerateDataWarning)
            res = span_agreement(spans, match=args.match, threshold=args.threshold)
            ua = unitizing_alpha(spans)
        if args.bootstrap and len(spans):
            from agreement import span_intervals

            with warnings.catch_warnings():
                # the fallback to sentences is a note of the bootstrap section
                warnings.filterwarnings("ignore", message=r"only \d+ document")
                intervals = span_intervals(spans, match=args.match, threshold=args.threshold,
                                           n_resamples=args.bootstrap, rng=args.seed)
    except ValueError as exc:
        raise DataError(" ".join(str(exc).split())) from None
    iv = {} if intervals is None else {
        name: (float(lo), float(hi)) for name, lo, hi in zip(
            intervals.statistics, intervals.interval.low, intervals.interval.high,
            strict=True)}

    def ci(name: str) -> str:
        if name not in iv:
            return ""
        lo, hi = iv[name]
        return f" [{lo:.4f}, {hi:.4f}]"
    source = " ".join(args.files)
    report = Report("spans", f"goldnoise spans: {source}",
                    parameters={"source": source, "from": args.source_format,
                                "match": args.match, "threshold": args.threshold},
                    primary="agreement/labels", companions=["agreement/pairs"])
    s = report.add(section_from_result(
        res, "agreement", "Span agreement (F1 = positive specific agreement)",
        values={"f1": res.f1, "n_spans": len(spans), "n_annotators": res.n_annotators,
                "n_documents": res.n_documents, "unit": spans.unit}))
    f1_text = f"{res.f1:.4f}" if res.f1 == res.f1 else "undefined"
    s.lines.append(f"{len(spans)} spans by {res.n_annotators} annotators in {res.n_documents} "
                   f"documents ({spans.unit} offsets); pooled F1 {f1_text}{ci('span_f1')} "
                   f"({args.match} match)")
    s.lines.append(res.no_entity_text())
    s.values.update({"no_entity_agreement": res.no_entity_agreement,
                     "n_both_empty": res.n_both_empty, "n_one_empty": res.n_one_empty})
    s.notes += list(res.notes)
    label_rows = res.by_label.reset_index().to_dict(orient="records")
    label_cols = [Column("label", align="<"), Column("tp"), Column("fp"), Column("fn"),
                  Column("f1", "F1", ".4f")]
    if iv:
        s.values.update({"f1_low": iv["span_f1"][0], "f1_high": iv["span_f1"][1]})
        for row in label_rows:
            row["low"], row["high"] = iv.get(f"span_f1[{row['label']}]", (None, None))
        label_cols += [Column("low", fmt=".4f"), Column("high", fmt=".4f")]
    s.tables.append(report_table("labels", label_cols, label_rows, title="per label"))
    s.tables.append(report_table(
        "pairs", [Column("first", align="<"), Column("second", align="<"), Column("documents"),
                  Column("precision", fmt=".4f"), Column("recall", fmt=".4f"),
                  Column("f1", "F1", ".4f")],
        res.pairs.reset_index(), title="per annotator pair (the second against the first)",
        shown=20))
    s.tables.append(report_table(
        "documents", [Column("document", align="<"), Column("tp"), Column("fp"), Column("fn"),
                      Column("f1", "F1", ".4f")],
        res.by_document.reset_index(), title="per document", shown=10))
    u = report.add(section_from_result(
        ua, "unitizing", "Krippendorff's unitizing alpha (where the units are and which label)",
        values=("alpha", "binary_alpha", "coding_alpha", "boundary_disagreement",
                "label_disagreement", "n_documents")))
    undefined = [n for n in ua.notes if n.startswith("α_u undefined: ")]
    if undefined:
        u.undefined(undefined[0][len("α_u undefined: "):])
    else:
        u.lines += [f"alpha_u {ua.alpha:.4f}{ci('unitizing_alpha')} over {ua.n_documents} "
                    "documents with two or more annotators",
                    f"  where the units are (|u|alpha, labels ignored): {ua.binary_alpha:.4f}"
                    f"{ci('unitizing_alpha_binary')}",
                    f"  which label where units meet (cu-alpha):        {ua.coding_alpha:.4f}"
                    f"{ci('unitizing_alpha_coding')}",
                    f"  1 - alpha_u = {ua.boundary_disagreement:.4f} (unit against gap) + "
                    f"{ua.label_disagreement:.4f} (label against label)"]
    u.notes += [n for n in ua.notes if not n.startswith("α_u undefined: ")]
    if intervals is not None:
        unit = "documents" if intervals.n_items == len(spans.documents) else "sentences"
        b = report.add(section_from_result(
            intervals, "bootstrap", f"Intervals ({intervals.confidence_level:.0%}, "
            f"{intervals.method}, {args.bootstrap} resamples of {intervals.n_items} {unit})"))
        rows = intervals.to_frame().reset_index().to_dict(orient="records")
        b.tables.append(report_table(
            "intervals", [Column("statistic", align="<"), Column("estimate", fmt=".4f"),
                          Column("standard_error", "SE", ".4f"), Column("low", fmt=".4f"),
                          Column("high", fmt=".4f")],
            rows, title=f"every statistic, {unit} resampled"))
        b.notes += list(intervals.notes)
    if args.bootstrap and intervals is None:
        report.add(section_from_result(
            None, "bootstrap", "Intervals",
            undefined="no annotator marked a span: there is no span statistic to resample"))
    report.add(_noise_section(spans, args))
    return report


def _noise_section(spans, args: argparse.Namespace) -> Section:
    """Candidate spans as items: γ of the agreed ones, the spans most likely wrong."""
    from noise_models import span_noise

    title = "Candidate spans as items: noise of the agreed spans, spans most likely wrong"
    if len(spans) == 0:
        return section_from_result(None, "noise", title, undefined="no annotator marked a "
                                   "span: there is no candidate span to rate")
    res = span_noise(spans, match=args.match, threshold=args.threshold)
    s = section_from_result(res, "noise", title, values={
        "n_candidates": res.n_candidates, "n_agreed": res.n_agreed,
        "categories": [str(c) for c in res.categories]})
    if res.gamma is not None:
        s.values.update({"gamma": res.gamma, "hidden_hard": res.hidden_hard,
                         "alpha": res.alpha, "p": res.p})
    s.lines.extend(res.summary().splitlines())  # the result's own words
    if res.fit is None:
        return s.undefined("every candidate has one label: no latent-class fit")
    s.values["expected_wrong_ratings"] = res.expected_wrong
    rows = res.likely_wrong.to_dict(orient="records")
    s.tables.append(report_table("likely_wrong", [
        Column("document", align="<"), Column("start"), Column("end"),
        Column("annotator", align="<"), Column("label", align="<"),
        Column("fitted", align="<"), Column("p_wrong", "P(wrong)", ".4f")], rows,
        title="spans most likely wrong", shown=args.top))
    return s
