"""Modules imported on first use, so that ``import agreement`` does not import Numba.

Numba's import alone costs about 0.2 s; the kernels are needed only when data
are coded or a coefficient is computed, so the modules that hold them are
loaded at their first attribute access.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["lazy_module"]


class _LazyModule:
    """Stands in for a module until one of its attributes is needed."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if attr in _LazyModule.__slots__:  # not yet set (e.g. while unpickling)
            raise AttributeError(attr)
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickled by name (a distributed worker imports the module itself).
        return lazy_module, (self._name,)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it on first attribute access.

    Examples
    --------
    >>> from _goldnoise_lib.lazy import lazy_module
    >>> json = lazy_module("json")
    >>> json.dumps([1, 2])
    '[1, 2]'
    >>> import pickle
    >>> pickle.loads(pickle.dumps(json)).dumps({"a": 1})
    '{"a": 1}'
    """
    return _LazyModule(name)
