"""Modules and public names imported on first use.

Numba's import alone costs about 0.2 s; the kernels are needed only when data
are coded or a coefficient is computed, so the modules that hold them are
loaded at their first attribute access (:func:`lazy_module`). Each package's
``__init__`` loads its public names the same way (:func:`lazy_package`, PEP 562):
``import goldnoise`` then imports none of the modules below it, and a command
imports only those it uses.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["lazy_module", "lazy_package"]


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


def _origins(package: str, source: str) -> dict[str, tuple[str, str | None]]:
    """Each name the ``if TYPE_CHECKING:`` block of a package's ``__init__`` imports:
    ``name -> (module, attribute)``, attribute None for a submodule of the package."""
    import ast

    out: dict[str, tuple[str, str | None]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if not isinstance(stmt, ast.ImportFrom) or stmt.level or not stmt.module:
                continue
            for alias in stmt.names:
                if alias.name == "*":
                    out.update((n, (stmt.module, n)) for n in _star_names(stmt.module))
                elif stmt.module == package:  # `from package import submodule`
                    out[alias.asname or alias.name] = (f"{package}.{alias.name}", None)
                else:
                    out[alias.asname or alias.name] = (stmt.module, alias.name)
    return out


def _star_names(module: str) -> list[str]:
    """The names ``from module import *`` brings: a top-level package's (or an imported
    module's) ``__all__``; a subpackage's read from its ``__init__``'s declaration, so
    that importing a package does not load its subpackages' ``__init__`` files."""
    if "." in module and module not in sys.modules:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            with open(spec.origin, encoding="utf-8") as f:
                names = [n for n in _origins(module, f.read()) if not n.startswith("_")]
            if names:
                return names
    return list(importlib.import_module(module).__all__)


class _LazyPackage(ModuleType):
    """A package whose public names load at first use (see :func:`lazy_package`)."""

    def __setattr__(self, attr: str, value: Any) -> None:
        # Importing a subpackage binds it on its parent; a public name that the
        # subpackage shares (``simulation.crosscheck``, the function, and its
        # subpackage) stays the public object.
        origin = self.__dict__.get("_lazy_origins", {}).get(attr)
        if isinstance(value, ModuleType) and origin is not None and origin[1] is not None:
            return  # before or after the name's first use
        super().__setattr__(attr, value)


def lazy_package(name: str
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` of package ``name`` (PEP 562): the names
    that the ``if TYPE_CHECKING:`` block of its ``__init__`` imports load at first
    access, and they are the package's ``__all__``.

    The block is the package's one declaration of its public names and where each
    lives (type checkers and readers see ordinary imports): ``__all__`` is its
    names in the order imported, without duplicates, a star import
    (``from package.child import *``) bringing the child's whole ``__all__`` -- so
    a parent takes its children's names. At run time nothing below the package is
    imported until a name is used (a star import reads the child's ``__init__``
    only), so ``import goldnoise`` costs milliseconds and a command imports only
    the modules it calls. ``dir()``, ``from package import *`` and ``from package
    import name`` work as with eager imports.

    Examples
    --------
    >>> import agreement
    >>> "Ratings" in dir(agreement)
    True
    >>> agreement.Ratings.__module__
    'agreement._ratings'
    """
    module = sys.modules[name]
    with open(module.__file__, encoding="utf-8") as f:  # type: ignore[arg-type]
        origins = _origins(name, f.read())
    module.__dict__["_lazy_origins"] = origins
    module.__class__ = _LazyPackage

    def __getattr__(attr: str) -> Any:
        try:
            where, what = origins[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None
        value = importlib.import_module(where)
        if what is not None:
            value = getattr(value, what)
        module.__dict__[attr] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | set(origins))

    return __getattr__, __dir__, [n for n in origins if not n.startswith("_")]
