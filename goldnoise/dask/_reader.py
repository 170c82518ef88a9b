"""Long Parquet ratings read lazily, brought together by item, persisted as coded chunks."""

from __future__ import annotations

import glob
import itertools
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
    """Ratings held by Dask: per-item category counts, and each item's ratings on demand.

    Made by :func:`read_ratings`. The public goldnoise functions accept it in
    place of in-memory ratings (it implements :class:`agreement.ChunkedRatings`).
    Two persisted forms, each built once:

    * the count chunks: every item's category counts (``a[i, c]``), from the
      partitions' own counts added up a tree (no rating moves), built by
      :func:`read_ratings`; the count-table statistics (percent agreement,
      Fleiss, Scott, Brennan–Prediger, Gwet, Krippendorff's α) run on them;
    * the item chunks: every rating of an item in one partition, coded (a
      shuffle on the item column), built at the first statistic that needs
      the annotators' identity (Cohen, Conger, Light, γ, a latent-class fit,
      the bootstrap) or by :meth:`partition_by_item`, then reused by every
      statistic and every EM iteration.

    Attributes
    ----------
    schema : Ratings
        Categories and annotators shared by every chunk (no items).
    shuffle_report : ShuffleReport
        What bringing each item's ratings together moved (builds the item
        chunks if they are not built yet).
    n_items, n_ratings, npartitions : int
        ``npartitions``: partitions of the item chunks.
    """

    def __init__(self, schema: Ratings, count_chunks: list, n_items: int, n_ratings: int,
                 build_items: Callable[[], tuple[list, ShuffleReport]], npartitions: int,
                 scheduler: Any) -> None:
        self.schema = schema
        self.n_items = n_items
        self.n_ratings = n_ratings
        self._count_chunks = count_chunks  # None: counts alone cannot be trusted (see _counted)
        self._build_items = build_items
        self._chunks: list | None = None
        self._report: ShuffleReport | None = None
        self._npartitions = npartitions
        self._scheduler = scheduler

    @property
    def npartitions(self) -> int:
        return self._npartitions if self._chunks is None else len(self._chunks)

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

    @property
    def partitioned_by_item(self) -> bool:
        """Whether the item chunks are built (each item's ratings in one partition)."""
        return self._chunks is not None

    def partition_by_item(self) -> DaskRatings:
        """Build the item chunks now (once: later calls return at once); returns ``self``.

        The statistics that need them build them at first use; call this to time
        or schedule that step yourself.
        """
        if self._chunks is None:
            self._chunks, self._report = self._build_items()
            self._build_items = None  # the split pieces it held are released
        return self

    @property
    def shuffle_report(self) -> ShuffleReport:
        self.partition_by_item()
        return self._report

    def map_reduce(self, partial: Callable[[Ratings], T], combine: Callable[[T, T], T]) -> T:
        """``partial`` on every item chunk where it lives, then ``combine`` up a binary tree.

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
        self.partition_by_item()
        return self._tree(self._chunks, partial, combine)

    def map_reduce_counts(self, partial: Callable[[Ratings], T],
                          combine: Callable[[T, T], T]) -> T:
        """As :meth:`map_reduce`, over count chunks (``Ratings`` without annotator
        identity: ``counts`` only, ``codes`` is None): for partials that read only each
        item's category counts. Runs on the item chunks when there are no count chunks
        (more than 64 annotators: a repeated rating would not show in the counts)."""
        if self._count_chunks is None:
            return self.map_reduce(partial, combine)
        return self._tree(self._count_chunks, partial, combine)

    def _tree(self, chunks: list, partial: Callable, combine: Callable) -> Any:
        parts = [delayed(partial, pure=False)(c) for c in chunks]
        while len(parts) > 1:
            nxt = [delayed(combine, pure=False)(parts[i], parts[i + 1])
                   for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2:
                nxt.append(parts[-1])
            parts = nxt
        return dask.compute(parts[0], scheduler=self._scheduler)[0]

    def map_chunks(self, fn: Callable[[Ratings], T]) -> list[T]:
        """``fn`` on every item chunk, results gathered in chunk order (small results only)."""
        self.partition_by_item()
        out = dask.compute(*[delayed(fn, pure=False)(c) for c in self._chunks],
                           scheduler=self._scheduler)
        return list(out)

    def __repr__(self) -> str:
        cats = list(self.schema.categories)
        shown = repr(cats) if len(cats) <= 8 else repr(cats[:8])[:-1] + ", ...]"
        return (f"DaskRatings({self.n_items} items, {self.n_raters} raters, "
                f"{self.n_categories} categories {shown}, {self.n_ratings} ratings, "
                f"{self.npartitions} partitions)")


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
    """One partition per row group of every file matched (paths, directories, globs),
    and each row group's (min, max) item id from the file's statistics (None where a
    file has none)."""
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
    ranges: list = []
    seen: dict = {}  # column -> (arrow type, first file with it)
    for of in files:
        with of as f:
            meta = pq.ParquetFile(f)
            schema = meta.schema_arrow
            parts.extend((of, g) for g in range(meta.num_row_groups))
            ranges.extend(_item_range(meta, g, columns[0]) for g in range(meta.num_row_groups))
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
    return dd.from_map(_RowGroup(columns), parts, meta=empty, enforce_metadata=False), ranges


def _item_range(meta: Any, group: int, item: Hashable) -> tuple | None:
    """(min, max, rows) of the item column in one row group, from its statistics."""
    rg = meta.metadata.row_group(group)
    if rg.num_rows == 0:
        return (None, None, 0)
    for c in range(rg.num_columns):
        col = rg.column(c)
        if col.path_in_schema == str(item):
            st = col.statistics
            if st is None or not st.has_min_max or st.null_count:
                return None
            return (st.min, st.max, rg.num_rows)
    return None


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
    ranges = None
    if isinstance(source, dd.DataFrame):
        frame = source
    elif isinstance(source, pd.DataFrame):
        frame = dd.from_pandas(source, npartitions=npartitions or 1, sort=False)
    elif isinstance(source, (str, list, tuple)) or hasattr(source, "__fspath__"):
        frame, ranges = _read_parquet(source, columns, storage_options or {})
    else:
        raise TypeError("`path_or_glob` must be a path, a glob, a list of paths, or a "
                        f"pandas/Dask DataFrame; got {type(source).__name__}.")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"columns {missing} are not in the data; columns are "
                       f"{list(frame.columns)}. Pass `item=`, `rater=`, `label=`.")
    return frame[columns], ranges


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
        column. ``"auto"`` skips it when the partitions' item ranges do not
        overlap (files written sorted or range-partitioned by item; read from the
        Parquet statistics, or by one pass over the item column) and shuffles
        otherwise; ``False`` trusts that each item is in one partition (wrong
        results otherwise: a split item counts as two items).
    npartitions : int, optional
        Partitions after the shuffle (default: one per splitting task, about
        four million ratings each).
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
        The per-item category counts persisted in the workers' memory, the
        schema, and the rows cut by item ready to be brought together when a
        statistic needs each item's ratings.

    Raises
    ------
    KeyError
        If a named column is missing.
    ValueError
        For invalid options, or an annotator who rated an item twice (found
        here with up to 64 annotators, else when the items' ratings are
        brought together).
    TypeError
        For an unreadable ``path_or_glob``.

    Notes
    -----
    The data are read once. Each splitting task reads a run of input partitions
    (about four million ratings), notes their distinct labels and annotators
    (the schema every chunk is coded with, so that partial sums add up) and
    cuts its rows into one piece per output partition by a hash of the item
    id; the pieces stay where they were made. Each piece is then summed by
    item where it lives (its items' category counts, and which annotators
    rated each), and each output partition's sums are added up a tree of
    fan-in eight into a count chunk, which is persisted: the count-table
    statistics (percent agreement, Fleiss, Scott, Brennan–Prediger, Gwet,
    Krippendorff's α) run on these, and no rating moves. The first statistic
    that needs the annotators' identity (Cohen, Conger, Light, γ, a
    latent-class fit, the bootstrap), or :meth:`DaskRatings.partition_by_item`,
    has each output partition gather its pieces (plain column arrays: no more
    tasks than senders × receivers) and code them into an
    :class:`agreement.Ratings` chunk, which is persisted and reused by every
    later statistic and each EM iteration (the ratings move once). Memory per
    worker is bounded by its partitions, never by the data set; only sums
    travel up the trees.

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
    frame, ranges = _read_iv(path_or_glob, item, rater, label, shuffle, npartitions,
                             storage_options)
    # A local scheduler named by string cannot run distributed's p2p shuffle (which the
    # shuffle, and dask's distinct counts, pick when a client exists in this process).
    config = {"dataframe.shuffle.method": "tasks"} if isinstance(scheduler, str) else {}
    with dask.config.set(config):
        return _read(frame, ranges, item, rater, label, categories, shuffle, npartitions,
                     scheduler)


#: Ratings per splitting task (and, by default, per output partition): few tasks and
#: few pieces (senders × receivers), each task's memory a few hundred MB at most.
ROWS_PER_SPLIT = 4_000_000
#: Splitting tasks when the number of rows is not known before reading.
SPLITS = 16


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of integer ids


def _hash_bucket(ids: np.ndarray, n_out: int) -> np.ndarray:
    """Output partition of each row from its item id: the same in every process and
    for every integer width (files may store the ids as int32 in one, int64 in
    another); other ids through pandas' stable hash."""
    if ids.dtype.kind in "iub":
        mixed = ids.astype(np.uint64) * _GOLDEN  # wraps: a multiplicative hash
        return ((mixed >> np.uint64(32)) % np.uint64(n_out)).astype(np.intp)
    values = ids.astype(np.float64) if ids.dtype.kind == "f" else np.asarray(ids, dtype=object)
    return (pd.util.hash_array(values) % np.uint64(n_out)).astype(np.intp)


