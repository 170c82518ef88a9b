"""Simulation, the bootstrap and model cross-checks (SPEC §3).

Generators (SPEC §3)
--------------------
simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations

Bootstrap (simulation.bootstrap)
--------------------------------
bootstrap        -- intervals of any coefficients from the same resamples of items:
                    percentile, basic, BCa; multinomial or Poisson keyed by item id
                                                                   -> BootstrapResult
"""

from simulation._generators import SimulatedAnnotations, simulate_annotations
from simulation.bootstrap import BootstrapResult, bootstrap

__all__: list[str] = [
    "BootstrapResult",
    "SimulatedAnnotations",
    "bootstrap",
    "simulate_annotations",
]
