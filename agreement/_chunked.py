"""Ratings held in chunks: the protocol an engine implements to feed the public functions.

A chunked ratings object (e.g. ``goldnoise.dask.read_ratings``) holds every
rating of an item in one chunk, and offers

* ``schema``: a :class:`~agreement.Ratings` with no items that declares the
  categories (codes, values, order) and the annotators shared by all chunks;
* ``map_reduce(partial, combine)``: apply ``partial`` to each chunk (a
  :class:`~agreement.Ratings` coded with the schema) and fold the results
  with ``combine``; the engine decides where and in which tree order;
* optionally ``map_reduce_counts(partial, combine)``: the same over chunks
  that hold only each item's category counts (a :class:`~agreement.Ratings`
  without annotator identity, ``codes`` None), which an engine can sum up
  a tree without bringing an item's ratings together. The count-table
  statistics (percent agreement, Fleiss, Scott, Brennan–Prediger, Gwet,
  Krippendorff's α) use it when it is there, ``map_reduce`` otherwise.

The public functions (:func:`~agreement.fleiss_kappa`, …) recognise such an
object by duck typing (:func:`is_chunked`) and run partial → combine →
finalize through it (:mod:`agreement._partial`) instead of the in-memory
computation; each imports both implementations and chooses
(:mod:`agreement._api`, :mod:`agreement._table`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from agreement._ratings import Ratings

__all__ = ["ChunkedRatings", "is_chunked"]

T = TypeVar("T")


@runtime_checkable
class ChunkedRatings(Protocol):
    """What an engine's lazy ratings object provides (see the module docstring)."""

    @property
    def schema(self) -> Any: ...

    def map_reduce(self, partial: Callable[[Any], T], combine: Callable[[T, T], T]) -> T: ...


def is_chunked(obj: Any) -> bool:
    """Whether ``obj`` is a chunked ratings object (and not in-memory data)."""
    return (not isinstance(obj, Ratings) and callable(getattr(obj, "map_reduce", None))
            and isinstance(getattr(obj, "schema", None), Ratings))