def _split(first: int, n_out: int, item: Hashable, rater: Hashable, label: Hashable,
           *frames: pd.DataFrame) -> tuple:
    """Some consecutive input partitions, numbered from ``first``: their distinct labels
    and annotators (for the schema), then their rows cut into ``n_out`` pieces by a
    hash of the item id (one piece, uncut, when ``n_out`` is 1). A piece is a tuple
    of column arrays (item, annotator, label, number of the input partition)."""
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    src = np.repeat(np.arange(first, first + len(frames), dtype=np.int32),
                    [len(f) for f in frames])
    info = {"labels": frame[label].drop_duplicates(),
            "raters": pd.Series(pd.unique(frame[rater].dropna()))}
    cols = [frame[c].to_numpy() for c in (item, rater, label)] + [src]
    if n_out == 1 or len(frame) == 0:
        return (info, tuple(cols), *[tuple(c[:0] for c in cols)] * (n_out - 1))
    bucket = _hash_bucket(cols[0], n_out)
    small = np.uint16 if n_out < 2**16 else np.intp
    order = np.argsort(bucket.astype(small), kind="stable")  # a radix sort
    bounds = np.concatenate([[0], np.cumsum(np.bincount(bucket, minlength=n_out))])
    cols = [c[order] for c in cols]
    return (info, *[tuple(c[bounds[j]:bounds[j + 1]] for c in cols) for j in range(n_out)])


