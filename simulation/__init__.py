"""Simulation, the bootstrap and model cross-checks (SPEC §3).

Generators (SPEC §3)
--------------------
simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations
"""

from simulation._generators import SimulatedAnnotations, simulate_annotations

__all__: list[str] = [
    "SimulatedAnnotations",
    "simulate_annotations",
]
