"""Deprecated alias module: ``annotator_intervals`` lives in ``noise_models.latent_class``,
beside the latent-class fit it refits. ``from simulation.reliability import
annotator_intervals`` keeps working with the same function; import it from ``noise_models``.
"""

from noise_models.latent_class import annotator_intervals

__all__ = ["annotator_intervals"]
