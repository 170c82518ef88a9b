"""When a kernel's parallel build pays, for every package.

Numba kernels that loop over items are compiled twice, serial and
``parallel=True``; small inputs take the serial build because starting the
thread team costs more than it saves. The thresholds are counts of cells
(items × annotators, or items × categories) and live here once, so every
package switches at the same size.

:func:`serial_and_parallel` makes the two builds. Numba's on-disk cache names a
compiled kernel by its Python function (module, qualified name, first line) and
its argument types, not by its compile options: two builds of one function would
share cache entries, and a process could load the parallel build where it asked
for the serial one (or the reverse). The parallel build is therefore compiled
from a twin of the function under its own name, and each build has its own cache.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["HISTOGRAM_PARALLEL_CELLS", "PARALLEL_SUFFIX", "PARALLEL_THRESHOLD",
           "kernel_input", "serial_and_parallel", "use_parallel"]

#: Appended to a kernel's name for its parallel build (and so to its cache files).
PARALLEL_SUFFIX = "__parallel"

#: Below this many cells a per-item kernel runs serially.
PARALLEL_THRESHOLD = 200_000

#: Histograms of rating patterns cost well under a nanosecond per cell: below this
#: many cells waking the thread pool costs more than it saves.
HISTOGRAM_PARALLEL_CELLS = 1_000_000


def use_parallel(cells: int, parallel: bool | None = None,
                 threshold: int = PARALLEL_THRESHOLD) -> bool:
    """The parallel build for ``cells`` ≥ ``threshold`` unless ``parallel`` says otherwise."""
    return cells >= threshold if parallel is None else bool(parallel)


def _twin(fn: Callable, suffix: str) -> Callable:
    # The same code, globals and defaults under another name: a distinct function
    # for Numba's cache, identical arithmetic.
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix,
                              fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + suffix
    twin.__module__ = fn.__module__
    twin.__kwdefaults__ = fn.__kwdefaults__
    twin.__doc__ = fn.__doc__
    return twin


def serial_and_parallel(impl: Callable, **options: Any) -> tuple[Any, Any]:
    """``(serial, parallel)`` Numba builds of ``impl`` (``prange`` is ``range`` in the first).

    Both are ``njit(cache=True, **options)``; the parallel one is compiled from a
    twin of ``impl`` named ``impl.__name__ + PARALLEL_SUFFIX``, so the two never
    share a cache entry (see the module docstring). Nothing compiles here.
    """
    from numba import njit

    options = {"cache": True, **options}
    return (njit(**options)(impl),
            njit(parallel=True, **options)(_twin(impl, PARALLEL_SUFFIX)))


def kernel_input(a: Any, dtype: Any = None) -> Any:
    """A C-contiguous, read-only view of ``a`` (cast to ``dtype`` when given) for a
    kernel's input argument.

    Numba compiles one specialisation per argument *type*, and a read-only array is
    another type than a writable one: a kernel called with the category values of a
    pandas Index (read-only) and with a computed array (writable) compiled twice, for
    seconds each. A read-only view costs no copy; a kernel never writes its inputs.
    """
    import numpy as np

    a = np.ascontiguousarray(a, dtype=dtype)
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view

