"""Simulation, the bootstrap and model cross-checks (SPEC §3).

One public subpackage per topic; every public name is also importable from here.

Generators (SPEC §3)
--------------------
simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations
"""

from simulation.generators import SimulatedAnnotations, simulate_annotations

__all__: list[str] = [
    "SimulatedAnnotations",
    "simulate_annotations",
]