def _gather(number: int, schema: Ratings, item: Hashable,
            rater: Hashable, label: Hashable, *pieces: tuple) -> tuple[Ratings | None, dict]:
    """One output partition from its pieces: its coded chunk and what moved into it."""
    cols = [np.concatenate([p[c] for p in pieces]) if len(pieces) > 1 else pieces[0][c]
            for c in range(4)]
    rows = len(cols[0])
    if rows == 0:
        return None, {"rows": 0, "moved": 0, "bytes": 0, "items": 0, "split": 0, "ratings": 0}
    frame = pd.DataFrame({name: pd.Series(col, copy=False)
                          for name, col in zip((item, rater, label), cols, strict=False)})
    if frame[item].isna().any() or frame[rater].isna().any():
        raise ValueError("the data have missing item or annotator ids; drop those rows first.")
    src = cols[3]
    moved = int(np.count_nonzero(src != number))
    per_row = frame.memory_usage(index=False, deep=True).sum() / rows + src.itemsize
    chunk = ratings_chunk(frame, schema, item=item, rater=rater, label=label)
    # Items whose ratings came from several input partitions.
    item_codes = _positions(chunk.items, cols[0])
    lo = np.full(chunk.n_items, np.iinfo(np.int32).max, dtype=np.int32)
    hi = np.full(chunk.n_items, -1, dtype=np.int32)
    np.minimum.at(lo, item_codes, src)
    np.maximum.at(hi, item_codes, src)
    stats = {"rows": rows, "moved": moved, "bytes": int(per_row * moved),
             "items": chunk.n_items, "split": int(np.count_nonzero(lo != hi)),
             "ratings": chunk.n_ratings}
    return chunk, stats


