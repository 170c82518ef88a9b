"""The bootstrap over items, for every coefficient (SPEC §3, "Bootstrap engine").

bootstrap        -- percentile, basic and BCa intervals of one or several coefficients from
                    the same resamples (paired); multinomial or Poisson weights keyed by item id
                                                                        -> BootstrapResult
BootstrapResult  -- estimate, standard_error, confidence_interval, bootstrap_distribution,
                    n_degenerate, .difference(a, b), .to_frame()
"""

from simulation.bootstrap._engine import bootstrap
from simulation.bootstrap._result import BootstrapResult

__all__ = ["BootstrapResult", "bootstrap"]
