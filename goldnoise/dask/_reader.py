"""Long Parquet ratings read lazily, brought together by item, persisted as coded chunks."""

from __future__ import annotations

import glob
import operator
import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

try:
    import dask
    import dask.dataframe as dd
    import fsspec
    from dask import delayed
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "goldnoise.dask needs Dask: install the extra with `pip install \"goldnoise[dask]\"` "
        "(dask[dataframe] and distributed)."
    ) from err

from _goldnoise_lib.results import Result
from agreement import Ratings, ratings_chunk, ratings_schema

__all__ = ["DaskRatings", "ShuffleReport", "read_ratings"]

T = TypeVar("T")
_SRC = "__goldnoise_source_partition__"
SHUFFLE_OPTIONS = ("auto", True, False)


@dataclass(frozen=True)
class ShuffleReport(Result):
    """How the ratings were brought together by item before the per-item pass.

    Attributes
    ----------
    shuffled : bool
        Whether a shuffle on the item column ran (``False`` when every item's
        ratings were already in one input partition, or ``shuffle=False``).
    rows : int
        Ratings (rows) read.
    rows_moved : int
        Ratings that left their input partition (output partition number ≠
        input partition number).
    bytes_moved : int
        Approximate in-memory size of the moved rows.
    items : int
        Distinct items.
    items_split : int
        Items whose ratings were spread over more than one input partition.
    partitions_in, partitions_out : int
        Partitions before and after.

    ``to_frame()``: one row of the scalar fields of :meth:`to_dict`.
    """

    _headline = "share_moved"
    _keys = ("shuffled", "rows", "rows_moved", "bytes_moved", "items", "items_split",
             "partitions_in", "partitions_out", "share_moved")

    shuffled: bool
    rows: int
    rows_moved: int
    bytes_moved: int
    items: int
    items_split: int
    partitions_in: int
    partitions_out: int

    @property
    def share_moved(self) -> float:
        """``rows_moved / rows``."""
        return self.rows_moved / self.rows if self.rows else 0.0

    def __str__(self) -> str:
        if not self.shuffled:
            return (f"no shuffle: {self.items} items in {self.partitions_in} partitions, each "
                    "item's ratings already in one partition")
        return (f"shuffle on the item column: {self.rows_moved:,} of {self.rows:,} ratings "
                f"moved ({self.share_moved:.1%}, about {self.bytes_moved / 2**20:,.0f} MiB); "
                f"{self.items_split:,} of {self.items:,} items had ratings in several of the "
                f"{self.partitions_in} input partitions; {self.partitions_out} output partitions")


