"""The bootstrap over items, for every coefficient (SPEC §3, "Bootstrap engine").

bootstrap        -- percentile, basic and BCa intervals of one or several coefficients from
                    the same resamples (paired); multinomial or Poisson weights keyed by item id
                                                                        -> BootstrapResult
bootstrap_rows   -- the same for statistics finalized from per-item rows the caller
                    built (e.g. a coefficient of subsets of the annotators)
                                                                        -> BootstrapResult
BootstrapResult  -- estimate, standard_error, confidence_interval, bootstrap_distribution,
                    n_degenerate, .difference(a, b), .to_frame()

Larger than memory: the Poisson bootstrap as partial -> combine -> finalize
poisson_partial  -- a chunk's distinct item rows, their counts and Poisson weight sums
poisson_combine  -- merge two chunks' parts (exact integer sums)
poisson_finalize -- the BootstrapResult from the merged parts
PoissonParts     -- what poisson_partial returns
(bootstrap(..., scheme="poisson") accepts a chunked ratings object and runs them)
"""

from typing import TYPE_CHECKING

from _goldnoise_lib.lazy import lazy_package

if TYPE_CHECKING:  # where each public name lives; loaded at first use (lazy_package)
    from simulation.bootstrap._engine import bootstrap
    from simulation.bootstrap._partial import (
        PoissonParts,
        poisson_combine,
        poisson_finalize,
        poisson_partial,
    )
    from simulation.bootstrap._result import BootstrapResult
    from simulation.bootstrap._rows import bootstrap_rows

__getattr__, __dir__ = lazy_package(__name__)

__all__ = ["BootstrapResult", "PoissonParts", "bootstrap", "bootstrap_rows", "poisson_combine",
           "poisson_finalize", "poisson_partial"]
