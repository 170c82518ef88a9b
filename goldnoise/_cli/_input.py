"""Reading ratings for a verb: files, layouts, bundled examples, and hints on common shapes.

Verbs that take ratings call :func:`add_ratings_arguments` on their parser and
:func:`load_ratings` in ``run``; both are shared so that every verb reads files the
same way (``.csv``, ``.tsv``, ``.txt``, each optionally ``.gz``; ``.parquet``;
``.jsonl``/``.ndjson``).
"""

from __future__ import annotations

import argparse
import re
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _goldnoise_lib.errors import GoldnoiseWarning
from goldnoise._cli._errors import CliError, DataError, UsageError
from goldnoise._cli._reading import SUFFIXES, _one_line, not_utf8, read_table

__all__ = ["EXAMPLES", "DefaultLayout", "LoadedRatings", "add_ratings_arguments", "load_ratings",
           "read_labels_file"]

EXAMPLES = {
    "fleiss1971": "Fleiss (1971): 30 patients, each diagnosed by 6 of a pool of psychiatrists "
                  "(5 diagnoses)",
    "dawid_skene1979": "Dawid & Skene (1979): 45 patients x 7 ratings (observer 1 three times), "
                       "4 classes",
    "krippendorff2011": "Krippendorff (2011), example C: 12 units x 4 coders, values 1-5 "
                        "(ordered), gaps",
    "hayes_krippendorff2007": "Hayes & Krippendorff (2007): tone of 40 news articles x 5 "
                              "observers, ordinal 0-3, gaps",
    "artstein_poesio2008": "Artstein & Poesio (2008): 100 utterances x 2 coders, 3 dialogue acts",
}

EXPORT_TOOLS = ("labelstudio", "prodigy", "mturk")
_ITEM_NAMES = ("item", "items", "item_id", "unit", "units", "subject", "patient", "id", "doc",
               "document", "example", "instance", "sentence", "question", "task")
_RATER_NAMES = ("rater", "raters", "annotator", "annotators", "worker", "workers", "coder",
                "coders", "observer", "observers", "judge", "judges", "user", "labeler",
                "labeller", "annotator_id", "worker_id", "rater_id")
_LABEL_NAMES = ("label", "labels", "response", "rating", "answer", "annotation", "value",
                "category", "class", "code", "judgment", "judgement")
_GOLD_NAMES = ("gold", "truth", "true", "key", "gold_label", "reference", "expert")
_REPEAT_NAMES = ("replicate", "replicates", "repeat", "repetition", "rep", "occasion", "round",
                 "session", "trial", "pass")


class DefaultLayout(str):
    """A verb's own default ``--layout`` (``judge``: long), told apart from one the user gave:
    an export read with ``--from`` has its own layout, which only a given ``--layout``
    contradicts."""


@dataclass
class LoadedRatings:
    """Ratings read for a verb, with where they came from and what was set aside."""

    ratings: Any
    source: str
    gold: Any = None  # pandas Series of gold labels indexed by item, or None
    declared_order: bool = False
    notes: list[str] = field(default_factory=list)