def _positions(index: pd.Index, ids: np.ndarray) -> np.ndarray:
    """``index.get_indexer(ids)`` for ids that are all in ``index``; integer ids in a
    range at most 4 × their number by a table."""
    keys = index.to_numpy()
    if ids.dtype.kind in "iu" and keys.dtype.kind in "iu" and len(keys):
        lo, hi = int(keys.min()), int(keys.max())
        if hi - lo < max(4 * ids.size, 1 << 16):
            table = np.full(hi - lo + 1, -1, dtype=np.intp)
            table[keys.astype(np.int64) - lo] = np.arange(len(keys))
            return table[ids.astype(np.int64) - lo]
    return index.get_indexer(ids)


def _range(frame: pd.DataFrame, item: Hashable) -> tuple | None:
    ids = frame[item]
    if len(ids) == 0:
        return (None, None, 0)
    if ids.isna().any():
        return None
    return (ids.min(), ids.max(), len(ids))


def _disjoint(ranges: list) -> bool:
    """Whether the partitions' item ranges overlap nowhere (each item in one partition)."""
    spans = [r for r in ranges if r is None or r[2] > 0]
    if any(r is None for r in spans):
        return False
    try:
        spans.sort(key=lambda r: r[0])
        return all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    except TypeError:  # ids of several types: no order to rely on
        return False


#: Count pieces added up per task of the count reduction (the tree's fan-in).
FAN_IN = 8
#: Most annotators whose repeats the count reduction checks (one 64-bit mask per item).
MAX_MASK_RATERS = 64


#: Integer ids are grouped through a table over their range when it is at most this many
#: times their number (and 2**28 entries): no hashing.
DENSE_RANGE = 16


