"""Instance dependence of label noise, from soft labels (SPEC §2.8).

SoftLabels                      -- per-instance label distributions + reference labels
                                   (from an array, voters' distributions, or Ratings)
noise_rate                      -- δ, mean of 1 − p̄_i(y_i)             -> NoiseRateResult
noise_transition_heterogeneity  -- nth and the class-mean transition rows
                                                                   -> TransitionHeterogeneityResult
tv_distance                     -- total-variation distance to reference distributions
                                                                   -> TVDistanceResult
attractor_class                 -- class with the largest gain in label share, its purity
                                                                   -> AttractorResult
label_entropy                   -- entropy of the class shares      -> LabelEntropyResult
sample_hard_labels              -- one voter per instance, uniformly (the CILN protocol)
instance_dependence_report      -- all of the above in one DataFrame

Modules: ``_soft_labels`` (the input and its validation), ``_nth`` (the
statistics); ``_kernels`` holds their Numba kernels.
"""

from noise_models.instance._nth import (
    AttractorResult,
    LabelEntropyResult,
    NoiseRateResult,
    TransitionHeterogeneityResult,
    TVDistanceResult,
    attractor_class,
    instance_dependence_report,
    label_entropy,
    noise_rate,
    noise_transition_heterogeneity,
    sample_hard_labels,
    tv_distance,
)
from noise_models.instance._soft_labels import SoftLabels

__all__: list[str] = [
    "AttractorResult",
    "LabelEntropyResult",
    "NoiseRateResult",
    "SoftLabels",
    "TVDistanceResult",
    "TransitionHeterogeneityResult",
    "attractor_class",
    "instance_dependence_report",
    "label_entropy",
    "noise_rate",
    "noise_transition_heterogeneity",
    "sample_hard_labels",
    "tv_distance",
]