def add_ratings_arguments(parser: argparse.ArgumentParser, *, gold: bool = True,
                          gold_use: str = "adds accuracy against gold") -> None:
    """The options every verb that reads ratings shares."""
    g = parser.add_argument_group("input")
    g.add_argument("file", nargs="?", metavar="FILE",
                   help=f"ratings file: {SUFFIXES}. Give FILE or --example.")
    g.add_argument("--example", choices=sorted(EXAMPLES),
                   help="use a bundled real data set instead of FILE (see `goldnoise examples`)")
    g.add_argument("--from", dest="from_tool", choices=EXPORT_TOOLS,
                   help="FILE is an annotation tool's item-level export: labelstudio (JSON "
                        "export, single-choice classification), prodigy (db-out JSONL) or mturk "
                        "(batch results CSV: WorkerId, HITId, Answer.*; --item and --label "
                        "choose other columns)")
    g.add_argument("--layout", choices=("wide", "long", "counts", "contingency"),
                   default="wide",
                   help="wide: one row per item, one column per annotator; long: one row per "
                        "rating (item, annotator, label columns); counts: one row per item, one "
                        "column per category holding how many annotators chose it; "
                        "contingency: two annotators' square table of counts, the header naming "
                        "the categories (rows in the same order) (default: %(default)s)")
    g.add_argument("--weight", metavar="COLUMN",
                   help="wide layout: a column of frequencies, each row standing for that many "
                        "items (a pattern table such as vcd's Freq or n)")
    g.add_argument("--drop", metavar="COLUMN", nargs="+",
                   help="wide layout: columns that are not annotators (metadata such as a "
                        "group or an unnamed index) to leave out")
    g.add_argument("--item", metavar="COLUMN",
                   help="column of item ids (wide/counts: taken out of the annotators; long: "
                        "default the column named item, unit, subject, ... if there is one)")
    g.add_argument("--rater", metavar="COLUMN", nargs="+",
                   help="long layout: annotator column(s); several are joined with '.' (e.g. "
                        "--rater observer replicate). --transpose: the column of annotator names. "
                        "Default: a column named rater, annotator, worker, coder, ...")
    g.add_argument("--label", metavar="COLUMN",
                   help="long layout: label column (default: a column named label, response, "
                        "rating, ...)")
    g.add_argument("--replicates", choices=("error", "separate"), default="error",
                   help="long layout: what to do when an annotator rated an item more than "
                        "once: error, or separate (each replicate its own column, the "
                        "annotator's columns sharing one set of parameters) (default: "
                        "%(default)s)")
    g.add_argument("--normalize-labels", action="store_true",
                   help="read labels that differ only in surrounding spaces, Unicode form or "
                        "number type (' 2', '2', 2.0) as one label")
    g.add_argument("--sep", metavar="CHAR",
                   help="field separator of a text file (default: ',' for .csv, tab for .tsv, "
                        "sniffed for .txt); '\\t' means tab")
    g.add_argument("--transpose", action="store_true",
                   help="the file is coders x units (one row per annotator, as in "
                        "Krippendorff's examples): read it turned around")
    if gold:
        g.add_argument("--gold", metavar="COLUMN|FILE",
                       help="gold labels: a column of FILE (long: per rating row; wide: taken "
                            "out of the annotators) or a second file with item and gold "
                            f"columns; {gold_use}")


# ------------------------------------------------------------------ shape hints
def _norm(name: Any) -> str:
    return re.sub(r"[^a-z0-9_]", "", str(name).strip().lower())


def _find(columns: Any, names: tuple[str, ...]) -> Any:
    by_norm = {_norm(c): c for c in columns}
    for n in names:
        if n in by_norm:
            return by_norm[n]
    for c in columns:  # e.g. "worker_id", "annotator_name"
        if any(_norm(c).startswith(n) for n in names):
            return c
    return None


def _long_hint(frame: Any) -> str | None:
    """A suggested long-layout command line when ``frame`` looks like one row per rating:
    exactly one column is named like annotators (``worker``, not ``rater1``..``rater6``)."""
    named = [c for c in frame.columns if _norm(c) in _RATER_NAMES]
    if len(named) != 1:
        return None
    rater = named[0]
    item = _find([c for c in frame.columns if c != rater], _ITEM_NAMES)
    label = _find([c for c in frame.columns if c not in (rater, item)], _LABEL_NAMES)
    q = shlex.quote
    parts = ["--layout long"]
    parts.append(f"--item {q(str(item))}" if item is not None else "--item COLUMN")
    gold = _find([c for c in frame.columns if c not in (rater, item, label)], _GOLD_NAMES)
    repeat = None
    if item is not None and frame.duplicated([item, rater]).any():
        # An annotator rated some item more than once: a column numbering the repeats
        # joins the annotator's name (observer 1, replicate 2 -> annotator "1.2");
        # without one, each replicate becomes its own column.
        repeat = next((c for c in frame.columns if c not in (item, rater, label, gold)
                       and _norm(c) in _REPEAT_NAMES
                       and not frame.duplicated([item, rater, c]).any()), None)
        if repeat is None:
            parts.append("--replicates separate")
    raters = f"{q(str(rater))} {q(str(repeat))}" if repeat is not None else q(str(rater))
    parts.append(f"--rater {raters}")
    parts.append(f"--label {q(str(label))}" if label is not None else "--label COLUMN")
    if gold is not None:
        parts.append(f"--gold {q(str(gold))}")
    return " ".join(parts)


def _is_text(col: Any) -> bool:
    from pandas.api.types import is_numeric_dtype

    return not is_numeric_dtype(col.dtype)