def _group_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, distinct ids)`` with ``distinct[codes] == ids``, in no particular order:
    integer ids in a range at most :data:`DENSE_RANGE` × their number through a table
    (two vectorised passes), others by ``pd.factorize``."""
    if ids.dtype.kind in "iu" and ids.size:
        lo, hi = int(ids.min()), int(ids.max())
        span = hi - lo + 1
        if span <= min(max(DENSE_RANGE * ids.size, 1 << 20), 1 << 28):
            off = (ids - lo) if lo else ids
            present = np.zeros(span, dtype=np.bool_)
            present[off] = True
            distinct = np.flatnonzero(present)
            table = np.empty(span, dtype=np.int32 if distinct.size < 2**31 else np.intp)
            table[distinct] = np.arange(distinct.size, dtype=table.dtype)
            return table[off], (distinct + lo).astype(ids.dtype, copy=False)
    codes, uniq = pd.factorize(ids, sort=False)
    return codes, np.asarray(uniq)


def _count_piece(schema: Ratings, piece: tuple) -> tuple:
    """One split piece summed by item: ``(ids, counts, masks)``, the piece's distinct item
    ids, their category counts (int32, items × categories) and which annotators rated
    each (bit j: annotator j; ``None`` beyond 64 annotators). Rows without a label
    register their item with no rating, as :meth:`Ratings.from_long` does."""
    item, rater, label = piece[0], piece[1], piece[2]
    m, k = schema.n_categories, schema.n_raters
    if len(item) == 0:
        return (item, np.zeros((0, m), dtype=np.uint8),
                None if k > MAX_MASK_RATERS else np.zeros(0, dtype=_mask_dtype(k)))
    if pd.isna(item).any() or pd.isna(rater).any():
        raise ValueError("the data have missing item or annotator ids; drop those rows first.")
    codes, ids = _group_ids(item)
    labels = pd.Series(label, copy=False)
    present = labels.notna().to_numpy()
    lab = _positions(schema.categories, labels.to_numpy())
    if np.any((lab < 0) & present):
        bad = labels.to_numpy()[(lab < 0) & present][0]
        raise ValueError(f"label {bad!r} is not among the schema's categories.")
    n = len(ids)
    ic = (codes[present] if not present.all() else codes).astype(np.intp)
    counts = np.bincount(ic * m + lab[present] if not present.all() else ic * m + lab,
                         minlength=n * m).reshape(n, m)
    masks = None
    if k <= MAX_MASK_RATERS:
        rc = _positions(schema.raters, rater)
        if np.any(rc < 0):
            raise ValueError(f"annotator {rater[rc < 0][0]!r} is not in the schema's "
                             "annotators.")
        kind = _mask_dtype(k)
        bits = np.left_shift(np.uint64(1), rc[present].astype(np.uint64)).astype(kind)
        masks = np.zeros(n, dtype=kind)
        np.bitwise_or.at(masks, ic, bits)
    return (np.asarray(ids), _narrow(counts), masks)


def _mask_dtype(k: int) -> type:
    """The narrowest unsigned integer with a bit per annotator (``k`` ≤ 64)."""
    return np.uint8 if k <= 8 else np.uint16 if k <= 16 else np.uint32 if k <= 32 \
        else np.uint64


def _narrow(counts: np.ndarray) -> np.ndarray:
    """Counts in the narrowest unsigned integer that holds them (the pieces travel)."""
    top = int(counts.max(initial=0))
    kind = np.uint8 if top < 1 << 8 else np.uint16 if top < 1 << 16 else np.int32
    return counts.astype(kind)


def _count_pieces(schema: Ratings, *pieces: tuple) -> tuple:
    """:func:`_count_piece` of each piece of one splitting task (one per bucket)."""
    return tuple(_count_piece(schema, p) for p in pieces)


def _merge_counts(*parts: tuple) -> tuple:
    """Counts of several pieces of one bucket, added up by item id."""
    parts = [p for p in parts if len(p[0])] or list(parts[:1])
    if len(parts) == 1:
        return parts[0]
    ids = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    with_masks = all(p[2] is not None for p in parts)
    codes, uniq = _group_ids(ids)
    if len(uniq) == len(ids):  # no item in two pieces
        return (ids, counts, np.concatenate([p[2] for p in parts]) if with_masks else None)
    n, m = len(uniq), counts.shape[1]
    # one weighted histogram over (item, category) cells: float64 sums of int32 counts
    # are exact (below 2**53)
    cells = (codes.astype(np.intp)[:, None] * m + np.arange(m)).ravel()
    summed = np.bincount(cells, weights=counts.ravel(), minlength=n * m).reshape(n, m)
    if summed.max(initial=0) > np.iinfo(np.int32).max:
        raise ValueError("an item has more than 2**31 - 1 ratings in one category.")
    masks = None
    if with_masks:
        bits = np.concatenate([p[2] for p in parts])
        masks = np.zeros(n, dtype=bits.dtype)
        np.bitwise_or.at(masks, codes, bits)
    return (np.asarray(uniq), _narrow(summed), masks)


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (``np.bitwise_count`` from numpy 2.0; a byte table before)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(masks).astype(np.int64)
    return _BYTE_BITS[masks.view(np.uint8).reshape(-1, 8)].sum(axis=1)


def _count_chunk(schema: Ratings, *parts: tuple) -> tuple[Ratings | None, dict]:
    """One bucket's count chunk (a :class:`Ratings` of counts, the schema's annotators)
    from its merged pieces, and its sizes; refuses an annotator who rated an item twice
    (the item's ratings outnumber its distinct annotators)."""
    ids, counts, masks = _merge_counts(*parts)
    if len(ids) == 0:
        return None, {"items": 0, "ratings": 0, "checked": masks is not None}
    per_item = counts.sum(axis=1, dtype=np.int64)
    if masks is not None and np.any(_popcount(masks) < per_item):
        raise ValueError("an annotator rated the same item more than once in this chunk.")
    chunk = Ratings(None, schema.categories, items=pd.Index(ids, name="item"),
                    raters=schema.raters, counts=counts, ordered=schema.ordered,
                    category_values=schema.category_values)
    return chunk, {"items": len(ids), "ratings": int(per_item.sum()),
                   "checked": masks is not None}


def _tree_counts(schema: Ratings, leaves: list) -> Any:
    """A bucket's count pieces added up a tree of fan-in :data:`FAN_IN`; the root codes
    the count chunk."""
    while len(leaves) > FAN_IN:
        leaves = [delayed(_merge_counts, pure=False)(*leaves[i:i + FAN_IN])
                  for i in range(0, len(leaves), FAN_IN)]
    return delayed(_count_chunk, pure=False, nout=2)(schema, *leaves)


def _read(frame, ranges, item, rater, label, categories, shuffle, npartitions,
          scheduler) -> DaskRatings:
    parts = frame.to_delayed()
    n_in = len(parts)
    grouped = shuffle is False
    if shuffle == "auto":
        if ranges is None:  # no file statistics: one pass over the item column
            ranges = list(dask.compute(*[delayed(_range)(p, item) for p in parts],
                                       scheduler=scheduler))
        grouped = _disjoint(ranges)
    if grouped:
        # Every item's ratings are in one input partition: each is its own output.
        n_out = n_in
        splits = [delayed(_split, pure=False, nout=2)(i, 1, item, rater, label, p)
                  for i, p in enumerate(parts)]
    else:
        rows = None if ranges is None or any(r is None for r in ranges) else \
            sum(r[2] for r in ranges)
        n_split = SPLITS if rows is None else max(1, -(-rows // ROWS_PER_SPLIT))
        per = -(-n_in // min(n_split, n_in))  # input partitions per splitting task
        groups = [list(range(a, min(a + per, n_in))) for a in range(0, n_in, per)]
        n_out = int(npartitions) if npartitions is not None else len(groups)
        splits = [delayed(_split, pure=False, nout=n_out + 1)(
            g[0], n_out, item, rater, label, *[parts[i] for i in g]) for g in groups]
    # The input is read once: the split pieces (the rows cut by a hash of the item id)
    # stay where they were made until the item chunks are built from them, if ever.
    splits = [list(s) for s in splits]
    flat = dask.persist(*[d for s in splits for d in s], scheduler=scheduler)
    width = len(splits[0])
    splits = [flat[i:i + width] for i in range(0, len(flat), width)]
    infos = dask.compute(*[s[0] for s in splits], scheduler=scheduler)
    # Annotators in order of first appearance over the partitions in order, as
    # Ratings.from_long on the whole table: the annotator columns (and so the random
    # starts of a latent-class fit) are then the same as in memory.
    labels = pd.concat([i["labels"] for i in infos], ignore_index=True)
    raters = pd.concat([i["raters"] for i in infos], ignore_index=True)
    schema = ratings_schema(labels, pd.unique(raters), categories=categories)
    # The count chunks: each splitting task's pieces summed by item where they are, then
    # each bucket's sums added up a tree; only these per-item counts travel.
    n_buckets = width - 1
    if n_buckets == 1:
        summed = [[delayed(_count_piece, pure=False)(schema, s[1])] for s in splits]
    else:
        summed = [list(delayed(_count_pieces, pure=False, nout=n_buckets)(schema, *s[1:]))
                  for s in splits]
    if grouped:
        roots = [_tree_counts(schema, [x[0]]) for x in summed]
    else:
        roots = [_tree_counts(schema, [x[b] for x in summed]) for b in range(n_buckets)]
    roots = [list(r) for r in roots]
    persisted = dask.persist(*[d for r in roots for d in r], scheduler=scheduler)
    stats = dask.compute(*persisted[1::2], scheduler=scheduler)
    count_chunks = [c for c, st in zip(persisted[0::2], stats, strict=True) if st["items"]]
    if not count_chunks:
        raise ValueError("the data have no rows.")
    checked = all(st["checked"] for st in stats)

    def build_items(splits=splits) -> tuple[list, ShuffleReport]:
        if grouped:
            encoded = [delayed(_gather, pure=False, nout=2)(j, schema, item, rater, label,
                                                            s[1])
                       for j, s in enumerate(splits)]
        else:
            encoded = [delayed(_gather, pure=False, nout=2)(
                j, schema, item, rater, label, *[s[1 + j] for s in splits])
                for j in range(n_out)]
        encoded = [list(e) for e in encoded]
        done = dask.persist(*[d for e in encoded for d in e], scheduler=scheduler)
        splits.clear()
        chunks_all, stat_parts = done[0::2], done[1::2]
        got = dask.compute(*stat_parts, scheduler=scheduler)
        chunks = [c for c, st in zip(chunks_all, got, strict=True) if st["rows"] > 0]
        total = {key: sum(st[key] for st in got) for key in got[0]}
        report = ShuffleReport(shuffled=not grouped, rows=total["rows"],
                               rows_moved=0 if grouped else total["moved"],
                               bytes_moved=0 if grouped else total["bytes"],
                               items=total["items"],
                               items_split=0 if grouped else total["split"],
                               partitions_in=n_in, partitions_out=n_out)
        return chunks, report

    n_parts = sum(1 for st in stats if st["items"]) if grouped else n_out
    return DaskRatings(schema, count_chunks if checked else None,
                       sum(st["items"] for st in stats), sum(st["ratings"] for st in stats),
                       build_items, n_parts, scheduler)
