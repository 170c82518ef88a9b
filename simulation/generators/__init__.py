"""Labels with a known truth (SPEC §3, "Generators").

simulate_annotations  -- labels under the easy/hard model M1 or M2 with the hidden truth
                         (hard items, classes, annotator biases and errors, missing ratings)
                                                                   -> SimulatedAnnotations

Modules: ``_annotations`` (the generator and its result).
"""

from simulation.generators._annotations import SimulatedAnnotations, simulate_annotations

__all__: list[str] = ["SimulatedAnnotations", "simulate_annotations"]