def _integral_floats(frame: Any) -> Any:
    """Float columns whose values are all whole numbers (missing cells made them float) as
    nullable integers, so that labels read ``1``, not ``1.0``."""
    import numpy as np

    out = frame
    for col in frame.columns:
        values = frame[col]
        if values.dtype.kind == "f":
            finite = values.dropna().to_numpy()
            if finite.size and np.all(np.isfinite(finite)) and np.all(finite == np.round(finite)) \
                    and np.all(np.abs(finite) < 2**53):
                if out is frame:
                    out = frame.copy()
                out[col] = values.astype("Int64")
    return out


def _looks_like_ids(col: Any, n_rows: int) -> bool:
    return n_rows >= 3 and col.nunique(dropna=True) == n_rows and col.notna().all()


def _contingency_hint(frame: Any, path: Path) -> None:
    """A small square table of counts (or shares) is two annotators' contingency table."""
    import numpy as np

    nums = frame.select_dtypes(include="number")
    if nums.shape != frame.shape or nums.isna().any().any():
        return
    values = nums.to_numpy(dtype=float)
    if values.min() < 0:
        return
    whole = np.all(values == np.round(values))
    if whole and values.max() > frame.shape[1]:
        raise DataError(f"{path} looks like two annotators' contingency table (a square table "
                        "of counts): add --layout contingency")
    if not whole and abs(values.sum() - 1.0) < 1e-6:
        raise DataError(f"{path} looks like a contingency table of proportions: multiply by "
                        "the number of items, then use --layout contingency")


def _count_table_hint(frame: Any, path: Path) -> None:
    """A wide file whose rows are small integers with one common total is a count table."""
    import numpy as np

    nums = frame.select_dtypes(include="number")
    first = frame.columns[0]
    if _looks_like_ids(frame[first], len(frame)) and first in nums.columns:
        nums = nums.drop(columns=first)  # an id column, not a category
    if nums.shape[1] < 2 or nums.isna().any().any():
        return
    values = nums.to_numpy(dtype=float)
    if not (np.all(values == np.round(values)) and values.min() >= 0):
        return
    totals = values.sum(axis=1)
    same = totals.min() == totals.max() and totals[0] >= 2
    # crowd count tables (CIFAR-10H: 47–63 annotators an image) vary a little
    near = totals.min() >= 10 and totals.std() <= 0.2 * totals.mean()
    if (same or near) and values.max() > 1 and (values == 0).mean() > 0.2:
        cols = list(map(str, nums.columns))
        total = (f"{int(totals[0])}" if same else
                 f"{int(totals.min())}–{int(totals.max())}")
        raise DataError(
            f"{path} looks like a count table: every row of {', '.join(cols[:5])}"
            f"{', ...' if len(cols) > 5 else ''} adds up to {total} (annotators per "
            "item), one column per category: add --layout counts"
            + (f" --item {shlex.quote(str(first))}" if first not in nums.columns else ""))


_WEIGHT_NAMES = ("n", "freq", "frequency", "count", "counts", "weight", "weights")


def _weight_hint(frame: Any, path: Path) -> None:
    """A last column named like a frequency, holding whole numbers above 1, is one."""
    for col in frame.columns:
        if _norm(col) in _WEIGHT_NAMES:
            values = frame[col]
            if values.dtype.kind in "iuf" and values.notna().all() and (values >= 0).all() \
                    and (values == values.round()).all() and values.max() > 1:
                raise DataError(
                    f"{path}: column {col!r} looks like frequencies (each row standing for "
                    f"that many items), not an annotator: add --weight {shlex.quote(str(col))}")