class DaskRatings:
    """Ratings held by Dask as coded chunks, each with every rating of its items.

    Made by :func:`read_ratings`. The public goldnoise functions accept it in
    place of in-memory ratings (it implements :class:`agreement.ChunkedRatings`).

    Attributes
    ----------
    schema : Ratings
        Categories and annotators shared by every chunk (no items).
    shuffle_report : ShuffleReport
    n_items, n_ratings, npartitions : int
    """

    def __init__(self, chunks: list, schema: Ratings, report: ShuffleReport, n_items: int,
                 n_ratings: int, scheduler: Any) -> None:
        self._chunks = chunks
        self.schema = schema
        self.shuffle_report = report
        self.n_items = n_items
        self.n_ratings = n_ratings
        self._scheduler = scheduler

    @property
    def npartitions(self) -> int:
        return len(self._chunks)

    @property
    def n_raters(self) -> int:
        return self.schema.n_raters

    @property
    def categories(self) -> pd.Index:
        return self.schema.categories

    @property
    def raters(self) -> pd.Index:
        return self.schema.raters

    @property
    def ordered(self) -> bool:
        return self.schema.ordered

    @property
    def n_categories(self) -> int:
        return self.schema.n_categories

    def map_reduce(self, partial: Callable[[Ratings], T], combine: Callable[[T, T], T]) -> T:
        """``partial`` on every chunk where it lives, then ``combine`` up a binary tree.

        Parameters
        ----------
        partial : callable
            Ratings chunk → partial result (small: sums, not per-item arrays).
        combine : callable
            Associative: two partial results → one.

        Returns
        -------
        The combined result, computed with the scheduler given to
        :func:`read_ratings` (default: the active client, if any).
        """
        parts = [delayed(partial, pure=False)(c) for c in self._chunks]
        while len(parts) > 1:
            nxt = [delayed(combine, pure=False)(parts[i], parts[i + 1])
                   for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2:
                nxt.append(parts[-1])
            parts = nxt
        return dask.compute(parts[0], scheduler=self._scheduler)[0]

    def map_chunks(self, fn: Callable[[Ratings], T]) -> list[T]:
        """``fn`` on every chunk, results gathered in chunk order (small results only)."""
        out = dask.compute(*[delayed(fn, pure=False)(c) for c in self._chunks],
                           scheduler=self._scheduler)
        return list(out)

    def __repr__(self) -> str:
        cats = list(self.schema.categories)
        shown = repr(cats) if len(cats) <= 8 else repr(cats[:8])[:-1] + ", ...]"
        return (f"DaskRatings({self.n_items} items, {self.n_raters} raters, "
                f"{self.n_categories} categories {shown}, {self.n_ratings} ratings, "
                f"{self.npartitions} partitions)")


def _tag(frame: pd.DataFrame, number: int) -> pd.DataFrame:
    return frame.assign(**{_SRC: np.int32(number)})


def _encode(frame: pd.DataFrame, number: int, schema: Ratings, item: Hashable,
            rater: Hashable, label: Hashable) -> tuple[Ratings | None, dict[str, int]]:
    """One output partition: its coded chunk and what the shuffle moved into it."""
    rows = len(frame)
    if rows == 0:
        return None, {"rows": 0, "moved": 0, "bytes": 0, "items": 0, "split": 0, "ratings": 0}
    src = frame[_SRC].to_numpy()
    moved = src != number
    per_row = frame.memory_usage(index=False, deep=True).sum() / rows
    split = int((frame.groupby(item, sort=False)[_SRC].nunique() > 1).sum())
    chunk = ratings_chunk(frame, schema, item=item, rater=rater, label=label)
    stats = {"rows": rows, "moved": int(moved.sum()), "bytes": int(per_row * moved.sum()),
             "items": chunk.n_items, "split": split, "ratings": chunk.n_ratings}
    return chunk, stats


class _RowGroup:
    """Reads one row group of one Parquet file (picklable, for ``dd.from_map``)."""

    def __init__(self, columns: list) -> None:
        self.columns = columns

    def __call__(self, part: tuple) -> pd.DataFrame:
        open_file, group = part
        with open_file as f:
            table = pq.ParquetFile(f).read_row_group(group, columns=self.columns)
        return table.to_pandas()


def _type_class(kind: Any) -> Any:
    """Arrow types that read into one pandas column alike: text, integers, floats, else exact."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _type_class(kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "text"
    if pa.types.is_integer(kind):
        return "integer"
    if pa.types.is_floating(kind):
        return "float"
    return kind


def _read_parquet(source: Any, columns: list, storage_options: dict):
    """One partition per row group of every file matched (paths, directories, globs)."""
    sources = [source] if not isinstance(source, (list, tuple)) else list(source)
    paths: list[str] = []
    for src in map(str, sources):
        if "://" not in src and os.path.isdir(src):
            found = sorted(glob.glob(os.path.join(src, "**", "*.parquet"), recursive=True))
            if not found:
                raise FileNotFoundError(f"no *.parquet file under the directory {src!r}.")
            paths.extend(found)
        else:
            paths.append(src)
    files = fsspec.open_files(paths, mode="rb", **storage_options)
    if not files:
        raise FileNotFoundError(f"no Parquet file matches {source!r}.")
    parts = []
    seen: dict = {}  # column -> (arrow type, first file with it)
    for of in files:
        with of as f:
            meta = pq.ParquetFile(f)
            schema = meta.schema_arrow
            parts.extend((of, g) for g in range(meta.num_row_groups))
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise KeyError(f"columns {missing} are not in {of.path}; its columns are "
                           f"{list(schema.names)}. Pass `item=`, `rater=`, `label=`.")
        for c in columns:
            kind = schema.field(c).type
            first = seen.setdefault(c, (kind, of.path))
            if _type_class(first[0]) != _type_class(kind):
                raise ValueError(
                    f"the column {c!r} holds {first[0]} in {first[1]} but {kind} in "
                    f"{of.path}: every file must store it with one type (write them again "
                    "with one type, e.g. the labels as strings everywhere).")
    empty = schema.empty_table().select(columns).to_pandas()
    return dd.from_map(_RowGroup(columns), parts, meta=empty, enforce_metadata=False)


def _read_iv(source: Any, item, rater, label, shuffle, npartitions, storage_options):
    if shuffle not in SHUFFLE_OPTIONS or (isinstance(shuffle, (int, float)) and not isinstance(
            shuffle, bool)):
        raise ValueError(f"`shuffle` must be one of {SHUFFLE_OPTIONS}; got {shuffle!r}.")
    if npartitions is not None and (isinstance(npartitions, bool)
                                    or not isinstance(npartitions, (int, np.integer))
                                    or npartitions < 1):
        raise ValueError(f"`npartitions` must be a positive integer or None; got "
                         f"{npartitions!r}.")
    columns = [item, rater, label]
    if len(set(columns)) != 3:
        raise ValueError(f"`item`, `rater` and `label` must be three different columns; got "
                         f"{columns}.")
    if isinstance(source, dd.DataFrame):
        frame = source
    elif isinstance(source, pd.DataFrame):
        frame = dd.from_pandas(source, npartitions=npartitions or 1, sort=False)
    elif isinstance(source, (str, list, tuple)) or hasattr(source, "__fspath__"):
        frame = _read_parquet(source, columns, storage_options or {})
    else:
        raise TypeError("`path_or_glob` must be a path, a glob, a list of paths, or a "
                        f"pandas/Dask DataFrame; got {type(source).__name__}.")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"columns {missing} are not in the data; columns are "
                       f"{list(frame.columns)}. Pass `item=`, `rater=`, `label=`.")
    return frame[columns]


def read_ratings(path_or_glob: Any, *, item: Hashable = "item", rater: Hashable = "rater",
                 label: Hashable = "label", categories: Sequence[Any] | None = None,
                 shuffle: str | bool = "auto", npartitions: int | None = None,
                 scheduler: Any = None, storage_options: dict | None = None) -> DaskRatings:
    """Read long-format ratings (one row per rating) lazily, for any goldnoise statistic.

    Parameters
    ----------
    path_or_glob : str, path, list of paths, or DataFrame
        Parquet file(s), a directory or a glob (anything
        ``dask.dataframe.read_parquet`` reads, remote stores included via
        ``storage_options``); or a Dask or pandas DataFrame.
    item, rater, label : hashable
        Column names of the item id, the annotator id and the label. Rows with
        a missing label are ignored (the item still counts, as in memory).
    categories : sequence, optional
        Declared categories (and their order), as in
        :meth:`agreement.Ratings.from_long`. Default: the labels found.
    shuffle : {"auto", True, False}, default "auto"
        Bring each item's ratings into one partition with a shuffle on the item
        column. ``"auto"`` first checks (one pass over the item column) whether
        they already are, and shuffles only if not; ``False`` trusts that they
        are (wrong results otherwise: a split item counts as two items).
    npartitions : int, optional
        Partitions after the shuffle (default: as many as read).
    scheduler : optional
        Dask scheduler for every computation on these ratings
        (``"synchronous"``, ``"threads"``, ``"processes"``, a
        ``distributed.Client``); default: Dask's default, the active client if
        there is one.
    storage_options : dict, optional
        Passed to ``read_parquet``.

    Returns
    -------
    DaskRatings
        Coded chunks persisted in the workers' memory (``k`` bytes per item
        for ``k`` annotators), the schema and the :class:`ShuffleReport`.

    Raises
    ------
    KeyError
        If a named column is missing.
    ValueError
        For invalid options, or an annotator who rated an item twice.
    TypeError
        For an unreadable ``path_or_glob``.

    Notes
    -----
    Three passes before any statistic: the distinct labels and annotators
    (the schema every chunk is coded with, so that partial sums add up); with
    ``shuffle="auto"`` the per-partition and global distinct items; then the
    shuffle and the coding of each output partition into a
    :class:`agreement.Ratings` chunk, which is persisted. Statistics then map
    over the persisted chunks: memory per worker is bounded by its partitions,
    never by the data set.

    Examples
    --------
    >>> import pandas as pd
    >>> from goldnoise.dask import read_ratings
    >>> from agreement import fleiss_kappa
    >>> long = pd.DataFrame({"item": [1, 2, 3, 1, 2, 3], "rater": list("aaabbb"),
    ...                      "label": ["x", "y", "y", "x", "x", "y"]})
    >>> lazy = read_ratings(long, npartitions=2, scheduler="synchronous")
    >>> lazy
    DaskRatings(3 items, 2 raters, 2 categories ['x', 'y'], 6 ratings, 2 partitions)
    >>> lazy.shuffle_report.items_split
    3
    >>> round(fleiss_kappa(lazy).value, 4) == round(fleiss_kappa(
    ...     __import__("agreement").Ratings.from_long(long)).value, 4)
    True
    """
    frame = _read_iv(path_or_glob, item, rater, label, shuffle, npartitions, storage_options)
    # A local scheduler named by string cannot run distributed's p2p shuffle (which the
    # shuffle, and dask's distinct counts, pick when a client exists in this process).
    config = {"dataframe.shuffle.method": "tasks"} if isinstance(scheduler, str) else {}
    with dask.config.set(config):
        return _read(frame, item, rater, label, categories, shuffle, npartitions, scheduler)


def _read(frame, item, rater, label, categories, shuffle, npartitions, scheduler) -> DaskRatings:
    n_in = frame.npartitions
    n_out = int(npartitions) if npartitions is not None else n_in
    # Annotators in order of first appearance over the partitions in order, as
    # Ratings.from_long on the whole table: the annotator columns (and so the random
    # starts of a latent-class fit) are then the same as in memory.
    first_seen = frame[rater].map_partitions(lambda s: pd.Series(pd.unique(s.dropna())),
                                             meta=(rater, frame[rater].dtype))
    labels, raters = dask.compute(frame[label].drop_duplicates(), first_seen,
                                  scheduler=scheduler)
    schema = ratings_schema(labels, pd.unique(raters), categories=categories)

    grouped = False
    if shuffle == "auto":
        per_part = frame[item].map_partitions(lambda s: pd.Series([s.nunique()]),
                                              meta=(item, "int64"))
        local, total = dask.compute(per_part.sum(), frame[item].nunique(),
                                    scheduler=scheduler)
        grouped = int(local) == int(total)
    elif shuffle is False:
        grouped = True
    if grouped:
        n_out = n_in
    parts = frame.to_delayed()
    tagged = dd.from_delayed([delayed(_tag)(p, i) for i, p in enumerate(parts)],
                             meta=_tag(frame._meta, 0), verify_meta=False)
    out = tagged if grouped else tagged.shuffle(on=item, npartitions=n_out)
    encoded = [delayed(_encode, pure=False)(p, j, schema, item, rater, label)
               for j, p in enumerate(out.to_delayed())]
    encoded = list(dask.persist(*encoded, scheduler=scheduler))
    stats = dask.compute(*[delayed(operator.itemgetter(1))(e) for e in encoded],
                         scheduler=scheduler)
    chunks = list(dask.persist(*[delayed(operator.itemgetter(0))(e)
                                 for e, s in zip(encoded, stats, strict=True) if s["rows"] > 0],
                               scheduler=scheduler))
    del encoded
    if not chunks:
        raise ValueError("the data have no rows.")
    total = {key: sum(s[key] for s in stats) for key in stats[0]}
    report = ShuffleReport(shuffled=not grouped, rows=total["rows"],
                           rows_moved=0 if grouped else total["moved"],
                           bytes_moved=0 if grouped else total["bytes"], items=total["items"],
                           items_split=0 if grouped else total["split"],
                           partitions_in=n_in, partitions_out=n_out)
    n_ratings = int(total["ratings"])
    return DaskRatings(chunks, schema, report, int(total["items"]), n_ratings, scheduler)
