"""Ratings held in chunks: the protocol an engine implements to feed the public functions.

A chunked ratings object (e.g. ``goldnoise.dask.read_ratings``) holds every
rating of an item in one chunk, and offers

* ``schema``: a :class:`~agreement.Ratings` with no items that declares the
  categories (codes, values, order) and the annotators shared by all chunks;
* ``map_reduce(partial, combine)``: apply ``partial`` to each chunk (a
  :class:`~agreement.Ratings` coded with the schema) and fold the results
  with ``combine``; the engine decides where and in which tree order.

The public functions (:func:`~agreement.fleiss_kappa`, …) recognise such an
object by duck typing and run partial → combine → finalize through it
(:mod:`agreement._partial`). This module sits at the bottom of the package so
that the coefficient modules can dispatch without importing the partial core:
the core registers its runner here when :mod:`agreement` is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from agreement._ratings import Ratings

__all__ = ["ChunkedRatings", "is_chunked", "register_runner", "run_chunked"]

T = TypeVar("T")


@runtime_checkable
class ChunkedRatings(Protocol):
    """What an engine's lazy ratings object provides (see the module docstring)."""

    @property
    def schema(self) -> Any: ...

    def map_reduce(self, partial: Callable[[Any], T], combine: Callable[[T, T], T]) -> T: ...


_RUNNERS: dict[str, Callable[..., Any]] = {}


def is_chunked(obj: Any) -> bool:
    """Whether ``obj`` is a chunked ratings object (and not in-memory data)."""
    return (not isinstance(obj, Ratings) and callable(getattr(obj, "map_reduce", None))
            and isinstance(getattr(obj, "schema", None), Ratings))


def register_runner(name: str, fn: Callable[..., Any]) -> None:
    _RUNNERS[name] = fn


def run_chunked(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call the registered runner ``name`` (``"coefficient"``, ``"alpha"``, ``"table"``)."""
    return _RUNNERS[name](*args, **kwargs)