def _metadata_hint(frame: Any, path: Path) -> None:
    """A column whose values no other column uses is not an annotator (a group, a site...).

    Annotators label from one set of categories; a column such as Gwet's ``Group``
    (FEMALE/MALE beside raters' a/b/c) or the vcd table's ``Patients`` (Winnipeg/New
    Orleans beside the neurologists' Certain...Doubtful) shares no value with the other
    columns, while those share values among themselves. Judged on columns with 5 or more
    labels, among 3 or more columns.
    """
    from collections import Counter

    if frame.shape[1] < 3:
        return

    def norm(v: Any) -> str:
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    # One pass over the value sets: in how many columns each value occurs. A column shares
    # a value with another iff one of its values occurs in two columns; a column sharing
    # none, the values in two columns are all the other columns' (linear in the cells: the
    # pairwise check was quadratic in the columns, 15 s at 5,000 annotators).
    values = {c: {norm(v) for v in frame[c].dropna().unique()} for c in frame.columns}
    owners = Counter(v for vals in values.values() for v in vals)
    if not any(n >= 2 for n in owners.values()):
        return  # no two columns share values: nothing to tell annotators by
    filled = frame.notna().sum()
    for col in frame.columns:
        if filled[col] < 5 or not values[col]:
            continue
        if any(owners[v] >= 2 for v in values[col]):
            continue
        own = sorted(values[col])
        theirs = sorted(v for v in owners if v not in values[col])
        raise DataError(
            f"{path}: column {col!r} shares no value with the other columns (its values "
            f"{', '.join(own[:4])}{', ...' if len(own) > 4 else ''}; theirs "
            f"{', '.join(theirs[:4])}{', ...' if len(theirs) > 4 else ''}), so it is not an "
            f"annotator's labels but a group or other information about the items: add "
            f"--drop {shlex.quote(str(col))}")


def _expand_weights(frame: Any, col: Any, path: Path, notes: list[str]) -> Any:
    """Each row repeated as many times as its frequency in ``col`` (which is then dropped)."""
    import numpy as np

    w = frame[col]
    if w.dtype.kind not in "iuf" or w.isna().any() or (w < 0).any() \
            or not (w == w.round()).all():
        raise DataError(f"{path}: --weight column {col!r} must hold whole numbers >= 0")
    rest = frame.drop(columns=[col])
    repeats = w.to_numpy().astype(np.int64)
    out = rest.loc[rest.index.repeat(repeats)].reset_index(drop=True)
    out.index.name = "item"
    notes.append(f"{len(rest)} rows weighted by column {col!r}: {len(out)} items")
    return out


def _contingency(frame: Any, path: Path) -> Any:
    """Two annotators' square table: header = categories, rows in the same order."""
    import numpy as np

    from agreement import Ratings

    first = frame.columns[0]
    if frame.shape[1] == frame.shape[0] + 1 and frame[first].dtype.kind not in "f":
        frame = frame.set_index(first)  # row labels in the first column
    else:
        frame = frame.set_axis(frame.columns, axis=0) if frame.shape[0] == frame.shape[1] \
            else frame
    if frame.shape[0] != frame.shape[1]:
        raise DataError(f"{path}: a contingency table is square (m rows and m category "
                        f"columns); this one is {frame.shape[0]} x {frame.shape[1]}")
    values = frame.to_numpy(dtype=float)
    if not np.all(values == np.round(values)) or values.min() < 0:
        raise DataError(f"{path}: a contingency table holds counts (whole numbers >= 0); "
                        "these look like proportions: multiply by the number of items first")
    table = frame.astype(np.int64)
    table.index = list(frame.columns)
    return Ratings.from_contingency(table)


def _wide_hints(frame: Any, path: Path, layout: str = "wide") -> None:
    """Raise a DataError with a hint when a wide reading of ``frame`` is surely wrong."""
    n_rows, n_cols = frame.shape
    if n_cols == 0:
        raise DataError(f"{path} has no columns")
    first = frame.columns[0]
    if layout == "wide" and n_cols == n_rows + 1 and \
            [str(v) for v in frame[first]] == [str(c) for c in frame.columns[1:]]:
        raise DataError(f"{path} looks like two annotators' contingency table (rows and "
                        "columns name the same categories): add --layout contingency")
    if layout == "wide":
        hint = _long_hint(frame)
        labelled = hint is not None and "--label COLUMN" not in hint
        rater = _find(frame.columns, _RATER_NAMES)
        if labelled and n_cols <= 8:
            raise DataError(f"{path} looks like one row per rating (column {rater!r} names "
                            f"annotators): add {hint}")
        if _norm(first) in _RATER_NAMES or (
                n_rows < n_cols and n_rows <= 20 and _is_text(frame[first])
                and _looks_like_ids(frame[first], n_rows)):
            raise DataError(
                f"{path} looks like coders x units (one row per annotator, first column "
                f"{first!r}): add --transpose")
        if hint is not None and n_cols <= 8:
            raise DataError(f"{path} looks like one row per rating (column {rater!r} names "
                            f"annotators): add {hint}")
    if layout == "wide" and 2 <= n_rows <= 30 and n_rows == n_cols:
        _contingency_hint(frame, path)
    if layout == "wide" and n_rows >= 2:
        _count_table_hint(frame, path)
    if _looks_like_ids(frame[first], n_rows) and n_cols > 1:
        others = frame.iloc[:, 1:]
        distinct = others.stack().nunique() if others.size else 0
        if distinct < n_rows or _norm(first) in _ITEM_NAMES or str(first).startswith("Unnamed"):
            what = "an annotator's labels" if layout == "wide" else "a category's counts"
            raise DataError(
                f"{path}: column {first!r} has a different value on each of its {n_rows} rows, "
                f"so it looks like item ids, not {what}: add --item {shlex.quote(str(first))}")


