"""When a kernel's parallel build pays, for every package.

Numba kernels that loop over items are compiled twice, serial and
``parallel=True``; small inputs take the serial build because starting the
thread team costs more than it saves. The thresholds are counts of cells
(items × annotators, or items × categories) and live here once, so every
package switches at the same size.
"""

from __future__ import annotations

__all__ = ["HISTOGRAM_PARALLEL_CELLS", "PARALLEL_THRESHOLD", "use_parallel"]

#: Below this many cells a per-item kernel runs serially.
PARALLEL_THRESHOLD = 200_000

#: Histograms of rating patterns cost well under a nanosecond per cell: below this
#: many cells waking the thread pool costs more than it saves.
HISTOGRAM_PARALLEL_CELLS = 1_000_000


def use_parallel(cells: int, parallel: bool | None = None,
                 threshold: int = PARALLEL_THRESHOLD) -> bool:
    """The parallel build for ``cells`` ≥ ``threshold`` unless ``parallel`` says otherwise."""
    return cells >= threshold if parallel is None else bool(parallel)
