"""Which items are hard, which labels are wrong: the latent-class family (SPEC §2.4).

Models and fits
---------------
LatentClassModel      -- the latent-class family, one EM engine: annotators "perfect" |
                         "one-coin" | "confusion" (Dawid–Skene) | "spam" (MACE), hard
                         "free" | "marginal" | "uniform" | None    -> LatentClassFit
EasyHardModel         -- the paper's M1, LatentClassModel("perfect", "free")
LatentClassFit        -- labels, per-item posteriors, parameters; .noise_bound(alpha)
                                                                   -> FitNoiseBoundResult

How wrong the agreed labels may be
----------------------------------
agreed_error_bracket  -- optimistic (labels-only model) to pessimistic (γ) error of the
                         unanimous labels                          -> ErrorBracketResult
verified_sample_bound -- exact hypergeometric bound from a verified sample
                                                                   -> VerifiedSampleBoundResult
sample_size_needed    -- verified sample that can support a target error share -> int

Modules: ``_model`` (the model classes and the EM driver), ``_fit`` (the fit and
its γ bound), ``_bracket``, ``_verified``; ``_kernels`` holds the EM engine's
Numba kernels. Imports run ``_kernels`` <- ``_fit`` <- ``_model`` <- ``_bracket``.
"""

from noise_models.latent_class._bracket import ErrorBracketResult, agreed_error_bracket
from noise_models.latent_class._fit import FitNoiseBoundResult, LatentClassFit
from noise_models.latent_class._model import EasyHardModel, LatentClassModel
from noise_models.latent_class._verified import (
    VerifiedSampleBoundResult,
    sample_size_needed,
    verified_sample_bound,
)

__all__: list[str] = [
    "EasyHardModel",
    "ErrorBracketResult",
    "FitNoiseBoundResult",
    "LatentClassFit",
    "LatentClassModel",
    "VerifiedSampleBoundResult",
    "agreed_error_bracket",
    "sample_size_needed",
    "verified_sample_bound",
]