# ------------------------------------------------------------------ loading
def load_example(name: str) -> LoadedRatings:
    """The bundled example ``name``."""
    from agreement import Ratings
    from goldnoise import datasets

    if name == "fleiss1971":
        # The six columns are rating slots filled from a pool of psychiatrists,
        # not the same six people: the data are a count table (no annotator identity).
        wide = Ratings.from_wide(datasets.load_fleiss1971())
        return LoadedRatings(Ratings.from_counts(wide.counts_frame()), EXAMPLES[name])
    if name == "dawid_skene1979":
        long = datasets.load_dawid_skene1979()
        long = long.assign(rater=long["observer"].astype(str) + "." +
                           long["replicate"].astype(str))
        return LoadedRatings(
            Ratings.from_long(long, item="patient", rater="rater", label="rating"),
            EXAMPLES[name])
    if name in ("krippendorff2011", "hayes_krippendorff2007"):
        # numeric scales: the values are ordered (ordinal and interval α are shown)
        wide = (datasets.load_krippendorff2011() if name == "krippendorff2011"
                else datasets.load_hayes_krippendorff2007())
        return LoadedRatings(Ratings.from_wide(wide), EXAMPLES[name], declared_order=True)
    if name == "artstein_poesio2008":
        long = datasets.load_artstein_poesio2008()
        return LoadedRatings(Ratings.from_long(long, item="item", rater="coder", label="label"),
                             EXAMPLES[name])
    raise UsageError(f"unknown example {name!r}; choose one of {sorted(EXAMPLES)}")


def _column(frame: Any, name: str, what: str, path: Path) -> Any:
    if name not in frame.columns:
        raise DataError(f"{what} {name!r} is not a column of {path}; its columns are "
                        f"{', '.join(map(str, frame.columns))}")
    return name


def _declared_order(frame: Any) -> bool:
    import pandas as pd

    return any(isinstance(dt, pd.CategoricalDtype) and dt.ordered for dt in frame.dtypes)


def _gold_from_file(spec: str, items: Any, sep: str | None) -> Any:
    path = Path(spec)
    table = read_table(path, sep=sep)
    if table.shape[1] < 2:
        raise DataError(f"gold file {path} needs two columns (item id, gold label); "
                        f"it has {table.shape[1]}")
    item_col = _find(table.columns, _ITEM_NAMES) or table.columns[0]
    gold_col = _find([c for c in table.columns if c != item_col], _GOLD_NAMES) or \
        next(c for c in table.columns if c != item_col)
    series = table.set_index(item_col)[gold_col]
    if series.index.has_duplicates:
        raise DataError(f"gold file {path}: item ids repeat in column {item_col!r}")
    return series


def read_labels_file(spec: str, items: Any, option: str) -> Any:
    """A file of (item, label) rows as a Series on the ratings' item ids (matched as text)."""
    import pandas as pd

    path = Path(spec)
    if not path.is_file():
        raise DataError(f"{option} {spec}: no such file")
    table = read_table(path)
    if table.shape[1] < 2 or len(table) == 0:
        raise DataError(f"{option} file {path} needs rows of two columns (item id, label)")
    item_col = _find(table.columns, _ITEM_NAMES) or table.columns[0]
    label_col = next(c for c in table.columns if c != item_col)
    series = table.set_index(item_col)[label_col]
    if series.index.has_duplicates:
        raise DataError(f"{option} file {path}: item ids repeat in column {item_col!r}")
    by_text = {str(i): i for i in items}
    index = [by_text.get(str(i), i) for i in series.index]
    return pd.Series(series.to_numpy(), index=pd.Index(index, dtype=object), name=label_col)


