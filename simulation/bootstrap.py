"""Deprecated alias module: the bootstrap lives in ``agreement`` (resampled by the core below
every package, ``_goldnoise_lib.resampling``). ``from simulation.bootstrap import ...`` keeps
working with the same objects; import them from ``agreement``.
"""

from agreement import (
    BootstrapResult,
    PoissonParts,
    bootstrap,
    bootstrap_rows,
    poisson_combine,
    poisson_finalize,
    poisson_partial,
)

__all__ = ["BootstrapResult", "PoissonParts", "bootstrap", "bootstrap_rows", "poisson_combine",
           "poisson_finalize", "poisson_partial"]