def _load_export(path: Path, args: argparse.Namespace) -> LoadedRatings:
    """``--from TOOL``: an annotation tool's export, read by :meth:`Ratings.from_export`."""
    from agreement import Ratings

    if not path.exists():
        raise DataError(f"no such file: {path}")
    given_layout = args.layout != "wide" and not isinstance(args.layout, DefaultLayout)
    if given_layout or args.transpose or args.weight or args.drop or args.rater:
        raise UsageError("--from reads the tool's own layout; --layout, --transpose, --weight, "
                         "--drop and --rater do not apply")
    if args.item is not None and args.item == args.label:
        raise UsageError(f"--item and --label both name column {args.item!r}: each must be "
                         "a different column")
    if path.is_file() and path.stat().st_size == 0:
        raise DataError(f"{path} is empty")
    try:
        with warnings.catch_warnings(record=True) as caught:  # what the reader left out
            warnings.simplefilter("always", GoldnoiseWarning)
            ratings = Ratings.from_export(path, args.from_tool, item=args.item,
                                          label=args.label)
    except UnicodeDecodeError as exc:
        raise DataError(not_utf8(path, exc)) from None
    except (ValueError, KeyError, TypeError, OSError) as exc:
        text = _one_line(exc)
        raise DataError(text if str(path) in text else f"could not read {path}: {text}") from None
    gold_spec = getattr(args, "gold", None)
    gold = None if gold_spec is None else _gold_from_file(gold_spec, ratings.items, args.sep)
    notes = [_one_line(w.message) for w in caught if issubclass(w.category, GoldnoiseWarning)]
    for w in caught:  # anything else goes on as it came
        if not issubclass(w.category, GoldnoiseWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return LoadedRatings(ratings, f"{path} ({args.from_tool} export)", gold=gold, notes=notes)


def _export_hint(path: Path) -> None:
    """A .json file: a Label Studio export gets its option named."""
    import json

    try:
        head = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return
    if isinstance(head, list) and head and isinstance(head[0], dict) and (
            "annotations" in head[0] or "completions" in head[0]):
        raise DataError(f"{path} looks like a Label Studio export: add --from labelstudio "
                        "(span projects: goldnoise spans --from labelstudio)")


def _tool_hint(frame: Any, path: Path) -> None:
    """Columns that only an annotation tool writes: name its --from."""
    cols = {str(c) for c in frame.columns}
    if {"WorkerId", "HITId"} <= cols:
        raise DataError(f"{path} looks like an MTurk batch results file: add --from mturk")
    if "_annotator_id" in cols or ("_input_hash" in cols and "answer" in cols):
        raise DataError(f"{path} looks like Prodigy's db-out answers: add --from prodigy")


def load_ratings(args: argparse.Namespace) -> LoadedRatings:
    """The ratings a verb was asked about (FILE or ``--example``); raises CliError."""
    import pandas as pd

    gold_spec = getattr(args, "gold", None)
    if args.example is not None:
        if args.file is not None:
            raise UsageError("give either a FILE or --example, not both")
        loaded = load_example(args.example)
        if gold_spec is not None:
            loaded.gold = _gold_from_file(gold_spec, loaded.ratings.items, args.sep)
        return loaded
    if args.file is None:
        raise UsageError("give a FILE of ratings or --example NAME (see `goldnoise examples`)")
    path = Path(args.file)
    if getattr(args, "from_tool", None) is not None:
        return _load_export(path, args)
    if path.suffix.lower() == ".json" and path.is_file():
        _export_hint(path)
    frame = read_table(path, sep=args.sep)
    _tool_hint(frame, path)
    if frame.shape[1] == 0:
        raise DataError(f"{path} has no columns")
    if len(frame) == 0:
        raise DataError(f"{path} has a header but no rows of ratings")
    normalize = getattr(args, "normalize_labels", False)
    notes: list[str] = []
    gold = None
    gold_is_column = gold_spec is not None and gold_spec in frame.columns
    if gold_spec is not None and not gold_is_column and not Path(gold_spec).exists():
        option = getattr(args, "gold_option", "--gold")
        raise DataError(f"{option} {gold_spec!r} is neither a column of {path} nor a file; "
                        f"its columns are {', '.join(map(str, frame.columns))}")
    if gold_is_column:
        for flag, given in (("--item", [args.item]), ("--label", [args.label]),
                            ("--rater", args.rater or [])):
            if gold_spec in given:
                option = getattr(args, "gold_option", "--gold")
                raise UsageError(f"{flag} and {option} both name column {gold_spec!r}: the "
                                 "gold labels are a column of their own")
    declared = _declared_order(frame)
    try:
        if args.transpose:
            ratings = _read_transposed(frame, args, path, normalize)
        elif args.layout == "long":
            ratings, gold = _read_long(frame, args, path, normalize, gold_spec, notes)
        elif args.layout == "contingency":
            ratings = _contingency(frame, path)
        else:
            ratings, gold = _read_wide(frame, args, path, normalize, gold_spec, notes)
    except CliError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise DataError(f"{path}: {_one_line(exc)}") from None
    if gold is None and gold_spec is not None and not gold_is_column:
        gold = _gold_from_file(gold_spec, ratings.items, args.sep)
    if gold is not None:
        gold = pd.Series(gold)
    return LoadedRatings(ratings, str(path), gold=gold, declared_order=declared, notes=notes)


def _read_transposed(frame: Any, args: argparse.Namespace, path: Path, normalize: bool) -> Any:
    """``--transpose``: a coders × units table (wide layout), read as items × annotators."""
    from agreement import Ratings

    if args.layout != "wide":
        raise UsageError("--transpose reads a coders x units table; it goes with the "
                         "wide layout only")
    coder = args.rater[0] if args.rater else None
    if coder is None and _is_text(frame[frame.columns[0]]):
        coder = frame.columns[0]
    if coder is not None:
        frame = frame.set_index(_column(frame, coder, "--rater", path))
    frame = _integral_floats(frame.T.infer_objects())
    if frame.shape[1] > 5 * frame.shape[0] and frame.shape[1] >= 20:
        raise DataError(
            f"{path} read with --transpose has {frame.shape[1]} annotators for "
            f"{frame.shape[0]} items: it already looks like one row per item; drop "
            "--transpose")
    frame.index.name = "item"
    frame.columns.name = "rater"
    return Ratings.from_wide(frame, normalize_labels=normalize)


def _ids_given(frame: Any, col: Any, flag: str, path: Path) -> None:
    """Every row names its item (and, in the long layout, its annotator), or one line that
    says which rows do not."""
    empty = frame[col].isna().to_numpy()
    if empty.any():
        raise DataError(f"{path}: {int(empty.sum())} row(s) have no {col!r} ({flag} column), "
                        f"the first is data row {int(empty.argmax()) + 1} (after the header): "
                        "fill them in or drop those rows")


def _read_long(frame: Any, args: argparse.Namespace, path: Path, normalize: bool,
               gold_spec: str | None, notes: list[str]) -> tuple[Any, Any]:
    """``--layout long`` (one row per rating): the ratings and the gold column's labels (or
    None); the item, rater and label columns named by the options or recognised by name."""
    from agreement import Ratings

    gold = None
    gold_is_column = gold_spec is not None and gold_spec in frame.columns
    for flag, given in (("--item", [args.item] if args.item else []),
                        ("--rater", args.rater or []),
                        ("--label", [args.label] if args.label else [])):
        for name in given:
            _column(frame, name, flag, path)
    item = args.item or _find(frame.columns, _ITEM_NAMES)
    raters = args.rater or ([r] if (r := _find(frame.columns, _RATER_NAMES)) is not None
                            else None)
    label = args.label or _find([c for c in frame.columns if c not in
                                 (item, *(raters or []))], _LABEL_NAMES)
    missing = [flag for flag, value in (("--item", item), ("--rater", raters),
                                        ("--label", label)) if value is None]
    if missing:
        raise DataError(f"{path}: say which columns hold the {' and '.join(missing)} "
                        f"({', '.join(missing)} COLUMN); its columns are "
                        f"{', '.join(map(str, frame.columns))}")
    _column(frame, item, "--item", path)
    _column(frame, label, "--label", path)
    if gold_is_column and gold_spec in (item, label, *raters):
        role = "item ids" if gold_spec == item else \
            "labels" if gold_spec == label else "raters"
        raise UsageError(f"--gold {gold_spec!r} is the column of {role}; the gold "
                         "labels are a column of their own (or a file of item and "
                         "gold columns)")
    named = [("--item", item), ("--label", label), *(("--rater", r) for r in raters)]
    for i, (fa, a) in enumerate(named):
        for fb, b in named[i + 1:]:
            if a == b:
                raise UsageError(f"{fa} and {fb} both name column {a!r}: each must be "
                                 "a different column")
    for r in raters:
        _column(frame, r, "--rater", path)
    for col, flag in ((item, "--item"), *((r, "--rater") for r in raters)):
        _ids_given(frame, col, flag, path)
    if len(raters) > 1:
        rater_col = "+".join(map(str, raters))
        frame = frame.assign(**{rater_col: frame[raters].astype(str).agg(".".join,
                                                                      axis=1)})
    else:
        rater_col = raters[0]
    if gold_is_column:
        per_item = frame.groupby(item, sort=False)[gold_spec]
        differ = per_item.nunique(dropna=True)
        if (differ > 1).any():
            bad = list(map(str, differ.index[differ > 1]))
            raise DataError(
                f"{path}: the gold column {gold_spec!r} differs between the rows of "
                f"{len(bad)} item(s), e.g. {', '.join(bad[:3])}; an item has one gold "
                "label (fix those rows, or give the gold labels as a file of item "
                "and gold columns)")
        gold = per_item.first()
    elif gold_spec is None:
        g = _find([c for c in frame.columns if c not in (item, rater_col, label,
                                                         *raters)], _GOLD_NAMES)
        if g is not None:
            notes.append(f"column {g!r} is not used; if it holds gold labels, add "
                         f"--gold {g}")
    keep = _integral_floats(frame[[item, rater_col, label]])
    if keep[label].isna().all():
        raise DataError(f"{path}: every label in column {label!r} is missing")
    ratings = Ratings.from_long(keep, item=item, rater=rater_col, label=label,
                                replicates=getattr(args, "replicates", "error"),
                                normalize_labels=normalize)
    return ratings, gold


def _read_wide(frame: Any, args: argparse.Namespace, path: Path, normalize: bool,
               gold_spec: str | None, notes: list[str]) -> tuple[Any, Any]:
    """The wide (items × annotators) and counts (items × categories) layouts: the ratings
    and the gold column's labels (or None), with the hints on shapes that look otherwise."""
    from agreement import Ratings

    gold = None
    gold_is_column = gold_spec is not None and gold_spec in frame.columns
    given = [flag for flag, value in (("--label", args.label), ("--rater", args.rater))
             if value]
    if given:
        raise UsageError(f"{' and '.join(given)} belong{'s' if len(given) == 1 else ''}"
                         f" to the long layout (one row per rating), but {path} is "
                         f"read in the {args.layout} layout; add --layout long")
    if args.item is not None:
        item = _column(frame, args.item, "--item", path)
        _ids_given(frame, item, "--item", path)
        frame = frame.set_index(item)
        repeated = frame.index[frame.index.duplicated()]
        if len(repeated):
            raise DataError(f"{path}: column {args.item!r} (--item) repeats item ids, e.g. "
                            f"{str(repeated[0])!r} ({len(repeated)} repeated row(s)): each "
                            f"item takes one row in the {args.layout} layout; merge its "
                            "rows, or add --layout long (one row per rating)")
    if args.drop:
        frame = frame.drop(columns=[_column(frame, c, "--drop", path)
                                    for c in args.drop])
    if args.weight is not None:
        frame = _expand_weights(frame, _column(frame, args.weight, "--weight", path),
                                path, notes)
    elif args.layout == "wide":
        _weight_hint(frame, path)
    if gold_is_column:
        gold = frame[gold_spec]
        frame = frame.drop(columns=[gold_spec])
    else:
        g = _find(frame.columns, _GOLD_NAMES)
        if g is not None and gold_spec is None and args.layout == "wide":
            notes.append(f"column {g!r} is analysed as an annotator; if it holds gold "
                         f"labels, add --gold {g}")
    if frame.shape[1] == 0:  # before the hints, which read the columns
        raise DataError(f"{path} has no annotator columns left")
    if args.item is None:
        _wide_hints(frame, path, args.layout)
    elif args.layout == "wide" and len(frame) >= 2:
        _count_table_hint(frame, path)
    if frame.isna().all().all():
        raise DataError(f"{path}: every label is missing")
    if args.layout == "counts":
        ratings = Ratings.from_counts(frame)
    else:
        _metadata_hint(frame, path)
        ratings = Ratings.from_wide(_integral_floats(frame),
                                    normalize_labels=normalize)
    return ratings, gold

